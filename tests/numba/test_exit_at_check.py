"""A kernel without barriers or warp-level calls whose loops hold checks ends a failing thread at
the check (PTX `exit` after the record: frontend/python/exit_mode.py, lowering.py) instead of
running the loop on with its flag set. The loop then carries no flag and no join of the cold
path: a BFS step's checked kernel is 354 PTX instructions, numba's own 206 (841 before).

Checked here without a GPU: which kernels do (the rewrite says so), that the pending test comes
before their first check (thread 0 of block 0 counts a skipped launch before a check can end
it), and the PTX. What a failure reports is the simulator's (its helpers are the same for both)
and, on a GPU, test_exit_at_check_gpu below."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import exit_kernels as K

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]   # (-m gpu runs them on a GPU)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("name, exits", [
    ("bfs", True), ("gather_then_loop", True),
    ("bfs_barrier", False),               # barriers: the block leaves together (flag)
    ("loop_with_warp_call", False),       # cuda.shfl_down_sync
    ("loop_calling_warp_device", False),  # a checked device function with shfl_xor_sync
    ("straight", False),                  # no loop: the flag costs nothing there
])
def test_which_kernels_end_the_thread_at_the_check(name, exits):
    kernel = getattr(K, name)
    assert kernel.rewritten.checks_exit is exits
    assert kernel.build.final_rewrite().checks_exit is exits


def test_device_functions_keep_the_flag():
    assert K.warp_sum.rewritten.checks_exit is False


def test_launch_variant_ends_the_thread_too():
    variant = K.bfs.rewritten.launch_variant
    assert variant is not None and variant.checks_exit


def test_a_launch_variant_without_loop_checks_keeps_the_flag_also_from_the_cache():
    from safekern.backends.numba import stored

    rw = K.copy_rows.rewritten           # its loop's checks proven at launch: not in its variant
    assert rw.checks_exit and not rw.launch_variant.checks_exit
    back = stored.unpack(K.copy_rows.build, stored.pack(K.copy_rows.build, rw))
    assert back.checks_exit and not back.launch_variant.checks_exit


def _position(source: str, text: str) -> int:
    pos = source.find(text)
    assert pos >= 0, (text, source)
    return pos


def test_the_pending_test_precedes_every_check_that_may_end_the_thread():
    source = K.gather_then_loop.rewritten.source
    assert _position(source, "if _sk_pend != 0") < _position(source, "_sk_load")
    # A kernel that keeps the flag tests as late as before: its first gather overlaps the read.
    flag_kept = K.straight.rewritten.source
    assert _position(flag_kept, "_sk_load") < _position(flag_kept, "if _sk_pend != 0")


@pytest.fixture(scope="module")
def ptx_summary():
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.numba.exit_probe"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        if "NVVM" in proc.stderr and "not found" in proc.stderr.lower():
            pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
        raise AssertionError(proc.stderr[-3000:])
    return json.loads(proc.stdout)


def test_a_bfs_step_ends_the_failing_thread_and_is_half_the_code(ptx_summary):
    bfs, plain = ptx_summary["bfs"], ptx_summary["bfs_plain"]
    assert bfs["exit"] and bfs["cas64"] >= 1          # still records every failure
    assert bfs["instructions"] <= 2 * plain["instructions"], (bfs, plain)


@pytest.mark.parametrize("name", ["bfs_barrier", "loop_with_warp_call",
                                  "loop_with_aliased_warp_call"])
def test_kernels_that_keep_the_flag_have_no_exit(ptx_summary, name):
    # (shfl_down_sync imported under another name: known by what it resolves to)
    summary = ptx_summary[name]
    assert not summary["checks_exit"] and not summary["exit"] and summary["cas64"] >= 1


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
    # Thread 0 of block 0 fails its very first gather, in both launches; the second launch
    # finds the first one's failure pending and must still count itself as skipped.
    p = np.zeros(40, np.int64)
    p[0] = 99
    d_p, d_out = cuda.to_device(p), cuda.to_device(np.zeros(32, np.float32))
    K.gather_then_loop[1, 32](d_p, d_out)
    K.gather_then_loop[1, 32](d_p, d_out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.thread) == ("p", 99, (0, 0, 0))
    assert err.skipped_launches == 1
