"""Check elimination never hides a failure: kernels run on the simulator with elimination on and off.

Each kernel here is one whose check an elimination or versioning rule once dropped although it
could fail (from the audit of issue 17 or found by the differential fuzzer, tests/fuzz_kernels.py).
Every test runs the kernel both ways (tests/differential.py: every thread's first failure, what
escapes the launch, the outputs) and, where the failure is the point, checks the report itself.
"""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests import differential

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

if not differential.SIMULATOR:
    pytest.skip("the differential runs need the CUDA simulator", allow_module_level=True)


@pytest.fixture(autouse=True)
def _clean_state(no_pending_failure):
    yield


def same_both_ways(pyfunc, griddim, blockdim, make_args):
    """Run `pyfunc` as a checked kernel with and without elimination: no difference."""
    diffs = differential.compare_function(pyfunc, griddim, blockdim, make_args)
    assert not diffs, diffs


def report(pyfunc, eliminate=True):
    with differential.eliminating(eliminate):
        kernel = safekern.jit(pyfunc)
    return {(r["line"], r["array"], r["kind"]): r["status"] for r in kernel.check_report()}


def first_failure(pyfunc, griddim, blockdim, args):
    with differential.eliminating(True):
        kernel = safekern.jit(pyfunc)
    args = [cuda.to_device(a) for a in args]     # (a host array's copy-back would raise here)
    kernel[griddim, blockdim](*args)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    return info.value


# -- issue 17: a reassigned loop variable in a versioned loop --------------------------------------

def mark_changes(a, marks):
    r = cuda.grid(1)
    if r < a.shape[0]:
        for k in range(a.shape[1] - 1):
            if a[r, k] == a[r, k + 1]:
                k += 1                 # a C habit: "skip the repeat"
            marks[r, k + 1] = 1        # k + 1 can be a.shape[1]: out of bounds


def _mark_changes_args():
    a = np.zeros((4, 7), np.int32)
    a[:, 5] = a[:, 6] = 3              # a repeat at the end of every row: k + 1 reaches 7
    return [a, np.zeros((4, 7), np.int32)]


def test_reassigned_loop_variable_is_not_hoisted():
    status = report(mark_changes)
    assert {s for (line, array, kind), s in status.items() if array == "marks"} == {"checked"}
    err = first_failure(mark_changes, 1, 4, _mark_changes_args())
    assert "index 7 out of bounds for axis 1 with size 7 (array 'marks')" in str(err)
    assert err.index == 7 and err.axis == 1 and err.size == 7 and err.array == "marks"
    same_both_ways(mark_changes, 1, 4, _mark_changes_args)


# -- SAFEKERN_ELIMINATE=0 keeps every check ---------------------------------------------------------

def guarded_copy(out, a):
    i = cuda.grid(1)
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = a[i]


def test_eliminate_switch_keeps_every_check_and_is_part_of_the_rewrites_key(tmp_path, monkeypatch):
    # The kernel cache on: a rewrite stored with one setting must not be taken for the other.
    monkeypatch.setenv("SAFEKERN_CACHE", str(tmp_path / "k.cache"))
    for _ in range(2):
        for on, expected in ((True, {"eliminated"}), (False, {"checked"})):
            monkeypatch.setenv("SAFEKERN_ELIMINATE", "1" if on else "0")
            safekern.config.reload()
            kernel = safekern.jit(guarded_copy)
            assert {r["status"] for r in kernel.check_report()} == expected
            assert ("_sk_store" in kernel.rewritten.source) == (not on)
