"""Kernels for tests/numba/test_call_facts.py: device functions whose accesses only their
callers' facts prove (frontend/python/call_facts.py), shaped like xarray-spatial's slope and
Perlin noise, and planted ones whose accesses can fail."""
from numba import cuda, int32

import safekern


@safekern.jit(device=True)
def window_slope(w, cellsize):
    # xarray-spatial's slope: eight constant-index reads of a 3 x 3 window, and cellsize[0]
    dx = (w[0, 2] + 2 * w[1, 2] + w[2, 2]) - (w[0, 0] + 2 * w[1, 0] + w[2, 0])
    dy = (w[2, 0] + 2 * w[2, 1] + w[2, 2]) - (w[0, 0] + 2 * w[0, 1] + w[0, 2])
    return (dx + dy) / (8 * cellsize[0])


@safekern.jit
def slope(a, cellsize, out):
    i, j = cuda.grid(2)
    if i - 1 >= 0 and i + 1 < out.shape[0] and j - 1 >= 0 and j + 1 < out.shape[1]:
        out[i, j] = window_slope(a[i - 1:i + 2, j - 1:j + 2], cellsize)


@safekern.jit
def slope_inside(a, cellsize, out):
    # The window proven inside `a` itself: the callee is specialised in the checked kernel.
    i, j = cuda.grid(2)
    if 1 <= i and i + 1 < a.shape[0] and 1 <= j and j + 1 < a.shape[1] and \
            i < out.shape[0] and j < out.shape[1]:
        out[i, j] = window_slope(a[i - 1:i + 2, j - 1:j + 2], cellsize)


@safekern.jit(device=True)
def gradient(vec, h, x, y):
    # xarray-spatial's Perlin noise: a row of the caller's (4, 2) local array, h % 4
    f = h % 4
    return vec[f][0] * x + vec[f][1] * y


@safekern.jit
def perlin(p, out):
    vec = cuda.local.array((4, 2), int32)
    vec[0][0] = vec[1][0] = vec[2][1] = vec[3][1] = 0
    vec[0][1] = vec[2][0] = 1
    vec[1][1] = vec[3][0] = -1
    i = cuda.grid(1)
    if i < out.shape[0] and i < p.shape[0]:
        out[i] = gradient(vec, p[i], 1.0, 2.0)


@safekern.jit(device=True)
def gradient_of_five(vec, h, x, y):
    f = h % 5                           # planted: 4 is past the local array's 4 rows
    return vec[f][0] * x + vec[f][1] * y


@safekern.jit
def perlin_five(p, out):
    vec = cuda.local.array((4, 2), int32)
    for r in range(4):
        vec[r][0] = r
        vec[r][1] = -r
    i = cuda.grid(1)
    if i < out.shape[0] and i < p.shape[0]:
        out[i] = gradient_of_five(vec, p[i], 1.0, 2.0)


@safekern.jit(device=True)
def pair(w):
    return w[0] + w[1]


@safekern.jit
def pairs_off_by_one(a, out):
    i = cuda.grid(1)
    if i < out.shape[0] and i + 1 <= a.shape[0]:       # planted: i + 2 <= a.shape[0] meant
        out[i] = pair(a[i:i + 2])


@safekern.jit(device=True)
def rebinds(w, other):
    x = w[2]
    w = other                            # the facts about w end here
    return x + w[2]


@safekern.jit
def rebinding(a, b, out):
    i = cuda.grid(1)
    if 0 <= i and i + 3 <= a.shape[0] and i < out.shape[0]:
        out[i] = rebinds(a[i:i + 3], b)


@safekern.jit(device=True)
def ping(w, n):
    if n <= 0:
        return w[1]
    return pong(w[0:2], n - 1)


@safekern.jit(device=True)
def pong(w, n):
    return ping(w[0:2], n - 1) + w[1]


@safekern.jit
def ping_pong(a, out):
    i = cuda.grid(1)
    if 0 <= i and i + 2 <= a.shape[0] and i < out.shape[0]:
        out[i] = ping(a[i:i + 2], 3)


@safekern.jit
def row_sums(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        r = a[i, 1:3]                   # planted: `a` may have fewer rows than `out`
        out[i] = r[0] + r[1]


@safekern.jit
def row_sums_guarded(a, out):
    i = cuda.grid(1)
    if i < out.shape[0] and i < a.shape[0]:
        r = a[i, 1:3]
        out[i] = r[0] + r[1]
