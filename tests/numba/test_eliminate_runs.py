"""Check elimination never hides a failure: kernels run on the simulator, elimination on and off.

Each kernel here is one whose check an elimination or versioning rule once dropped although it
could fail (from the audit of issue 17 or found by the differential fuzzer, tests/support/fuzz_kernels.py).
Every test runs the kernel both ways (tests/support/differential.py: every thread's first failure, what
escapes the launch, the outputs) and, where the failure is the point, checks the report itself.
"""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support import differential
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
# The runs both ways record every thread's failure through the simulator's helpers; the reports
# themselves (issue 17's kernel, the switch) run on a GPU too (`pytest -m gpu`).
needs_simulator = pytest.mark.skipif(not differential.SIMULATOR,
                                     reason="the differential runs need the CUDA simulator")


def same_both_ways(pyfunc, griddim, blockdim, make_args, device_functions=()):
    """Run `pyfunc` as a checked kernel with and without elimination: no difference."""
    diffs = differential.compare_function(pyfunc, griddim, blockdim, make_args,
                                          device_functions)
    assert not diffs, diffs


def report(pyfunc, eliminate=True):
    with differential.eliminating(eliminate):
        kernel = safekern.jit(pyfunc)
    return {(r["line"], r["array"], r["kind"]): r["status"] for r in kernel.check_report()
            if r["kind"] in ("load", "store", "atomic")}


def report_statuses(kernel):
    return [r["status"] for r in kernel.check_report() if r["kind"] in ("load", "store", "atomic")]


def first_failure(pyfunc, griddim, blockdim, args):
    with differential.eliminating(True):
        kernel = safekern.jit(pyfunc)
    args = [cuda.to_device(a) for a in args]     # (a host array's copy-back would raise here)
    kernel[griddim, blockdim](*args)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    return info.value


# -- issue 17: a reassigned loop variable in a versioned loop -------------------------------------

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


@needs_simulator
def test_reassigned_loop_variable_behaves_the_same_both_ways():
    same_both_ways(mark_changes, 1, 4, _mark_changes_args)


# -- SAFEKERN_ELIMINATE=0 keeps every check -------------------------------------------------------

def guarded_copy(out, a):
    i = cuda.grid(1)
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = a[i]


def test_eliminate_switch_keeps_every_check_and_is_part_of_the_rewrites_key(tmp_path, monkeypatch):
    # The kernel cache on: a rewrite stored with one setting must not be taken for the other.
    set_safekern(monkeypatch, CACHE=str(tmp_path / "k.cache"))
    for _ in range(2):
        for on, expected in ((True, {"eliminated"}), (False, {"checked"})):
            set_safekern(monkeypatch, ELIMINATE="1" if on else "0")
            kernel = safekern.jit(guarded_copy)
            assert set(report_statuses(kernel)) == expected
            assert ("_sk_store" in kernel.rewritten.source) == (not on)


# -- arithmetic that wraps, values that are not integers ----------------------------------------

def param_offset(a, n):
    i = cuda.grid(1)
    if i + n < a.shape[0] and n >= 0:      # i + n wraps around for n near 2**63
        a[i] = 1


@needs_simulator
def test_a_guard_whose_arithmetic_wraps_proves_nothing():
    same_both_ways(param_offset, 1, 8, lambda: [np.zeros(4, np.int32), np.int64(2 ** 63 - 1)])


def loaded_offset(a, idx):
    v = idx[0]
    if v + 1 < a.shape[0] and v >= 0:      # int32 + 1 wraps on the simulator (not in numba)
        a[v] = 1


@needs_simulator
def test_a_guard_on_a_narrow_loaded_value_plus_one_proves_nothing():
    same_both_ways(loaded_offset, 1, 1, lambda: [np.zeros(4, np.int32),
                                                 np.array([2 ** 31 - 1], np.int32)])


def window(out, a, lo, hi):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0
        for k in range(lo, hi):
            acc += a[i + k]                # hoisted: tested as hi <= extent - i, never i + hi - 1
        out[i] = acc


@needs_simulator
def test_versioning_tests_do_not_wrap_around():
    status = report(window)
    # hoisted, and proven at launch when lo >= 0 and the shapes allow it
    assert status[(window.__code__.co_firstlineno + 5, "a", "load")] == "proven at launch"
    # i + hi - 1 wraps for i >= 2: the old test passed and the copy without checks ran
    top = 2 ** 63 - 1
    same_both_ways(window, 1, 4, lambda: [np.zeros(4, np.int64), np.arange(8, dtype=np.int64),
                                          np.int64(top - 3), np.int64(top)])
    same_both_ways(window, 1, 4, lambda: [np.zeros(4, np.int64), np.arange(8, dtype=np.int64),
                                          0, 5])


def float_limit(a, x):
    i = cuda.grid(1)
    if i < x and x - 1 < a.shape[0]:       # x = 10.5, 10 elements: i = 10 passes both tests
        a[i] = 1


@needs_simulator
def test_a_bound_that_is_not_an_integer():
    same_both_ways(float_limit, 1, 12, lambda: [np.zeros(10, np.int32), 10.5])


# -- a thread that failed goes on: proven stores must still test its flag -------------------------

def fill_row(dst, n):                      # a checked device function (decorated per run)
    for t in range(dst.shape[0]):          # proven: a plain store, which ignored the flag
        dst[t] = n
    return n


def calls_after_a_failure(src, dst, idx):
    i = cuda.grid(1)
    v = fill_row(dst, src[idx[i]])         # src[idx[i]] fails: dst must stay untouched


@needs_simulator
def test_device_function_entered_after_a_failure_does_not_store():
    same_both_ways(calls_after_a_failure, 1, 1,
                   lambda: [np.arange(4, dtype=np.int32), np.full(3, -1, np.int32),
                            np.array([9], np.int64)], device_functions=[fill_row])


def stores_after_a_failure_before_the_barrier(src, out, idx):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    tile = cuda.shared.array(8, np.int32)
    tile[cuda.threadIdx.x] = 0             # may fail: what follows runs only without a failure
    x = src[idx[i]]                        # fails for thread 1 ...
    out[i] = x                             # ... which must not store (proven in bounds)
    cuda.syncthreads()


@needs_simulator
def test_kernel_with_barriers_skips_proven_stores_after_a_failure():
    same_both_ways(stores_after_a_failure_before_the_barrier, 1, 2,
                   lambda: [np.arange(4, dtype=np.int32), np.full(2, -1, np.int32),
                            np.array([1, 9], np.int64)])


# -- the tests before a versioned loop read only what exists before it --------------------------

def reads_a_name_the_loop_assigns(a, b, out):
    s = 0
    for t in range(a.shape[0]):
        m = b.shape[0]                     # assigned in the loop: unknown before it
        s += a[t + m - b.shape[0] + 1]     # t + 1: the last iteration reads a[a.shape[0]]
    out[0] = s


@needs_simulator
def test_versioning_tests_read_no_name_the_loop_assigns():
    same_both_ways(reads_a_name_the_loop_assigns, 1, 1,
                   lambda: [np.arange(4, dtype=np.int32), np.zeros(3, np.int32),
                            np.zeros(1, np.int32)])


# -- a device function that writes its arguments changes no fact ---------------------------------

def bump(arr, t):
    arr[t] = arr[t] + 100


def copies_the_index_first(a, idx):
    t = cuda.grid(1)
    j = idx[t]
    if 0 <= j < a.shape[0]:
        bump(idx, t)                       # writes idx[t]: j keeps the value it was tested with
        a[j] = 1                           # proven


@needs_simulator
def test_a_device_function_writing_an_array_does_not_touch_a_copied_index():
    status = report(copies_the_index_first)
    assert status[(copies_the_index_first.__code__.co_firstlineno + 5, "a", "store")] == \
        "eliminated"
    same_both_ways(copies_the_index_first, 1, 3,
                   lambda: [np.zeros(4, np.int32), np.array([1, 3, 7], np.int64)],
                   device_functions=[bump])
