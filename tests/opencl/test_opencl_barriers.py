"""Barrier kernels with a failing work-item finish (a hang fails the test by its timeout)."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from tests.support.unchecked_functions import build_with_unchecked_warning

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(120, method="thread")

MATMUL = """#define TILE 8
__kernel void matmul(__global const float *A, __global const float *B, __global float *C,
                     int n) {
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ly][lx] = A[row * n + t * TILE + lx];
        Bs[ly][lx] = B[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
"""

REDUCE = """__kernel void reduce(__global const float *in, __global float *out, __local float *s,
                     int extra) {
    int lid = get_local_id(0);
    s[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
        if (lid < k)
            s[lid] += s[lid + k + extra];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}
"""


def test_tiled_matmul(clenv):
    prg = skcl.Program(clenv.ctx, MATMUL, filename="matmul.cl").build()
    n = 32
    rng = np.random.default_rng(1)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    q = clenv.queue
    c = cla.zeros(q, (n, n), np.float32)
    prg.matmul(q, (n, n), (8, 8), cla.to_device(q, A), cla.to_device(q, B), c, np.int32(n))
    safekern.sync()
    np.testing.assert_allclose(c.get(), A @ B, rtol=1e-5)
    # A one element short: work-item (7, 7) of the groups of row 3 reads past its end in the
    # last tile, before the first barrier; their groups must still finish.
    short = cla.to_device(q, A.ravel()[:-1].copy())
    prg.matmul(q, (n, n), (8, 8), short, cla.to_device(q, B), c, np.int32(n))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.lineno, e.array, e.index, e.size) == ("matmul", 10, "A", n * n - 1,
                                                              n * n - 1)
    assert e.thread == (7, 7, 0) and e.block[1:] == (3, 0)
    # And the program still works afterwards.
    prg.matmul(q, (n, n), (8, 8), cla.to_device(q, A), cla.to_device(q, B), c, np.int32(n))
    safekern.sync()
    np.testing.assert_allclose(c.get(), A @ B, rtol=1e-5)


def test_tree_reduction_with_barrier_in_loop(clenv):
    prg = skcl.Program(clenv.ctx, REDUCE, filename="reduce.cl").build()
    q = clenv.queue
    data = np.arange(64, dtype=np.float32)
    out = cla.zeros(q, 4, np.float32)
    prg.reduce(q, (64,), (16,), cla.to_device(q, data), out, cl.LocalMemory(16 * 4),
               np.int32(0))
    safekern.sync()
    np.testing.assert_allclose(out.get(), data.reshape(4, 16).sum(axis=1))
    # extra=1: in the first round (k = 8) work-item 7 of every group reads s[16] of 16.
    prg.reduce(q, (64,), (16,), cla.to_device(q, data), out, cl.LocalMemory(16 * 4),
               np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.lineno, e.array, e.index, e.size) == ("reduce", 8, "s", 16, 16)
    assert e.thread == (7, 0, 0)
    # Before the loop: local memory one float short fails at line 4 in work-item 15.
    prg.reduce(q, (64,), (16,), cla.to_device(q, data), out, cl.LocalMemory(15 * 4),
               np.int32(0))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.index, info.value.thread) == (4, 15, (15, 0, 0))


def test_failure_after_the_last_barrier_of_a_loop_body(clenv):
    # The failing work-item goes round the loop to its barrier with the others.
    src = """__kernel void rounds(__global float *out, int limit) {
    __local float s[16];
    int lid = get_local_id(0);
    for (int t = 0; t < 4; t++) {
        s[lid] = t;
        barrier(CLK_LOCAL_MEM_FENCE);
        int j = lid + t * 16 + (lid == 5 && t == 1 ? limit : 0);
        out[get_group_id(0) * 64 + j] += s[(lid + 1) % 16];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    prg = skcl.Program(clenv.ctx, src, filename="rounds.cl").build()
    q = clenv.queue
    out = cla.zeros(q, 128, np.float32)
    prg.rounds(q, (32,), (16,), out, np.int32(0))
    safekern.sync()
    np.testing.assert_allclose(out.get(), np.tile(np.repeat(np.arange(4.0), 16), 2))
    prg.rounds(q, (32,), (16,), out, np.int32(1000))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.size, e.thread) == (8, "out", 128, (5, 0, 0))


def test_failure_in_inner_loop_between_barriers(clenv):
    src = """__kernel void inner(__global const int *idx, __global float *out) {
    __local float s[16];
    int lid = get_local_id(0);
    s[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < 4; k++)
        acc += s[idx[get_global_id(0)] + k];
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = s[15 - lid];
}"""
    prg = skcl.Program(clenv.ctx, src, filename="inner.cl").build()
    q = clenv.queue
    idx = np.zeros(32, np.int32)
    idx[19] = 13                       # group 1, work-item 3: s[13 + 3] in round k = 3
    out = cla.zeros(q, 32, np.float32)
    prg.inner(q, (32,), (16,), cla.to_device(q, idx), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (8, "s", 16, 16)
    assert (e.thread, e.block) == ((3, 0, 0), (1, 0, 0))


def test_barrier_helper_called_from_kernel(clenv):
    src = """void sync_group(void) { barrier(CLK_LOCAL_MEM_FENCE); }
__kernel void with_helper(__global float *out, int off) {
    __local float s[16];
    int lid = get_local_id(0);
    s[lid] = out[get_global_id(0) + off];
    sync_group();
    out[get_global_id(0)] = s[15 - lid];
}"""
    prg = skcl.Program(clenv.ctx, src, filename="h.cl").build()
    q = clenv.queue
    out = cla.to_device(q, np.arange(32, dtype=np.float32))
    prg.with_helper(q, (32,), (16,), out, np.int32(0))
    safekern.sync()
    np.testing.assert_allclose(out.get(), np.concatenate([np.arange(16)[::-1],
                                                          np.arange(16, 32)[::-1]]))
    prg.with_helper(q, (32,), (16,), out, np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.index, info.value.thread) == (5, 32, (15, 0, 0))


def test_barrier_under_if_runs_unchecked_naming_its_line(clenv):
    src = """__kernel void cond(__global float *x, int n) {
    int i = get_global_id(0);
    x[i] = 0.0f;
    if (i > n) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    # (an if whose condition is uniform across the work-group may hold a barrier:
    # test_opencl_uniform_barriers.py)
    # Valid code is not refused: the kernel runs as written, unchecked, and its build warns
    # (UncheckedWarning) naming the barrier's line; the program's other kernels stay checked.
    prg, why = build_with_unchecked_warning(clenv.ctx, src, "cond.cl", "cond")
    assert why.startswith("not checked: barrier() at line 5 is inside an if whose condition "
                          "may differ")
    x = cla.zeros(clenv.queue, 8, np.float32) + 3
    prg.cond(clenv.queue, (8,), None, x.data, np.int32(100))
    safekern.sync()
    np.testing.assert_array_equal(x.get(), np.zeros(8))


def test_barrier_kernel_without_checks_is_not_rejected(clenv):
    # No checked access: nothing can fail, the barrier may stay where it is.
    src = """__kernel void cond(int n) {
    if (n > 4) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    prg = skcl.Program(clenv.ctx, src, filename="cond.cl").build()
    prg.cond(clenv.queue, (16,), (16,), np.int32(5))
    safekern.sync()
