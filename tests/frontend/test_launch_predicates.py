"""Launch predicates, front end only: which checks the host can prove at a launch, and with
what condition (issue 13). A predicate must imply the access is in bounds; where no launch fact
helps, the check stays. Launches that hold and break a predicate are in test_launch_variants.py.
"""
import pytest

from tests.support.rewrites import rewrite


def predicates(tmp_path, body, **kw):
    rw = rewrite(tmp_path, body, launch_predicates=True, **kw)
    return [p.text() for p in rw.launch_predicates], rw


def status_of(rw, array):
    return [(s.status, s.reason) for s in rw.sites if s.array == array]


def test_a_guard_on_another_array_needs_that_array_to_be_as_long(tmp_path):
    found, rw = predicates(tmp_path, """
        def k(out, a):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i]
    """)
    assert found == ["a.shape[0] >= out.shape[0]"]
    [(status, reason)] = status_of(rw, "a")
    assert status == "proven at launch" and "a.shape[0] >= out.shape[0]" in reason
    assert status_of(rw, "out")[0][0] == "eliminated"
    assert rw.launch_variant is not None and "_sk_load" not in rw.launch_variant.source
    assert "_sk_load" in rw.source          # the checked kernel keeps its check


def test_a_shared_tile_indexed_by_the_thread_needs_blocks_no_larger(tmp_path):
    found, rw = predicates(tmp_path, """
        def k(out):
            t = cuda.shared.array((TILE, 8), dtype=float32)
            t[cuda.threadIdx.x, cuda.threadIdx.y] = 1.0
            cuda.syncthreads()
            out[0] = t[cuda.threadIdx.y, cuda.threadIdx.x]
    """)
    # Each access needs both dimensions bounded by its tile's axes, (16, 8) and (8, 16). The
    # one variant keeps the bounds blocks are sized for (the loosest power of two per launch
    # dimension, 16 here): both accesses need an 8 too, so they stay checked rather than one
    # bound no 16 x 16 launch meets keeping every launch checked.
    assert found == ["out.shape[0] >= 1"]
    assert [s.status for s in rw.sites if s.array == "t"] == ["checked", "checked"]


def test_a_square_tile_gives_one_bound_per_dimension(tmp_path):
    found, rw = predicates(tmp_path, """
        def k(out):
            t = cuda.shared.array((TILE, TILE), dtype=float32)
            t[cuda.threadIdx.y, cuda.threadIdx.x] = 1.0
            cuda.syncthreads()
            out[0] = t[cuda.threadIdx.x, cuda.threadIdx.y]
    """)
    assert set(found) == {"blockDim.x <= 16", "blockDim.y <= 16", "out.shape[0] >= 1"}
    assert [s.status for s in rw.sites if s.array == "t"] == ["proven at launch"] * 2


def test_a_window_over_a_scalar_bound_needs_the_input_to_reach(tmp_path):
    found, _ = predicates(tmp_path, """
        def k(out, x, n):
            i = cuda.grid(1)
            if i < out.shape[0]:
                s = 0.0
                for j in range(n):
                    s += x[i + j]
                out[i] = s
    """)
    assert found == ["x.shape[0] + 1 >= n + out.shape[0]"]


@pytest.mark.parametrize("body", [
    # a data-dependent index: no launch fact bounds idx[i]
    """
    def k(out, a, idx):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[idx[i]]
    """,
    # the lower bound fails for thread 0 whatever the launch
    """
    def k(out, a):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i - 1]
    """,
    # the scalar is rebound in the kernel: its launch value says nothing later
    """
    def k(out, a, n):
        i = cuda.grid(1)
        n = n + i
        if i < n:
            out[i] = a[i]
    """,
    # the array is rebound: the launch's shape of `a` is not the shape of what `a` holds then
    """
    def k(out, a, b):
        i = cuda.grid(1)
        if i < out.shape[0]:
            a = b
            out[i] = a[i]
    """,
], ids=["data_dependent", "negative_for_thread_0", "rebound_scalar", "rebound_array"])
def test_nothing_the_launch_knows_proves_these(tmp_path, body):
    rw = rewrite(tmp_path, body, launch_predicates=True)
    texts = [p.text() for p in rw.launch_predicates]
    # No predicate on what the launch does not fix (n rebound, a rebound), none that only
    # says "the guarded code never runs" (out.shape[0] <= 0).
    assert not any(t == "n" or " n " in f" {t} " or "<= 0" in t for t in texts), texts
    a_sites = [s for s in rw.sites if s.array == "a"]
    assert all(s.status == "checked" for s in a_sites) or \
        all("gridsize" in s.reason for s in a_sites), [(s.status, s.reason) for s in a_sites]


def test_device_functions_have_no_launch(tmp_path):
    found, rw = predicates(tmp_path, """
        def k(out, a):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i]
    """, device=True)
    assert found == [] and rw.launch_variant is None


def test_predicates_evaluate_on_the_launch_facts(tmp_path):
    import numpy as np

    _, rw = predicates(tmp_path, """
        def k(out, x, n):
            i = cuda.grid(1)
            if i < out.shape[0]:
                s = 0.0
                for j in range(n):
                    s += x[i + j]
                out[i] = s
    """)
    [p] = rw.launch_predicates
    check = eval("lambda args, grid, block: " + p.python(), {"_int": int})
    out, x = np.zeros(10), np.zeros(12)
    assert check((out, x, 3), (1, 1, 1), (32, 1, 1))        # 12 + 1 >= 3 + 10
    assert not check((out, x, 4), (1, 1, 1), (32, 1, 1))    # i + j reaches 12 for i = 9


def test_a_tile_origin_times_the_block_index_scales_the_thread_facts(tmp_path):
    # srad's halo loads: row 16 * by needs 16 * (gridDim.y - 1) < j.shape[0]
    found, rw = predicates(tmp_path, """
        def k(j):
            row0 = 16 * cuda.blockIdx.y
            col = 16 * cuda.blockIdx.x + cuda.threadIdx.x
            j[row0, col] = 1
    """)
    assert set(found) == {"j.shape[0] + 15 >= 16 * gridDim.y",
                          "j.shape[1] + 16 >= blockDim.x + 16 * gridDim.x"}, found
    assert status_of(rw, "j")[0][0] == "proven at launch"


def test_the_else_of_the_last_block_row_reaches_one_tile_further(tmp_path):
    # `by != gridDim.y - 1` with by <= gridDim.y - 1: by <= gridDim.y - 2
    found, rw = predicates(tmp_path, """
        def k(j):
            by = cuda.blockIdx.y
            if by == cuda.gridDim.y - 1:
                j[16 * by + 15] = 1
            else:
                j[16 * by + 16] = 1
    """)
    assert found == ["j.shape[0] >= 16 * gridDim.y", "j.shape[0] + 15 >= 16 * gridDim.y"], found
    assert [s for s, _ in status_of(rw, "j")] == ["proven at launch"] * 2


def test_a_scaled_bound_still_needs_the_whole_tile(tmp_path):
    # 17 * by + 16 for tiles of 16: the predicate asks for more than the tiles cover
    found, rw = predicates(tmp_path, """
        def k(j):
            j[17 * cuda.blockIdx.y + 16] = 1
    """)
    assert found == ["j.shape[0] >= 17 * gridDim.y"], found


def test_two_guards_through_a_loaded_bound_give_a_predicate_over_shapes(tmp_path):
    # `m` is loaded: no bound of its own. Only both guards together cancel it (i < m and
    # m <= out.shape[0]), so the pair of facts is tried although each alone leaves it unbounded.
    found, rw = predicates(tmp_path, """
        def k(out, a, idx):
            i = cuda.grid(1)
            m = idx[0]
            if m <= out.shape[0]:
                if i < m:
                    out[i] = a[i]
    """)
    assert "a.shape[0] >= out.shape[0]" in found
    [(status, reason)] = status_of(rw, "a")
    assert status == "proven at launch" and "a.shape[0] >= out.shape[0]" in reason


def test_a_halo_guard_proves_the_output_by_the_input_not_by_the_grid(tmp_path):
    """xarray-spatial's convolution: threads outside the input minus its halo return, so
    `out[i, j]` is in bounds when `out` is as large as `data` -- a condition that holds at
    its launches, whose grid is rounded up past the data. Dropping the halo (`d >= 0`) asks
    nothing more of the launch than that; the grid's bound would fail every launch."""
    found, rw = predicates(tmp_path, """
        def k(data, kernel, out):
            i, j = cuda.grid(2)
            d = kernel.shape[0] // 2
            data_rows, data_cols = data.shape
            if i < d or i >= data_rows - d or j < d or j >= data_cols - d:
                return
            out[i, j] = data[i, j]
    """)
    assert found == ["out.shape[0] >= data.shape[0]", "out.shape[1] >= data.shape[1]"], found
    assert status_of(rw, "data")[0][0] == "eliminated"


def test_a_bound_that_holds_only_where_the_loop_never_runs_is_not_chosen(tmp_path):
    """numba-cuda's heat-equation example reads `data[i + 1]` at `i == 0` inside `for step in
    range(timesteps)`: `timesteps <= 0` (dropping the loop variable) proves it too, but only
    for launches that do nothing; `data.shape[0] >= 2` is the one to make."""
    found, rw = predicates(tmp_path, """
        def k(data, out, timesteps):
            i = cuda.grid(1)
            if i >= data.shape[0] or i >= out.shape[0]:
                return
            for step in range(timesteps):
                if i == 0:
                    out[i] = data[i + 1]
    """)
    assert "data.shape[0] >= 2" in found and not any("timesteps" in p for p in found), found


def test_of_two_predicates_the_one_that_holds_wherever_the_other_does_is_made(tmp_path):
    # Rodinia's lud_perimeter (benchmarks/rodinia_kernels.py): blockIdx.x <= gridDim.x - 1
    # times 16 cancels `16 * blockIdx.x` in `far + idx` and gives `m.shape[1] >= 16 *
    # gridDim.x + offset + 16`; times 17, less blockIdx.x >= 0, it gives `... >= 17 *
    # gridDim.x + offset + 15` -- a smaller constant, but it fails at every launch whose grid
    # just covers the matrix (48 columns, gridDim.x = 2, offset 0), and the first holds
    # wherever it does.
    found, rw = predicates(tmp_path, """
        def k(m, offset):
            dia = cuda.shared.array((16, 16), float32)
            peri_row = cuda.shared.array((16, 16), float32)
            peri_col = cuda.shared.array((16, 16), float32)
            tx = cuda.threadIdx.x
            far = offset + (cuda.blockIdx.x + 1) * 16
            if tx < 16:
                idx = tx
                for i in range(16 // 2):
                    dia[i, idx] = m[offset + i, offset + idx]
                for i in range(16):
                    peri_row[i, idx] = m[offset + i, far + idx]
            else:
                idx = tx - 16
                for i in range(16 // 2, 16):
                    dia[i, idx] = m[offset + i, offset + idx]
                for i in range(16):
                    peri_col[i, idx] = m[far + i, offset + idx]
            cuda.syncthreads()
            if tx < 16:
                idx = tx
                for i in range(1, 16):
                    for j in range(i):
                        peri_row[i, idx] -= dia[i, j] * peri_row[j, idx]
            else:
                idx = tx - 16
                for i in range(16):
                    for j in range(i):
                        peri_col[idx, i] -= peri_col[idx, j] * dia[j, i]
                    peri_col[idx, i] /= dia[i, i]
            cuda.syncthreads()
            if tx < 16:
                idx = tx
                for i in range(1, 16):
                    m[offset + i, far + idx] = peri_row[i, idx]
            else:
                idx = tx - 16
                for i in range(16):
                    m[far + i, offset + idx] = peri_col[i, idx]
    """)
    assert "m.shape[1] >= 16 * gridDim.x + offset + 16" in found
    assert not any("17 * gridDim.x" in p for p in found)
    assert {s.status for s in rw.sites if s.array == "m"} == {"proven at launch"}


def test_a_name_bound_to_a_parameter_before_it_is_rebound_holds_its_launch_value(tmp_path):
    """stumpy's kernel: `j = idx` at the top, `idx` rebound further down; `j` is the argument
    `idx` all through the launch, so `M_T[j]` is proven at launch by `idx` and M_T's shape."""
    found, rw = predicates(tmp_path, """
        def k(idx, M_T, out):
            j = idx
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = M_T[j]
                idx = i + 1
                out[i] += idx
    """)
    assert "M_T.shape[0] >= idx + 1" in found and "idx >= 0" in found
    [(status, reason)] = status_of(rw, "M_T")
    assert status == "proven at launch" and "M_T.shape[0] >= idx + 1" in reason


@pytest.mark.parametrize("body", [
    # rebound before the name is bound: not the launch value
    """
    def k(idx, M_T, out):
        idx = idx + 1
        j = idx
        out[0] = M_T[j]
    """,
    # bound under a branch: on the other path the name is not bound to it
    """
    def k(idx, M_T, out):
        if out.shape[0] > 1:
            j = idx
        else:
            j = 0
        idx = 2
        out[0] = M_T[j]
    """,
    # bound twice
    """
    def k(idx, M_T, out):
        j = idx
        for i in range(3):
            j = i
        idx = 2
        out[0] = M_T[j]
    """,
])
def test_no_launch_value_where_the_name_may_hold_another(tmp_path, body):
    found, rw = predicates(tmp_path, body)
    assert not any("idx" in p for p in found)
    assert status_of(rw, "M_T")[0][0] == "checked"
