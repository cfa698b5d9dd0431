"""Kernels with asserts and integer divisions, each in OpenCL C and CUDA C, for the C safety
tests: CI rewrites them (both dialects), compiles the CUDA ones with NVRTC and runs the OpenCL
ones on PoCL; the `gpu` tests run them on NVIDIA's OpenCL and with CuPy.

Every kernel takes `(x, d, out)`: int32 arrays of N elements, `x = arange(N)`. The failing line
ends with `// @site`. Launched as N work-items in groups of GROUP; `failing_index` is the one
element whose inputs make the check fail (x[k] is k; d is all ones but d[k] = 0 where a
division fails), so thread and block are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.cupy.cuda_c_kernels import line

N = 64
GROUP = 16


@dataclass(frozen=True)
class Case:
    opencl: str
    cuda: str
    kind: str                  # "assert" or "zero_division"
    message: str               # the exception's first line, for the failing index
    failing_index: int
    zero_divisor: bool         # the failure needs d[failing_index] = 0
    expected: object           # out for correct inputs (x, d = ones): a function of x
    function: str = "k"        # the function that holds the site

    def where(self) -> tuple:
        k = self.failing_index
        return (k % GROUP, 0, 0), (k // GROUP, 0, 0)

    def message_for(self, dialect: str) -> str:
        return self.message.replace("{ulong}", "ulong" if dialect == "opencl"
                                    else "unsigned long long")


CASES = {
    # assert(cond) in CUDA, SAFEKERN_ASSERT(cond) in OpenCL: fails for the last element only.
    "assert": Case(r"""__kernel void k(__global const int *x, __global const int *d,
                __global int *out) {
    int i = get_global_id(0);
    SAFEKERN_ASSERT(x[i] < 63);   // @site
    out[i] = x[i] + d[i];
}""", r"""extern "C" __global__ void k(const int* x, const int* d, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(x[i] < 63);   // @site
    out[i] = x[i] + d[i];
}""", "assert", "assertion failed: x[i] < 63", 63, False, lambda x: x + 1),

    # The message and its values, evaluated by the failing thread only.
    "assert_msg": Case(r"""__kernel void k(__global const int *x, __global const int *d,
                __global int *out) {
    int i = get_global_id(0);
    SAFEKERN_ASSERT_MSG(x[i] != 37, "x[%d] is %d, not %04x",   // @site
                        i, x[i], 255);
    out[i] = 2 * x[i] * d[i];
}""", r"""extern "C" __global__ void k(const int* x, const int* d, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    SAFEKERN_ASSERT_MSG(x[i] != 37, "x[%d] is %d, not %04x",   // @site
                        i, x[i], 255);
    out[i] = 2 * x[i] * d[i];
}""", "assert", "x[37] is 37, not 00ff", 37, False, lambda x: 2 * x),

    "divide": Case(r"""__kernel void k(__global const int *x, __global const int *d,
                __global int *out) {
    int i = get_global_id(0);
    int q = x[i] / d[i];   // @site
    out[i] = q + 1;
}""", r"""extern "C" __global__ void k(const int* x, const int* d, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int q = x[i] / d[i];   // @site
    out[i] = q + 1;
}""", "zero_division", "division by zero in `x[i] / d[i]`: `d[i]` is 0 (dividend 50)",
        50, True, lambda x: x + 1),

    # unsigned 64-bit operands (OpenCL: the ulong helper), and % as a compound assignment
    "modulo_assign": Case(r"""__kernel void k(__global const int *x, __global const int *d,
                __global int *out) {
    int i = get_global_id(0);
    ulong v = (ulong)x[i] + 7;
    v %= (ulong)d[i];   // @site
    out[i] = (int)v + x[i];
}""", r"""extern "C" __global__ void k(const int* x, const int* d, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = (unsigned long long)x[i] + 7;
    v %= (unsigned long long)d[i];   // @site
    out[i] = (int)v + x[i];
}""", "zero_division", "division by zero in `v %= ({ulong})d[i]`: `({ulong})d[i]` is 0 "
        "(dividend 12)", 5, True, lambda x: x),

    # In a helper function: its line is reported, the kernel leaves after the call.
    "helper": Case(r"""int ratio(int a, int b) {
    return a / b;   // @site
}
__kernel void k(__global const int *x, __global const int *d, __global int *out) {
    int i = get_global_id(0);
    out[i] = ratio(x[i], d[i]) * 3;
}""", r"""__device__ int ratio(int a, int b) {
    return a / b;   // @site
}
extern "C" __global__ void k(const int* x, const int* d, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = ratio(x[i], d[i]) * 3;
}""", "zero_division", "division by zero in `a / b`: `b` is 0 (dividend 18)", 18, True,
        lambda x: 3 * x, function="ratio"),

    # Barriers in a loop: the failing work-item must not leave its group waiting.
    "barrier_loop": Case(r"""__kernel void k(__global const int *x, __global const int *d,
                __global int *out) {
    __local int s[16];
    int t = get_local_id(0);
    int i = get_global_id(0);
    int acc = 0;
    for (int step = 1; step < 16; step *= 2) {
        s[t] = x[i] + step;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += s[(t + step) % 16] / d[i];   // @site
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = acc;
}""", r"""extern "C" __global__ void k(const int* x, const int* d, int* out) {
    __shared__ int s[16];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int step = 1; step < 16; step *= 2) {
        s[t] = x[i] + step;
        __syncthreads();
        acc += s[(t + step) % 16] / d[i];   // @site
        __syncthreads();
    }
    out[i] = acc;
}""", "zero_division", "division by zero in `s[(t + step) % 16] / d[i]`: `d[i]` is 0 "
        "(dividend 43)", 41, True, None),
}


def barrier_loop_expected(x):
    """What `barrier_loop` computes with d all ones."""
    out = np.zeros_like(x)
    for i in range(len(x)):
        base, t = i - i % GROUP, i % GROUP
        out[i] = sum(x[base + (t + step) % GROUP] + step for step in (1, 2, 4, 8))
    return out


def inputs(case: Case, failing: bool):
    """(x, d) host arrays; with `failing`, the inputs under which the case's check fails."""
    x = np.arange(N, dtype=np.int32)
    d = np.ones(N, dtype=np.int32)
    if failing and case.zero_divisor:
        d[case.failing_index] = 0
    if not failing and case.kind == "assert":
        x = x.copy()
        x[case.failing_index] = 0          # the assert holds everywhere
    return x, d


def expected(case: Case, x):
    return barrier_loop_expected(x) if case.expected is None else case.expected(x)


def check_after_failure(case: Case, x, out) -> None:
    """`out` after the failing launch: the failing work-item left before its store -- in a
    kernel with barriers, with its whole group, which left together at the next barrier.
    Every other element is computed, or 0: a work-item that started after the failure was
    recorded returns at once (PoCL runs a group's work-items one after another)."""
    want = expected(case, x)
    k = case.failing_index
    first = k - k % GROUP
    left = slice(first, first + GROUP) if case.expected is None else slice(k, k + 1)
    assert not out[left].any(), out
    ran = out != 0
    np.testing.assert_array_equal(out[ran], want[ran])


def site_line(case: Case, dialect: str) -> int:
    return line(case.opencl if dialect == "opencl" else case.cuda, "site")
