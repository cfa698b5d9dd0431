"""backends/numba/flag_reads.py: the tree numba compiles for a GPU reads the flag and the failure
buffer through intrinsics, and means what the rewrite means (front end and the pass only; the
PTX tests and the GPU tests compile and run it)."""
import ast

from safekern.backends.numba.flag_reads import compile_form
from tests.support.rewrites import rewrite


def _forms(tmp_path, body, **kw):
    rw = rewrite(tmp_path, body, **kw)
    before = ast.unparse(rw.tree)
    after = ast.unparse(compile_form(rw.tree))
    assert ast.unparse(rw.tree) == before          # the rewrite itself is left as it was
    return before, after


def test_the_prelude_and_the_skip_are_intrinsics(tmp_path):
    before, after = _forms(tmp_path, """
        def k(x, idx, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = x[idx[i]]
    """)
    assert "_sk_pend = _sk_fb[0]" in before and "_sk_skip(_sk_fb)" in before
    assert "_sk_pend = _sk_pending(_sk_fb)" in after
    assert "_sk_fb[0]" not in after and "_sk_skip(" not in after
    # each `if _sk_pend != 0: _sk_skip(_sk_fb); return` (the guard's and its else's) is one
    # statement that tests, counts the skip and ends the thread itself
    assert after.count("_sk_skip_exit(_sk_fb, _sk_pend)") == before.count("_sk_skip(_sk_fb)") >= 1
    assert "_sk_pend !=" not in after
    assert "_sk_flag = _sk_flag_clear()" in after and "_sk_flag[0] = 0" not in after
    assert "_sk_flag_array()" not in after


def test_flag_tests_are_intrinsics_but_a_barriers_int_stays_numbas(tmp_path):
    before, after = _forms(tmp_path, """
        def k(a, out, n):
            t = cuda.shared.array(32, float32)
            i = cuda.threadIdx.x
            t[i] = a[i * n]
            cuda.syncthreads()
            out[i] = t[31 - i]
    """)
    assert "syncthreads_or(_sk_flag[0])" in before
    assert "syncthreads_or(_sk_flag[0])" in after        # (an int: numba's getitem)
    assert "_sk_flag[0]" not in after.replace("syncthreads_or(_sk_flag[0])", "")


def test_a_device_function_has_no_prelude_to_change(tmp_path):
    # (its flag and buffer are parameters: made and cleared by the kernel)
    before, after = _forms(tmp_path, """
        def f(a, b, i, j):
            for k in range(i):
                b[k] = a[k * j]
            return b[i]
    """, name="f", device=True)
    assert after == before


def test_conditions_under_not_and_boolean_operators():
    tree = ast.parse("def k(_sk_fb, _sk_flag):\n"
                     "    if not _sk_flag[0] and x:\n        y = 1\n"
                     "    while _sk_flag[0] or z:\n        pass\n"
                     "    w = 1 if not _sk_flag[0] else 2\n"
                     "    v = _sk_flag[0] + 1\n")
    text = ast.unparse(compile_form(tree))
    assert "if not _sk_failed(_sk_flag) and x:" in text
    assert "while _sk_failed(_sk_flag) or z:" in text
    assert "1 if not _sk_failed(_sk_flag) else 2" in text
    assert "v = _sk_flag[0] + 1" in text                  # not a condition: numba's
