"""CUDA C kernels for the CuPy tests: CI rewrites and compiles them with NVRTC (no GPU), the
`gpu` tests run them on the device.

A line that holds the access a test makes fail ends with `// @name`; `line(src, name)` finds it.
"""
import re


def line(source: str, marker: str) -> int:
    """The 1-based line of `source` that ends with the comment `// @marker`."""
    for n, text in enumerate(source.split("\n"), start=1):
        if re.search(rf"//\s*@{re.escape(marker)}\s*$", text):
            return n
    raise KeyError(marker)


GATHER = r"""
extern "C" __global__ void gather(float* out, const float* src, const int* idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = src[idx[i]];   // @gather
    }
}
"""

POINTER_ARITH = r"""
extern "C" __global__ void shift(const float* a, float* out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        *(out + i) = *(a + i + k);   // @deref
    }
}
"""

HISTOGRAM = r"""
extern "C" __global__ void histogram(const int* values, unsigned int* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&hist[values[i]], 1u);   // @atomic
    }
}
"""

SHARED_2D = r"""
#define TILE 16
extern "C" __global__ void transpose(const float* in, float* out, int n, int pad) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) {
        tile[threadIdx.y][threadIdx.x + pad] = in[y * n + x];   // @shared_axis1
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n) {
        out[y * n + x] = tile[threadIdx.x][threadIdx.y];
    }
}
"""

EXTERN_SHARED = r"""
extern "C" __global__ void block_sum(const float* in, float* out, int n, int extra) {
    extern __shared__ float buf[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    buf[tid + extra] = (i < n) ? in[i] : 0.0f;   // @extern_shared
    __syncthreads();
    if (tid == 0) {
        float s = 0.0f;
        for (unsigned int k = 0; k < blockDim.x; ++k) s += buf[k];
        out[blockIdx.x] = s;
    }
}
"""

LOCAL_ARRAY = r"""
extern "C" __global__ void window(const float* in, float* out, int n, int w) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int k = 0; k < w; ++k) {
            acc[k] += in[i];   // @local
        }
        out[i] = acc[0] + acc[1] + acc[2] + acc[3];
    }
}
"""

DEVICE_FUNCTION = r"""
__device__ float fetch(const float* p, int i) {
    return p[i];   // @device_fn
}

__device__ void put(float* p, int i, float v) { p[i] = v; }

extern "C" __global__ void copy_via(const float* src, float* dst, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        put(dst, i, fetch(src, i + off));
    }
}
"""

TEMPLATES = r"""
template <typename T>
__device__ T twice(const T* p, int i) {
    return p[i] + p[i];   // @template_device
}

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i + off] = a * x[i] + twice(y, i);   // @template_kernel
    }
}
"""
TEMPLATE_NAMES = ["axpy<float>", "axpy<double>"]

DERIVED_POINTER = r"""
extern "C" __global__ void row_sums(const float* a, float* sums, int rows, int cols, int extra) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* row = a + r * cols;
        float s = 0.0f;
        for (int j = 0; j < cols + extra; ++j) {
            s += row[j];   // @derived
        }
        sums[r] = s;
    }
}
"""

STRUCTS = r"""
struct Particle { float x, y, vx, vy; };
extern "C" __global__ void advance(Particle* p, int n, int stride, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Particle* q = p + i * stride;
        q->x += q->vx * dt;   // @arrow
        q->y += q->vy * dt;
    }
}
"""

# -- barrier kernels: a failing thread must not leave its block waiting -----------------------

BARRIER_LOOP = r"""
extern "C" __global__ void smooth(const float* in, float* out, int n, int steps, int bad) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = in[i < n ? i : 0];
    for (int step = 0; step < steps; ++step) {
        s[t] = v;
        __syncthreads();
        float left = t > 0 ? s[t - 1] : v;
        float right = t + 1 < blockDim.x ? s[t + 1] : v;
        if (step == 1 && t == bad) left = in[n + t];   // @loop_fail
        __syncthreads();
        v = 0.25f * left + 0.5f * v + 0.25f * right;
    }
    if (i < n) out[i] = v;
}
"""

MATMUL = r"""
#define TS 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int N, int Acols) {
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int row = blockIdx.y * TS + threadIdx.y;
    int col = blockIdx.x * TS + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < N / TS; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * Acols + t * TS + threadIdx.x];   // @matmul
        Bs[threadIdx.y][threadIdx.x] = B[(t * TS + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TS; ++k) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
"""

REDUCTION = r"""
extern "C" __global__ void reduce(const float* in, float* out, int n, int bad) {
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        if (s == 32 && tid == bad) sdata[0] += in[n + 1000];   // @reduce_fail
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
"""

SYNC_FORMS = r"""
extern "C" __global__ void vote(const int* flags, int* counts, int n, int bad) {
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int f = i < n ? flags[i] : 0;
    int c = __syncthreads_count(f);
    int all = __syncthreads_and(f);
    if (t == bad) f += flags[n + 5];   // @vote_fail
    int any = __syncthreads_or(f);
    if (t == 0) {
        counts[3 * blockIdx.x] = c;
        counts[3 * blockIdx.x + 1] = all;
        counts[3 * blockIdx.x + 2] = any;
    }
}
"""

COOPERATIVE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cg_scan(const float* in, float* out, int n, int bad) {
    __shared__ float s[256];
    cg::thread_block block = cg::this_thread_block();
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    block.sync();
    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        float v = t >= d ? s[t - d] : 0.0f;
        if (d == 4 && (int)t == bad) v += in[n + 77];   // @cg_fail
        cg::this_thread_block().sync();
        s[t] += v;
        cg::sync(block);
    }
    if (i < n) out[i] = s[t];
}
"""

WARP_SHUFFLE = r"""
extern "C" __global__ void warp_sum(const float* in, float* out, int n, int bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i == bad ? n + 3 : (i < n ? i : 0)];   // @warp_fail
    for (int off = 16; off > 0; off /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, off);
    }
    if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], v);
}
"""

# -- constructs that cannot be made barrier-safe ----------------------------------------------

GRID_SYNC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void two_phase(float* a, int n) {
    cg::grid_group g = cg::this_grid();
    a[threadIdx.x] += 1.0f;
    g.sync();   // @grid_sync
    a[threadIdx.x] *= 2.0f;
}
"""

NAMED_BARRIER = r"""
extern "C" __global__ void producer(float* a, int n) {
    a[threadIdx.x] = 1.0f;
    __barrier_sync(1);   // @named_barrier
}
"""

ASM_BARRIER = r"""
extern "C" __global__ void raw_bar(float* a, int n) {
    a[threadIdx.x] = 1.0f;
    asm volatile("bar.sync 0;");   // @asm_barrier
}
"""

UNCHECKED_PARAM = r"""
extern "C" __global__ void scale(float* out, const float* table, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * table[i];   // @unchecked_param
}
"""

SKIP_TARGET = r"""
extern "C" __global__ void fill(float* out, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
"""

#: name -> (source, name expressions) of every kernel source above that must compile.
UNSIGNED_INDEX = r"""
extern "C" __global__ void back_one(float* out, const float* src, unsigned long long j, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = src[j - 1ULL];   // @unsigned
    }
}
"""

COMPILING = {
    "gather": (GATHER, ()), "shift": (POINTER_ARITH, ()), "histogram": (HISTOGRAM, ()),
    "transpose": (SHARED_2D, ()), "block_sum": (EXTERN_SHARED, ()),
    "window": (LOCAL_ARRAY, ()), "copy_via": (DEVICE_FUNCTION, ()),
    "axpy": (TEMPLATES, tuple(TEMPLATE_NAMES)), "row_sums": (DERIVED_POINTER, ()),
    "advance": (STRUCTS, ()), "smooth": (BARRIER_LOOP, ()), "matmul": (MATMUL, ()),
    "reduce": (REDUCTION, ()), "vote": (SYNC_FORMS, ()), "cg_scan": (COOPERATIVE, ()),
    "warp_sum": (WARP_SHUFFLE, ()), "scale": (UNCHECKED_PARAM, ()), "fill": (SKIP_TARGET, ()),
    "back_one": (UNSIGNED_INDEX, ()),
}

#: name -> (source, marker, words the message must contain): rejected at compile time.
REJECTED = {
    "grid_sync": (GRID_SYNC, "grid_sync", "grid"),
    "named_barrier": (NAMED_BARRIER, "named_barrier", "named barriers"),
    "asm_barrier": (ASM_BARRIER, "asm_barrier", "inline PTX"),
}

# A CSR graph passed by value (issue 25): CuPy users pass it as a NumPy structured scalar whose
# pointer fields hold device addresses (GRAPH_DTYPE). Each kernel reads one past a node's
# last edge (`<=`): for the last node that is g.nlist[edges].
CSR_GRAPH = r"""
struct Graph { int nodes; int edges; int* nindex; int* nlist; };

__device__ int atomicRead(const int* p, int i) {
    return ((volatile const int*)p)[i];   // @helper
}

extern "C" __global__ void degree_sum(int* out, Graph g) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.nodes) {
        int s = 0;
        for (int j = g.nindex[v]; j <= g.nindex[v + 1]; j++) {
            s += g.nlist[j];   // @field
        }
        out[v] = s;
    }
}

extern "C" __global__ void degree_read(int* out, Graph g) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.nodes) {
        int s = 0;
        for (int j = g.nindex[v]; j <= g.nindex[v + 1]; j++) {
            s += atomicRead(g.nlist, j);   // @caller
        }
        out[v] = s;
    }
}

extern "C" __global__ void degree_ok(int* out, Graph g) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.nodes) {
        int s = 0;
        for (int j = g.nindex[v]; j < g.nindex[v + 1]; j++) {
            s += atomicRead(g.nlist, j) + g.nlist[j];
        }
        out[v] = s;
    }
}
"""

# numpy's layout of `struct Graph` (int, int, then two 8-byte pointers: no padding)
GRAPH_FIELDS = [("nodes", "<i4"), ("edges", "<i4"), ("nindex", "<u8"), ("nlist", "<u8")]
