"""Launch predicates over struct arguments (CUDA C, issue 25): an integer member of a by-value
struct the kernel never changes (`g.nodes`) is a launch fact -- the launch passed its bytes --
and so is the extent of a struct pointer field (its hidden size, struct_args.py). BFS's
`if (u < g.nodes) ... g.nindex[u + 1]` is proven at a launch whose `g.nindex` holds
`g.nodes + 1` elements, and checked at one where it does not. No GPU: the rewrite, the
compiled mask, and the stand-in `cupy` of test_cuda_c_launch.py for what a launch runs."""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from safekern.backends.c_launch import compile_mask, cuda_geometry  # noqa: E402
from safekern.backends.cupy import struct_args  # noqa: E402
from safekern.frontend.c import cuda as frontend  # noqa: E402
from tests.cupy.test_cuda_c_launch import FakeArray, fake_cupy  # noqa: E402,F401
from tests.cupy.test_struct_fields import _allocations  # noqa: E402

pytestmark = pytest.mark.nvrtc

BFS = r"""
struct Graph { int nodes; int* nindex; int* nlist; };
extern "C" __global__ void bfs(Graph g, const unsigned char* frontier, unsigned char* next) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < g.nodes && frontier[u] != 0) {
        for (int k = g.nindex[u]; k < g.nindex[u + 1]; k++) next[g.nlist[k]] = 1;
    }
}
"""

GRAPH = np.dtype([("nodes", np.int32), ("nindex", np.uint64), ("nlist", np.uint64)],
                 align=True)


def _graph(nodes, nindex=0x10000, nlist=0x20000, dtype=GRAPH):
    g = np.zeros((), dtype)
    g["nodes"] = nodes
    if "nindex" in dtype.names:
        g["nindex"], g["nlist"] = nindex, nlist
    return g[()]


def _proven(src, nodes, nindex_bytes, *, struct=None, grid=4, block=32, frontier=None):
    """The report texts of the checks the launch's predicates prove."""
    rw = frontend.rewrite(src, filename="bfs.cu", launch_predicates=True)
    info = rw.kernel("bfs")
    if not info.launch:
        return set()
    mask, codes = compile_mask(info.launch, python_int=True)
    g, l = cuda_geometry(grid, block)
    args = [struct if struct is not None else _graph(nodes), 0, 0]
    nb = [np.int64(frontier or grid * block), np.int64(grid * block),    # frontier, next
          np.int64(nindex_bytes), np.int64(1 << 20)]                  # g.nindex, g.nlist
    m = mask(args, nb, g, l)
    proven = frozenset().union(*(c for i, c in enumerate(codes) if m >> i & 1))
    return {e.text for e in rw.report() if e.function == "bfs" and e.code in proven}


def test_a_struct_member_and_a_field_extent_prove_the_row_reads():
    assert {"g.nindex[u]", "g.nindex[u + 1]", "frontier[u]"} <= _proven(BFS, 100, 101 * 4)
    # g.nindex one element short: its last row's end is past it
    short = _proven(BFS, 100, 100 * 4)
    assert "g.nindex[u]" in short and "g.nindex[u + 1]" not in short
    # more nodes than the launch has threads: the threads' ids bound u, not g.nodes
    assert "g.nindex[u + 1]" in _proven(BFS, 10 ** 6, 4 * 32 * 4 + 4)
    assert "g.nindex[u + 1]" not in _proven(BFS, 10 ** 6, 4 * 32 * 4)
    # a field the launch could not size (-1), a struct of another layout: nothing proven
    assert not {"g.nindex[u]", "g.nindex[u + 1]"} & _proven(BFS, 100, -1)
    packed = np.dtype([("nodes", np.int32), ("nindex", np.uint64), ("nlist", np.uint64)])
    assert not {"g.nindex[u]", "g.nindex[u + 1]"} & _proven(
        BFS, 100, 101 * 4, struct=_graph(100, dtype=packed))
    # the data-dependent ones stay
    assert not {"g.nlist[k]", "next[g.nlist[k]]"} & _proven(BFS, 100, 101 * 4)


@pytest.mark.parametrize("change", [
    "g.nodes = 1 << 30;",
    "g.nodes += 5;",
    "Graph* p = &g; p->nodes = 1 << 30;",
])
def test_a_struct_the_kernel_changes_gives_no_member_fact(change):
    # (frontier[u], a parameter's, is bounded by g.nodes where nothing changes it)
    assert "frontier[u]" in _proven(BFS, 100, 101 * 4, frontier=100)
    src = BFS.replace("    int u = ", f"    {change}\n    int u = ")
    proven = _proven(src, 100, 101 * 4, frontier=100)
    assert not {"g.nindex[u + 1]", "g.nindex[u]", "frontier[u]"} & proven


def test_an_unsigned_member_is_read_as_unsigned():
    src = BFS.replace("struct Graph { int nodes;", "struct Graph { unsigned nodes;").replace(
        "int u = ", "unsigned u = ")
    dtype = np.dtype([("nodes", np.uint32), ("nindex", np.uint64), ("nlist", np.uint64)],
                     align=True)
    assert "g.nindex[u + 1]" in _proven(src, 0, 101 * 4, struct=_graph(100, dtype=dtype))
    # 2**32 - 1 (a signed read, -1, is outside the member's range: never a fact)
    huge = _graph(0, dtype=dtype)
    huge["nodes"] = 2 ** 32 - 1
    assert "g.nindex[u + 1]" not in _proven(src, 0, 101 * 4, struct=huge)


def test_the_launch_runs_the_variant_the_fields_prove(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    cp = fake_cupy
    nindex = FakeArray(np.zeros(101, np.int32))
    nlist = FakeArray(np.zeros(8, np.int32))
    monkeypatch.setattr(struct_args, "allocation", _allocations(nindex, nlist))
    k = skcp.RawKernel(BFS, "bfs", filename="bfs.cu")
    front, nxt = cp.zeros(128, np.uint8), cp.zeros(128, np.uint8)
    k((4,), (32,), (_graph(100, nindex.data.ptr, nlist.data.ptr), front, nxt))
    variants = k._bound()[4]
    m = variants.mask_of([_graph(100, nindex.data.ptr, nlist.data.ptr), front, nxt],
                         [np.int64(128), np.int64(128), np.int64(404), np.int64(32)],
                         cuda_geometry, (4,), (32,))
    rw = k._program.rewrite("sm_90")
    codes = {a.extra["code"] for a in rw.accesses if a.array == "g.nindex"}
    assert codes <= variants.proven(m)
    # the variant launched leaves them out: its source has no check on g.nindex
    made, = variants.kernels()
    assert made.launches and not k.kernel.launches
