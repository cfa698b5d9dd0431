"""CUDA C loops that store stay as the rewrite checks them (frontend/c/loop_versions.py):
BFS's `for (k = nindex[u]; k < nindex[u + 1]; k++) { v = nlist[k]; if (level[v] < 0)
next[v] = 1; }` keeps nlist's, level's and next's checks in the loop. A guarded copy (nlist
unchecked up to the last k tested before the loop, the user's bound re-read) cost 2.0x on an
H100 against 1.18x for this form (benchmarks/results/2026-11-27b-device-calls)."""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern.backends.cupy import nvrtc, program  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.support.cupy_device import cupy_with_a_device  # noqa: E402

BFS = r"""
extern "C" __global__ void bfs(const int* nindex, const int* nlist, const int* level,
                               unsigned char* next, int n) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        for (int k = nindex[u]; k < nindex[u + 1]; k++) {
            int v = nlist[k];   // @nlist
            if (level[v] < 0) next[v] = 1;   // @next
        }
    }
}
"""

#: the benchmark's form: the CSR arrays in a struct by value (a field subscripted as itself is
#: an index check against its element count)
BFS_STRUCT = r"""
struct Graph { int nodes; int* nindex; int* nlist; };
extern "C" __global__ void bfs(Graph g, const int* level, unsigned char* next) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < g.nodes) {
        for (int k = g.nindex[u]; k < g.nindex[u + 1]; k++) {
            int v = g.nlist[k];   // @nlist
            if (level[v] < 0) next[v] = 1;   // @next
        }
    }
}
"""


def _rewrite(src):
    return cuda.rewrite(src, filename="g.cu", arch="sm_90")


def _body(text):
    return text[text.rfind("#line 1"):]


@pytest.mark.parametrize("src,nlist", [(BFS, "__sk_ix32(k,"),
                                       (BFS_STRUCT, "g.nlist[__sk_ix32(k, __sk_count(")])
def test_a_loop_that_stores_keeps_its_checks(src, nlist):
    rw = _rewrite(src)
    text = _body(rw.source)
    assert "__sk_lo" not in text and "__sk_gl" not in text, text
    assert nlist in text and "level[__sk_ix32(v," in text and "next[__sk_ix32(v," in text, text
    why = {e.text: e for e in rw.report()}
    assert all(why[a].reason == "" for a in ("level[v]", "next[v]"))
    out = nvrtc.compile_program(rw.source, filename="g.cu", arch="sm_90",
                                options=program.compile_options(()), cubin=True)
    assert out.cubin[:4] == b"\x7fELF" and "warning" not in out.log, out.log


STORE_KINDS = {
    "a store to a parameter's element": "out[k] = x[k];",
    "a store through a pointer the function moves": "{ out[k] = x[k]; out += 1; }",
    "a store through a local pointer": "{ float* p = out; p[k] = x[k]; }",
    "a store at a data-dependent index": "out[ix[k]] = 1.0f;",
}


@pytest.mark.parametrize("why", sorted(STORE_KINDS))
def test_loops_that_store_are_not_versioned(why):
    src = ("extern \"C\" __global__ void k(const float* x, const int* ix, float* out, int lo,"
           " int hi) {\n"
           f"    for (int k = lo; k < hi; k++) {STORE_KINDS[why]}\n}}\n")
    text = _body(_rewrite(src).source)
    assert "__sk_lo" not in text and "__sk_gl" not in text, why


# -- on a GPU: BFS computes right and each check reports its own access ---------------------

@pytest.mark.gpu
def test_on_a_gpu_bfs_computes_and_reports_each_check():
    cp = cupy_with_a_device()
    import safekern.cupy as skcp

    k = skcp.RawKernel(BFS, "bfs", filename="bfs.cu")
    nindex = cp.asarray(np.array([0, 2, 3, 5], np.int32))
    nlist = cp.asarray(np.array([1, 2, 0, 3, 1], np.int32))
    level = cp.asarray(np.array([0, -1, 5, -1], np.int32))
    nxt = cp.zeros(4, cp.uint8)
    k((1,), (32,), (nindex, nlist, level, nxt, np.int32(3)))
    safekern.sync()
    np.testing.assert_array_equal(nxt.get(), [0, 1, 0, 1])
    # a neighbour past level: level's check, at its line
    bad = cp.asarray(np.array([1, 2, 0, 9, 1], np.int32))
    k((1,), (32,), (nindex, bad, level, nxt, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.array, e.index, e.size, e.lineno) == ("level", 9, 4, K.line(BFS, "next"))
    # next shorter than level: the store's own check, with the index that failed
    short = cp.zeros(3, cp.uint8)
    k((1,), (32,), (nindex, nlist, level, short, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.array, e.index, e.size, e.lineno) == ("next", 3, 3, K.line(BFS, "next"))
    # a row past nlist: nlist's own check
    long_index = cp.asarray(np.array([0, 2, 3, 7], np.int32))
    k((1,), (32,), (long_index, nlist, level, nxt, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.array, e.index, e.size, e.lineno) == ("nlist", 5, 5, K.line(BFS, "nlist"))
