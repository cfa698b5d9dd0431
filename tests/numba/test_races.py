"""Races through global memory, proven at launch: RaceError before the kernel runs (nothing
written), RaceWarning where arguments share memory without a proof, silence where the launch is
proven race-free; the summary the front end makes; the switches. Simulator, and the GPU under
`pytest -m gpu`."""
import ast
import textwrap
import warnings

import numpy as np
import pytest
from numba import cuda

import safekern
from safekern.backends.numba.resolver import resolver as _resolver
from safekern.frontend import python as pyfront
from safekern.frontend.python.races import analyse_kernel
from tests.numba import race_kernels as K
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def launch_quietly(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, safekern.RaceWarning)]


def test_in_place_stencil_is_refused_before_it_runs():
    d = cuda.to_device(np.arange(64.0))
    with pytest.raises(safekern.RaceError) as info:
        K.smooth[2, 32](d)
    err = info.value
    assert isinstance(err, safekern.KernelError)
    assert (err.kernel, err.array, err.other) == ("smooth", "a", "a")
    assert err.write_line == err.read_line == err.lineno
    assert err.filename == K.__file__
    assert "a[i]" in str(err) and "a[i - 1]" in str(err) and f":{err.lineno}" in str(err)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(64.0))     # nothing written
    # Too few elements for two threads to meet: the same kernel runs.
    small = cuda.to_device(np.array([3.0, 6.0, 9.0]))
    K.smooth[1, 32](small)
    np.testing.assert_allclose(small.copy_to_host(), [3.0, 6.0, 9.0])


def test_shifted_views_of_one_buffer_are_refused():
    d = cuda.to_device(np.arange(64.0))
    with pytest.raises(safekern.RaceError) as info:
        K.copy[2, 32](d[1:], d[:-1])
    assert (info.value.array, info.value.other) == ("dst", "src")
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(64.0))


@pytest.mark.parametrize("case", ["same array", "disjoint halves", "in place x2",
                                  "red-black", "2-D in place", "atomics", "host arrays"])
def test_race_free_launches_run_silently(case):
    d = cuda.to_device(np.arange(64.0))
    host = np.arange(64.0)
    expected = {
        "same array": (lambda: K.copy[2, 32](d, d), np.arange(64.0)),
        "disjoint halves": (lambda: K.copy[1, 32](d[:32], d[32:]),
                            np.concatenate([np.arange(32.0, 64.0)] * 2)),
        "in place x2": (lambda: K.double[2, 32](d), np.arange(64.0) * 2),
        "red-black": (lambda: K.red_black[1, 32](d),
                      np.where(np.arange(64) % 2 == 0, (np.arange(64.0) + 1) * 0.5,
                               np.arange(64.0))),
    }
    if case == "2-D in place":
        m = cuda.to_device(np.arange(16.0).reshape(4, 4))
        assert not launch_quietly(lambda: K.scale_2d[(1, 1), (4, 4)](m, 3))
        np.testing.assert_array_equal(m.copy_to_host(), np.arange(16.0).reshape(4, 4) * 3)
        return
    if case == "atomics":
        bins = cuda.to_device(np.zeros(4, dtype=np.int64))
        x = cuda.to_device(np.array([0, 1, 1, 3, 3, 3], dtype=np.int64))
        assert not launch_quietly(lambda: K.histogram[1, 32](bins, x))
        np.testing.assert_array_equal(bins.copy_to_host(), [1, 2, 0, 3])
        return
    if case == "host arrays":            # each host array gets its own device copy
        out = np.zeros(64)
        assert not launch_quietly(lambda: K.copy[2, 32](out, host))
        np.testing.assert_array_equal(out, host)
        return
    launch, want = expected[case]
    assert not launch_quietly(launch)
    np.testing.assert_array_equal(d.copy_to_host(), want)


def test_data_dependent_indices_on_shared_memory_warn_once():
    d = cuda.to_device(np.arange(64.0))
    idx = cuda.to_device(np.arange(64))
    first = launch_quietly(lambda: K.scatter[2, 32](d, d, idx))
    assert len(first) == 1
    text = str(first[0].message)
    assert "'scatter'" in text and "'out'" in text and "'x'" in text
    assert first[0].filename == __file__                      # the user's line
    assert not launch_quietly(lambda: K.scatter[2, 32](d, d, idx))    # once per kernel & pair
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(64.0))  # the kernel ran


def test_error_mode_makes_the_warning_an_error(monkeypatch):
    set_safekern(monkeypatch, RACES="error")
    d = cuda.to_device(np.arange(64.0))
    with pytest.raises(safekern.RaceError, match="SAFEKERN_RACES=error"):
        K.scatter[2, 32](d, d, cuda.to_device(np.arange(64)))


def test_off_switch(monkeypatch):
    set_safekern(monkeypatch, RACES="off")
    d = cuda.to_device(np.arange(64.0))
    K.shift_by[1, 32](d, 0)             # a checked kernel decorated before: no check now
    assert not launch_quietly(lambda: K.scatter[2, 32](d, d, cuda.to_device(np.arange(64))))


def test_scalar_arguments_decide():
    d = cuda.to_device(np.arange(64.0))
    K.shift_by[1, 32](d, 0)                              # k == 0: every thread its own
    with pytest.raises(safekern.RaceError):
        K.shift_by[1, 32](d, 1)                          # thread i reads what i+1 writes


def test_transpose_in_place_races():
    m = cuda.to_device(np.arange(16.0).reshape(4, 4))
    with pytest.raises(safekern.RaceError):
        K.transpose_in_place[(1, 1), (4, 4)](m)


def test_a_one_dimensional_index_under_a_two_dimensional_launch_races():
    d = cuda.to_device(np.arange(64.0))
    with pytest.raises(safekern.RaceError):
        K.double[(1, 1), (32, 2)](d)                     # threads (x, 0) and (x, 1) meet


def test_every_thread_writing_one_element_races():
    with pytest.raises(safekern.RaceError) as info:
        K.everyone_writes_zero[1, 32](cuda.to_device(np.zeros(1)),
                                      cuda.to_device(np.arange(32.0)))
    assert "writes the same element" in str(info.value)


def test_one_element_read_by_everyone_and_written_by_one_thread_races():
    with pytest.raises(safekern.RaceError) as info:
        K.everyone_reads_what_one_writes[1, 32](cuda.to_device(np.zeros(32)))
    assert (info.value.write_text, info.value.other_text) == ("a[i + 2]", "a[2]")
    K.everyone_reads_what_one_writes[1, 32](cuda.to_device(np.zeros(2)))   # no thread writes


def test_threads_storing_one_value_are_benign():
    r = cuda.to_device(np.zeros(10))
    assert not launch_quietly(lambda: K.everyone_writes_one_value[1, 10](r, 4))
    assert r.copy_to_host()[0] == 5.0
    with pytest.raises(safekern.RaceError):
        K.everyone_increments[1, 10](r)              # a read of what another thread writes


def test_threads_storing_the_launchs_sizes_are_benign():
    # shapes, len(), size, blockDim and gridDim are the same in every thread of a launch
    a, meta = cuda.to_device(np.arange(8.0)), cuda.to_device(np.zeros(3, np.int64))
    out = cuda.to_device(np.zeros(8))
    assert not launch_quietly(lambda: K.everyone_records_the_launch[2, 4](a, meta, out))
    np.testing.assert_array_equal(meta.copy_to_host(), [8, 8, 16])
    with pytest.raises(safekern.RaceError):       # each thread's own index is not
        K.everyone_records_its_index[2, 4](meta)


def test_check_report_has_the_race_verdicts():
    rows = {r["array"]: r for r in K.smooth.check_report() if r["kind"] == "race"}
    assert rows["a"]["status"] == "checked at launch"
    rows = {r["array"]: r for r in K.scatter.check_report() if r["kind"] == "race"}
    assert rows["out"]["status"] == "may race" and "data-dependent" in rows["out"]["reason"]


# -- barriers, grid syncs, reflections (issue 27) ------------------------------------------


def test_a_barrier_orders_one_block_not_two():
    b, out = cuda.to_device(np.zeros(32)), cuda.to_device(np.zeros(32))
    assert not launch_quietly(lambda: K.neighbour_after_barrier[1, 32](b, out))
    np.testing.assert_array_equal(out.copy_to_host(), list(range(1, 32)) + [0])
    with pytest.raises(safekern.RaceError):       # blocks are not ordered by syncthreads
        K.neighbour_after_barrier[2, 32](cuda.to_device(np.zeros(64)),
                                         cuda.to_device(np.zeros(64)))
    with pytest.raises(safekern.RaceError) as info:    # no barrier: one block races
        K.neighbour_without_barrier[1, 32](b, out)
    assert (info.value.write_text, info.value.other_text) == ("b[t]", "b[t + 1]")


def test_a_race_only_across_blocks_says_so():
    b, out = cuda.to_device(np.zeros(64)), cuda.to_device(np.zeros(64))
    assert not launch_quietly(lambda: K.global_neighbour_after_barrier[1, 64](b, out))
    with pytest.raises(safekern.RaceError) as info:       # threads 31 and 32 meet
        K.global_neighbour_after_barrier[2, 32](b, out)
    assert info.value.across_blocks
    assert "a thread of another block reads the same element through `b[i + 1]`" in \
        str(info.value) and "one block only" in str(info.value)


def test_a_barrier_under_a_local_name_is_a_barrier():
    b, out = cuda.to_device(np.zeros(64)), cuda.to_device(np.zeros(64))
    assert not launch_quietly(lambda: K.neighbour_after_aliased_barrier[1, 64](b, out))
    with pytest.raises(safekern.RaceError) as info:
        K.neighbour_after_aliased_barrier[2, 32](b, out)
    assert info.value.across_blocks


def test_a_grid_sync_orders_the_grid():
    b, out = cuda.to_device(np.zeros(64)), cuda.to_device(np.zeros(64))
    assert not launch_quietly(lambda: K.neighbour_after_grid_sync[2, 32](b, out))


def test_reverse_in_place_is_refused():
    a = cuda.to_device(np.arange(10.0))
    with pytest.raises(safekern.RaceError) as info:
        K.reverse[1, 32](a, a)
    assert (info.value.write_text, info.value.other_text) == ("out[i]", "inp[n - 1 - i]")
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(10.0))     # nothing written
    one = cuda.to_device(np.array([5.0]))        # a thread and itself: no race
    assert not launch_quietly(lambda: K.reverse[1, 32](one, one))
    out = cuda.to_device(np.zeros(10))
    assert not launch_quietly(lambda: K.reverse[1, 32](out, a))
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(10.0)[::-1])


def test_a_reversed_view_of_the_same_array_is_refused():
    d = cuda.to_device(np.arange(8.0))
    with pytest.raises(safekern.RaceError) as info:
        K.copy[1, 32](d, d[::-1])             # thread i writes d[i], thread 7 - i reads it
    assert (info.value.array, info.value.other) == ("dst", "src")
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8.0))
    assert not launch_quietly(lambda: K.reverse[1, 32](d, d[::-1]))     # reversed twice: a copy
    assert not launch_quietly(lambda: K.copy[1, 32](d[:4], d[4:][::-1]))  # disjoint halves
    np.testing.assert_array_equal(d.copy_to_host(), [7, 6, 5, 4, 4, 5, 6, 7])


def test_a_barrier_in_a_loop_does_not_separate_the_iterations():
    # Iteration 1's first write and iteration 0's read after the barrier share a phase:
    # never proven free (a RaceWarning for the shared arguments), never proven to race.
    d = cuda.to_device(np.zeros(32))
    warned = launch_quietly(lambda: K.barrier_once_per_iteration[1, 32](d, d))
    assert len(warned) == 1 and "'dst' and 'src'" in str(warned[0].message)


def test_block_arithmetic_against_enumeration():
    import random
    from safekern.backends.numba.race_pairs import _other_block, _spans_blocks

    rng = random.Random(0)
    for _ in range(4000):
        size, lo = rng.randint(1, 9), rng.randint(0, 40)
        hi, d, s = lo + rng.randint(0, 20), rng.randint(-60, 60), rng.choice([1, -1])
        assert _other_block((lo, hi), d, s, size) == any(
            (s * g + d) // size != g // size for g in range(lo, hi + 1)), (lo, hi, d, s, size)
        y = (rng.randint(0, 40),) * 2
        y = (y[0], y[1] + rng.randint(0, 10))
        assert _spans_blocks((lo, hi), y, size) == any(
            a // size != b // size for a in range(lo, hi + 1) for b in range(y[0], y[1] + 1))


def test_check_report_says_when_barriers_leave_the_verdict_open():
    rows = {r["array"]: r for r in K.barrier_once_per_iteration.check_report()
            if r["kind"] == "race"}
    assert rows["dst"]["status"] == "may race" and "barriers" in rows["dst"]["reason"]
    rows = {r["array"]: r for r in K.neighbour_after_barrier.check_report()
            if r["kind"] == "race"}
    assert rows["b"]["status"] == "checked at launch"


def test_syncwarp_and_syncing_helpers_are_barriers_of_unknown_reach():
    b, out = cuda.to_device(np.zeros(32)), cuda.to_device(np.zeros(32))
    # The simulator has no syncwarp: the launch's verdict is read from the checker.
    for kernel in (K.neighbour_after_syncwarp, K.neighbour_after_checked_helper):
        findings = kernel.dispatch.races.findings((b, out), (1, 1, 1), (32, 1, 1))
        assert findings and all(f.verdict == "maybe" for f in findings), kernel
    assert not [w for w in launch_quietly(lambda: K.neighbour_after_plain_helper[1, 32](b, out))
                if issubclass(w.category, safekern.RaceWarning)]
    np.testing.assert_array_equal(out.copy_to_host(), list(range(1, 32)) + [0])


# -- the front end's summary ---------------------------------------------------------------


def summary_of(src):
    ns = {}
    path = "<race test>"
    code = textwrap.dedent(src)
    import linecache
    linecache.cache[path] = (len(code), None, code.splitlines(True), path)
    exec(compile("from numba import cuda\n" + code, path, "exec"), ns)
    fn = next(v for k, v in ns.items() if callable(v) and k != "cuda")
    tree = ast.parse(code).body[0]
    parsed = pyfront.ParsedFunction(fn, tree, path, 0, ns, {})
    return analyse_kernel(parsed, _resolver())


def test_summary_forms_guards_and_certainty():
    s = summary_of("""
    def k(a, b, n):
        i = cuda.grid(1)
        if i < n:
            a[i] = b[i + 1]
            if b[i] > 0:
                a[i + 1] = 0
    """)
    a = s.accesses["a"]
    assert [x.write for x in a] == [True, True]
    assert a[0].certain and not a[1].certain          # under a data-dependent condition
    assert len(a[0].guards) == 1
    assert s.written("a") and not s.written("b")


def test_summary_marks_what_it_cannot_follow():
    s = summary_of("""
    def k(a, b, c, idx):
        i = cuda.grid(1)
        row = a[i]
        row[0] = 1
        b[idx[i]] = 2
        for k in range(4):
            c[i, k] = 3
    """)
    assert "a" in s.opaque                              # written through a view
    assert s.accesses["b"][-1].index is None            # data-dependent
    assert s.accesses["c"][0].index is None             # loop variable
    assert not s.accesses["c"][0].certain


def test_summary_threadidx_blockidx_is_a_global_coordinate():
    s = summary_of("""
    def k(a):
        i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        a[i] = a[i] + 1
    """)
    (form,) = s.accesses["a"][0].index
    assert form.terms == ((("g", 0), 1),)


def test_summary_barrier_phases():
    s = summary_of("""
    def k(a, b, n):
        i = cuda.grid(1)
        a[i] = 0
        cuda.syncthreads()
        a[i] = 1
        cuda.cg.this_grid().sync()
        a[i] = 2
        if n > 0:
            cuda.syncthreads()
        a[i] = 3
        for r in range(n):
            a[i] = 4
            cuda.syncthreads()
            a[i] = 5
        a[i] = 6
    """)
    phases = [x.phase for x in s.accesses["a"]]
    assert phases == [(0, 0, 0, 0), (1, 1, 0, 0), (2, 2, 1, 1), (2, 3, 1, 1), (2, None, 1, 1),
                      (3, None, 1, 1), (2, None, 1, 1)]
    assert s.has_barriers and s.has_grid_sync


def test_summary_barriers_of_a_nested_function_run_where_it_is_called():
    s = summary_of("""
    def k(a):
        i = cuda.grid(1)
        a[i] = 0
        def later():
            cuda.syncthreads()
        a[i] = 1
    """)
    assert [x.phase for x in s.accesses["a"]] == [(0, 0, 0, 0), (0, 0, 0, 0)]


# -- arguments passed to checked device functions (issue 29) ------------------------------

def test_an_argument_a_device_function_only_reads_is_not_listed_may_race():
    rows = {r["array"]: r for r in K.reads_through_a_helper.check_report()
            if r["kind"] == "race"}
    assert "src" not in rows
    assert rows["out"]["status"] == "checked at launch"
    summary = analyse_kernel(K.reads_through_a_helper.parsed, _resolver())
    assert not summary.written("src") and summary.uses("src") and summary.unknown("src")
    # One a device function writes stays "may race", its accesses not known.
    rows = {r["array"]: r for r in K.writes_through_a_helper.check_report()
            if r["kind"] == "race"}
    assert rows["dst"]["status"] == "may race" and "bump" in rows["dst"]["reason"]


def test_a_read_only_argument_sharing_memory_with_a_written_one_still_warns():
    # The helper's reads are at elements not known: src aliasing out is never proven free.
    a = cuda.to_device(np.arange(64.0))
    assert launch_quietly(lambda: K.reads_through_a_helper[2, 32](a, a))
    src, out = cuda.to_device(np.arange(64.0)), cuda.to_device(np.zeros(64))
    assert not launch_quietly(lambda: K.reads_through_a_helper[2, 32](src, out))
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(64.0))
