"""CUDA C loops that store stay as the rewrite checks them (frontend/c/loop_versions.py):
BFS's `for (k = nindex[u]; k < nindex[u + 1]; k++) { v = nlist[k]; if (level[v] < 0)
next[v] = 1; }` keeps nlist's, level's and next's checks in the loop. A guarded copy (nlist
unchecked up to the last k tested before the loop, the user's bound re-read) cost 2.0x on an
H100 against 1.18x for this form (benchmarks/results/2026-11-27b-device-calls). And CUDA's
`__sk_ix` tests an int index in 32 bits, the same test as the 64-bit one for every extent."""
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

#: the benchmark's form: the CSR arrays in a struct by value (a field's check is __sk_ptr)
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


@pytest.mark.parametrize("src,nlist", [(BFS, "__sk_ix(k,"), (BFS_STRUCT, "__sk_ptr((g.nlist) + (k)")])
def test_a_loop_that_stores_keeps_its_checks(src, nlist):
    rw = _rewrite(src)
    text = _body(rw.source)
    assert "__sk_lo" not in text and "__sk_gl" not in text, text
    assert nlist in text and "level[__sk_ix(v," in text and "next[__sk_ix(v," in text, text
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


# -- the 32-bit int index check, on the host -----------------------------------------------

def test_the_int_index_check_is_32_bit_and_the_same_test(tmp_path):
    """CUDA's `__sk_ix` tests an int index in 32 bits (frontend/c/prelude.py): on BFS's path
    from nlist's load to level's no sign extension and 64-bit compare; here the prelude's own
    text, built for the host, fails exactly where the 64-bit test does, for every boundary
    index and extent (the GPU's runs the same C++)."""
    import ctypes
    import shutil
    import subprocess

    from safekern.frontend.c import prelude

    text = prelude.cuda(False)
    start = text.index("template <typename I>\nstatic __device__ __forceinline__ long long "
                       "__sk_ix(")
    fn = text[start:text.index("\n}", start) + 2]
    assert "(unsigned int)i >= (unsigned int)(n < 2147483648LL ? n : 2147483648LL)" in fn
    if shutil.which("g++") is None:
        pytest.skip("no host C++ compiler")
    src = tmp_path / "ix.cpp"
    src.write_text(
        "#define __device__\n#define __forceinline__ inline\nstruct Out {};\n"
        "static void __sk_fail(long long*, unsigned long long, long long, long long, long long,"
        " long long = 0) { throw Out(); }\n" + fn + "\n"
        "template <typename I> static int fails(I i, long long n) {\n"
        "  try { __sk_ix(i, n, 1ULL, 0, nullptr); return 0; } catch (Out&) { return 1; } }\n"
        'extern "C" int fails_int(int i, long long n) { return fails(i, n); }\n'
        'extern "C" int fails_uint(unsigned i, long long n) { return fails(i, n); }\n'
        'extern "C" int fails_ll(long long i, long long n) { return fails(i, n); }\n')
    lib = tmp_path / "ix.so"
    subprocess.run(["g++", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    so = ctypes.CDLL(str(lib))
    so.fails_int.argtypes = [ctypes.c_int, ctypes.c_longlong]
    so.fails_uint.argtypes = [ctypes.c_uint, ctypes.c_longlong]
    so.fails_ll.argtypes = [ctypes.c_longlong, ctypes.c_longlong]
    big = 2 ** 31
    ns = [-1, 0, 1, 2, 5, big - 1, big, big + 1, 2 ** 32, 2 ** 32 + 7, 2 ** 62]
    ints = [-big, -big + 1, -5, -1, 0, 1, 4, 5, 6, big - 2, big - 1]
    for n in ns:
        for i in ints:
            assert so.fails_int(i, n) == (n >= 0 and not 0 <= i < n), (i, n)
            u = i % 2 ** 32
            assert so.fails_uint(u, n) == (n >= 0 and not u < n), (u, n)
            assert so.fails_ll(i, n) == (n >= 0 and not 0 <= i < n), (i, n)
