"""CUDA C versions of twelve cases, run with CuPy: `cupy.RawKernel` (unchecked) against
`safekern.cupy.RawKernel` (checked, and sync every launch).

The kernels are written as a CuPy user writes them: `extern "C"`, flat row-major indexing with
the sizes as `int` arguments, guards on those sizes; hotspot is Rodinia's `calculate_temp`
(with separate source and destination, float arithmetic as in Rodinia's OpenCL version). The
kernels added for saxpy, jacobi (a 5-point stencil reading a one-element halo), reduce_sum,
prefix_scan (three kernels), gather_scatter and bfs_step are safekern's own, C versions of the
numba kernels (benchmarks/kernels.py); bfs_step takes its CSR graph as a struct by value
(`struct Graph { int nodes; int* nindex; int* nlist; }`, the arrays' device addresses in it). Data,
launches and reference come from the numba case (`c_cases.py`); the launches are CuPy's
`kernel(grid, block, args)` with the numba plan's grid and block.
"""
from __future__ import annotations

import numpy as np

from . import backends, c_cases, languages

VECTOR_ADD = r"""
extern "C" __global__ void vector_add(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
"""

MATMUL_TILED = r"""
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c,
                                        int n, int k, int m) {
    __shared__ float sa[TILE][TILE];
    __shared__ float sb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int kk = t * TILE + tx;
        if (row < n && kk < k) sa[ty][tx] = a[row * k + kk];
        else sa[ty][tx] = 0.0f;
        kk = t * TILE + ty;
        if (kk < k && col < m) sb[ty][tx] = b[kk * m + col];
        else sb[ty][tx] = 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++) acc += sa[ty][i] * sb[i][tx];
        __syncthreads();
    }
    if (row < n && col < m) c[row * m + col] = acc;
}
"""

HISTOGRAM = r"""
#define BINS 256
extern "C" __global__ void histogram(const unsigned char* data, int* bins, int n) {
    __shared__ int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
"""

SPMV_CSR = r"""
extern "C" __global__ void spmv_csr(const int* indptr, const int* indices, const float* data,
                                    const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) {
        float acc = 0.0f;
        for (int k = indptr[row]; k < indptr[row + 1]; k++) acc += data[k] * x[indices[k]];
        y[row] = acc;
    }
}
"""

TRANSPOSE = r"""
#define TTILE 32
extern "C" __global__ void transpose(const float* a, float* out, int n, int m) {
    __shared__ float tile[TTILE][TTILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TTILE + tx;
    for (int r = ty; r < TTILE; r += blockDim.y) {
        int row = blockIdx.y * TTILE + r;
        if (row < n && col < m) tile[r][tx] = a[row * m + col];
    }
    __syncthreads();
    col = blockIdx.y * TTILE + tx;
    for (int r = ty; r < TTILE; r += blockDim.y) {
        int row = blockIdx.x * TTILE + r;
        if (row < m && col < n) out[row * n + col] = tile[tx][r];
    }
}
"""

HOTSPOT = r"""
#define BLOCK_SIZE 16
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
extern "C" __global__ void hotspot(int iteration, const float* power, const float* temp_src,
                                   float* temp_dst, int grid_cols, int grid_rows,
                                   int border_cols, int border_rows, float Cap, float Rx,
                                   float Ry, float Rz, float step) {
    __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];
    float amb_temp = 80.0f;
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
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
    __syncthreads();
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
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed) temp_dst[index] = temp_t[ty][tx];
}
"""

SAXPY = r"""
extern "C" __global__ void saxpy(float alpha, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}
"""

JACOBI = r"""
extern "C" __global__ void jacobi(const float* u, float* out, int n, int m) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < n - 1 && j >= 1 && j < m - 1)
        out[i * m + j] = 0.25f * (((u[(i - 1) * m + j] + u[(i + 1) * m + j]) + u[i * m + j - 1])
                                  + u[i * m + j + 1]);
}
"""

REDUCE_SUM = r"""
#define MAX_BLOCK 1024
extern "C" __global__ void reduce_sum(const float* x, float* partial, int n) {
    __shared__ float sm[MAX_BLOCK];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    sm[tid] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sm[tid] += sm[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sm[0];
}
"""

PREFIX_SCAN = r"""
#define MAX_BLOCK 1024
extern "C" __global__ void scan_blocks(const int* x, int* out, int* block_sums, int n) {
    __shared__ int sm[MAX_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    sm[tid] = (i < n) ? x[i] : 0;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d *= 2) {
        int v = 0;
        if (tid >= d) v = sm[tid - d];
        __syncthreads();
        sm[tid] += v;
        __syncthreads();
    }
    if (i < n) out[i] = sm[tid];
    if (tid == blockDim.x - 1) block_sums[blockIdx.x] = sm[tid];
}

extern "C" __global__ void scan_block_sums(int* sums, int nb) {
    __shared__ int sm[MAX_BLOCK];
    int tid = threadIdx.x, width = blockDim.x;
    int carry = 0;
    for (int base = 0; base < nb; base += width) {
        int i = base + tid;
        sm[tid] = (i < nb) ? sums[i] : 0;
        __syncthreads();
        for (int d = 1; d < width; d *= 2) {
            int v = 0;
            if (tid >= d) v = sm[tid - d];
            __syncthreads();
            sm[tid] += v;
            __syncthreads();
        }
        if (i < nb) sums[i] = sm[tid] + carry;
        carry += sm[width - 1];
        __syncthreads();
    }
}

extern "C" __global__ void scan_add_offsets(int* out, const int* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.x;
    if (b > 0 && i < n) out[i] += sums[b - 1];
}
"""

GATHER_SCATTER = r"""
extern "C" __global__ void gather_scatter(const float* x, const int* gidx, const int* sidx,
                                          float* gathered, float* scattered, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        gathered[i] = x[gidx[i]];
        scattered[sidx[i]] = x[i];
    }
}
"""

BFS_STEP = r"""
struct Graph { int nodes; int* nindex; int* nlist; };
extern "C" __global__ void bfs_step(Graph g, const unsigned char* frontier, const int* level,
                                    unsigned char* next_frontier) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < g.nodes && frontier[u] != 0) {
        for (int k = g.nindex[u]; k < g.nindex[u + 1]; k++) {
            int v = g.nlist[k];
            if (level[v] < 0) next_frontier[v] = 1;
        }
    }
}
"""

#: case name -> the CUDA C source of its kernels
CUDA_SOURCES = {"vector_add": VECTOR_ADD, "matmul_tiled": MATMUL_TILED, "histogram": HISTOGRAM,
                "spmv_csr": SPMV_CSR, "transpose": TRANSPOSE, "hotspot": HOTSPOT,
                "saxpy": SAXPY, "jacobi": JACOBI, "reduce_sum": REDUCE_SUM,
                "prefix_scan": PREFIX_SCAN, "gather_scatter": GATHER_SCATTER,
                "bfs_step": BFS_STEP}

#: `struct Graph` of BFS_STEP as NumPy lays it out (align=True: C's padding after `nodes`)
GRAPH = np.dtype([("nodes", np.int32), ("nindex", np.uint64), ("nlist", np.uint64)],
                 align=True)


def _address(array) -> int:
    """The data address of a CuPy array (a NumPy one's stands in where no GPU is)."""
    data = getattr(array, "data", None)
    ptr = getattr(data, "ptr", None)
    return int(ptr) if ptr is not None else int(array.__array_interface__["data"][0])


def _bfs_graph(args, case):
    """bfs_step's numba arguments (indptr, indices, frontier, level, next_frontier) as the
    CUDA kernel's: the graph as one struct by value."""
    indptr, indices, *rest = args
    graph = np.array([(case.arrays["frontier"].size, _address(indptr), _address(indices))],
                     dtype=GRAPH)[0]
    return (graph, *rest)


def _dims(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class CupyLanguage(languages.Language):
    """CUDA C through CuPy: plain `cupy.RawKernel` unchecked, `safekern.cupy.RawKernel` checked."""

    name = "cupy"

    def unavailable(self):
        return backends.cupy_unavailable() or backends.clang_missing()

    def describe(self):
        import cupy as cp

        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.runtime.getDevice())
        name = props["name"]
        return {"device": name.decode() if isinstance(name, bytes) else str(name),
                "cupy": cp.__version__}

    def adapt(self, case):
        return c_cases.adapt(case, CUDA_SOURCES, ".cu", args={"bfs_step": _bfs_graph})

    def upload(self, case):
        import cupy as cp

        return {k: cp.asarray(v) for k, v in case.arrays.items()}

    def compile(self, mode, case):
        import cupy as cp

        if not mode.checked:
            return languages.Kernels((k, cp.RawKernel(src, k)) for k, src in case.kernels.items())
        import safekern.cupy as skcp

        return languages.Kernels((k, skcp.RawKernel(src, k, filename=case.extra["filename"]))
                                 for k, src in case.kernels.items())

    def launch(self, kernels, plan):
        for name, grid, block, args in plan:
            kernels[name](_dims(grid), _dims(block), args)

    def app_sync(self, mode):
        if mode.checked:
            import safekern

            safekern.sync()
        else:
            import cupy as cp

            cp.cuda.get_current_stream().synchronize()

    def timer(self):
        return _EventTimer(self)

    def release(self):
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()


class _EventTimer:
    """CUDA events around the steps and the application's sync, as for numba."""

    def __init__(self, language):
        import cupy as cp

        self.language = language
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()

    def __call__(self, mode, kernels, plan, steps):
        import time

        import cupy as cp

        t0 = time.perf_counter()
        self.start.record()
        for _ in range(steps):
            self.language.launch(kernels, plan)
        self.language.app_sync(mode)
        self.end.record()
        self.end.synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        return cp.cuda.get_elapsed_time(self.start, self.end), wall


__all__ = ["CUDA_SOURCES", "CupyLanguage"]
