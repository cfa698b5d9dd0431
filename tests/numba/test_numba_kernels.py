"""End-to-end tests of checked numba-cuda kernels: on the CUDA simulator without a GPU, on the
device with one (`pytest -m gpu` runs them there: the `cudasim` marker becomes `gpu`)."""
import pickle

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import numba_kernels as K
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
FILE = K.__file__


def dev(x):
    return cuda.to_device(np.ascontiguousarray(x))


def expect_bounds(name, *, array, axis, index, size, **more):
    """The failure at the line marked `name` in numba_kernels.py (kernel, thread, block: also
    checked when given)."""
    err = assert_bounds_error(filename=FILE, lineno=K.expected_line(name), array=array,
                              axis=axis, index=index, size=size,
                              **{k: v for k, v in more.items() if v is not None})
    assert f"index {index} out of bounds for axis {axis} with size {size}" in str(err)
    assert f"{FILE}:{err.lineno}" in str(err)
    assert "^" in str(err)
    return err


def test_gather_reports_everything():
    src = np.arange(256, dtype=np.float32)
    idx = np.arange(64, dtype=np.int64)
    idx[45] = 1_000_000
    out = dev(np.zeros(64, np.float32))
    K.gather[2, 32](out, dev(src), dev(idx))
    err = expect_bounds("gather", array="src", axis=0, index=1_000_000, size=256,
                        kernel="gather", thread=(13, 0, 0), block=(1, 0, 0))
    assert "out[i] = src[idx[i]]" in str(err)
    caret_line = str(err).splitlines()[-1]
    source_line = str(err).splitlines()[-2]
    assert source_line[caret_line.index("^"):].startswith("idx[i]")
    # Threads that did not fail did their work, the failing one did not write.
    host = out.copy_to_host()
    assert host[44] == 44.0 and host[45] == 0.0


def test_correct_kernel_gives_numba_results_and_sync_returns_none():
    src = np.arange(256, dtype=np.float32) * 3
    idx = (np.arange(64, dtype=np.int64) * 7) % 256
    out = dev(np.zeros(64, np.float32))
    K.gather[2, 32](out, dev(src), dev(idx))
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), src[idx])


def test_store_index_checked():
    out = dev(np.zeros(16, np.float32))
    idx = np.arange(16, dtype=np.int64)
    idx[3] = 16
    K.scatter[1, 16](out, dev(np.ones(16, np.float32)), dev(idx))
    expect_bounds("scatter", array="out", axis=0, index=16, size=16, thread=(3, 0, 0))


def test_2d_each_axis():
    a = np.ones((8, 6), np.float32)
    out = dev(np.zeros((8, 6), np.float32))
    K.add2d[(1, 1), (8, 6)](out, dev(a), 0, 1)
    err = expect_bounds("add2d", array="a", axis=1, index=6, size=6)
    assert err.thread[1] == 5       # any thread of column 5 may be the first to fail
    K.add2d[(1, 1), (8, 6)](out, dev(a), 1, 0)
    err = expect_bounds("add2d", array="a", axis=0, index=8, size=8)
    assert err.thread[0] == 7
    K.add2d[(1, 1), (8, 6)](out, dev(a), 0, 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * a)


def test_negative_indices_wrap_once():
    a = np.arange(5, dtype=np.float32)
    out = dev(np.zeros(2, np.float32))
    K.negative_ok[1, 1](out, dev(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [4.0, 0.0])
    K.negative_bad[1, 1](out, dev(a))
    expect_bounds("negative_bad", array="a", axis=0, index=-6, size=5)


def test_negative_on_second_axis():
    a = np.ones((4, 3), np.float32)
    out = dev(np.zeros(4, np.float32))
    K.axis1_neg[1, 4](out, dev(a), -3)
    safekern.sync()
    K.axis1_neg[1, 4](out, dev(a), -4)
    expect_bounds("axis1_neg", array="a", axis=1, index=-4, size=3)


def test_augassign_index_evaluated_once_and_checked():
    out = dev(np.zeros(4, np.float32))
    K.augassign[1, 4](out, dev(np.array([0, 1, 1, 3], np.int64)))
    safekern.sync()
    host = out.copy_to_host()
    assert host[0] == 1 and host[3] == 1 and host[1] >= 1
    K.augassign[1, 4](out, dev(np.array([0, 9, 1, 3], np.int64)))
    expect_bounds("augassign", array="out", axis=0, index=9, size=4, thread=(1, 0, 0))


def test_views_checked_against_their_own_shape():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = dev(np.zeros(3, np.float32))
    K.rowview[1, 3](out, dev(a), 1)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a[1, 1:4])
    K.rowview[1, 4](dev(np.zeros(4, np.float32)), dev(a), 1)
    expect_bounds("rowview", array="row", axis=0, index=4, size=4, thread=(3, 0, 0))
    K.rowview[1, 3](out, dev(a), 3)
    expect_bounds("rowview_row", array="a", axis=0, index=3, size=3)


def test_slices_are_clamped_not_errors_but_ints_beside_them_are_checked():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = dev(np.zeros(4, np.float32))
    K.sliced[1, 4](out, dev(a), 2)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a[2])
    K.sliced[1, 4](out, dev(a), 5)
    expect_bounds("sliced_row", array="a", axis=0, index=5, size=3)


def test_atomic_index_checked():
    bins = dev(np.zeros(4, np.int32))
    data = np.array([0, 1, 2, 3, 3, 2], np.int64)
    K.histogram[1, 6](bins, dev(data), 0)
    safekern.sync()
    np.testing.assert_array_equal(bins.copy_to_host(), [1, 1, 2, 2])
    K.histogram[1, 6](bins, dev(data), 1)
    err = expect_bounds("histogram", array="bins", axis=0, index=4, size=4)
    assert err.thread in {(3, 0, 0), (4, 0, 0)}
    assert bins.copy_to_host()[0] == 1      # the failing threads' atomics did not happen


def test_cas_index_checked():
    arr = dev(np.zeros(3, np.int32))
    K.cas_kernel[1, 1](arr, 2)
    safekern.sync()
    assert arr.copy_to_host()[2] == 7
    K.cas_kernel[1, 1](arr, 3)
    expect_bounds("cas", array="arr", axis=0, index=3, size=3)


def test_shared_static_and_barrier():
    a = np.arange(32, dtype=np.float32)
    out = dev(np.zeros(32, np.float32))
    K.shared_static[1, 32](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a[::-1])
    K.shared_static[1, 32](out, dev(a), 1)
    expect_bounds("shared_static", array="s", axis=0, index=32, size=32, thread=(31, 0, 0))


def test_shared_2d_tuple_shape():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = dev(np.zeros((8, 8), np.float32))
    K.shared_2d[1, (8, 8)](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a.T)
    K.shared_2d[1, (8, 8)](out, dev(a), 2)
    err = expect_bounds("shared_2d", array="tile", axis=1, index=8, size=8)
    assert err.thread[0] in (6, 7)


def test_dynamic_shared_against_launch_size():
    a = np.arange(16, dtype=np.float32)
    out = dev(np.zeros(16, np.float32))
    K.shared_dynamic[1, 16, 0, 20 * 4](out, dev(a), 4)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host()[4:], a[:12])
    K.shared_dynamic[1, 16, 0, 16 * 4](out, dev(a), 4)
    expect_bounds("shared_dynamic", array="s", axis=0, index=16, size=16)


def test_local_array():
    out = dev(np.zeros(4, np.int32))
    K.local_array[1, 4](out, 3)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [3, 3, 3, 3])
    K.local_array[1, 4](out, 4)
    expect_bounds("local_array", array="acc", axis=0, index=4, size=4)


def test_in_condition_and_short_circuit():
    a = np.ones(4, np.float32)
    idx = np.array([0, 1, 2, 9], np.int64)
    out = dev(np.zeros(4, np.int32))
    K.in_condition[1, 3](out, dev(a), dev(idx))     # thread 3 does not run: no failure
    safekern.sync()
    K.in_condition[1, 4](out, dev(a), dev(idx))
    expect_bounds("in_condition", array="a", axis=0, index=9, size=4, thread=(3, 0, 0))


def test_loop_header_and_body():
    a = np.ones((2, 3), np.float32)
    out = dev(np.zeros(2, np.float32))
    K.in_loop_header[1, 2](out, dev(np.array([3, 2], np.int64)), dev(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [3, 2])
    K.in_loop_header[1, 2](out, dev(np.array([3, 4], np.int64)), dev(a))
    expect_bounds("in_loop_header", array="a", axis=1, index=3, size=3, thread=(1, 0, 0))


def test_while_loop_terminates_after_failure():
    out = dev(np.zeros(1, np.float32))
    K.while_loop[1, 1](out, dev(np.ones(3, np.float32)), 10)
    expect_bounds("while_loop", array="a", axis=0, index=3, size=3)


def test_device_functions_report_their_own_name_and_line():
    a = np.arange(8, dtype=np.float32)
    out = dev(np.zeros(8, np.float32))
    K.calls_device[1, 8](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * a)
    K.calls_device[1, 8](out, dev(a), 1)
    expect_bounds("dev_get", array="arr", axis=0, index=8, size=8, kernel="dev_get",
                  thread=(7, 0, 0))


def test_tree_reduction_with_failing_thread_finishes():
    a = np.ones(128, np.float32)
    out = dev(np.zeros(2, np.float32))
    K.tree_reduce[2, 64](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [64, 64])
    K.tree_reduce[2, 64](out, dev(a), 1000)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value              # thread 5 of either block may be first
    assert err.lineno == K.expected_line("tree_reduce") and err.thread == (5, 0, 0)
    assert (err.index, err.block) in {(1005, (0, 0, 0)), (1069, (1, 0, 0))}
    # The blocks left together at the barrier: the program goes on.
    K.tree_reduce[2, 64](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [64, 64])


def test_failure_between_barriers_inside_loop():
    a = np.ones(64, np.float32)
    out = dev(np.zeros(1, np.float32))
    K.tree_reduce_late[1, 64](out, dev(a), 100)
    expect_bounds("tree_reduce_late", array="s", axis=0, index=119, size=64, thread=(3, 0, 0))


def test_tiled_matmul_correct_and_failing():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 24)).astype(np.float32)
    b = rng.standard_normal((24, 16)).astype(np.float32)
    c = dev(np.zeros((16, 16), np.float32))
    K.tiled_matmul[(2, 2), (8, 8)](c, dev(a), dev(b), 0)
    safekern.sync()
    np.testing.assert_allclose(c.copy_to_host(), a @ b, rtol=1e-4, atol=1e-4)
    K.tiled_matmul[(2, 2), (8, 8)](c, dev(a), dev(b), 100)
    err = expect_bounds("tiled_matmul", array="a", axis=1, index=8 + 2 + 100, size=24,
                        thread=(2, 3, 0))


def test_syncthreads_count_form():
    a = np.ones(8, np.float32)
    out = dev(np.zeros(8, np.int32))
    K.count_barrier[1, 8](out, dev(a), 0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [8] * 8)
    K.count_barrier[1, 8](out, dev(a), 50)
    expect_bounds("count_barrier", array="a", axis=0, index=57, size=8, thread=(7, 0, 0))


def test_tuples_and_shape_are_not_arrays():
    a = np.arange(4, dtype=np.float32)
    out = dev(np.zeros(4, np.float32))
    K.tuple_and_shape[1, 4](out, dev(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a + 4)


def test_signature_and_options_forms():
    a = np.arange(8, dtype=np.float32)
    out = dev(np.zeros(8, np.float32))
    K.with_signature[1, 8](out, dev(a), 0)
    safekern.sync()
    K.with_signature[1, 8](out, dev(a), 1)
    expect_bounds("with_signature", array="a", axis=0, index=8, size=8)
    K.with_options[1, 8](out, dev(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * a)


def test_nested_index_first_failure_wins():
    a = np.arange(4, dtype=np.float32)
    b = np.array([0, 1, 7, 3], np.int64)
    c = np.array([0, 1, 2, 3], np.int64)
    out = dev(np.zeros(4, np.float32))
    K.nested_index[1, 4](out, dev(a), dev(b), dev(c))
    expect_bounds("nested_index", array="a", axis=0, index=7, size=4, thread=(2, 0, 0))


def test_tuple_targets():
    o1, o2 = dev(np.zeros(4, np.int64)), dev(np.zeros(4, np.int64))
    K.tuple_target[1, 4](o1, o2, 0)
    safekern.sync()
    np.testing.assert_array_equal(o2.copy_to_host(), [0, 2, 4, 6])
    K.tuple_target[1, 4](o1, o2, 1)
    expect_bounds("tuple_target", array="out2", axis=0, index=4, size=4, thread=(3, 0, 0))


def test_skip_after_failure_and_recovery():
    src = np.arange(32, dtype=np.float32)
    bad = np.full(32, 99, np.int64)
    good = np.arange(32, dtype=np.int64)
    out = dev(np.zeros(32, np.float32))
    K.gather[1, 32](out, dev(src), dev(bad))
    out2 = dev(np.zeros(32, np.float32))
    for _ in range(3):
        K.gather[1, 32](out2, dev(src), dev(good))   # skipped: a failure is pending
    err = expect_bounds("gather", array="src", axis=0, index=99, size=32)
    assert err.skipped_launches == 3
    assert "3 later checked launches skipped" in str(err)
    np.testing.assert_array_equal(out2.copy_to_host(), np.zeros(32))
    # After sync() the program goes on.
    K.gather[1, 32](out2, dev(src), dev(good))
    assert safekern.sync() is None
    np.testing.assert_array_equal(out2.copy_to_host(), src)


def test_exception_pickles():
    K.gather[1, 4](dev(np.zeros(4, np.float32)), dev(np.zeros(4, np.float32)),
                   dev(np.array([0, 1, 2, 8], np.int64)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is safekern.BoundsError
    assert (copy.index, copy.size, copy.array, copy.lineno, copy.thread) == (
        8, 4, "src", info.value.lineno, (3, 0, 0))
    assert str(copy) == str(info.value)


def test_launch_with_stream_and_sync_target():
    stream = cuda.stream()
    src = np.arange(8, dtype=np.float32)
    out = dev(np.zeros(8, np.float32))
    K.gather[1, 8, stream](out, dev(src), dev(np.array([0, 1, 2, 3, 4, 5, 6, 70], np.int64)))
    with pytest.raises(safekern.BoundsError):
        safekern.sync(stream)


def test_forall():
    src = np.arange(40, dtype=np.float32)
    out = dev(np.zeros(40, np.float32))
    K.gather.forall(40)(out, dev(src), dev(np.arange(40, dtype=np.int64)))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), src)


def test_numpy_arrays_directly():
    src = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    K.gather[1, 8](out, src, np.arange(8, dtype=np.int64)[::-1].copy())
    safekern.sync()
    np.testing.assert_array_equal(out, src[::-1])


# -- eliminated and versioned checks still catch every failing access ---------------------------

def test_eliminated_checks_compute_the_same():
    a = np.arange(100, dtype=np.float32)
    out = dev(np.zeros(100, np.float32))
    K.guarded_copy[4, 32](out, dev(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a)
    assert {r["status"] for r in K.guarded_copy.check_report() if r["kind"] != "race"} == \
        {"eliminated"}


def test_versioned_loop_in_bounds_runs_and_out_of_bounds_reports_the_iteration():
    a = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    out = dev(np.zeros(6, np.float32))
    K.row_sums[1, 8](out, dev(a), 5)          # n == a.shape[1]: the unchecked copy runs
    safekern.sync()
    np.testing.assert_allclose(out.copy_to_host(), a.sum(axis=1))
    K.row_sums[1, 8](out, dev(a), 7)          # k reaches 5 and 6: the checked copy reports k=5
    expect_bounds("row_sums", array="a", axis=1, index=5, size=5, kernel="row_sums")
    # The failing threads ran their loop to its end without exiting, then left: no store.
    np.testing.assert_allclose(out.copy_to_host(), a.sum(axis=1))
    report = {r["array"]: r for r in K.row_sums.check_report()}
    # The loop's test before it, and (where the shapes prove it) no check at all.
    assert report["a"]["status"] == "proven at launch" and \
        "before the loop" in report["a"]["reason"]


def test_versioned_loop_with_offsets_reports_the_first_bad_index():
    a = np.arange(40, dtype=np.float32)
    out = dev(np.zeros(32, np.float32))
    K.window_sum[1, 32](out, dev(a), 0, 9)    # i + k <= 31 + 8 < 40: in bounds
    safekern.sync()
    ref = np.array([a[i:i + 9].sum() for i in range(32)], dtype=np.float32)
    np.testing.assert_allclose(out.copy_to_host(), ref)
    K.window_sum[1, 32](out, dev(a), -2, 3)   # thread 0 reads a[-2]: negative indices wrap
    safekern.sync()
    K.window_sum[1, 32](out, dev(a), 0, 10)   # thread 31 reads a[40]
    expect_bounds("window_sum", array="a", axis=0, index=40, size=40, thread=(31, 0, 0))
    K.window_sum[1, 32](out, dev(a), -50, 0)  # threads 0..9 start below -40
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "a" and info.value.index < -40


def test_versioned_tile_loop_and_checked_fill():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = np.eye(8, dtype=np.float32)
    out = dev(np.zeros((8, 8), np.float32))
    K.tile_dot[1, (8, 8)](out, dev(a), dev(b))
    safekern.sync()
    np.testing.assert_allclose(out.copy_to_host(), a @ b)
    small = np.zeros((8, 4), np.float32)      # the fill reads a[ty, tx] with tx up to 7
    K.tile_dot[1, (8, 8)](out, dev(small), dev(b))
    expect_bounds("tile_dot_fill", array="a", axis=1, index=4, size=4)
    report = {(r["array"], r["kind"]): r["status"] for r in K.tile_dot.check_report()}
    # Hoisted, and proven at launch when the block is no larger than the tile.
    assert report[("sa", "load")] == report[("sb", "load")] == "proven at launch"


def test_proven_stores_never_write_what_a_failed_load_gave():
    # out[i] = src[idx[i]]: the store's check is eliminated, the load fails for thread 45.
    src = np.arange(64, dtype=np.float32)
    idx = np.arange(64, dtype=np.int64)
    idx[45] = 1_000
    out = dev(np.full(64, -1.0, np.float32))
    K.gather[2, 32](out, dev(src), dev(idx))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()
    host = out.copy_to_host()
    assert host[44] == 44.0 and host[45] == -1.0


def test_loop_with_proven_store_leaves_at_the_failure():
    a = np.arange(10, dtype=np.float32)
    idx = np.array([1, 2, 3, 50, 4, 5], dtype=np.int64)
    out = dev(np.full(6, -1.0, np.float32))
    K.gather_rows[1, 1](out, dev(a), dev(idx))
    expect_bounds("gather_rows", array="a", axis=0, index=50, size=10)
    np.testing.assert_array_equal(out.copy_to_host(), [1, 2, 3, -1, -1, -1])


def test_pending_failure_tested_after_the_first_loads():
    # The pending test is placed after `frontier[u]` (pending.py): the launch is still skipped
    # on every path, counted by thread 0 of block 0, which leaves on the branch without a loop.
    src = K.frontier_step.rewritten_source
    assert src.index("frontier[u] != 0") < src.index("if _sk_pend != 0")
    indptr = dev(np.array([0, 0, 2, 2, 3], np.int64))
    indices = dev(np.array([1, 3, 2], np.int64))
    frontier = dev(np.array([0, 1, 0, 1], np.int64))
    K.gather[1, 32](dev(np.zeros(32, np.float32)), dev(np.zeros(32, np.float32)),
                    dev(np.full(32, 99, np.int64)))
    out = dev(np.zeros(4, np.int64))
    for _ in range(2):
        K.frontier_step[1, 4](indptr, indices, frontier, out)   # skipped: a failure is pending
    err = expect_bounds("gather", array="src", axis=0, index=99, size=32)
    assert err.skipped_launches == 2
    np.testing.assert_array_equal(out.copy_to_host(), np.zeros(4))
    K.frontier_step[1, 4](indptr, indices, frontier, out)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [0, 1, 1, 1])


def test_pending_failure_tested_after_the_tile_loads():
    src = K.tile_reverse.rewritten_source
    assert src.index("_sk_store(tile, t") < src.index("if _sk_pend != 0") < src.index("syncthreads")
    K.gather[1, 32](dev(np.zeros(32, np.float32)), dev(np.zeros(32, np.float32)),
                    dev(np.full(32, 99, np.int64)))
    out = dev(np.zeros(32, np.float32))
    K.tile_reverse[1, 32](dev(np.arange(32, dtype=np.float32)), out)  # skipped: pending
    err = expect_bounds("gather", array="src", axis=0, index=99, size=32)
    assert err.skipped_launches == 1
    np.testing.assert_array_equal(out.copy_to_host(), np.zeros(32))
    K.tile_reverse[1, 32](dev(np.arange(32, dtype=np.float32)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32)[::-1])
