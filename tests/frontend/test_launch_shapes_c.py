"""Launch predicates of C kernels for the shapes the benchmark kernels use (frontend/c/launch.py,
launch_loops.py, launch_relations.py, launch_vars.py): doubling and halving loop variables,
differences a guard makes non-negative (`if (tid >= d) sm[tid - d]`), min/max/clamp, C++
conditional lvalues, and bounds that do not take each other down (a halo's index). Each proof
is tested where it holds and on launches that really go out of bounds, where it must not."""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from safekern.backends.c_launch import compile_mask  # noqa: E402
from safekern.frontend.c import cuda, opencl  # noqa: E402
from safekern.report import Status  # noqa: E402


def rewrite(src, dialect):
    if dialect == "opencl":
        return opencl.rewrite(src, filename="k.cl", launch_predicates=True)
    return cuda.rewrite(src, filename="k.cu", launch_predicates=True)


def proven(src, dialect, args, nbytes, g, l):
    """{access text: proven at this launch} of the one kernel of `src`."""
    rw = rewrite(src, dialect)
    k = rw.kernels[0]
    codes = frozenset()
    if k.launch:
        mask, bits = compile_mask(k.launch, python_int=dialect == "cuda")
        m = mask(args, nbytes, g, l)
        codes = frozenset().union(*(c for i, c in enumerate(bits) if m >> i & 1))
    return {e.text: e.code in codes for e in rw.report()
            if e.status in (Status.CHECKED, Status.PROVEN_AT_LAUNCH)}


SCAN_CL = """__kernel void scan(__global int *out, int n) {
    __local int sm[256];
    int tid = get_local_id(0);
    sm[tid] = tid;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < get_local_size(0); d *= 2) {
        int v = 0;
        if (tid >= d) v = sm[tid - d];
        barrier(CLK_LOCAL_MEM_FENCE);
        sm[tid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (tid < s) sm[tid] += sm[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = sm[tid];
}
"""

SCAN_CU = r"""extern "C" __global__ void scan(int* out, int n) {
    __shared__ int sm[256];
    int tid = threadIdx.x;
    sm[tid] = tid;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d <<= 1) {
        int v = 0;
        if (tid >= d) v = sm[tid - d];
        __syncthreads();
        sm[tid] += v;
        __syncthreads();
    }
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sm[tid] += sm[tid + s];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sm[tid];
}
"""


def test_doubling_halving_and_guarded_differences_are_proven():
    for src, dialect in ((SCAN_CL, "opencl"), (SCAN_CU, "cuda")):
        held = proven(src, dialect, [None, np.int32(0)], [4 * 1024], (1024, 1, 1)
                      if dialect == "opencl" else (4, 1, 1), (256, 1, 1))
        assert held["sm[tid - d]"] and held["sm[tid + s]"], (dialect, held)
        assert all(held.values()), (dialect, held)
        # a group larger than the tile: every shared access goes out of bounds
        big = proven(src, dialect, [None, np.int32(0)], [4 * 1024], (512, 1, 1)
                     if dialect == "opencl" else (1, 1, 1), (512, 1, 1))
        assert not big["sm[tid - d]"] and not big["sm[tid + s]"], (dialect, big)


def kernel_cl(body, tile=64):
    return ("__kernel void k(__global int *out, __global const int *a, int n, uint u) {\n"
            f"    __local int sm[{tile}];\n    int t = get_local_id(0);\n    int acc = 0;\n"
            f"    {body}\n    out[get_global_id(0)] = acc;\n}}\n")


# Each body, launched with n and u below on one group of 64, reads sm out of bounds for some
# work-item (worked out in the comment): its check must not be proven at that launch.
@pytest.mark.parametrize("body, n, u, why", [
    ("for (char d = 1; d < 60; d *= 6) acc += sm[d];", 0, 0,
     "1, 6, 36, then 216 wraps to -40 (< 60): sm[-40]"),
    ("int s = n - 100; for (; s > 0; s /= 2) acc += sm[s];", 300, 0,
     "not declared by the loop: the value is the assigned one, 200"),
    ("for (int s = n - 100; s > 0u; s /= 2) acc += sm[s];", 0, 0,
     "-100 compares as unsigned (> 0u): sm[-100]"),
    ("int g = 0; for (int s = n - 100; s > -101; s /= 2) { if (++g > 12) break; "
     "acc += sm[s + 100]; }", 0, 0, "a negative s grows when halved: -100, -50, ... 0: sm[100]"),
    ("for (int d = 1; d < 64; d *= 2) { int v = 0; if (t >= d) v = sm[t - d - 1]; acc += v; }",
     0, 0, "t = d: sm[-1]"),
    ("int d = n; if (t >= d) { d = d + 5; acc += sm[t - d]; }", 3, 0,
     "d changed under the guard: t = 3, d = 8"),
    ("int d = n; if (t <= d) acc += sm[t - d];", 3, 0, "the wrong direction: sm[-3]"),
    ("int d = n; if (t >= d || n > 0) acc += sm[t - d];", 3, 0, "an || guard: sm[-3]"),
    ("int d = n; if (!(t >= d)) acc += sm[t - d];", 3, 0, "the negated guard: sm[-3]"),
    ("int d = n; int e = t; if (e >= d) acc += sm[t - n - 1];", 3, 0,
     "other operands: t = 3 reads sm[-1]"),
    ("long j = t; if (j < (long)(u - 5u)) acc += sm[j + 10];", 0, 3,
     "u - 5u wraps to 2**32 - 2: the guard's bound -3 rests on `0 <= u - 5`, which fails; "
     "j + 10 reaches 73"),
    ("acc += sm[clamp(t, 0, n - 1)];", 0, 0, "clamp(t, 0, -1)"),
    ("acc += sm[clamp(t, n, 5)];", 100, 0, "clamp with lo > hi: undefined in OpenCL"),
    ("acc += sm[min(t, n) - 1];", 0, 0, "min reaches n - 1 = -1"),
    ("acc += sm[max(t - 70, (int)u)];", 0, 70, "max reaches u = 70"),
])
def test_what_the_shapes_must_not_claim(body, n, u, why):
    held = proven(kernel_cl(body), "opencl", [None, None, np.int32(n), np.uint32(u)],
                  [4 * 64, 4 * 64], (64, 1, 1), (64, 1, 1))
    sm = {t: h for t, h in held.items() if t.startswith("sm[")}
    assert sm and not any(sm.values()), (why, held)


def test_cpp_conditional_lvalues():
    # `S = S > m ? m : S` reads S (C++ converts the whole ?: to a value): proven ...
    clamp = r"""extern "C" __global__ void k(int* out, int m) {
    __shared__ int sm[32];
    int s = threadIdx.x + 1;
    s = (s > 31) ? 31 : s;
    sm[s] = 1;
    out[0] = sm[s];
}
"""
    assert all(proven(clamp, "cuda", [None, np.int32(0)], [4], (1, 1, 1), (64, 1, 1)).values())
    # ... but assigning to a conditional lvalue writes the variable in it
    write = r"""extern "C" __global__ void k(int* out, int m) {
    __shared__ int sm[32];
    int s = threadIdx.x, z = 0;
    (m > 0 ? s : z) = -5;
    sm[s] = 1;
    out[0] = sm[0];
}
"""
    held = proven(write, "cuda", [None, np.int32(1)], [4], (1, 1, 1), (16, 1, 1))
    assert held["sm[s]"] is False


HALO_CL = """__kernel void halo(__global const float *src, __global float *dst, int rows,
                   int cols, int border) {
    int y = get_group_id(1) * 14 + get_local_id(1) - border;
    int x = get_group_id(0) * 14 + get_local_id(0) - border;
    int index = cols * y + x;
    if (y >= 0 && y <= rows - 1 && x >= 0 && x <= cols - 1)
        dst[index] = src[index];
}
"""


def test_a_halo_index_guarded_at_the_use():
    # unguarded, y may be -border (the product's side condition `0 <= y` breaks); at the
    # use the guard holds: the bound that holds is used
    args = [None, None, np.int32(40), np.int32(40), np.int32(1)]
    nb = [4 * 1600, 4 * 1600]
    assert all(proven(HALO_CL, "opencl", args, nb, (48, 48, 1), (16, 16, 1)).values())
    # a buffer one element short: not proven
    short = proven(HALO_CL, "opencl", args, [4 * 1599, 4 * 1599], (48, 48, 1), (16, 16, 1))
    assert not any(short.values())


def test_the_benchmark_shapes_run_plain():
    """The C benchmark kernels (CI sizes): every check proven at their own launches, but
    hotspot's `temp_dst[index]` under `if (computed)` and the data-dependent ones."""
    import sys

    sys.path.insert(0, ".")
    from tools.c_launch_checks import probe

    for lang in ("cuda", "opencl"):
        for name in ("reduce_sum", "prefix_scan", "jacobi", "matmul_tiled"):
            for row in probe(lang, name, quick=True):
                assert row[4] == 0 and row[5], (lang, name, row)
        (row,) = probe(lang, "hotspot", quick=True)
        assert row[4] <= 1, row


def test_only_the_built_in_min_is_trusted(tmp_path):
    # a `min` of the user's own (here one that returns the larger) bounds nothing
    (tmp_path / "mine.h").write_text(
        "__device__ inline int min(int a, int b) { return a > b ? a : b; }\n")
    src = r"""#include "mine.h"
extern "C" __global__ void k(float* out, int n) {
    int i = (int)threadIdx.x;
    out[min(i, n - 1)] = 1.0f;
}
"""
    rw = cuda.rewrite(src, filename=str(tmp_path / "k.cu"), launch_predicates=True,
                      include_dirs=(str(tmp_path),))
    (e,) = [e for e in rw.report() if e.text.startswith("out[")]
    assert e.status is Status.CHECKED, e
    builtin = proven(src.replace('#include "mine.h"\n', ""), "cuda",
                     [None, np.int32(4)], [16], (1, 1, 1), (64, 1, 1))
    assert builtin["out[min(i, n - 1)]"]
