"""backends/numba/cold_records.py: checks inside checked copies (a versioned loop's, a versioned
body's) compile as their `_cold` twins, whose records are calls of one record function; checks
on the paths that run keep theirs inline (the tree only: test_numba_ptx compiles it, the GPU
tests run it)."""
import ast

from safekern.backends.numba.cold_records import compile_form
from tests.support.rewrites import rewrite


def test_a_versioned_loops_checked_copy_and_nothing_else(tmp_path):
    rw = rewrite(tmp_path, """
        def k(out, a, n, idx):
            i = cuda.grid(1)
            if i < out.shape[0]:
                acc = a[i, idx[i]]
                for k in range(n):
                    acc += a[i, k]
                out[i] = acc
    """)
    tree = compile_form(rw.tree)
    [versioned] = [n for n in ast.walk(tree) if isinstance(n, ast.If) and
                   isinstance(n.orelse[:1] and n.orelse[0], ast.For)]
    fast, checked = versioned.body[0], versioned.orelse[0]

    def calls(node):
        return [c.func.id for c in ast.walk(node)
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
    # (the checked copy's checks end the thread: their `_exit_cold` twins)
    assert any(n.startswith("_sk_load") and n.endswith("_cold") for n in calls(checked))
    assert not any(n.endswith("_cold") for n in calls(fast))
    # a[i, idx[i]] before the loop runs: its record stays inline
    cold = [n for n in calls(tree) if n.endswith("_cold")]
    assert len(cold) == len([n for n in calls(checked) if n.endswith("_cold")])
    assert [n for n in calls(tree) if n.startswith("_sk_load") and not n.endswith("_cold")]
    assert "_cold(" not in ast.unparse(rw.tree)               # the rewrite stays as it was


def test_a_versioned_bodys_else_branch(tmp_path):
    rw = rewrite(tmp_path, """
        def f(a, b, i, j):
            x = a[i] + b[j]
            y = a[i + 1] * b[j + 1]
            return x + y + a[i + 2]
    """, name="f", device=True)
    fn = compile_form(rw.tree).body[0]
    [branch] = fn.body
    assert any("_sk_load_cold(" in ast.unparse(s) for s in branch.orelse)
    assert not any("_cold(" in ast.unparse(s) for s in branch.body)


def test_nothing_versioned_nothing_changed(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, idx, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[idx[i]]
    """)
    assert compile_form(rw.tree) is rw.tree
