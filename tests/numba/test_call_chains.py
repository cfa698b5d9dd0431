"""A failure inside a checked device function names the call sites it came through, innermost
first, each with its line and source (frontend/python/call_chain.py, safekern/call_chains.py):
as CUDA C's failures do. Kernels: call_chain_kernels.py (simulator); their PTX: the probe."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import call_chain_kernels as K
from tests.support.checks import assert_bounds_error
from tests.support.numba_probes import run_probe

FILE = K.__file__


def _frame(kernel: str, marker: str, source: str) -> str:
    """The message's lines for one call site."""
    return f"  called from {kernel!r} at {FILE}:{K.line(marker)}\n      {source}"


def _arrays(n=8):
    """Device arrays (host arrays are copied back at the launch: a sync point)."""
    return cuda.to_device(np.arange(float(n))), cuda.to_device(np.zeros(8))


def test_one_level_names_the_kernels_line():
    a, out = _arrays()
    K.one_level[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="get", lineno=K.line("get"),
                              thread=(7, 0, 0), called_from=("one_level",))
    text = str(err)
    assert f"in device function 'get' called from kernel 'one_level' at {FILE}:" \
           f"{K.line('get')}" in text
    assert _frame("one_level", "one_level calls get",
                  "out[i] = get(a, i + 1)                    # one_level calls get") in text
    assert [(f.kernel, f.lineno) for f in err.call_chain] == \
        [("one_level", K.line("one_level calls get"))]
    assert "outer calls not recorded" not in text
    # the caret under the call
    lines = text.splitlines()
    caret = lines[lines.index(f"  called from 'one_level' at {FILE}:"
                              f"{K.line('one_level calls get')}") + 2]
    assert caret.strip() == "^" * len("get(a, i + 1)")


def test_two_levels_name_both_calls_innermost_first():
    a, out = _arrays()
    K.two_levels[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="get", thread=(7, 0, 0))
    assert [(f.kernel, f.lineno) for f in err.call_chain] == [
        ("get_next", K.line("get_next calls get")),
        ("two_levels", K.line("two_levels calls get_next"))]
    text = str(err)
    assert text.index(_frame("get_next", "get_next calls get", "return get(a, i + 1)")) < \
        text.index(_frame("two_levels", "two_levels calls get_next",
                          "out[i] = twice(get_next(a, i))"))
    # the result of the in-bounds threads is what numba computes
    np.testing.assert_array_equal(out.copy_to_host()[:7], 2 * np.arange(1.0, 8.0))


def test_calls_deeper_than_the_chain_say_the_outer_ones_are_not_recorded():
    a, out = _arrays()
    K.four_levels[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="get", thread=(6, 0, 0))
    assert [f.kernel for f in err.call_chain] == ["get_next", "get_next_next", "get_far"]
    text = str(err)
    assert text.rstrip().endswith("  (outer calls not recorded)")
    assert _frame("get_far", "get_far calls get_next_next", "return get_next_next(a, i)") in text
    assert "called from 'four_levels'" not in text
    # (the launched kernel that calls it, as before the chain)
    assert err.called_from == ("four_levels",)


@pytest.mark.parametrize("left, right, marker", [(0, 1, "two_calls second"),
                                                 (9, 0, "two_calls first")])
def test_the_same_function_called_from_two_lines_names_the_failing_call(left, right, marker):
    a, out = _arrays()
    K.two_calls[1, 8](a, out, left, right)
    err = assert_bounds_error(array="a", size=8, kernel="get", index=None)
    assert [(f.kernel, f.lineno) for f in err.call_chain] == [("two_calls", K.line(marker))]
    other = "two_calls first" if marker.endswith("second") else "two_calls second"
    assert f":{K.line(other)}" not in str(err)


def test_a_function_called_from_two_kernels_names_the_failing_kernel():
    a, out = _arrays()
    K.one_level[1, 8](cuda.to_device(np.arange(9.0)), out)     # in bounds
    K.other_kernel[1, 8](a, out)                    # a[2 * i] fails from thread 4
    err = assert_bounds_error(array="a", size=8, kernel="get", index=None,
                              called_from=("other_kernel",))
    assert [(f.kernel, f.lineno) for f in err.call_chain] == \
        [("other_kernel", K.line("other_kernel calls get"))]
    assert "'one_level'" not in str(err)


def test_a_failure_inside_a_loop_of_a_device_function():
    a, out = _arrays()
    K.sums[1, 8](a, out, 2)                         # thread 7 sums a[0:9]
    err = assert_bounds_error(array="a", index=8, size=8, kernel="total",
                              lineno=K.line("total"), thread=(7, 0, 0))
    assert _frame("sums", "sums calls total", "out[i] = total(a, n + i)") in str(err)
    np.testing.assert_array_equal(out.copy_to_host()[:7],
                                  [np.arange(2.0 + i).sum() for i in range(7)])


def test_a_device_function_with_a_signature():
    a, out = _arrays()
    K.typed_call[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="get_typed")
    assert _frame("typed_call", "typed_call calls get_typed",
                  "out[i] = get_typed(a, i + 1)") in str(err)


def test_an_inlined_device_function():
    a, out = _arrays()
    K.inlined[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="get_inlined")
    assert _frame("inlined", "inlined calls get_inlined",
                  "out[i] = get_inlined(a, i + 1)") in str(err)


def test_an_assert_and_a_division_in_device_functions_name_their_call():
    a, out = _arrays()
    K.asserts[1, 8](a, out, 4)
    with pytest.raises(safekern.KernelAssertionError) as info:
        safekern.sync()
    assert info.value.lineno == K.line("checked_slot")
    assert _frame("asserts", "asserts calls checked_slot", "out[i] = a[checked_slot(i, n)]") \
        in str(info.value)
    K.divides[1, 8](cuda.to_device(np.arange(8)), cuda.to_device(np.zeros(8, np.int64)), 0)
    with pytest.raises(ZeroDivisionError) as info:
        safekern.sync()
    assert info.value.lineno == K.line("ratio")
    assert _frame("divides", "divides calls ratio", "out[i] = ratio(a, i, d)") in str(info.value)


def test_a_kernels_own_check_and_check_free_functions_are_as_before():
    # a check in a kernel records its plain code; a device function with no check takes no
    # chain, and its callers pass none
    a, out = _arrays()
    K.plain_calls[1, 8](a, out)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="plain_calls",
                              lineno=K.line("plain_calls reads"), call_chain=())
    assert "called from" not in str(err)
    assert "_sk_cs" not in K.twice.rewritten.source
    assert "_sk_cs" not in K.plain_calls.rewritten.source
    assert "_sk_cs" in K.get.rewritten.source


def test_numba_random_names_the_kernels_call():
    from numba.cuda import random as nrandom
    from numba.cuda.random import create_xoroshiro128p_states

    from tests.numba import test_numba_random as R

    states = create_xoroshiro128p_states(32, seed=1)
    out = cuda.to_device(np.zeros(64, np.float32))
    safekern.jit(R.mc_pi)[2, 32](states, 5, out)
    err = assert_bounds_error(array="states", index=32, size=32, filename=nrandom.__file__,
                              kernel="xoroshiro128p_next")
    # xoroshiro128p_next <- xoroshiro128p_uniform_float32 (numba's) <- mc_pi (the test's)
    chain = err.call_chain
    assert [f.kernel for f in chain] == ["xoroshiro128p_uniform_float32", "mc_pi"]
    assert chain[0].filename == nrandom.__file__
    assert chain[1].filename == R.__file__


@pytest.fixture(scope="module")
def ptx_summary():
    return run_probe("tests.numba.call_chain_probe")


def test_kernels_calling_checked_device_functions_compile_to_ptx(ptx_summary):
    for name in K.PTX_CASES:
        assert ptx_summary[name]["cas64_count"] >= 1, name
    # inlined into the kernel, the chain is a constant: nothing XORed at run time
    assert ptx_summary["one_level"]["xor_count"] == 0
    assert ptx_summary["two_levels"]["xor_count"] == 0


def test_the_chain_is_xored_on_the_failure_path_only(ptx_summary):
    # `get` compiled alone (its chain a parameter): the one XOR sits in the record's block
    assert ptx_summary["get"]["xor_count"] == 1
    assert ptx_summary["get"]["xor_in_record_block"]
    assert ptx_summary["twice"]["cas64_count"] == 0 and ptx_summary["twice"]["xor_count"] == 0
