"""Loop versioning of OpenCL C (frontend/c/loop_versions.py, CUDA C's too): a counted loop whose
body only reads memory runs a copy with its affine accesses checked once before the loop and its
data-dependent ones checked without a branch; anything else keeps the loop as the rewrite checks
it. The rewrite here, and runs on PoCL: a versioned loop computes what the checked loop computes
and reports what it reports (the same site, index, size and work-item)."""
from __future__ import annotations

import re

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from safekern.frontend.c import opencl as frontend
from safekern.report import Status
from tests.support.checks import assert_bounds_error
from tests.support.settings import set_safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

SPMV = """__kernel void spmv(__global const int *indptr, __global const int *indices,
                   __global const float *data, __global const float *x,
                   __global float *y, int n) {
    int row = get_global_id(0);
    if (row < n) {
        float acc = 0.0f;
        for (int k = indptr[row]; k < indptr[row + 1]; k++)
            acc += data[k] * x[indices[k]];
        y[row] = acc;
    }
}
"""

#: a grid-stride loop in a kernel with a barrier (a failing work-item goes to the barrier)
STRIDE = """__kernel void total(__global const float *x, __global float *out, int n) {
    __local float sm[64];
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += x[i];
    sm[get_local_id(0)] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        float s = 0.0f;
        for (int j = 0; j < (int)get_local_size(0); j++) s += sm[j];
        out[get_group_id(0)] = s;
    }
}
"""

#: loops that must stay as they are: (why, body of `for (int k = lo; k < hi; k++) ...`)
KEPT = {
    "a store": "y[k] = x[k];",
    "a call": "acc += sin(x[k]);",
    "an inner loop": "{ for (int j = 0; j < 2; j++) acc += x[k + j]; }",
    "the counter changed": "{ acc += x[k]; k += 1; }",
    "the bound changed": "{ acc += x[k]; hi -= 1; }",
    "a return": "{ if (x[k] < 0) return; acc += x[k]; }",
}


def _body(text):
    return text[text.rfind("#line 1"):]


def test_spmv_is_versioned():
    rw = frontend.rewrite(SPMV, filename="spmv.cl")
    text = _body(rw.source)
    fast, slow = text.split("if (!__sk_vdone", 1)
    # before the loop: start and bound once (checked), the affine accesses over the range
    assert "__sk_lo0_" in fast and "(long)(int)(indptr [ __sk_ix32((int)( row )" in fast
    # (data[k], indices[k]: k itself, from lo to the last k)
    assert fast.count("__sk_vin(") == 2 and "(__sk_n_x) > 0" in fast
    # first a scan: x[...] clamped, the largest column kept; then acc as before the loop (the
    # scan's work is dead), and with every column in x the work: x[...] clamped only
    assert "data [ k ] * x [ __sk_dm32( indices [ k ] , __sk_dl" in fast
    assert re.search(r"float (__sk_sv\w+) = acc; for .*; acc = \1; if \(!\(__sk_dq\w+ > "
                     r"__sk_dl\w+\)\) \{ for \( int k = __sk_lo\w+ ; k < __sk_hi\w+ ; k \+\+ \) "
                     r"acc \+= data \[ k \] \* x \[ __sk_dc32\( indices \[ k \] , __sk_dl\w+\) \] ; "
                     r"__sk_vdone\w+ = 1; \} \} $", fast)
    # (a column past x's last: the checked loop, from the locals as they were)
    copy = fast[fast.index("__sk_dl"):]          # (no failure recorded in the fast copy)
    assert "__sk_fail" not in copy and "__sk_fp" not in copy
    # the other copy: the loop as the rewrite checks it; the exit test after the loop
    assert "x[__sk_ix32((int)(indices[__sk_ix32((int)(k)" in slow
    # (then y[row]'s precheck, prechecks.py: row is a private int the statement keeps)
    assert slow.split("if (__SK_UNLIKELY((ulong)(long)((int)(row))")[0].rstrip().endswith(
        "if (__SK_UNLIKELY(*__sk_fp)) return;")
    # the report: the affine accesses hoisted, the data-dependent one checked
    by_text = {e.text: e.status for e in rw.report()}
    assert by_text["data[k]"] == by_text["indices[k]"] == Status.HOISTED
    assert by_text["x[indices[k]]"] == Status.CHECKED


@pytest.mark.parametrize("why", sorted(KEPT))
def test_loops_that_are_kept(why):
    src = ("__kernel void k(__global const float *x, __global float *y, int lo, int hi) {\n"
           "    float acc = 0.0f;\n"
           f"    for (int k = lo; k < hi; k++) {KEPT[why]}\n"
           "    y[0] = acc;\n}\n")
    text = _body(frontend.rewrite(src).source)
    assert "int k = __sk_lo" not in text, why           # the k loop is left as it is
    # (an inner loop of its own is versioned: k is invariant in it)
    assert ("__sk_lo" in text) == (why == "an inner loop"), why


def test_a_loop_that_is_not_a_statement_of_a_block_is_kept():
    # (the exit test after it would land inside the branch: exits.py, loop_versions.py)
    src = ("__kernel void k(__global const float *x, __global float *y, int n) {\n"
           "    float acc = 0.0f;\n"
           "    if (n > 0) for (int k = 0; k < n; k++) acc += x[k];\n"
           "    y[0] = acc;\n}\n")
    assert "__sk_lo" not in _body(frontend.rewrite(src).source)


TILED = """#define TILE 4
#define LIMIT (n - r)
__kernel void rowsum(__global const float *x, __global float *out, int n) {
    int r = get_global_id(0);
    float acc = 0.0f, other = 0.0f;
    for (int i = 0; i < TILE; i++) acc += x[r * TILE + i];
    for (int i = 0; i < LIMIT; i++) other += x[r + i];
    out[r] = acc + other;
}
"""


def test_a_macro_for_a_constant_may_be_in_the_loop_another_macro_not():
    text = _body(frontend.rewrite(TILED, filename="tiled.cl").source)
    assert text.count("__sk_vok(") + text.count("__sk_vin(") == 1     # the first loop only
    assert "x [ r * TILE + i ]" in text


def test_eliminate_off_leaves_loops_alone():
    assert "__sk_dm32(" not in _body(frontend.rewrite(SPMV, eliminate=False).source)


# -- on PoCL --------------------------------------------------------------------------------

N = 64
LSZ = 16


def _csr(rows, per, ncols, rng):
    indptr = (np.arange(rows + 1) * per).astype(np.int32)
    indices = rng.integers(0, ncols, rows * per).astype(np.int32)
    data = rng.random(rows * per).astype(np.float32)
    return indptr, indices, data


def _run_spmv(env, indptr, indices, data, x):
    prg = skcl.Program(env.ctx, SPMV, filename="spmv.cl").build()
    q = env.queue
    args = [cla.to_device(q, a) for a in (indptr, indices, data, x)]
    y = cla.zeros(q, N, np.float32)
    prg.spmv(q, (N,), (LSZ,), *(a.data for a in args), y.data, np.int32(N))
    return y


def test_versioned_spmv_computes_what_pyopencl_computes(clenv):
    safekern.sync()
    indptr, indices, data = _csr(N, 8, N, np.random.default_rng(1))
    x = np.random.default_rng(2).random(N).astype(np.float32)
    y = _run_spmv(clenv, indptr, indices, data, x)
    safekern.sync()
    np.testing.assert_allclose(y.get(), np.add.reduceat(data * x[indices], indptr[:-1]),
                               rtol=1e-5)


def _failure(env, monkeypatch, eliminate, **bad):
    """The BoundsError of SpMV with `bad` planted, versioned or checked everywhere."""
    set_safekern(monkeypatch, ELIMINATE="1" if eliminate else "0")
    indptr, indices, data = _csr(N, 4, N, np.random.default_rng(3))
    x = np.ones(N, np.float32)
    for name, (at, value) in bad.items():
        {"indices": indices, "indptr": indptr}[name][at] = value
    safekern.sync()
    _run_spmv(env, indptr, indices, data, x)
    e = assert_bounds_error(filename="spmv.cl", kernel="spmv")
    return e.lineno, e.array, e.index, e.size, e.thread, e.block


@pytest.mark.parametrize("bad", [
    {"indices": (4 * 37 + 2, N + 5)},       # a bad column: the deferred, branch-free check
    {"indices": (4 * 50, -3)},
    {"indices": (4 * 20 + 1, N)},           # x's extent itself: the first index past it
    {"indptr": (N, 4 * N + 7)},             # the last row runs past data: the checked copy
    {"indptr": (N, 4 * N + 1)},             # by one element
])
def test_a_versioned_loop_reports_what_the_checked_loop_reports(clenv, monkeypatch, bad):
    versioned = _failure(clenv, monkeypatch, True, **bad)
    checked = _failure(clenv, monkeypatch, False, **bad)
    assert versioned == checked
    assert versioned[0] == 8


#: a data-dependent index carried from one iteration to the next: the checked loop that runs
#: again after a bad one must start from the values the locals had before the loop
CARRIED = """__kernel void walk(__global const int *step, __global const float *x,
                   __global float *y, int n, int len) {
    int row = get_global_id(0);
    if (row < n) {
        float acc = 0.0f;
        int pos = row;
        for (int k = 0; k < len; k++) {
            pos += step[row * len + k];
            acc += x[pos];
        }
        y[row] = acc + pos;
    }
}
"""


def _walk(env, monkeypatch, eliminate, steps):
    set_safekern(monkeypatch, ELIMINATE="1" if eliminate else "0")
    safekern.sync()
    prg = skcl.Program(env.ctx, CARRIED, filename="walk.cl").build()
    q = env.queue
    x = np.arange(N, dtype=np.float32)
    y = cla.zeros(q, N, np.float32)
    prg.walk(q, (N,), (LSZ,), cla.to_device(q, steps).data, cla.to_device(q, x).data, y.data,
             np.int32(N), np.int32(steps.size // N))
    return y


def test_a_carried_index_reruns_from_the_locals_before_the_loop(clenv, monkeypatch):
    length = 6
    steps = np.zeros(N * length, np.int32)
    assert "__sk_dm32( pos ," in _body(frontend.rewrite(CARRIED, filename="walk.cl").source)
    y = _walk(clenv, monkeypatch, True, steps)
    safekern.sync()
    np.testing.assert_array_equal(y.get(), np.arange(N) * (length + 1))
    # row 37 steps past x at k = 2 and back at k = 3, and ends 4 further on: the first bad
    # index is 37 + 1 + 1 + N (a rerun from pos's value after the loop would say 41 + ...)
    steps[37 * length:38 * length] = [1, 1, N, -N, 1, 1]
    failures = []
    for eliminate in (True, False):
        _walk(clenv, monkeypatch, eliminate, steps)
        e = assert_bounds_error(filename="walk.cl", kernel="walk", lineno=9, array="x")
        failures.append((e.index, e.size, e.thread, e.block))
    assert failures[0] == failures[1] == [(37 + 2 + N, N, (37 % LSZ, 0, 0),
                                           (37 // LSZ, 0, 0))][0]


def test_a_loop_over_a_macro_constant_runs_and_reports(clenv):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, TILED, filename="tiled.cl").build()
    q = clenv.queue
    x = cla.to_device(q, np.arange(4 * N, dtype=np.float32))
    out = cla.zeros(q, N, np.float32)
    prg.rowsum(q, (N,), (LSZ,), x.data, out.data, np.int32(N))
    safekern.sync()
    xs = np.arange(4 * N)
    np.testing.assert_array_equal(out.get(), xs.reshape(N, 4).sum(axis=1) +
                                  [xs[r:N].sum() for r in range(N)])
    # one row short: the last work-item's loop runs past x, in the checked copy
    short = cla.to_device(q, np.arange(4 * N - 1, dtype=np.float32))
    prg.rowsum(q, (N,), (LSZ,), short.data, out.data, np.int32(N))
    assert_bounds_error(filename="tiled.cl", kernel="rowsum", lineno=6, array="x",
                        index=4 * N - 1, size=4 * N - 1, thread=(LSZ - 1, 0, 0),
                        block=(N // LSZ - 1, 0, 0))


def test_a_grid_stride_loop_in_a_kernel_with_a_barrier(clenv):
    safekern.sync()
    text = _body(frontend.rewrite(STRIDE, filename="stride.cl").source)
    assert text.count("__sk_vok(") + text.count("__sk_vin(") == 2     # both loops
    prg = skcl.Program(clenv.ctx, STRIDE, filename="stride.cl").build()
    q = clenv.queue
    x = cla.to_device(q, np.arange(4 * N, dtype=np.float32))
    out = cla.zeros(q, N // LSZ, np.float32)
    prg.total(q, (N,), (LSZ,), x.data, out.data, np.int32(4 * N))
    safekern.sync()
    assert out.get().sum() == np.arange(4 * N).sum()
    # n past the end of x: the fast copy is not taken, the checked loop reports the first
    # element past the end, and the group leaves at the barrier
    prg.total(q, (N,), (LSZ,), x.data, out.data, np.int32(4 * N + 1))
    assert_bounds_error(filename="stride.cl", kernel="total", lineno=5, array="x",
                        index=4 * N, size=4 * N)


#: a versioned loop between barriers, inside a loop that holds them (the tiled matmul's shape)
BETWEEN = """#define T 4
__kernel void tiles(__global const float *a, __global float *out, int off) {
    __local float s[T][T];
    int tx = get_local_id(0), ty = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < 2; t++) {
        s[ty][tx] = a[(t * T + ty) * T + tx];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < T; i++) acc += s[ty][i + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[ty * T + tx] = acc;
}
"""


@pytest.mark.parametrize("eliminate", [True, False])
def test_a_versioned_loop_between_barriers(clenv, monkeypatch, eliminate):
    set_safekern(monkeypatch, ELIMINATE="1" if eliminate else "0")
    text = _body(frontend.rewrite(BETWEEN, eliminate=eliminate).source)
    assert ("__sk_vok(" in text or "__sk_vin(" in text) == \
        eliminate
    safekern.sync()
    prg = skcl.Program(clenv.ctx, BETWEEN, filename="tiles.cl").build()
    q = clenv.queue
    a = np.arange(32, dtype=np.float32)
    out = cla.zeros(q, 16, np.float32)
    prg.tiles(q, (4, 4), (4, 4), cla.to_device(q, a).data, out.data, np.int32(0))
    safekern.sync()
    tiles = a.reshape(2, 4, 4)
    np.testing.assert_array_equal(out.get(), np.repeat(tiles.sum(axis=(0, 2)), 4))
    # one past the row: every work-item fails in the checked copy; the group leaves together
    prg.tiles(q, (4, 4), (4, 4), cla.to_device(q, a).data, out.data, np.int32(1))
    assert_bounds_error(filename="tiles.cl", kernel="tiles", lineno=9, array="s", axis=1,
                        index=4, size=4)
