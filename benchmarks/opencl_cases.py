"""OpenCL C versions of twelve cases, run with PyOpenCL: `pyopencl.Program` (unchecked) against
`safekern.opencl.Program` (checked, and sync every launch).

The kernels are the CUDA C ones of `cuda_c_cases.py` in OpenCL C (hotspot is Rodinia's
`hotspot_kernel.cl`, with separate source and destination); bfs_step takes its CSR arrays as
pointer arguments (OpenCL C forbids pointers in a kernel argument's struct). Launches use the numba plan's grid
and block as global size grid * block and local size block. The device is NVIDIA's when its
platform is there, else a GPU, else the first one (PoCL's CPU in CI; its times say nothing
about a GPU): `backends.opencl_device`, or the context PYOPENCL_CTX names. Repetitions are
timed by the device, from the first launch's start to the last one's end (profiling events).
"""
from __future__ import annotations

from . import backends, c_cases, languages

VECTOR_ADD = r"""
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
"""

MATMUL_TILED = r"""
#define TILE 16
__kernel void matmul_tiled(__global const float *a, __global const float *b,
                           __global float *c, int n, int k, int m) {
    __local float sa[TILE][TILE];
    __local float sb[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty;
    int col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int kk = t * TILE + tx;
        if (row < n && kk < k) sa[ty][tx] = a[row * k + kk];
        else sa[ty][tx] = 0.0f;
        kk = t * TILE + ty;
        if (kk < k && col < m) sb[ty][tx] = b[kk * m + col];
        else sb[ty][tx] = 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < TILE; i++) acc += sa[ty][i] * sb[i][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < n && col < m) c[row * m + col] = acc;
}
"""

HISTOGRAM = r"""
#define BINS 256
__kernel void histogram(__global const uchar *data, __global int *bins, int n) {
    __local int local_bins[BINS];
    for (int b = get_local_id(0); b < BINS; b += get_local_size(0)) local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = get_local_id(0); b < BINS; b += get_local_size(0))
        atomic_add(&bins[b], local_bins[b]);
}
"""

SPMV_CSR = r"""
__kernel void spmv_csr(__global const int *indptr, __global const int *indices,
                       __global const float *data, __global const float *x,
                       __global float *y, int n) {
    int row = get_global_id(0);
    if (row < n) {
        float acc = 0.0f;
        for (int k = indptr[row]; k < indptr[row + 1]; k++) acc += data[k] * x[indices[k]];
        y[row] = acc;
    }
}
"""

TRANSPOSE = r"""
#define TTILE 32
__kernel void transpose(__global const float *a, __global float *out, int n, int m) {
    __local float tile[TTILE][TTILE + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TTILE + tx;
    for (int r = ty; r < TTILE; r += get_local_size(1)) {
        int row = get_group_id(1) * TTILE + r;
        if (row < n && col < m) tile[r][tx] = a[row * m + col];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    col = get_group_id(1) * TTILE + tx;
    for (int r = ty; r < TTILE; r += get_local_size(1)) {
        int row = get_group_id(0) * TTILE + r;
        if (row < m && col < n) out[row * n + col] = tile[tx][r];
    }
}
"""

HOTSPOT = r"""
#define BLOCK_SIZE 16
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
__kernel void hotspot(int iteration, __global const float *power,
                      __global const float *temp_src, __global float *temp_dst,
                      int grid_cols, int grid_rows, int border_cols, int border_rows,
                      float Cap, float Rx, float Ry, float Rz, float step) {
    __local float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __local float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __local float temp_t[BLOCK_SIZE][BLOCK_SIZE];
    float amb_temp = 80.0f;
    int bx = get_group_id(0), by = get_group_id(1);
    int tx = get_local_id(0), ty = get_local_id(1);
    float step_div_Cap = step / Cap;
    float Rx_1 = 1 / Rx, Ry_1 = 1 / Ry, Rz_1 = 1 / Rz;
    int small_block_rows = BLOCK_SIZE - iteration * 2;
    int small_block_cols = BLOCK_SIZE - iteration * 2;
    int blkY = small_block_rows * by - border_rows;
    int blkX = small_block_cols * bx - border_cols;
    int blkYmax = blkY + BLOCK_SIZE - 1;
    int blkXmax = blkX + BLOCK_SIZE - 1;
    int yidx = blkY + ty;
    int xidx = blkX + tx;
    int index = grid_cols * yidx + xidx;
    if (IN_RANGE(yidx, 0, grid_rows - 1) && IN_RANGE(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int validYmin = (blkY < 0) ? -blkY : 0;
    int validYmax = (blkYmax > grid_rows - 1) ? BLOCK_SIZE - 1 - (blkYmax - grid_rows + 1)
                                              : BLOCK_SIZE - 1;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > grid_cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - grid_cols + 1)
                                              : BLOCK_SIZE - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < validYmin) ? validYmin : N;
    S = (S > validYmax) ? validYmax : S;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
            IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
            computed = true;
            temp_t[ty][tx] = temp_on_cuda[ty][tx] + step_div_Cap * (power_on_cuda[ty][tx] +
                (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0f * temp_on_cuda[ty][tx]) * Ry_1 +
                (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0f * temp_on_cuda[ty][tx]) * Rx_1 +
                (amb_temp - temp_on_cuda[ty][tx]) * Rz_1);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == iteration - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (computed) temp_dst[index] = temp_t[ty][tx];
}
"""

SAXPY = r"""
__kernel void saxpy(float alpha, __global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}
"""

JACOBI = r"""
__kernel void jacobi(__global const float *u, __global float *out, int n, int m) {
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < m - 1)
        out[i * m + j] = 0.25f * (((u[(i - 1) * m + j] + u[(i + 1) * m + j]) + u[i * m + j - 1])
                                  + u[i * m + j + 1]);
}
"""

REDUCE_SUM = r"""
#define MAX_BLOCK 1024
__kernel void reduce_sum(__global const float *x, __global float *partial, int n) {
    __local float sm[MAX_BLOCK];
    int tid = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += x[i];
    sm[tid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (tid < s) sm[tid] += sm[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) partial[get_group_id(0)] = sm[0];
}
"""

PREFIX_SCAN = r"""
#define MAX_BLOCK 1024
__kernel void scan_blocks(__global const int *x, __global int *out,
                          __global int *block_sums, int n) {
    __local int sm[MAX_BLOCK];
    int tid = get_local_id(0);
    int i = get_global_id(0);
    int width = get_local_size(0);
    sm[tid] = (i < n) ? x[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < width; d *= 2) {
        int v = 0;
        if (tid >= d) v = sm[tid - d];
        barrier(CLK_LOCAL_MEM_FENCE);
        sm[tid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < n) out[i] = sm[tid];
    if (tid == width - 1) block_sums[get_group_id(0)] = sm[tid];
}

__kernel void scan_block_sums(__global int *sums, int nb) {
    __local int sm[MAX_BLOCK];
    int tid = get_local_id(0), width = get_local_size(0);
    int carry = 0;
    for (int base = 0; base < nb; base += width) {
        int i = base + tid;
        sm[tid] = (i < nb) ? sums[i] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 1; d < width; d *= 2) {
            int v = 0;
            if (tid >= d) v = sm[tid - d];
            barrier(CLK_LOCAL_MEM_FENCE);
            sm[tid] += v;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (i < nb) sums[i] = sm[tid] + carry;
        carry += sm[width - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void scan_add_offsets(__global int *out, __global const int *sums, int n) {
    int i = get_global_id(0);
    int b = get_group_id(0);
    if (b > 0 && i < n) out[i] += sums[b - 1];
}
"""

GATHER_SCATTER = r"""
__kernel void gather_scatter(__global const float *x, __global const int *gidx,
                             __global const int *sidx, __global float *gathered,
                             __global float *scattered, int n) {
    int i = get_global_id(0);
    if (i < n) {
        gathered[i] = x[gidx[i]];
        scattered[sidx[i]] = x[i];
    }
}
"""

BFS_STEP = r"""
__kernel void bfs_step(__global const int *nindex, __global const int *nlist,
                       __global const uchar *frontier, __global const int *level,
                       __global uchar *next_frontier, int n) {
    int u = get_global_id(0);
    if (u < n && frontier[u] != 0) {
        for (int k = nindex[u]; k < nindex[u + 1]; k++) {
            int v = nlist[k];
            if (level[v] < 0) next_frontier[v] = 1;
        }
    }
}
"""

#: case name -> the OpenCL C source of its kernels
OPENCL_SOURCES = {"vector_add": VECTOR_ADD, "matmul_tiled": MATMUL_TILED,
                  "histogram": HISTOGRAM, "spmv_csr": SPMV_CSR, "transpose": TRANSPOSE,
                  "hotspot": HOTSPOT, "saxpy": SAXPY, "jacobi": JACOBI,
                  "reduce_sum": REDUCE_SUM, "prefix_scan": PREFIX_SCAN,
                  "gather_scatter": GATHER_SCATTER, "bfs_step": BFS_STEP}


def _dims(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _ProgramReport:
    """The checks of one kernel of a checked program (the program lists all of them)."""

    def __init__(self, program, kernel: str):
        self.program, self.kernel = program, kernel

    def check_report(self):
        return [r for r in self.program.check_report() if r.function == self.kernel]


class OpenCLLanguage(languages.Language):
    """OpenCL C through PyOpenCL: plain `pyopencl.Program` unchecked, `safekern.opencl.Program`
    checked; buffers of `pyopencl.array.Array`s, one in-order queue with profiling."""

    name = "opencl"

    def __init__(self):
        self.device = self.ctx = self.queue = None

    def unavailable(self):
        if self.queue is not None:
            return None
        device, why = backends.opencl_device()
        if device is None:
            return why
        why = backends.clang_missing()
        if why:
            return why
        import pyopencl as cl

        self.device = device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx,
                                     properties=cl.command_queue_properties.PROFILING_ENABLE)
        return None

    def describe(self):
        info = {"device": backends.opencl_device_name(self.device)}
        if backends.opencl_on_cpu(self.device):
            info["note"] = "a CPU device: its times say nothing about a GPU"
        return info

    def adapt(self, case):
        return c_cases.adapt(case, OPENCL_SOURCES, ".cl")

    def upload(self, case):
        import pyopencl.array as cla

        why = self.unavailable()            # sets up the context at the first case
        if why:
            raise RuntimeError(f"OpenCL cannot run here: {why}")
        return {k: cla.to_device(self.queue, v) for k, v in case.arrays.items()}

    def plan_args(self, dev):
        return {k: a.data for k, a in dev.items()}

    def compile(self, mode, case):
        import pyopencl as cl

        programs = {}
        for src in dict.fromkeys(case.kernels.values()):
            if mode.checked:
                import safekern.opencl as skcl

                programs[src] = skcl.Program(self.ctx, src,
                                             filename=case.extra["filename"]).build()
            else:
                programs[src] = cl.Program(self.ctx, src).build()
        kernels = languages.Kernels((k, getattr(programs[src], k))
                                    for k, src in case.kernels.items())
        if mode.checked:
            kernels.reports = {k: _ProgramReport(programs[src], k)
                               for k, src in case.kernels.items()}
        return kernels

    def launch(self, kernels, plan):
        first = event = None
        for name, grid, block, args in plan:
            local = _dims(block)
            size = tuple(g * b for g, b in zip(_dims(grid), local))
            event = kernels[name](self.queue, size, local, *args)
            if first is None:
                first = event
        return first, event

    def app_sync(self, mode):
        if mode.checked:
            import safekern

            safekern.sync()
        else:
            self.queue.finish()

    def timer(self):
        return languages.HostTimer(
            self, lambda first, last: (last.profile.end - first.profile.start) / 1e6)

    def release(self):
        import gc

        gc.collect()


__all__ = ["OPENCL_SOURCES", "OpenCLLanguage"]
