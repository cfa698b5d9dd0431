"""Kernels of tests/numba/test_exit_at_check.py: which failing checks end the thread."""
from numba import cuda

import safekern

try:          # (the simulator's numba.cuda has no warp-level functions outside its kernels)
    from numba.cuda import shfl_down_sync as down
except ImportError:
    down = None


@safekern.jit
def bfs(indptr, indices, frontier, level, next_frontier):
    u = cuda.grid(1)
    if u < frontier.shape[0] and frontier[u] != 0:
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if level[v] < 0:
                next_frontier[v] = 1


@safekern.jit
def gather_then_loop(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        first = p[p[i]]                 # a check before the loop, where the test would be
        for k in range(4):
            out[i] += first + p[p[i] + k]


@safekern.jit
def bfs_barrier(indptr, indices, level, next_frontier):
    u = cuda.grid(1)
    if u < level.shape[0]:
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if level[v] < 0:
                next_frontier[v] = 1
    cuda.syncthreads()


@safekern.jit
def loop_with_warp_call(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k in range(4):
            acc += cuda.shfl_down_sync(0xFFFFFFFF, p[p[i] + k], 1)
        out[i] = acc


@safekern.jit
def loop_with_aliased_warp_call(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k in range(4):
            acc += down(0xFFFFFFFF, p[p[i] + k], 1)
        out[i] = acc


@safekern.jit(device=True)
def warp_sum(x):
    return x + cuda.shfl_xor_sync(0xFFFFFFFF, x, 1)


@safekern.jit
def loop_calling_warp_device(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k in range(4):
            acc += warp_sum(p[p[i] + k])
        out[i] = acc


@safekern.jit
def straight(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i]]
        out[i] = a


@safekern.jit
def copy_rows(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = a[i, k]        # proven at launch when a is at least out's shape
