"""Kernels of tests/numba/test_exit_at_check.py: which failing checks end the thread (the
checked accesses of loops that store: frontend/python/exit_mode.py)."""
from numba import cuda, float32

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
        first = p[p[i]]                 # a check before the loop: keeps the flag
        for k in range(4):
            out[i] += first + p[p[i] + k]


@safekern.jit
def spmv(indptr, indices, data, x, y):
    row = cuda.grid(1)
    if row < y.shape[0]:
        acc = float32(0.0)
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]        # a local only: the loop stores nothing
        y[row] = acc


@safekern.jit
def rows_of_sums(indptr, indices, x, y):
    # The outer loop stores; the inner one only reads: its gathers keep the flag.
    i = cuda.grid(1)
    if i < indptr.shape[0] - 1:
        for r in range(2):
            acc = float32(0.0)
            for k in range(indptr[i], indptr[i + 1]):
                acc += x[indices[k]]
            y[2 * i + r] = acc + x[indices[i]]


@safekern.jit
def while_atomic(p, hist):
    i = cuda.grid(1)
    if i < p.shape[0]:
        j = i
        while p[j] >= 0:                # the test runs every iteration: inside the loop
            cuda.atomic.add(hist, p[j], 1)
            j = p[j]


@safekern.jit
def local_sort(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        best = cuda.local.array(4, float32)
        for k in range(4):
            best[k] = p[p[i] + k]       # a store to a local array is a store
        out[i] = best[0] + best[3]


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
        for k in range(4):
            out[i] += cuda.shfl_down_sync(0xFFFFFFFF, p[p[i] + k], 1)


@safekern.jit
def loop_with_aliased_warp_call(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(4):
            out[i] += down(0xFFFFFFFF, p[p[i] + k], 1)


@safekern.jit(device=True)
def warp_sum(x):
    return x + cuda.shfl_xor_sync(0xFFFFFFFF, x, 1)


@safekern.jit
def loop_calling_warp_device(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(4):
            out[i] += warp_sum(p[p[i] + k])


@safekern.jit(device=True)
def store_at(out, i, value):
    for k in range(2):
        out[i + k] = value              # a device function keeps the flag, loop or not


@safekern.jit
def loop_calling_storing_device(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        for k in range(2):
            store_at(out, p[p[i] + k], 1.0)


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


@safekern.jit
def loop_then_mark(p, out, done):
    i = cuda.grid(1)
    if i < out.shape[0] and i < done.shape[0]:
        for k in range(4):
            out[i] += p[p[i] + k]       # a storing loop: its checks end a failing thread
        done[i] = 1                     # so a failing thread never gets here


@safekern.jit
def copy_ragged_rows(lengths, a, out):
    # Checks that end the thread in one loop (a[i, k], out[i, k], two axes each): each failure
    # reports its own array, axis, index and size.
    i = cuda.grid(1)
    if i < lengths.shape[0]:
        for k in range(lengths[i]):
            out[i, k] = a[i, k] * 2
