"""backends/numba/cold_body.py: a versioned body's checked copy as a function of its own (the
tree only; test_numba_ptx and test_body_versioning compile and run it)."""
import ast

from safekern.backends.numba.cold_body import PREFIX, outline
from tests.support.rewrites import rewrite

VERSIONED = """
    def f(a, b, i, j):
        x = a[i] + b[j]
        y = a[i + 1] * b[j + 1]
        return x + y + a[i + 2]
"""


def test_the_else_branch_calls_the_checked_copy_with_the_parameters(tmp_path):
    rw = rewrite(tmp_path, VERSIONED, name="f", device=True)
    before = ast.unparse(rw.tree)
    tree, checked = outline(rw.tree, "f")
    assert ast.unparse(rw.tree) == before                 # (a copy: the rewrite stays)
    fn = tree.body[0]
    [branch] = fn.body
    assert ast.unparse(branch.orelse[0]) == \
        f"return {PREFIX}f(a, b, i, j, _sk_fb, _sk_flag)"
    helper = checked.body[0]
    assert helper.name == PREFIX + "f" and [a.arg for a in helper.args.args] == \
        ["a", "b", "i", "j", "_sk_fb", "_sk_flag"]
    assert ast.unparse(helper.body[0]) == "_sk_noinline()"
    # the checked copy is the rewrite's else branch, as it was
    orig_else = rewrite(tmp_path, VERSIONED, name="f", device=True).tree.body[0].body[0].orelse
    assert [ast.unparse(s) for s in helper.body[1:]] == [ast.unparse(s) for s in orig_else]
    compile(checked, "<checked>", "exec")
    compile(tree, "<f>", "exec")


def test_nothing_to_outline_without_a_versioned_body(tmp_path):
    rw = rewrite(tmp_path, """
        def f(a, i):
            return a[i]
    """, name="f", device=True)
    tree, checked = outline(rw.tree, "f")
    assert checked is None and tree is rw.tree


def test_defaults_keep_the_body_in_place(tmp_path):
    rw = rewrite(tmp_path, VERSIONED.replace("i, j):", "i, j=0):"), name="f", device=True)
    assert outline(rw.tree, "f")[1] is None
