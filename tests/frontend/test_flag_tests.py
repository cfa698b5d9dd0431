"""A kernel's flag tests that nothing able to set the flag comes before are left out
(frontend/python/flag_tests.py): after checks that end the thread (`_exit`) and proven stores
the flag is still clear; after a check that keeps the flag, a checked device function's call or
a loop that may leave with the flag set, the test stays."""
import ast
import textwrap

from safekern.frontend.python.flag_tests import (is_flag_test, may_set_flag,
                                                 redundant_flag_tests, without_flag_tests)


def _body(src: str) -> list:
    fn = ast.parse("def k(a, out, i, n, _sk_fb, _sk_flag):\n" +
                   textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    return fn.body


def _kept(src: str) -> list:
    """The line of each flag test left, in order (the snippet's first statement is line 1)."""
    body = _body(src)
    out = without_flag_tests(body, redundant_flag_tests(body))
    module = ast.Module([ast.FunctionDef("k", ast.arguments([], [], None, [], [], None, []),
                                         out, [], None, lineno=1, col_offset=0)], [])
    compile(ast.fix_missing_locations(module), "<test>", "exec")    # still valid code
    return [n.lineno - 2 for stmt in out for n in ast.walk(stmt) if is_flag_test(n)]


def test_a_test_after_checks_that_end_the_thread_goes():
    assert _kept("""
        _sk_flag[0] = 0
        x = _sk_load_exit(a, i, 1, _sk_fb, _sk_flag)
        if _sk_flag[0]:
            return
        _sk_put(out, i, x, _sk_flag)
        if _sk_flag[0]:
            return
        """) == []


def test_a_check_that_keeps_the_flag_keeps_the_test_after_it():
    assert _kept("""
        _sk_flag[0] = 0
        x = _sk_load(a, i, 1, _sk_fb, _sk_flag)
        if _sk_flag[0]:
            return
        y = _sk_load_exit(a, x, 2, _sk_fb, _sk_flag)
        if _sk_flag[0]:
            return
        """) == [3]


def test_a_device_call_sets_it_and_a_test_clears_it_for_what_follows():
    assert _kept("""
        _sk_flag[0] = 0
        for k in range(n):
            y = _sk_dev0(a, k, _sk_fb, _sk_flag)
            if _sk_flag[0]:
                return
            z = _sk_load_exit(a, k, 1, _sk_fb, _sk_flag)
            if _sk_flag[0]:
                return
        if _sk_flag[0]:
            return
        """) == [4]


def test_a_loop_whose_iteration_may_end_with_the_flag_set_keeps_its_tests():
    assert _kept("""
        _sk_flag[0] = 0
        for k in range(n):
            if _sk_flag[0]:
                break
            y = _sk_load(a, k, 1, _sk_fb, _sk_flag)
        if _sk_flag[0]:
            return
        """) == [3, 6]


def test_a_break_with_the_flag_set_keeps_the_test_after_the_loop():
    assert _kept("""
        _sk_flag[0] = 0
        for k in range(n):
            y = _sk_load(a, k, 1, _sk_fb, _sk_flag)
            if _sk_flag[0]:
                break
        if _sk_flag[0]:
            return
        """) == [4, 6]


def test_a_branch_that_may_set_it_keeps_the_test_after_the_join():
    assert _kept("""
        _sk_flag[0] = 0
        if i < n:
            y = _sk_div_floordiv(i, n, 1, _sk_fb, _sk_flag)
        else:
            if _sk_flag[0]:
                return
            y = 0
        if _sk_flag[0]:
            return
        """) == [8]


def test_a_block_left_empty_holds_pass():
    body = _body("""
        _sk_flag[0] = 0
        if i < n:
            if _sk_flag[0]:
                return
        """)
    out = without_flag_tests(body, redundant_flag_tests(body))
    assert isinstance(out[1].body[0], ast.Pass)


def test_what_sets_the_flag():
    sets = lambda src: may_set_flag(ast.parse(src).body[0])    # noqa: E731
    assert sets("_sk_load(a, i, 1, _sk_fb, _sk_flag)")
    assert sets("_sk_atomic_add(a, i, 1, 2, _sk_fb, _sk_flag)")
    assert sets("_sk_flag[0] = 1")
    assert not sets("_sk_atomic_add_exit(a, i, 1, 2, _sk_fb, _sk_flag)")
    assert not sets("_sk_put(a, i, 1, _sk_flag)")
    assert not sets("x = a[i] + math.sqrt(y)")
