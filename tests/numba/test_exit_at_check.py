"""A checked access in a loop that stores ends a failing thread at the check (PTX `exit`
after the record: frontend/python/exit_mode.py picks the checks, exit_calls.py gives them the
`_exit` helpers, lowering.py emits them) instead of setting the flag and running the loop on.
That loop then carries no flag set by its own checks and no join of the cold path: a BFS
step's checked kernel (both loop versions) is 438 PTX instructions, 666 with the flag, numba's
own 206 (H100, nbfs5's exit: 1.58x -> 1.18x). Every other
check keeps the flag: straight-line code, and loops that only read (a CSR SpMV's went 0.98x ->
2.75x with the exit), byte for byte as before -- but in a versioned loop's or body's checked
copy, which runs only where its test failed: there every check ends the thread.

Checked here without a GPU: which checks exit (the rewrite's source says: `_sk_*_exit`), that
the pending test comes before them (thread 0 of block 0 counts a skipped launch before a check
can end it), and the PTX. What a failure reports is the simulator's (its `_exit` helpers end
the simulated thread too: backends/numba/sim.py) and, on a GPU (-m gpu), the exiting checks'.
A flag test only such checks come before is left out (frontend/python/flag_tests.py)."""
import os
import re

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import exit_kernels as K
from tests.support.numba_probes import run_probe

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]   # (-m gpu runs them on a GPU)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (a lookahead: the calls nested in another's arguments are found too)
_CALL = re.compile(r"(?=(_sk_(?:loadv?|store|atomic_[a-z]+?)(?:_exit)?)\((\w+), ([^,]+),)")


def _checks(source: str) -> dict:
    """(array, index text) -> whether that check ends the thread, for the checked accesses of
    a rewritten kernel's source (the innermost check of a nested gather: its own index)."""
    out = {}
    for helper, array, index in _CALL.findall(source):
        out[(array, index.strip())] = helper.endswith("_exit")
    return out


def _exiting(kernel) -> set:
    return {key for key, exits in _checks(kernel.rewritten.source).items() if exits}


def test_a_bfs_step_ends_the_thread_at_its_loop_checks_only():
    checks = _checks(K.bfs.rewritten.source)
    assert checks[("level", "v")] and checks[("next_frontier", "v")], checks
    # before the loop (the loop's bounds): the flag, as straight code
    assert not checks[("indptr", "u")] and not checks[("indptr", "u + 1")], checks
    assert K.bfs.build.final_rewrite().source == K.bfs.rewritten.source


def test_a_check_before_a_storing_loop_keeps_the_flag():
    source = K.gather_then_loop.rewritten.source
    first = source.split("for k in")[0]
    assert "_exit" not in first and "_sk_load" in first, source
    assert "_exit" in source.split("for k in")[1], source


def test_a_read_only_loop_keeps_the_flag_and_its_checked_copy_ends_the_thread():
    # spmv's versioned loop accumulates into a local: the copy that runs keeps its gather's
    # flag (a branch-free select load, which an exit would serialise); the checked copy runs
    # only where the loop's test failed, and its checks end the thread (no join for ptxas)
    lines = [line for line in K.spmv.rewritten.source.splitlines() if "acc += " in line]
    assert len(lines) == 2, K.spmv.rewritten.source
    fast, checked = lines
    assert "_sk_loadv(x" in fast and "_exit" not in fast
    assert checked.count("_sk_load_exit(") == 3


@pytest.mark.parametrize("name", [
    "bfs_barrier",                     # barriers: the block leaves together (flag)
    "loop_with_warp_call",             # cuda.shfl_down_sync
    "loop_calling_warp_device",        # a checked device function with shfl_xor_sync
    "loop_calling_storing_device",     # a device function's stores do not count
    "straight",                        # no loop: the flag costs nothing there
])
def test_kernels_whose_checks_keep_the_flag(name):
    kernel = getattr(K, name)
    assert _checks(kernel.rewritten.source), kernel.rewritten.source    # (checks there are)
    assert "_exit" not in kernel.rewritten.source, kernel.rewritten.source


def test_only_the_innermost_loop_counts():
    # the inner loop only reads (spmv-like): its gather keeps the flag (but in the checked
    # copy of the loop, which ends the thread); the outer loop's store makes its own gather exit
    source = K.rows_of_sums.rewritten.source
    inner = [line for line in source.splitlines() if "acc += " in line]
    assert len(inner) == 2 and "_sk_loadv(" in inner[0] and "_exit" not in inner[0], source
    assert "_sk_load_exit(" in inner[1], source
    checks = _checks(source)
    assert checks[("y", "2 * i + r")] and checks[("indices", "i")], checks


def test_a_while_loops_test_and_atomics_and_local_array_stores():
    assert ("p", "j") in _exiting(K.while_atomic), K.while_atomic.rewritten.source
    assert "_sk_atomic_add_exit(" in K.while_atomic.rewritten.source or \
        "atomic.add(" in K.while_atomic.rewritten.source
    assert any(a == "p" for a, _ in _exiting(K.local_sort)), K.local_sort.rewritten.source


def test_device_functions_keep_the_flag():
    assert "_exit" not in K.store_at.rewritten.source
    assert "_exit" not in K.warp_sum.rewritten.source


def test_the_launch_variant_decides_for_itself():
    variant = K.bfs.rewritten.launch_variant
    assert variant is not None and "_sk_store_exit(next_frontier" in variant.source
    rw = K.copy_rows.rewritten           # its loop's checks proven at launch: none left
    assert "_sk_load_exit(a" in rw.source and "_exit" not in rw.launch_variant.source


def _position(source: str, text: str) -> int:
    pos = source.find(text)
    assert pos >= 0, (text, source)
    return pos


@pytest.mark.parametrize("name", ["bfs", "gather_then_loop", "while_atomic", "local_sort"])
def test_the_pending_test_precedes_every_check_that_may_end_the_thread(name):
    source = getattr(K, name).rewritten.source
    assert _position(source, "if _sk_pend != 0") < _position(source, "_exit(")


def test_straight_code_keeps_its_late_pending_test():
    # Its first gather overlaps the read of the pending slot, as before.
    flag_kept = K.gather_then_loop.rewritten.source
    assert _position(flag_kept, "_sk_load") < _position(flag_kept, "if _sk_pend != 0")


@pytest.fixture(scope="module")
def ptx_summary():
    return run_probe("tests.numba.exit_probe")


def test_a_bfs_step_ends_the_failing_thread_and_is_a_third_less_code(ptx_summary):
    bfs, plain = ptx_summary["bfs"], ptx_summary["bfs_plain"]
    assert bfs["exit"] and bfs["cas64"] >= 1          # still records every failure
    # (with the flag: 666, more than 3x numba's)
    assert bfs["instructions"] <= 2.2 * plain["instructions"], (bfs, plain)


@pytest.mark.parametrize("name", ["bfs_barrier", "loop_with_warp_call",
                                  "loop_with_aliased_warp_call"])
def test_kernels_that_keep_the_flag_have_no_exit(ptx_summary, name):
    # (shfl_down_sync imported under another name: known by what it resolves to, which the
    # simulator's numba.cuda does not have)
    summary = ptx_summary[name]
    assert not summary["exit"] and summary["cas64"] >= 1


def _bfs_arrays(bad_at=None):
    n = 64
    indptr = np.arange(0, 2 * n + 1, 2, dtype=np.int32)
    indices = (np.arange(2 * n, dtype=np.int32) * 7) % n
    if bad_at is not None:
        indices[bad_at] = 1000
    frontier = np.ones(n, np.uint8)
    level = np.where(np.arange(n) % 3 == 0, 0, -1).astype(np.int32)
    return indptr, indices, frontier, level, np.zeros(n, np.uint8)


def test_a_bad_neighbour_is_still_reported_with_its_index():
    # On the simulator here; on a GPU the same kernel runs with the exiting checks.
    indptr, indices, frontier, level, nxt = _bfs_arrays(bad_at=37)
    d = [cuda.to_device(a) for a in (indptr, indices, frontier, level, nxt)]
    K.bfs[2, 32](*d)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.size) == ("level", 1000, 64)
    assert err.thread == (18, 0, 0) and err.block == (0, 0, 0)


def test_good_threads_still_write_everything():
    indptr, indices, frontier, level, nxt = _bfs_arrays()
    d = [cuda.to_device(a) for a in (indptr, indices, frontier, level, nxt)]
    K.bfs[2, 32](*d)
    safekern.sync()
    expect = np.zeros(64, np.uint8)
    expect[indices[level[indices] < 0]] = 1
    assert np.array_equal(d[4].copy_to_host(), expect)


def test_thread_zero_counts_a_skipped_launch_before_its_check_ends_it():
    # Thread 0 of block 0 fails in its storing loop, in both launches; the second launch finds
    # the first one's failure pending and must still count itself as skipped.
    p = np.zeros(40, np.int64)
    p[0] = 37                           # p[p[0] + k] fails for k = 3
    d_p, d_out = cuda.to_device(p), cuda.to_device(np.zeros(32, np.float32))
    K.gather_then_loop[1, 32](d_p, d_out)
    K.gather_then_loop[1, 32](d_p, d_out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.thread) == ("p", 40, (0, 0, 0))
    assert err.skipped_launches == 1


def test_the_first_failure_wins_between_a_flag_check_and_an_exiting_one():
    # Thread 0's check before the loop fails (flag); thread 1's, in the loop, exits: the
    # buffer keeps one of them, and what it reports is a failure that happened.
    p = np.zeros(40, np.int64)
    p[0], p[1] = 99, 38
    d_p, d_out = cuda.to_device(p), cuda.to_device(np.zeros(2, np.float32))
    K.gather_then_loop[1, 2](d_p, d_out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.thread) in (("p", 99, (0, 0, 0)), ("p", 40, (1, 0, 0)))


def test_no_flag_test_follows_checks_that_end_the_thread_alone():
    assert "if _sk_flag[0]" not in K.loop_then_mark.rewritten.source, \
        K.loop_then_mark.rewritten.source
    # a check that keeps the flag before the loop keeps its test; none after the loop
    source = K.gather_then_loop.rewritten.source
    assert source.count("if _sk_flag[0]") == 1 and \
        source.index("if _sk_flag[0]") < source.index("for k in"), source


def test_a_failing_thread_ends_at_its_check_with_its_failure_reported():
    p = np.zeros(40, np.int64)
    p[5] = 37                           # thread 5: p[37 + 3] fails
    out, done = np.zeros(8, np.float32), np.zeros(8, np.int32)
    d = [cuda.to_device(a) for a in (p, out, done)]
    K.loop_then_mark[1, 8](*d)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.size, err.thread) == ("p", 40, 40, (5, 0, 0))
    # (threads that start after the failure is recorded may skip: the pending test)
    assert d[2].copy_to_host()[5] == 0


@pytest.mark.parametrize("rows_a, cols_a, cols_out, expect", [
    (8, 3, 5, ("a", 1, 3, 3)),          # a is the narrower: a[i, 3] fails on axis 1
    (8, 5, 3, ("out", 1, 3, 3)),        # out is: out[i, 3] (after a[i, 3] read fine)
    (6, 5, 5, None),                    # every row within both: no failure
])
def test_each_exiting_check_reports_its_own_array_axis_and_index(rows_a, cols_a, cols_out,
                                                                 expect):
    lengths = np.array([2, 4, 1, 0, 3, 4, 2, 1], np.int64)
    a = np.arange(rows_a * cols_a, dtype=np.float32).reshape(rows_a, cols_a)
    d_len, d_a = cuda.to_device(lengths), cuda.to_device(a)
    d_out = cuda.to_device(np.zeros((8, cols_out), np.float32))
    if rows_a < 8:
        lengths[6:] = 0                 # rows 6 and 7 of a do not exist: never read
        d_len = cuda.to_device(lengths)
    K.copy_ragged_rows[1, 8](d_len, d_a, d_out)
    if expect is None:
        safekern.sync()
        out = d_out.copy_to_host()
        for i, n in enumerate(lengths):
            assert np.array_equal(out[i, :n], 2 * a[i, :n] if n else out[i, :0])
            assert not out[i, n:].any()
        return
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.axis, err.index, err.size) == expect
    assert err.thread in ((1, 0, 0), (5, 0, 0))      # the rows of length 4
