"""OpenCL C versions of six cases, run with PyOpenCL: `pyopencl.Program` (unchecked) against
`safekern.opencl.Program` (checked, and sync every launch).

The kernels are the CUDA C ones of `cuda_c_cases.py` in OpenCL C (hotspot is Rodinia's
`hotspot_kernel.cl`, with separate source and destination). Launches use the numba plan's grid
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

#: case name -> the OpenCL C source of its kernels
OPENCL_SOURCES = {"vector_add": VECTOR_ADD, "matmul_tiled": MATMUL_TILED,
                  "histogram": HISTOGRAM, "spmv_csr": SPMV_CSR, "transpose": TRANSPOSE,
                  "hotspot": HOTSPOT}


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
