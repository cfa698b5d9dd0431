import sys
import safekern, safekern.cupy as skcp

SRCS = {
"good": r'''
#define TILE 16
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
__device__ float wsum(const float* w, int k) { return w[k] + w[k + 1]; }
extern "C" __global__ void conv(float* out, const float* a, const float* w, int n, int kw) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0;
    for (int k = 0; k < kw; ++k) acc += a[i + k] * wsum(w, k);
    atomicAdd(&out[i % 8], acc);
}
''',
"syntax": r'''
extern "C" __global__ void k(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x
    if (i < n) a[i] *= 2.0f;
}
''',
"gridsync": r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(float* a, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) a[i] += 1.0f;
    g.sync();
    if (i < n) a[i] *= a[(i + 1) % n];
}
''',
}
which, name = sys.argv[1], sys.argv[2]
mod = skcp.RawModule(code=SRCS[which], filename=f"{which}.cu", options=("-std=c++17",))
print(mod.check_report())
if len(sys.argv) > 3:
    print(mod.rewritten_source)
