"""Versioned loops' checked copies marked cold for the compile (frontend/python/cold_loops.py):
`_sk_cold()` first in each copy that holds a check and sits in no other loop, in a copy of the
tree; the rewrite itself (its source) is left as it was. Front end only; the PTX it makes is in
tests/numba/test_numba_ptx.py."""
import ast

from safekern.frontend.python import mark_cold, names
from tests.support.rewrites import rewrite

ONE_LOOP = """
    def k(indptr, data, y):
        row = cuda.grid(1)
        if row < y.shape[0]:
            acc = 0
            for k in range(indptr[row], indptr[row + 1]):
                acc += data[k]
            y[row] = acc
"""

NESTED = """
    def k(a, out, n, m):
        i = cuda.grid(1)
        if i < out.shape[0]:
            acc = 0
            for r in range(n):
                for c in range(m):
                    acc += a[r, c]
            out[i] = acc
"""


def _cold_markers(tree) -> list:
    """(line of the loop, its first statement is the marker) for every For."""
    return [(n.lineno, ast.unparse(n.body[0]) == f"{names.COLD}()")
            for n in ast.walk(tree) if isinstance(n, ast.For)]


def test_the_checked_copy_of_a_loop_starts_with_the_marker(tmp_path):
    rw = rewrite(tmp_path, ONE_LOOP)
    marked = mark_cold(rw.tree)
    loops = _cold_markers(marked)
    assert sorted(first for _, first in loops) == [False, True]   # the fast copy, the checked one
    checked = [n for n in ast.walk(marked) if isinstance(n, ast.For) and
               ast.unparse(n.body[0]) == f"{names.COLD}()"][0]
    assert "_sk_load_exit(data," in ast.unparse(checked)      # (ends the thread: exit_mode.py)


def test_the_rewrite_itself_is_unchanged(tmp_path):
    rw = rewrite(tmp_path, ONE_LOOP)
    before = ast.unparse(rw.tree)
    marked = mark_cold(rw.tree)
    assert marked is not rw.tree
    assert ast.unparse(rw.tree) == before
    assert names.COLD not in before


def test_a_copy_inside_another_loop_is_not_marked(tmp_path):
    # LLVM would keep the outer loop rolled too, and the fast copy with it
    rw = rewrite(tmp_path, NESTED)
    assert "_sk_load_exit(a," in ast.unparse(rw.tree)     # versioned, with a checked copy
    assert mark_cold(rw.tree) is rw.tree


BOUNDED_BY_A_PARAMETER = """
    def k(data, y, n):
        row = cuda.grid(1)
        if row < y.shape[0]:
            acc = 0
            for k in range(n):
                acc += data[k]
            y[row] = acc
"""


def test_a_copy_without_checks_is_not_marked(tmp_path):
    # the launch variant proves the loop's access at launch (n <= data.shape[0]): no loop of
    # it holds a check, the kernel's checked copy does
    rw = rewrite(tmp_path, BOUNDED_BY_A_PARAMETER, launch_predicates=True)
    assert mark_cold(rw.tree) is not rw.tree
    variant = rw.launch_variant.tree
    assert "_sk_load" not in ast.unparse(variant)
    assert mark_cold(variant) is variant
