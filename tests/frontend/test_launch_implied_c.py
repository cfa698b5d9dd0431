"""Launch predicates under a flag (frontend/c/launch_implied.py): Rodinia's hotspot stores
`temp_dst[index]` only `if (computed)`, which the loop set where `tx` and `ty` lay between
the block's valid bounds -- a relation through conditionals (`validXmin = blkX < 0 ? -blkX :
0`) that makes `blkX + tx` at least 0. Proven at launches where every index is in bounds, never
where one is not; the flag must be written with literals, under stable conditions, and before
the use (no launch with zero iterations). No device: the rewrite and the host's mask."""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from benchmarks.cuda_c_cases import HOTSPOT  # noqa: E402
from benchmarks.opencl_cases import HOTSPOT as HOTSPOT_CL  # noqa: E402
from safekern.frontend.c import cuda, opencl  # noqa: E402
from tests.support.launch_masks import proven_texts  # noqa: E402

STORE = "temp_dst[index]"


def _hotspot(src, *, iteration=1, cols=64, rows=48, dst=None, border=None, dialect="cuda"):
    """The proven texts of hotspot's launch over a cols x rows grid, Rodinia's geometry."""
    small = 16 - 2 * iteration
    border = iteration if border is None else border
    grid = (-(-cols // small), -(-rows // small))
    f32 = np.float32(1)
    args = [np.int32(iteration), 0, 0, 0, np.int32(cols), np.int32(rows), np.int32(border),
            np.int32(border), f32, f32, f32, f32, f32]
    n = cols * rows * 4
    nb = [np.int64(n), np.int64(n), np.int64(n if dst is None else dst * 4)]
    if dialect == "cuda":
        rw = cuda.rewrite(src, filename="hotspot.cu", launch_predicates=True)
        return proven_texts(rw, "hotspot", args, nb, grid, (16, 16))
    rw = opencl.rewrite(src, filename="hotspot.cl", launch_predicates=True)
    return proven_texts(rw, "hotspot", args, nb, (grid[0] * 16, grid[1] * 16), (16, 16),
                        dialect="opencl")


@pytest.mark.parametrize("iteration", [1, 2, 3])
def test_hotspots_store_is_proven_where_every_index_is_in_bounds(iteration):
    assert STORE in _hotspot(HOTSPOT, iteration=iteration)
    # one element short: the last cell is computed and stored by some thread
    assert STORE not in _hotspot(HOTSPOT, iteration=iteration, dst=64 * 48 - 1)


def test_opencl_hotspot_too():
    assert STORE in _hotspot(HOTSPOT_CL, dialect="opencl")
    assert STORE not in _hotspot(HOTSPOT_CL, dst=64 * 48 - 1, dialect="opencl")


def test_no_iteration_leaves_the_flag_unwritten():
    # `bool computed;` is written only inside the loop: with no iteration it holds garbage
    assert STORE in _hotspot(HOTSPOT, iteration=1, border=1)
    assert STORE not in _hotspot(HOTSPOT, iteration=0, border=1)


#: (why, the change to hotspot's source) -- each leaves `computed` saying nothing
NOT_A_GUARD = {
    "a non-literal write": ("computed = false;", "computed = tx < 15;"),
    "a true write outside the guard": ("    }\n    if (computed) temp_dst",
                                       "    }\n    computed = true;\n    if (computed) temp_dst"),
    "its address taken": ("bool computed;", "bool computed; bool* alias = &computed;"),
    "initialised true": ("bool computed;", "bool computed = true;"),
}


@pytest.mark.parametrize("why", sorted(NOT_A_GUARD))
def test_a_flag_that_is_not_a_guard(why):
    old, new = NOT_A_GUARD[why]
    assert old in HOTSPOT
    src = HOTSPOT.replace(old, new, 1)
    if why == "its address taken":       # (written through the alias: a real escape)
        src = src.replace("computed = true;", "*alias = true;", 1)
    assert STORE not in _hotspot(src), why


UNSTABLE = r"""
extern "C" __global__ void k(float* a, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int lim = n;
    bool ok = false;
    if (x < lim) ok = true;
    lim = 1 << 30;
    if (ok) a[x] = 1.0f;
}
"""


def test_a_condition_on_a_variable_that_changes_is_not_kept():
    def proven(src, n):
        rw = cuda.rewrite(src, filename="k.cu", launch_predicates=True)
        return proven_texts(rw, "k", [0, np.int32(n)], [np.int64(n * 4)], (4,), (32,))
    stable = UNSTABLE.replace("    lim = 1 << 30;\n", "")
    assert "a[x]" in proven(stable, 100)          # x < n where ok: a has n elements
    assert "a[x]" not in proven(UNSTABLE, 100)    # lim is not n any more
    assert "a[x]" not in proven(stable.replace("x < lim", "x <= lim"), 100)
