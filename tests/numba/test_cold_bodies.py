"""A versioned body's checked copy outlined from a device function numba inlines
(backends/numba/cold_bodies.py): the tree numba compiles, and which functions it is done for.
Its PTX (one outlined function, called from each inlined copy) is in test_numba_ptx.py; running
both copies, on the simulator and a GPU, in test_body_versioning.py."""
import ast

from safekern.backends.numba import cold_bodies
from tests.support.rewrites import rewrite

CORNERS = """
    def g(Fr, Ft, Fz, iz, ir, w):
        acc = 0.0
        acc += w * Fr[iz, ir]
        acc += w * Ft[iz, ir + 1]
        acc += w * Fz[iz - 1, ir]
        if ir == 0:
            return acc + Fr[iz, 0]
        return acc
"""


def test_the_checked_copy_becomes_a_function_of_its_own(tmp_path):
    rw = rewrite(tmp_path, CORNERS, "g", device=True)
    before = ast.dump(rw.tree)
    tree, name = cold_bodies.outline(rw.tree)
    assert name == "_sk_cold_g" and ast.dump(rw.tree) == before       # (a copy is edited)
    fn, cold = tree.body
    params = [a.arg for a in fn.args.args]
    # (the call chain last: frontend/python/call_chain.py)
    assert params[-3:] == ["_sk_fb", "_sk_flag", "_sk_cs"]
    # the else: the outlined function called with every parameter as it came in, the flag
    # array a copy (the caller's stays in a register: no call takes its address)
    versioned = fn.body[0]
    passed = ", ".join(params[:-2] + ["_sk_cold_flag", "_sk_cs"])
    assert ast.unparse(versioned.orelse).splitlines() == [
        "_sk_cold_flag = _sk_flag_array()", "_sk_cold_flag[0] = _sk_flag[0]",
        f"_sk_cold_value = _sk_cold_g({passed})", "_sk_flag[0] = _sk_cold_flag[0]",
        "return _sk_cold_value"]
    # ... which holds the checked body, first marked not to be inlined by NVVM
    assert [a.arg for a in cold.args.args] == params
    assert ast.unparse(cold.body[0]) == "_sk_noinline()"
    original = next(s for s in ast.parse(ast.unparse(rw.tree)).body[0].body
                    if isinstance(s, ast.If))
    assert ast.unparse(cold.body[1:]) == ast.unparse(original.orelse)
    assert "_sk_load(" in ast.unparse(cold) and "_sk_load(" not in ast.unparse(versioned.body)
    compile(tree, "<outlined>", "exec")            # (what the backend execs)


def test_a_function_without_a_versioned_body_is_left_as_it_is(tmp_path):
    rw = rewrite(tmp_path, """
        def g(a, i):
            return a[i] + a[i + 1]
    """, "g", device=True)
    assert cold_bodies.outline(rw.tree) == (rw.tree, None)


def test_only_device_functions_numba_inlines_are_outlined():
    options = {"inline": "always", "fastmath": True, "lineinfo": True, "link": ["f.cu"],
               "debug": False, "opt": True}
    assert cold_bodies.options_for(True, options) == {
        "device": True, "inline": "never", "fastmath": True, "lineinfo": True, "debug": False,
        "opt": True}                                 # (the `link` files: once, with the function)
    assert cold_bodies.options_for(True, {"inline": True}) == {"device": True, "inline": "never"}
    assert cold_bodies.options_for(True, {}) is None                  # not inlined: one copy
    assert cold_bodies.options_for(True, {"inline": "never"}) is None
    assert cold_bodies.options_for(False, {"inline": "always"}) is None   # a kernel
