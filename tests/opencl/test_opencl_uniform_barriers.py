"""Barriers under an `if` whose condition the whole work-group, a failing work-item included,
evaluates alike (uniformity.py; PyOpenCL's scan kernels); other barriers under an if stay refused.

A hang fails the test by its timeout."""
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

# The shape of PyOpenCL's scan: whole units of WG elements in a loop with barriers, then the
# partial unit at the end of the group's interval under `if (base < end)` with barriers of its own.
TAIL = """#define WG 16
#define local_barrier() barrier(CLK_LOCAL_MEM_FENCE);
__kernel void tail(__global const float *in, __global float *out, int n, int chunk,
                   int wextra, int rextra) {
    __local float s[WG];
    int lid = get_local_id(0);
    const int begin = chunk * get_group_id(0);
    const int end = min(begin + chunk, n);
    int base = begin;
    for (; base + WG <= end; base += WG) {
        s[lid] = in[base + lid];
        local_barrier();
        float v = s[WG - 1 - lid];
        local_barrier();
        out[base + lid + wextra] = v;
    }
    if (base < end) {
        if (base + lid < end)
            s[lid] = in[base + lid + rextra];
        local_barrier();
        if (base + lid < end)
            out[base + lid] = 2 * s[lid];
        local_barrier();
    }
}
"""


def _expected(a):
    out = np.empty_like(a)
    for g in (0, 20):
        out[g:g + 16] = a[g:g + 16][::-1]
        out[g + 16:g + 20] = 2 * a[g + 16:g + 20]
    return out


def _run(clenv, wextra, rextra):
    prg = skcl.Program(clenv.ctx, TAIL, filename="tail.cl").build()
    q = clenv.queue
    a = np.arange(40, dtype=np.float32)
    out = cla.zeros(q, 40, np.float32)
    prg.tail(q, (32,), (16,), cla.to_device(q, a), out, np.int32(40), np.int32(20),
             np.int32(wextra), np.int32(rextra))
    return a, out


def test_barrier_under_uniform_if_runs_right(clenv):
    a, out = _run(clenv, 0, 0)
    safekern.sync()
    np.testing.assert_allclose(out.get(), _expected(a))


def test_failure_before_the_uniform_if_reaches_its_barrier(clenv):
    # Work-item 15 of group 1 writes out[40] after the loop's last barrier; it goes round the
    # loop, which ends, then through the if's condition to the branch's first barrier.
    _run(clenv, 5, 0)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (15, "out", 40, 40)
    assert (e.thread, e.block) == ((15, 0, 0), (1, 0, 0))


def test_failure_inside_the_uniform_if(clenv):
    # Work-item 3 of group 1 reads in[40] in the tail, before the branch's first barrier.
    _run(clenv, 0, 1)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (19, "in", 40, 40)
    assert (e.thread, e.block) == ((3, 0, 0), (1, 0, 0))
    # The program still works afterwards.
    a, out = _run(clenv, 0, 0)
    safekern.sync()
    np.testing.assert_allclose(out.get(), _expected(a))


_REFUSED = {
    # condition -> what the message says differs
    "get_local_id(0) < 4": "'get_local_id(0)' differs between work-items",
    "x[0] > 0": "'x[0]' reads memory",
    "m > 4": "'m' is assigned where a work-item that fails a check may skip it",
    "*p > 4": "reads memory",
    "k > 4": "the address of 'k' is taken",
    "t > 4": "'t' is assigned where a work-item that fails a check may skip it",
}


@pytest.mark.parametrize("cond", list(_REFUSED))
def test_barrier_under_non_uniform_if_runs_unchecked(clenv, cond):
    src = f"""__kernel void cond(__global float *x, __global const int *p, int n) {{
    int i = get_global_id(0);
    int m = n;
    int k = n;
    int t = 0;
    x[i] = 0.0f;
    m = n + 1;
    for (int j = 0; j < n; j++) t += 1;
    int *q = &k;
    if ({cond}) {{
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
}}"""
    # Valid code is not refused: the kernel runs as written, unchecked, and the build says so
    # once, naming the barrier's line and what makes the condition non-uniform.
    prg, why = build_with_unchecked_warning(clenv.ctx, src, "cond.cl", "cond")
    assert why.startswith("not checked: barrier() at line 11 is inside an if whose condition "
                          "may differ") and _REFUSED[cond] in why
    q = clenv.queue
    x = cla.to_device(q, np.full(4, 7, np.float32))
    p = cla.to_device(q, np.ones(4, np.int32))
    prg.cond(q, (4,), (4,), x.data, p.data, np.int32(0))
    safekern.sync()
    np.testing.assert_array_equal(x.get(), np.zeros(4))


def test_checked_access_in_a_uniform_if_condition_runs_unchecked(clenv):
    # The condition itself reads memory: not uniform; the kernel runs as written.
    src = """__kernel void cond(__global float *x, int n) {
    x[get_global_id(0)] = 1.0f;
    if (x[n] > 0) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    prg, why = build_with_unchecked_warning(clenv.ctx, src, "cond.cl", "cond")
    assert "barrier() at line 4" in why and "'x[n]' reads memory" in why
    entries = [e for e in prg.check_report() if e.function == "cond" and e.array == "x"]
    assert entries and {e.status.value for e in entries} == {"unchecked"}


BRANCHES = """__kernel void branches(__global float *x, int mode, int off) {
    __local float s[16];
    int lid = get_local_id(0);
    if (mode == 1) {
        s[lid] = x[get_global_id(0) + off];
        barrier(CLK_LOCAL_MEM_FENCE);
        x[get_global_id(0)] = s[15 - lid];
    } else if (mode == 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        x[get_global_id(0) + off] = 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
    } else {
        x[get_global_id(0) + off] = 2.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    x[get_global_id(0)] += 1.0f;
}
"""


@pytest.mark.parametrize("mode, line, want", [
    (1, 5, np.concatenate([np.arange(16)[::-1], np.arange(16, 32)[::-1]]) + 1.0),
    (2, 10, np.full(32, 2.0)),
    (3, 13, np.full(32, 3.0))])
def test_else_if_chain_with_barriers_in_some_branches(clenv, mode, line, want):
    # Each branch fails in work-item 15 of group 1 (x[32] of 32): the group finishes whichever
    # branch holds the failure and whether it holds barriers or not.
    prg = skcl.Program(clenv.ctx, BRANCHES, filename="branches.cl").build()
    q = clenv.queue
    x = cla.to_device(q, np.arange(32, dtype=np.float32))
    prg.branches(q, (32,), (16,), x, np.int32(mode), np.int32(0))
    safekern.sync()
    np.testing.assert_allclose(x.get(), want)
    prg.branches(q, (32,), (16,), x, np.int32(mode), np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (line, "x", 32, 32)
    assert (e.thread, e.block) == ((15, 0, 0), (1, 0, 0))


@pytest.mark.timeout(600, method="thread")      # (PyOpenCL's scan programs take long to check)
def test_pyopencl_segmented_scan_checked_is_right(clenv):
    # PyOpenCL's scan kernels hold barriers under `if (unit_base < interval_end)`; checked
    # (check everything), a segmented scan over several intervals gives NumPy's result. (A group
    # exit written as `return` inside that if made PoCL compute wrong sums at n = 20000, though
    # it was never taken: exits.py jumps past the if instead.)
    pytest.importorskip("mako")
    from pyopencl.scan import GenericScanKernel

    skcl.install()
    try:
        knl = GenericScanKernel(
            clenv.ctx, np.int32,
            arguments="__global int *ary, __global char *segflags, __global int *out",
            input_expr="ary[i]", scan_expr="across_seg_boundary ? b : (a+b)", neutral="0",
            is_segment_start_expr="segflags[i]", output_statement="out[i] = item;")
    finally:
        skcl.uninstall()
    q = clenv.queue
    rng = np.random.default_rng(0)
    n = 20000
    a = rng.integers(0, 10, n).astype(np.int32)
    starts = sorted(set(rng.integers(1, n, 7).tolist()))
    flags = np.zeros(n, np.uint8)
    flags[starts] = 1
    out = cla.empty(q, n, np.int32)
    knl(cla.to_device(q, a), cla.to_device(q, flags), out)
    safekern.sync()
    want = a.copy()
    for s, e in zip([0] + starts, starts + [n]):
        want[s:e] = np.cumsum(a[s:e])
    np.testing.assert_array_equal(out.get(), want)
