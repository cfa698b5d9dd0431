"""Kernels for the numba-cuda tests. A `# site: NAME` comment marks the line a failure reports."""
import numpy as np
from numba import cuda, float32, int32

import safekern


@safekern.jit
def gather(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = src[idx[i]]  # site: gather


@safekern.jit
def scatter(out, src, idx):
    i = cuda.grid(1)
    if i < src.shape[0]:
        out[idx[i]] = src[i]  # site: scatter


@safekern.jit
def add2d(out, a, di, dj):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i + di, j + dj] * 2  # site: add2d


@safekern.jit
def table_gathers(out, p, y):
    # Perlin noise's permutation-table gathers: p[x] read by two statements, checks between
    x = cuda.grid(1)
    if x < out.shape[0]:
        a = p[p[x] + y]
        b = p[p[x] + y + 1]
        out[x] = a + b


@safekern.jit
def axis1_neg(out, a, k):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, k]  # site: axis1_neg


@safekern.jit
def augassign(out, idx):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        out[idx[i]] += 1.0  # site: augassign


@safekern.jit
def rowview(out, a, r):
    i = cuda.grid(1)
    row = a[r]  # site: rowview_row
    if i < out.shape[0]:
        out[i] = row[i + 1]  # site: rowview


@safekern.jit
def sliced(out, a, r):
    i = cuda.grid(1)
    row = a[r, :]  # site: sliced_row
    if i < out.shape[0]:
        out[i] = row[i]  # site: sliced


@safekern.jit
def histogram(bins, data, shift):
    i = cuda.grid(1)
    if i < data.shape[0]:
        cuda.atomic.add(bins, data[i] + shift, 1)  # site: histogram


@safekern.jit
def cas_kernel(arr, k):
    i = cuda.grid(1)
    if i == 0:
        cuda.atomic.cas(arr, k, 0, 7)  # site: cas


@safekern.jit
def shared_static(out, a, off):
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    s[t + off] = a[t]  # site: shared_static
    cuda.syncthreads()
    out[t] = s[31 - t]


@safekern.jit
def shared_2d(out, a, off):
    tile = cuda.shared.array((8, 8), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx + off] = a[ty, tx]  # site: shared_2d
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]


@safekern.jit
def shared_dynamic(out, a, n):
    s = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    s[t + n] = a[t]  # site: shared_dynamic
    cuda.syncthreads()
    out[t] = s[t]


@safekern.jit
def local_array(out, k):
    acc = cuda.local.array(4, int32)
    for j in range(4):
        acc[j] = j
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = acc[k]  # site: local_array


@safekern.jit
def in_condition(out, a, idx):
    i = cuda.grid(1)
    if i < out.shape[0] and a[idx[i]] > 0:  # site: in_condition
        out[i] = 1


@safekern.jit
def in_loop_header(out, counts, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for j in range(counts[i]):
            s += a[i, j]  # site: in_loop_header
        out[i] = s


@safekern.jit
def while_loop(out, a, limit):
    i = cuda.grid(1)
    if i < out.shape[0]:
        j = 0
        s = 0.0
        while j < limit:
            s += a[j]  # site: while_loop
            j += 1
        out[i] = s


@safekern.jit(device=True)
def dev_get(arr, k):
    return arr[k] * 2  # site: dev_get


@safekern.jit(device=True)
def dev_put(arr, k, v):
    arr[k] = v  # site: dev_put


@safekern.jit
def calls_device(out, a, shift):
    i = cuda.grid(1)
    if i < out.shape[0]:
        dev_put(out, i, dev_get(a, i + shift))


@safekern.jit
def tree_reduce(out, a, bad):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i + bad * (t == 5)]  # site: tree_reduce
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@safekern.jit
def tree_reduce_late(out, a, bad):
    # The failure happens between the barriers of the loop's second round.
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride + bad * (stride == 16 and t == 3)]  # site: tree_reduce_late
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


TILE = 8


@safekern.jit
def tiled_matmul(c, a, b, bad):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[row, t * TILE + tx + bad * (t == 1 and tx == 2 and ty == 3)]  # site: tiled_matmul
        sb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@safekern.jit
def count_barrier(out, a, bad):
    t = cuda.threadIdx.x
    v = a[t + bad * (t == 7)]  # site: count_barrier
    n = cuda.syncthreads_count(1 if v > 0 else 0)
    out[t] = n


@safekern.jit
def tuple_and_shape(out, a):
    i = cuda.grid(1)
    dims = a.shape
    if i < dims[0]:
        out[i] = a[i] + dims[0]


@safekern.jit
def negative_ok(out, a):
    i = cuda.grid(1)
    if i == 0:
        out[0] = a[-1]
        out[1] = a[-a.shape[0]]


@safekern.jit
def negative_bad(out, a):
    i = cuda.grid(1)
    if i == 0:
        out[0] = a[-a.shape[0] - 1]  # site: negative_bad


@safekern.jit("void(float32[:], float32[:], int64)")
def with_signature(out, a, k):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i + k]  # site: with_signature


@safekern.jit(fastmath=True, lineinfo=True)
def with_options(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * 2.0


@safekern.jit
def nested_index(out, a, b, c):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[b[c[i]]]  # site: nested_index


@safekern.jit
def tuple_target(out1, out2, k):
    i = cuda.grid(1)
    if i < out1.shape[0]:
        out1[i], out2[i + k] = i, 2 * i  # site: tuple_target


@safekern.jit
def sum_kernel(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + a[i + 1] if i + 1 < a.shape[0] else a[i]


def site_line(filename: str, name: str) -> int:
    """The line of `filename` that ends in `# site: NAME` (the line a failure must name)."""
    with open(filename) as f:
        for number, line in enumerate(f, start=1):
            if line.rstrip().endswith(f"# site: {name}"):
                return number
    raise KeyError(name)


def expected_line(name: str) -> int:
    return site_line(__file__, name)


def numpy_ref(x):
    return np.asarray(x)


# -- check elimination and loop versioning: kernels whose checks are (partly) proven ------------

@safekern.jit
def guarded_copy(out, a):
    i = cuda.grid(1)
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = a[i]          # both checks eliminated: no failure path at all


@safekern.jit
def row_sums(out, a, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = float32(0.0)
        for k in range(n):
            acc += a[i, k]  # site: row_sums
        out[i] = acc


@safekern.jit
def window_sum(out, a, lo, hi):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    acc = float32(0.0)
    for k in range(lo, hi):
        acc += a[i + k]  # site: window_sum
    out[i] = acc


TILE_E = 8


@safekern.jit
def tile_dot(out, a, b):
    sa = cuda.shared.array((TILE_E, TILE_E), float32)
    sb = cuda.shared.array((TILE_E, TILE_E), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sa[ty, tx] = a[ty, tx]  # site: tile_dot_fill
    sb[ty, tx] = b[ty, tx]
    cuda.syncthreads()
    acc = float32(0.0)
    for k in range(TILE_E):
        acc += sa[ty, k] * sb[k, tx]
    out[ty, tx] = acc


@safekern.jit
def gather_rows(out, a, idx):
    for k in range(out.shape[0]):
        v = a[idx[k]]  # site: gather_rows
        out[k] = v     # proven by the loop range: a plain store, which must not run after a failure


@safekern.jit
def frontier_step(indptr, indices, frontier, out):
    """BFS-shaped: most threads read frontier[u] and stop; thread 0 of block 0 stops there too
    (frontier[0] == 0), so the pending failure's test must sit on that path as well."""
    u = cuda.grid(1)
    if u < frontier.shape[0] and frontier[u] != 0:
        for k in range(indptr[u], indptr[u + 1]):
            out[indices[k]] = 1


@safekern.jit
def tile_reverse(src, out):
    """A tiled kernel: the tile is loaded (a store into shared memory, which nothing outside
    the launch sees) before the pending failure is tested, at the barrier."""
    tile = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < src.shape[0]:
        tile[t] = src[i]
    cuda.syncthreads()
    if i < out.shape[0]:
        out[i] = tile[cuda.blockDim.x - 1 - t]
