"""Loop versioning of CUDA C loops that store (frontend/c/loop_versions.py, `_guard`): BFS's
`for (k = nindex[u]; k < nindex[u + 1]; k++) { v = nlist[k]; if (level[v] < 0) next[v] = 1; }`
runs, when nlist's accesses are in bounds at the first and the last k, the user's loop with
its own bound and, each iteration, `k <= last` choosing the body without nlist's check (else
the checked body); level's and next's checks stay in both. Here the rewrite and NVRTC (no GPU);
under `-m gpu` the failures are those of the checked loop, at the right line."""
import re

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern.backends.cupy import nvrtc, program  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from safekern.frontend.c.loop_versions import GUARDED_REASON  # noqa: E402
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


def _compile(text):
    out = nvrtc.compile_program(text, filename="g.cu", arch="sm_90",
                                options=program.compile_options(()), cubin=True)
    assert out.cubin[:4] == b"\x7fELF" and "warning" not in out.log, out.log


@pytest.mark.parametrize("src,nlist", [(BFS, "nlist [ k ]"), (BFS_STRUCT, "g . nlist [ k ]")])
def test_a_loop_that_stores_runs_a_guarded_copy(src, nlist):
    rw = _rewrite(src)
    text = _body(rw.source)
    guarded, slow = text.split("} else for", 1)
    # the start once (lo); the bound as the user wrote it, read again each iteration
    m = re.search(r"int (__sk_gl\w+) = \(int\)\(\(__sk_hi\w+ - 1\)\); for \( int k = "
                  r"__sk_lo\w+ ; k < ([^;]*) ;", guarded)
    assert m and ("nindex )" in m.group(2) or "nindex [" in m.group(2)), guarded
    gl = m.group(1)
    fast, checked = guarded.split(f"if ({gl} >= k) {{", 1)[1].split("} else {", 1)
    # k up to the last one tested: nlist unchecked; level and next checked as always
    assert f"int v = {nlist} ;" in fast
    assert "level [ __sk_ix( v ," in fast and "next [ __sk_ix( v ," in fast
    # past it (the bound grew): the body as the rewrite checks it
    assert "__sk_ix( k ," in checked or "__sk_ptr(( g . nlist ) + ( k )" in checked
    # the loop as the rewrite checks it when the test before the loop fails
    assert "__sk_ix(k," in slow or "__sk_ptr((g.nlist) + (k)" in slow
    why = {e.text: e for e in rw.report()}
    assert why[nlist.replace(" ", "")].reason == GUARDED_REASON.format(line=6)
    assert why["level[v]"].reason == "" and why["next[v]"].reason == ""
    _compile(rw.source)


STORE_KINDS = {
    # (why, loop body): loops left as the rewrite checks them
    "a store through a pointer the function moves":
        "{ out[k] = x[k]; out += 1; }",
    "a store through a local pointer": "{ float* p = out; p[k] = x[k]; }",
    "a store at a data-dependent index (guarded)": "out[ix[k] + 0 * k] = 1.0f;",
}


@pytest.mark.parametrize("why", sorted(STORE_KINDS))
def test_loops_that_store_and_stay(why):
    src = ("extern \"C\" __global__ void k(const float* x, const int* ix, float* out, int lo,"
           " int hi) {\n"
           f"    for (int k = lo; k < hi; k++) {STORE_KINDS[why]}\n}}\n")
    text = _body(_rewrite(src).source)
    if why.endswith("(guarded)"):
        # ix[k] is affine: guarded; out[ix[k]] keeps its check in both bodies
        assert "__sk_gl" in text and text.count("out [ __sk_ix(") == 2
    else:
        assert "__sk_gl" not in text and "int k = __sk_lo" not in text, why


def test_opencl_loops_that_store_are_left_alone():
    """An OpenCL work-item that fails goes on to the end of its statement (exits.py tests the
    flag after it): a copy of the body without those tests would run on after a failure."""
    from safekern.frontend.c import opencl
    from benchmarks.opencl_cases import BFS_STEP

    text = opencl.rewrite(BFS_STEP, filename="b.cl").source
    assert "__sk_gl" not in text and "__sk_lo" not in text


# -- on a GPU: the guarded loop computes and reports like the checked loop --------------------

@pytest.mark.gpu
def test_on_a_gpu_guarded_bfs_computes_and_reports_like_the_checked_loop():
    cp = cupy_with_a_device()
    import safekern.cupy as skcp

    k = skcp.RawKernel(BFS, "bfs", filename="bfs_guarded.cu")
    nindex = cp.asarray(np.array([0, 2, 3, 5], np.int32))
    nlist = cp.asarray(np.array([1, 2, 0, 3, 1], np.int32))
    level = cp.asarray(np.array([0, -1, 5, -1], np.int32))
    nxt = cp.zeros(4, cp.uint8)
    k((1,), (32,), (nindex, nlist, level, nxt, np.int32(3)))
    safekern.sync()
    np.testing.assert_array_equal(nxt.get(), [0, 1, 0, 1])
    # a neighbour past level: level's check, in the guarded copy, at its line
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
    # a row past nlist: the test before the loop fails, the checked loop reports nlist
    long_index = cp.asarray(np.array([0, 2, 3, 7], np.int32))
    k((1,), (32,), (long_index, nlist, level, nxt, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.array, e.index, e.size, e.lineno) == ("nlist", 5, 5, K.line(BFS, "nlist"))


# -- on the host: the guarded loop against the loop as the rewrite checks it ------------------

def _unversioned(src, monkeypatch):
    from safekern.frontend.c import cuda_rewrite, loop_versions

    with monkeypatch.context() as m:
        m.setattr(cuda_rewrite, "version_loops", lambda *a, **k: loop_versions.Versioned())
        text = _rewrite(src).source
    assert "__sk_lo" not in _body(text)
    return text


def _graph(rng):
    """A small CSR graph, often broken: rows past nlist, neighbours outside level or next,
    next shorter than level, or next the very bytes of nindex (its stores move the bound)."""
    n = int(rng.integers(1, 10))
    deg = rng.integers(0, 5, n)
    nindex = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    nlist = rng.integers(0, n, int(nindex[-1])).astype(np.int32)
    level = rng.choice(np.array([-1, 0], np.int32), n)
    nxt = np.zeros(n, np.uint8)
    bug = int(rng.integers(0, 6))
    if bug == 1 and nindex[-1] > 0:
        nindex[int(rng.integers(1, n + 1)):] += int(rng.integers(1, 3))    # rows past nlist
    elif bug == 2 and nlist.size:
        nlist[int(rng.integers(0, nlist.size))] = int(rng.choice([-1, n, n + 3]))
    elif bug == 3 and n > 1:
        nxt = np.zeros(n - 1, np.uint8)
    alias = bug == 4
    return dict(nindex=nindex, nlist=nlist, level=level, next=nxt, n=np.int32(n)), alias


def test_on_the_host_the_guarded_loop_does_what_the_checked_loop_does(monkeypatch):
    from tests.support.cuda_host import HostKernel

    guarded = HostKernel(_rewrite(BFS).source, "bfs")
    if guarded is None:
        pytest.skip("no host C++ compiler")
    assert "__sk_gl" in _body(_rewrite(BFS).source)
    plain = HostKernel(_unversioned(BFS, monkeypatch), "bfs")
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(300):
        args, alias = _graph(rng)
        outs = []
        for kern in (guarded, plain):
            a = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
            if alias:           # next is nindex's own bytes: a store changes the bound
                a["next"] = a["nindex"].view(np.uint8)
            out = kern(int(args["n"]) + 3, 4, a)
            outs.append((out.failure, {k: v.tolist() for k, v in a.items()
                                       if isinstance(v, np.ndarray)}))
        assert outs[0] == outs[1], (args, alias)
        seen.add((outs[0][0] is not None, alias))
    assert seen >= {(True, False), (False, False), (False, True)}, seen
    # row 1 is nlist's last; its store next[9] = 1 sets byte 1 of nindex[2], its own bound
    # (2 -> 258): k passes the last k tested before the loop, and nlist[2] fails as it does
    # in the checked loop
    nindex = np.array([0, 0] + [2] * 11, np.int32)
    for kern in (guarded, plain):
        a = dict(nindex=nindex.copy(), nlist=np.array([9, 5], np.int32),
                 level=np.full(12, -1, np.int32), n=np.int32(12))
        a["next"] = a["nindex"].view(np.uint8)
        out = kern(12, 4, a)
        assert out.failure[1:] == (2, 2, 0, 1) and a["nindex"][2] == 258


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


STRIDED = r"""
extern "C" __global__ void strided(const float* x, float* out, int lo, int hi, int s) {
    int k;
    for (k = lo; k <= hi; k += s) out[2 * k + 1] = x[k] + 1.0f;
    out[0] = (float)k;
}
"""


def test_on_the_host_a_guarded_strided_store_does_what_the_checked_loop_does(monkeypatch):
    """An affine store (unchecked in the guarded body), `<=`, a step tested positive, the
    counter declared before the loop and read after it."""
    from tests.support.cuda_host import HostKernel

    text = _rewrite(STRIDED).source
    guarded = HostKernel(text, "strided")
    if guarded is None:
        pytest.skip("no host C++ compiler")
    assert "__sk_gl" in _body(text) and "out [ 2 * k + 1 ] = x [ k ]" in _body(text)
    plain = HostKernel(_unversioned(STRIDED, monkeypatch), "strided")
    rng = np.random.default_rng(3)
    failed = 0
    for _ in range(300):
        args = dict(x=np.arange(8, dtype=np.float32),
                    out=np.zeros(int(rng.integers(1, 20)), np.float32),
                    lo=np.int32(rng.integers(-2, 7)), hi=np.int32(rng.integers(-1, 12)),
                    s=np.int32(rng.integers(1, 4)))
        outs = []
        for kern in (guarded, plain):
            a = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
            out = kern(1, 1, a)
            outs.append((out.failure, a["out"].tolist()))
        assert outs[0] == outs[1], args
        failed += outs[0][0] is not None
    assert 0 < failed < 300
