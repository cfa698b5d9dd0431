"""Buffer arguments that share memory at the launch of a C kernel (docs/races.md, "CuPy and
OpenCL"): which pointer parameters a kernel writes (both front ends, no device), then launches
on PoCL (marker opencl; NVIDIA's OpenCL under gpu) and real CuPy (gpu): the same buffer twice,
sub-buffers and views that overlap
or not, read-only kernels, SAFEKERN_RACES=off and error."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import warnings

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern.frontend.c import cuda, opencl
from safekern.backends.overlap import OverlapCheck
from tests.support.settings import set_safekern

pytestmark = pytest.mark.timeout(180, method="thread")

# -- what a kernel writes -------------------------------------------------------------------------

OPENCL_WRITES = r"""
void put(__global float *p, int i, float v) { p[i] = v; }
float get(__global const float *p, int i) { return p[i]; }
__kernel void direct(__global const float *x, __global float *y, __global int *h,
                     __global float *z) {
    int i = get_global_id(0);
    __global float *row = z + i * 4;
    row[1] = x[i];
    atomic_add(&h[i], 1);
    y[i] += get(x, i);
}
__kernel void via_helper(__global const float *x, __global float *y) { put(y, 0, x[0]); }
__kernel void vectors(__global const float *x, __global float *y) {
    vstore4(vload4(0, x), 0, y);
}
__kernel void chosen(__global float *x, __global float *y, int k) {
    __global float *p = k ? x : y;
    p[0] = 1.0f;
}
__kernel void out_param(__global const float *x, __global float *y) {
    float whole;
    __local float s[4];
    s[0] = x[1];
    y[0] = modf(x[0], &whole);
}
__kernel void reader(__global const float *x, __global const float *y, __local float *s) {
    s[0] = x[0] + y[0];
}
"""

CUDA_WRITES = r"""
__device__ void put(float* p, int i, float v) { p[i] = v; }
struct cf { float x, y; __device__ cf(float a, float b); __device__ cf& operator+=(const cf&); };
extern "C" __global__ void direct(const float* x, float* y, int* h, float* z, cf* w) {
    int i = threadIdx.x;
    float* row = z + i * 4;
    row[1] = x[i];
    atomicAdd(&h[i], 1);
    put(y, i, __ldg(&x[i]));
    w[i] += cf(1.f, 0.f);
}
extern "C" __global__ void chosen(float* x, float* y, int k) { float* p = k ? x : y; p[0] = 1; }
extern "C" __global__ void locals(const float* x, float* y) {
    float s, c; sincosf(x[0], &s, &c); y[0] = s;
    __shared__ float t[4]; t[0] = x[1];
}
template <typename T> __global__ void templated(const T* x, T* y) { y[threadIdx.x] = x[0]; }
extern "C" __global__ void copies(float* x, float* y) { memcpy(y, x, 4); }
extern "C" __global__ void read_only(const float* x, const float* y, float* unused) {
    float s = x[0] + y[0]; (void)s;
}
"""


def test_opencl_kernels_know_what_they_write():
    kernels = opencl.rewrite(OPENCL_WRITES, filename="w.cl").kernels
    got = {k.name: (k.written, k.writes_unknown) for k in kernels}
    assert got == {
        "direct": (("y", "h", "z"), ""),
        "via_helper": (("y",), ""),
        "vectors": (("y",), ""),
        "chosen": ((), "a store through `p[0]`: it points into more than one array (x, y)"),
        "out_param": (("y",), ""),
        "reader": (("s",), ""),       # __local memory: written, never another argument's
    }


def test_cuda_kernels_know_what_they_write():
    rw = cuda.rewrite(CUDA_WRITES, filename="w.cu")
    got = {k.name: (k.written, k.writes_unknown) for k in rw.kernels}
    assert got == {
        "direct": (("y", "h", "z", "w"), ""),
        "chosen": ((), "a store through `p[0]`: it points into more than one array (x, y)"),
        "locals": (("y",), ""),
        "templated": (("y",), ""),
        "copies": (("y",), ""),
        "read_only": ((), ""),
    }


# -- the check itself -----------------------------------------------------------------------------

def make_check(written=("b",), unknown=""):
    return OverlapCheck(kernel="k", filename="k.cl", lineno=1,
                        params=[(0, "a"), (1, "b"), (3, "c")], written=written,
                        unknown=unknown)


def test_pairs_are_those_with_a_written_parameter():
    assert make_check().pairs == [(0, 1), (1, 2)]
    assert not make_check(written=()).needed
    assert make_check(written=(), unknown="why").pairs == [(0, 1), (0, 2), (1, 2)]
    assert make_check().positions == [0, 1, 3]


def test_overlap_is_a_shared_root_and_intersecting_bytes(monkeypatch):
    check = make_check()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check.check([(1, 0, 64), (1, 64, 128), (1, 0, 32)])      # a, c overlap: read-only pair
        check.check([(1, 0, 64), (2, 0, 64), None])              # other buffers; no memory
    with pytest.warns(safekern.RaceWarning, match="arguments 'b' and 'c' share memory and "
                                                  "kernel 'k' writes 'b'"):
        check.check([None, (1, 60, 64), (1, 63, 70)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check.check([None, (1, 60, 64), (1, 63, 70)])            # once per pair
    set_safekern(monkeypatch, RACES="error")
    with pytest.raises(safekern.RaceError) as info:
        check.check([None, (1, 60, 64), (1, 63, 70)])
    err = info.value
    assert (err.kernel, err.array, err.other, err.filename, err.lineno) == \
        ("k", "b", "c", "k.cl", 1)
    assert "SAFEKERN_RACES=error" in str(err)


# -- PyOpenCL -------------------------------------------------------------------------------------

COPY = r"""__kernel void copy(__global const float *a, __global float *b) {
    int i = get_global_id(0);
    b[i] = a[i] + 1.0f;
}
__kernel void sum(__global const float *a, __global const float *b, __global float *out) {
    int i = get_global_id(0);
    out[0] += a[i] * 0.0f + b[i] * 0.0f;
}
__kernel void pick(__global float *a, __global float *b, int k) {
    __global float *p = k ? a : b;
    p[get_global_id(0)] = 2.0f;
}"""


def program(env, name="copy.cl"):
    import safekern.opencl as skcl

    return skcl.Program(env.ctx, COPY, filename=name).build()


def launches_warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, safekern.RaceWarning)]


def test_opencl_same_buffer_twice_warns_once_at_the_launch(clenv):
    import pyopencl.array as cla

    prg = program(clenv)
    x = cla.to_device(clenv.queue, np.arange(256, dtype=np.float32))
    y = cla.zeros_like(x)
    assert launches_warned(lambda: prg.copy(clenv.queue, (256,), None, x, y)) == []
    got = launches_warned(lambda: [prg.copy(clenv.queue, (256,), None, x, x)
                                   for _ in range(3)])
    assert len(got) == 1
    assert str(got[0].message) == (
        "safekern: kernel 'copy' (copy.cl:1): arguments 'a' and 'b' share memory and kernel "
        "'copy' writes 'b'; safekern cannot tell whether two threads touch one element; the "
        "kernel runs")
    assert got[0].filename == __file__             # the user's launch line
    np.testing.assert_array_equal(y.get(), np.arange(256) + 1)
    # a read-only pair of the same buffer is no concern; the written one with it is
    got = launches_warned(lambda: prg.sum(clenv.queue, (256,), None, x, x, y))
    assert got == []
    got = launches_warned(lambda: prg.sum(clenv.queue, (256,), None, x, y, x))
    assert [str(w.message).split(" share memory")[0] for w in got] == [
        "safekern: kernel 'sum' (copy.cl:5): arguments 'a' and 'out'"]
    clenv.queue.finish()


def test_opencl_sub_buffers_and_views(clenv):
    import pyopencl as cl
    import pyopencl.array as cla

    if "NVIDIA" in clenv.device.platform.name:
        # Three sub-buffers of one buffer, launched and collected, crash NVIDIA's driver at
        # garbage collection with plain PyOpenCL too (no safekern in the process: checked on
        # the H200, 2026-11-23); not something safekern can test around.
        pytest.skip("sub-buffers segfault NVIDIA's OpenCL driver at collection (plain PyOpenCL)")

    align = clenv.device.mem_base_addr_align // 8
    prg = program(clenv)
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 16 * align)
    low, high = buf.get_sub_region(0, 4 * align), buf.get_sub_region(4 * align, 4 * align)
    middle = buf.get_sub_region(2 * align, 4 * align)
    assert launches_warned(lambda: prg.copy(clenv.queue, (16,), None, low, high)) == []
    assert len(launches_warned(lambda: prg.copy(clenv.queue, (16,), None, low, middle))) == 1
    assert len(launches_warned(lambda: prg.copy(clenv.queue, (16,), None, buf, middle))) == 0
    prg2 = program(clenv, "views.cl")       # another kernel: warned once per kernel and pair
    x = cla.zeros(clenv.queue, 16 * align // 4, np.float32)
    q = align // 4
    assert launches_warned(lambda: prg2.copy(clenv.queue, (q,), None, x[:4 * q],
                                             x[4 * q:8 * q])) == []
    assert len(launches_warned(lambda: prg2.copy(clenv.queue, (q,), None, x[:4 * q],
                                                 x[2 * q:6 * q]))) == 1
    clenv.queue.finish()


def test_opencl_unknown_writes_warn_with_the_reason(clenv):
    import pyopencl.array as cla

    prg = program(clenv)
    x = cla.zeros(clenv.queue, 64, np.float32)
    (w,) = launches_warned(lambda: prg.pick(clenv.queue, (64,), None, x, x, np.int32(1)))
    assert "cannot tell which arguments kernel 'pick' writes (a store through " \
           "`p[get_global_id(0)]`: it points into more than one array (a, b))" \
        in str(w.message)
    clenv.queue.finish()


def test_opencl_races_off_and_error(clenv, monkeypatch):
    import pyopencl.array as cla

    x = cla.to_device(clenv.queue, np.arange(64, dtype=np.float32))
    set_safekern(monkeypatch, RACES="off")
    prg = program(clenv)
    assert launches_warned(lambda: prg.copy(clenv.queue, (64,), None, x, x)) == []
    clenv.queue.finish()
    set_safekern(monkeypatch, RACES="error")
    before = x.get()
    with pytest.raises(safekern.RaceError) as info:
        prg.copy(clenv.queue, (64,), None, x, x)
    assert (info.value.array, info.value.other, info.value.kernel) == ("b", "a", "copy")
    prg.copy.set_args(x, x)
    with pytest.raises(safekern.RaceError):
        import safekern.opencl as skcl

        skcl.enqueue_nd_range_kernel(clenv.queue, prg.copy, (64,), None)
    np.testing.assert_array_equal(x.get(), before)      # nothing ran


# -- CuPy -----------------------------------------------------------------------------------------

CUPY_COPY = r"""
extern "C" __global__ void copy(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 1.0f;
}
"""


@pytest.mark.gpu
def test_cupy_overlapping_arguments_on_the_gpu(no_pending_failure):
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception:
        pytest.skip("no CUDA device")
    import safekern.cupy as skcp

    k = skcp.RawKernel(CUPY_COPY, "copy", filename="gpu_copy.cu")
    x = cp.arange(256, dtype=cp.float32)
    y = cp.zeros_like(x)
    assert launches_warned(lambda: k((1,), (256,), (x, y, np.int32(256)))) == []
    np.testing.assert_array_equal(y.get(), np.arange(256) + 1)
    assert len(launches_warned(lambda: k((1,), (128,), (x[:128], x[64:192],
                                                         np.int32(128))))) == 1
    assert launches_warned(lambda: k((1,), (128,), (x[:128], y[128:], np.int32(128)))) == []
    safekern.sync()
