"""OpenCL C and CUDA C kernels whose failing work-item would spin for ever if it did not leave
its loops once a check failed (the failed load gives a stand-in value: element 0).

    python -m tests.opencl.c_hang_kernels pocl|nvidia|cupy CASE...

builds each case on PoCL, on NVIDIA's OpenCL, or with CuPy, launches it on one group of 32,
expects the BoundsError (or, for the division and assert cases, the KernelZeroDivisionError or
KernelAssertionError) at safekern.sync() and prints `CASE raised LINE ARRAY INDEX SIZE` (`CASE
raised LINE TYPE: MESSAGE`);
test_hang_free_c.py runs this in a child process with a deadline, so a regression fails by the
timeout instead of hanging the suite. The failing line of each source ends with `// @site`.

The scans read a text of 40 'a' with no newline, so every work-item fails at text[40];
`update_skipped` fails in one work-item, and the rest of its group must still get through.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from tests.cupy.cuda_c_kernels import line

N_TEXT = 40
GROUP = 32


@dataclass(frozen=True)
class Case:
    opencl: str
    cuda: str
    inputs: str            # "text", "list", "values" or "zeros": what the kernel reads
    array: str             # bounds failures: what the BoundsError names
    index: int
    size: int
    error: str = ""        # other failures: "TYPE: first line of the message"


CASES = {
    # if (...) { ...; continue; }: the branch goes round before the test after the statement.
    "sentinel_continue": Case(r"""__kernel void k(__global const uchar *text, __global int *out) {
    int i = get_global_id(0);
    int j = i;
    while (1) {
        if (text[j] != '\n') {   // @site
            j++;
            continue;
        }
        break;
    }
    out[i] = j;
}""", r"""extern "C" __global__ void k(const unsigned char* text, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i;
    while (1) {
        if (text[j] != '\n') {   // @site
            j++;
            continue;
        }
        break;
    }
    out[i] = j;
}""", "text", "text", N_TEXT, N_TEXT),

    "sentinel_in_header": Case(r"""__kernel void k(__global const uchar *text, __global int *out) {
    int i = get_global_id(0);
    int j = i;
    while (text[j] != '\n')   // @site
        j++;
    out[i] = j;
}""", r"""extern "C" __global__ void k(const unsigned char* text, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i;
    while (text[j] != '\n')   // @site
        j++;
    out[i] = j;
}""", "text", "text", N_TEXT, N_TEXT),

    "sentinel_do_while": Case(r"""__kernel void k(__global const uchar *text, __global int *out) {
    int i = get_global_id(0);
    int j = i - 1;
    do {
        j++;
    } while (text[j] != '\n');   // @site
    out[i] = j;
}""", r"""extern "C" __global__ void k(const unsigned char* text, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i - 1;
    do {
        j++;
    } while (text[j] != '\n');   // @site
    out[i] = j;
}""", "text", "text", N_TEXT, N_TEXT),

    # The switch jumps to a case that goes round the loop.
    "sentinel_switch": Case(r"""__kernel void k(__global const uchar *text, __global int *out) {
    int i = get_global_id(0);
    int j = i;
    for (;;) {
        switch (text[j]) {   // @site
        case '\n':
            break;
        default:
            j++;
            continue;
        }
        break;
    }
    out[i] = j;
}""", r"""extern "C" __global__ void k(const unsigned char* text, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i;
    for (;;) {
        switch (text[j]) {   // @site
        case '\n':
            break;
        default:
            j++;
            continue;
        }
        break;
    }
    out[i] = j;
}""", "text", "text", N_TEXT, N_TEXT),

    # The same scan in a helper function the kernel calls.
    "helper_scan": Case(r"""int find_newline(__global const uchar *text, int j) {
    for (;; j++) {
        if (text[j] != '\n')   // @site
            continue;
        return j;
    }
}
__kernel void k(__global const uchar *text, __global int *out) {
    int i = get_global_id(0);
    out[i] = find_newline(text, i);
}""", r"""__device__ int find_newline(const unsigned char* text, int j) {
    for (;; j++) {
        if (text[j] != '\n')   // @site
            continue;
        return j;
    }
}
extern "C" __global__ void k(const unsigned char* text, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = find_newline(text, i);
}""", "text", "text", N_TEXT, N_TEXT),

    # A linked list whose last link points past `next`: the stand-in next[0] = 1 starts the
    # walk over again (and the loop's body has no check that would stop it).
    "list_walk": Case(r"""__kernel void k(__global const int *next, __global int *out) {
    int i = get_global_id(0);
    int n = 0;
    for (int p = i; p != -1; p = next[p])   // @site
        n++;
    out[i] = n;
}""", r"""extern "C" __global__ void k(const int* next, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = 0;
    for (int p = i; p != -1; p = next[p])   // @site
        n++;
    out[i] = n;
}""", "list", "next", GROUP + 1, GROUP + 1),

    # Kernels with barriers: the failing work-item still reaches the group's next barrier,
    # and the group leaves together.
    "sentinel_between_barriers": Case(r"""__kernel void k(__global const uchar *text,
                __global int *out) {
    __local int s[32];
    int t = get_local_id(0);
    s[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int j = t;
    while (1) {
        if (text[j] != '\n') {   // @site
            j++;
            continue;
        }
        break;
    }
    s[t] = j;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[t] = s[31 - t];
}""", r"""extern "C" __global__ void k(const unsigned char* text, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    int j = t;
    while (1) {
        if (text[j] != '\n') {   // @site
            j++;
            continue;
        }
        break;
    }
    s[t] = j;
    __syncthreads();
    out[t] = s[31 - t];
}""", "text", "text", N_TEXT, N_TEXT),

    # The failing work-item jumps to the body's last barrier, past the loop's update: only
    # the group leaving together after that barrier ends the loop.
    "update_skipped": Case(r"""__kernel void k(__global const float *a, __global float *out) {
    __local float sh[32];
    int t = get_local_id(0);
    float acc = 0.0f;
    int s = 1;
    while (s < 32) {
        sh[t] = (float)s;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += a[t + s] + sh[31 - t];   // @site
        s *= 2;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[t] = acc;
}""", r"""extern "C" __global__ void k(const float* a, float* out) {
    __shared__ float sh[32];
    int t = threadIdx.x;
    float acc = 0.0f;
    int s = 1;
    while (s < 32) {
        sh[t] = (float)s;
        __syncthreads();
        acc += a[t + s] + sh[31 - t];   // @site
        s *= 2;
        __syncthreads();
    }
    out[t] = acc;
}""", "values", "a", 47, 47),

    # A zero divisor in the loop's header: the quotient's stand-in (0) keeps `0 < 10` true, so
    # only leaving at the top of the body ends the loop (j is unsigned: no overflow to end it).
    "divide_in_header": Case(r"""__kernel void k(__global const int *step, __global int *out) {
    int i = get_global_id(0);
    int s = step[0];
    unsigned int j = 0;
    while (j / s < 10) {   // @site
        j++;
    }
    out[i] = j;
}""", r"""extern "C" __global__ void k(const int* step, int* out) {
    int i = threadIdx.x;
    int s = step[0];
    unsigned int j = 0;
    while (j / s < 10) {   // @site
        j++;
    }
    out[i] = (int)j;
}""", "zeros", "", 0, 0, "KernelZeroDivisionError: division by zero in `j / s`: `s` is 0 "
        "(dividend 0)"),

    # An assert failing in one work-item between the barriers of a loop: the rest of its
    # group must get through the barriers and leave with it.
    "assert_between_barriers": Case(r"""__kernel void k(__global const float *a,
                __global float *out) {
    __local int s[32];
    int t = get_local_id(0);
    int acc = 0;
    for (int k = 1; k < 32; k *= 2) {
        s[t] = t + k;
        barrier(CLK_LOCAL_MEM_FENCE);
        SAFEKERN_ASSERT(s[(t + k) % 32] != 9);   // @site
        acc += s[(t + k) % 32];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[t] = (float)acc + a[t];
}""", r"""extern "C" __global__ void k(const float* a, float* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int acc = 0;
    for (int k = 1; k < 32; k *= 2) {
        s[t] = t + k;
        __syncthreads();
        SAFEKERN_ASSERT(s[(t + k) % 32] != 9);   // @site
        acc += s[(t + k) % 32];
        __syncthreads();
    }
    out[t] = (float)acc + a[t];
}""", "values", "", 0, GROUP, "KernelAssertionError: assertion failed: s[(t + k) % 32] != 9"),
}


def inputs(case: Case) -> list[np.ndarray]:
    """The host arrays a case's kernel takes, its output last."""
    if case.inputs == "text":
        return [np.full(N_TEXT, ord("a"), np.uint8), np.zeros(GROUP, np.int32)]
    if case.inputs == "list":
        nxt = np.arange(1, GROUP + 2, dtype=np.int32)           # 0 -> 1 -> ... -> 33
        return [nxt, np.zeros(GROUP, np.int32)]
    if case.inputs == "zeros":
        return [np.zeros(GROUP, np.int32), np.zeros(GROUP, np.int32)]
    return [np.ones(case.size, np.float32), np.zeros(GROUP, np.float32)]   # fails at [size]


def _run_opencl(platform: str, name: str, case: Case):
    from tests.support.opencl_env import require_env

    import pyopencl.array as cla
    import safekern.opencl as skcl

    env = require_env(platform)
    prg = skcl.Program(env.ctx, case.opencl, filename=f"{name}.cl").build()
    arrays = [cla.to_device(env.queue, a) for a in inputs(case)]
    prg.k(env.queue, (GROUP,), (GROUP,), *arrays)


def _run_cupy(name: str, case: Case):
    import cupy as cp
    import safekern.cupy as skcp

    kernel = skcp.RawKernel(case.cuda, "k", filename=f"{name}.cu")
    kernel((1,), (GROUP,), tuple(cp.asarray(a) for a in inputs(case)))


def main(backend: str, names: list[str]) -> None:
    import safekern

    for name in names:
        case = CASES[name]
        print(f"{name} started", flush=True)
        if backend == "cupy":
            _run_cupy(name, case)
        else:
            _run_opencl(backend, name, case)
        try:
            safekern.sync()
        except safekern.BoundsError as err:
            print(f"{name} raised {err.lineno} {err.array} {err.index} {err.size}", flush=True)
            continue
        except safekern.KernelError as err:
            print(f"{name} raised {err.lineno} {type(err).__name__}: "
                  f"{str(err).splitlines()[0]}", flush=True)
            continue
        print(f"{name} raised nothing", flush=True)


def expected(name: str, backend: str) -> str:
    case = CASES[name]
    source = case.cuda if backend == "cupy" else case.opencl
    if case.error:
        return f"{name} raised {line(source, 'site')} {case.error}"
    return f"{name} raised {line(source, 'site')} {case.array} {case.index} {case.size}"


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
