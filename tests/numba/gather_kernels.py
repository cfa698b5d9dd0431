"""Kernels of tests/numba/test_deferred_gathers.py: straight runs of gathers."""
from numba import cuda, int32

import safekern
from numba.cuda.random import xoroshiro128p_uniform_float32


@safekern.jit(device=True)
def grad(vec, h, x, y):
    f = h % 4
    return vec[f][0] * x + vec[f][1] * y


@safekern.jit(device=True)
def grad_checked(vec, h, x, y):
    return vec[h][0] * x + vec[h][1] * y          # h unbounded: checked in here


@safekern.jit
def perlin_like(p, out):
    vec = cuda.local.array((4, 2), int32)
    vec[0][0] = vec[1][0] = vec[2][1] = vec[3][1] = 0
    vec[0][1] = vec[2][0] = 1
    vec[1][1] = vec[3][0] = -1
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        x = j * 0.25
        y = i * 0.25
        xi = int(x)
        yi = int(y)
        n00 = grad(vec, p[p[xi] + yi], x - xi, y - yi)
        n01 = grad(vec, p[p[xi] + yi + 1], x - xi, y - yi - 1)
        n11 = grad(vec, p[p[xi + 1] + yi + 1], x - xi - 1, y - yi - 1)
        n10 = grad(vec, p[p[xi + 1] + yi], x - xi - 1, y - yi)
        out[i, j] = n00 + n01 + n11 + n10


@safekern.jit
def calls_a_checked_device_function(p, out):
    vec = cuda.local.array((4, 2), int32)
    for r in range(4):
        vec[r][0] = r
        vec[r][1] = -r
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = grad_checked(vec, p[p[i]], 1.0, 2.0)
        b = grad_checked(vec, p[p[i] + 1], 1.0, 2.0)
        out[i] = a + b


@safekern.jit
def store_between(p, out, j):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i]]
        out[j] = a
        b = p[p[i] + 1]
        c = p[b]
        out[i] = a + b + c


@safekern.jit
def conditional_load(p, q, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i]] if i > 3 else q[q[i]]
        b = p[p[i] + 1]
        out[i] = a + b


@safekern.jit
def reassigned(p, q, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i]]
        p = q
        b = p[p[i] + 1]
        out[i] = a + b


@safekern.jit
def read_twice(p, q, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = q[p[i]]
        b = q[p[i] + 1]
        i = i + 1
        c = q[p[i]]
        out[i - 1] = a + b + c


@safekern.jit
def read_twice_through_a_call(p, q, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = q[p[min(i, 7)]]
        b = q[p[min(i, 7)] + 1]
        out[i] = a + b


@safekern.jit
def random_gathers(p, states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[int(xoroshiro128p_uniform_float32(states, i) * 8)]
        b = p[int(xoroshiro128p_uniform_float32(states, i) * 8)]
        out[i] = a + b
