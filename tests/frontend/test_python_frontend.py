"""The Python front end without running kernels: rewritten source (golden), failure table,
decoration-time errors naming file:line, and the off switch."""

import pytest

from tests.support.checks import load_kernel_module

import safekern
from safekern.failures import TABLE
from tests.support.settings import set_safekern


def load_module(tmp_path, source, name="user_kernels"):
    module = load_kernel_module(tmp_path, source, name)
    return module, module.__file__


GATHER = """
from numba import cuda
import safekern

@safekern.jit
def gather(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = src[idx[i]]
"""


def _codes(src):
    import re
    return [int(c) for c in re.findall(r"\b(\d{6,})\b", src)]


def test_golden_gather(tmp_path):
    module, path = load_module(tmp_path, GATHER)
    src = module.gather.rewritten_source
    codes = _codes(src)
    golden = f"""\
def gather(out, src, idx, _sk_fbp):
    _sk_fb = _sk_buffer(_sk_fbp)
    _sk_pend = _sk_fb[0]
    _sk_flag = _sk_flag_array()
    _sk_flag[0] = 0
    i = cuda.grid(1)
    if i < out.shape[0]:
        if _sk_pend != 0:
            _sk_skip(_sk_fb)
            return
        _sk_put(out, i, _sk_load(src, _sk_load(idx, i, {codes[0]}, _sk_fb, _sk_flag), {codes[1]}, _sk_fb, _sk_flag), _sk_flag)
        if _sk_flag[0]:
            return
    elif _sk_pend != 0:
        _sk_skip(_sk_fb)
        return"""
    # out[i] is proven by the guard: no bounds check, but no store after a failed load either;
    # a failure pending from an earlier launch is read at entry, tested before the first store
    # (pending.py), on every path
    assert src == golden


def test_failure_table_entries(tmp_path):
    module, path = load_module(tmp_path, GATHER, "gather_table")
    sites = {s.array: TABLE.lookup(s.code) for s in module.gather.rewritten.sites}
    assert set(sites) == {"idx", "src", "out"}
    src_site = sites["src"]
    assert (src_site.kernel, src_site.filename, src_site.lineno, src_site.axis) == (
        "gather", path, 9, 0)
    line = src_site.source_line
    assert line[src_site.col:src_site.end_col] == "idx[i]"
    report = [r for r in module.gather.check_report() if r["kind"] != "race"]
    assert {r["array"] for r in report} == {"idx", "src", "out"}
    assert all(r["line"] == 9 for r in report)
    status = {r["array"]: (r["status"], r["reason"]) for r in report}
    assert status["src"] == ("checked", "")
    # idx[i] under i < out.shape[0]: no check in launches where idx is as long as out
    assert status["idx"] == ("proven at launch", "if idx.shape[0] >= out.shape[0]")
    assert status["out"] == ("eliminated", "proved by the guard at line 8")


def test_codes_are_stable_across_processes(tmp_path):
    module, _ = load_module(tmp_path, GATHER, "stable_a")
    again, _ = load_module(tmp_path, GATHER, "stable_a")
    assert [s.code for s in module.gather.rewritten.sites] == \
        [s.code for s in again.gather.rewritten.sites]


def test_augassign_evaluates_index_once(tmp_path):
    module, _ = load_module(tmp_path, """
        from numba import cuda
        import safekern

        @safekern.jit
        def k(out, idx, ctr):
            out[idx[cuda.atomic.add(ctr, 0, 1)]] += 1.0
    """, "aug")
    src = module.k.rewritten_source
    assert src.count("_sk_atomic_add(") == 1
    assert "_sk_t" in src          # the index went into a temporary


def test_barrier_kernel_rewrite(tmp_path):
    module, _ = load_module(tmp_path, """
        from numba import cuda, float32
        import safekern

        @safekern.jit
        def reduce(out, a):
            s = cuda.shared.array(64, float32)
            t = cuda.threadIdx.x
            s[t] = a[cuda.grid(1)]
            cuda.syncthreads()
            stride = 32
            while stride > 0:
                if t < stride:
                    s[t] += s[t + stride]
                cuda.syncthreads()
                stride //= 2
            if t == 0:
                out[cuda.blockIdx.x] = s[0]
    """, "barrier_kernel")
    src = module.reduce.rewritten_source
    assert "cuda.syncthreads()" not in src
    assert src.count("if _sk_cuda.syncthreads_or(_sk_flag[0]):\n") == 2
    assert "if not _sk_flag[0]:" in src          # skip ahead to the next barrier
    assert module.reduce.has_barriers


@pytest.mark.parametrize("body,problem,line", [
    ("    x = [a[j] for j in range(3)]\n", "comprehension", 7),
    ("    del a[0]\n", "deleting a subscript", 7),
    ("    for a[0] in range(3):\n        pass\n", "for-loop target", 7),
    ("    _sk_x = 1\n", "reserved", 7),
])
def test_unsupported_constructs_fail_at_decoration(tmp_path, body, problem, line):
    source = ("from numba import cuda\nimport safekern\n\n\n@safekern.jit\ndef bad(a):\n"
              + body)
    with pytest.raises(safekern.CompilationError) as info:
        load_module(tmp_path, source, "bad_kernel")
    err = info.value
    assert problem in str(err)
    assert err.lineno == line
    assert f"bad_kernel.py:{line}" in str(err)
    assert err.source_line.strip() and "^" in str(err)


def test_kernel_without_source_runs_unchecked_with_a_warning():
    # (What it then does: tests/compat/test_numba_compat.py.)
    namespace = {}
    exec("def k(a):\n    a[0] = 1\n", namespace)
    with pytest.warns(safekern.UncheckedWarning, match="source cannot be found"):
        kernel = safekern.jit(namespace["k"])
    assert kernel.check_report()[0]["status"] == "unchecked"


def test_off_switch_returns_numbas_dispatcher(tmp_path, monkeypatch):
    set_safekern(monkeypatch, CHECKS="0")
    module, _ = load_module(tmp_path, GATHER, "off_switch")
    from numba import cuda

    plain = cuda.jit(lambda a: None)
    assert type(module.gather) is type(plain)
    assert safekern.sync() is None
    # its check_report() still answers, as a checked kernel's does (code that logs reports
    # keeps working with the off switch): nothing is checked
    report = module.gather.check_report()
    assert not report.checks and len(report) == 0 and "checks are off" in str(report)


def test_plain_numba_device_function_call_warns(tmp_path):
    module, path = load_module(tmp_path, """
        from numba import cuda
        import numpy as np
        import safekern

        @cuda.jit(device=True)
        def helper(a, i):
            return a[i]

        @safekern.jit
        def k(out, a):
            out[0] = helper(a, 0)
    """, "plain_dev")
    import numpy as np

    # safekern.UncheckedWarning, so that simplefilter("error", UncheckedWarning) catches it
    with pytest.warns(safekern.UncheckedWarning, match="plain numba device function"):
        module.k[1, 1](np.zeros(1, np.float32), np.ones(1, np.float32))
    safekern.sync()


# -- a bug in a pass is reported where it happened ------------------------------------------

def test_an_internal_error_in_the_checking_rewrite_names_the_access(tmp_path, monkeypatch):
    from safekern.frontend.python import checks

    def broken(self, kind, subscript_value, index, node):
        raise KeyError("no such thing")

    monkeypatch.setattr(checks._Context, "register", broken)
    with pytest.raises(safekern.InternalError) as info:
        load_module(tmp_path, GATHER, name="broken_rewrite")
    err = info.value
    text = str(err)
    assert err.filename.endswith("broken_rewrite.py") and err.lineno == 9
    assert "internal error in safekern" in text and "KeyError" in text and "'gather'" in text
    assert "out[i] = src[idx[i]]" in text and "^" in text
    assert isinstance(err.__cause__, KeyError)


def test_an_internal_error_in_elimination_names_the_kernel(tmp_path, monkeypatch):
    from safekern.frontend.python import eliminate

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(eliminate, "eliminate_checks", broken)
    mod, _ = load_module(tmp_path, GATHER, name="broken_elimination")  # (a kernel's decoration
    with pytest.raises(safekern.InternalError) as info:               # only checks it: the
        mod.gather.check_report()                                     # rewrite, when needed)
    err = info.value
    assert err.kernel == "gather" and err.filename.endswith("broken_elimination.py")
    assert err.lineno == 6                      # the def line: no finer place is known
    assert "ZeroDivisionError: a bug" in str(err) and "def gather" in str(err)
    assert isinstance(err, safekern.CompilationError)


ROWS_OF_LOCAL = """
from numba import cuda, int32
import safekern

@safekern.jit
def table(out, p):
    vec = cuda.local.array((4, 2), int32)
    vec[0][0] = vec[1][1] = 1
    vec[2][0] = -1
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = p[i] + vec[i % 4][0]
"""


def test_pending_test_after_stores_into_rows_of_a_local_array(tmp_path):
    # vec[k][0] = v writes the thread's own local array (a row of it): harmless before the
    # pending test, which then comes after them. In front of them, LLVM could not fold the
    # table's stores into one (Perlin noise's `vec`: two local stores more a thread).
    module, _ = load_module(tmp_path, ROWS_OF_LOCAL, "rows_of_local")
    lines = [line.strip() for line in module.table.rewritten_source.splitlines()]
    test = lines.index("if _sk_pend != 0:")
    assert max(k for k, line in enumerate(lines) if line.startswith("vec[")) < test
