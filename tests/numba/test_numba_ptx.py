"""Checked numba kernels compile to PTX for sm_90 without a GPU (numba-cuda[cu13]), and the PTX
shows the design: the failure flag stays in registers, failures use a 64-bit CAS, barriers
become bar.red.or, everything is inlined (no calls on the fast path)."""
import pytest

from tests.support.numba_probes import run_probe


@pytest.fixture(scope="module")
def ptx_summary():
    return run_probe("tests.numba.ptx_probe")


def test_all_kernels_compile(ptx_summary):
    assert set(ptx_summary) == {"gather", "tiled_matmul", "tree_reduce", "histogram",
                                "calls_device", "rowview", "guarded_copy", "row_sums",
                                "window_sum", "add2d", "table_gathers",
                                "unused_read", "gather_corners", "gather_by_index",
                                "gather_corners_twice"}


def test_proven_checks_leave_no_failure_path(ptx_summary):
    # Both accesses are proven by the guard: no compare-and-swap, so no failure path at all.
    assert not ptx_summary["guarded_copy"]["cas64"]
    assert not ptx_summary["guarded_copy"]["local"]


def test_a_failure_record_per_failing_component(ptx_summary):
    # a[i + di, j + dj]: each component records itself in its own cold branch. (One record
    # joined through phis kept the joined values live across the checks: rw_fbpic_gather
    # 1.21x -> 1.47x on an H100.)
    assert ptx_summary["add2d"]["cas64_count"] == 2


def test_a_record_stays_where_nothing_uses_the_read(ptx_summary):
    # v = a[i + k], v unused: the load goes, the check and its record stay (the record is
    # an asm that writes memory LLVM cannot see: never deleted as dead)
    assert ptx_summary["unused_read"]["cas64_count"] >= 1


def test_a_failure_record_makes_no_load_repeat(ptx_summary):
    # p[x] is read for two gathers with checks between. The record is an inline asm LLVM sees
    # as touching no memory; as LLVM stores it was a store that may alias p on a path joining
    # the kernel again, every load after it was made again, and Perlin noise (six gathers,
    # eight loaded) ran 1.45x plain numba on an H100, 1.10x with the record as asm (2026-11-27d,
    # call 4). Loaded here: the prelude's read of the failure buffer, p[x] for each gather (a
    # straight run's loads sit on the in-bounds side of their branch, so the first p[x] does
    # not reach the second: loop_loads.py says why that is the cheaper way), p[p[x] + y] and
    # p[p[x] + y + 1] -- none again after a record.
    assert ptx_summary["table_gathers"]["global_loads"] == 1 + 4
    assert ptx_summary["table_gathers"]["cas64_count"] >= 2


@pytest.mark.parametrize("name", ["gather_corners", "gather_by_index"])
def test_body_versioned_functions_compile_with_their_checked_copy(ptx_summary, name):
    # The entry test (_sk_within of each access) lowered; the checked copy keeps its records,
    # each a call of the module's record function (cold_records.py); no other call.
    assert ptx_summary[name]["record_calls"] and ptx_summary[name]["calls"] == 0


def test_checked_copies_record_through_one_function(ptx_summary):
    # corners_inlined (inline=True, fbpic's shape), called twice: numba inlines its fast copy at
    # both calls, and its checked copy is one function of its own that both call (not inlined:
    # cold_bodies.py), whose records are calls of the module's record function
    # (cold_records.py); inline records are left only for the kernel's own checks (izs[i],
    # irs[i]: checked in the checked kernel), as in gather_corners, the same kernel calling
    # `corners` (not inlined by numba: nothing outlined) once.
    twice, once = ptx_summary["gather_corners_twice"], ptx_summary["gather_corners"]
    assert twice["outlined_functions"] == 1 and twice["outlined_calls"] == 2
    assert twice["outlined_record_calls"] >= 5 and twice["calls"] == 0
    assert twice["cas64_count"] == once["cas64_count"]
    assert once["outlined_functions"] == once["outlined_calls"] == 0


@pytest.mark.parametrize("name, records", [("row_sums", 2), ("window_sum", 1)])
def test_a_versioned_loops_checked_copy_is_not_unrolled(ptx_summary, name, records):
    # One record per index component of the copy's access (row_sums: a[i, k]), not one per
    # unrolled iteration: the copy runs only where the test before the loop failed, and
    # unrolled it made NVVM and ptxas compile 10 records (row_sums, 573 instructions; now 268)
    # and 40 in lud_perimeter's variant (frontend/python/cold_loops.py). Each a call of the
    # record function (cold_records.py).
    assert ptx_summary[name]["cas64_count"] + ptx_summary[name]["record_calls"] == records


@pytest.mark.parametrize("name", ["row_sums", "window_sum"])
def test_versioned_loops_compile_with_their_checked_copy(ptx_summary, name):
    # The loop runs unchecked when its bounds pass, else with checks: the failure path stays
    # (the copy's records are calls of the record function: cold_records.py).
    assert ptx_summary[name]["record_calls"] and not ptx_summary[name]["local"]
    assert ptx_summary[name]["calls"] == 0


@pytest.mark.parametrize("name", ["gather", "tiled_matmul", "tree_reduce", "histogram",
                                  "calls_device", "rowview"])
def test_flag_in_registers_and_cas_on_failure(ptx_summary, name):
    info = ptx_summary[name]
    assert not info["local"], f"{name}: the failure flag spilled to local memory"
    assert info["cas64"], f"{name}: no 64-bit compare-and-swap on the failure path"
    assert info["calls"] == 0, f"{name}: calls left in the kernel"


@pytest.mark.parametrize("name", ["tiled_matmul", "tree_reduce"])
def test_barriers_become_or_reductions(ptx_summary, name):
    assert ptx_summary[name]["barrier_or"]
    assert not ptx_summary[name]["plain_bar_sync"]
