"""An argument that held an SVM pointer and then a buffer (backends/opencl/arguments.py).

NVIDIA's OpenCL refuses to launch a kernel one of whose arguments was an SVM pointer and then
anything else (INVALID_KERNEL_ARGS; benchmarks/results/2026-11-29c-device-calls/
svm_switch_probe.py), which PyOpenCL's own test_coarse_grain_svm meets under safekern only:
PyOpenCL makes a new kernel at each `prg.twice`, safekern keeps one per name (and the user's
own kernel and the variants behind it). PoCL launches such a kernel, so here the driver's rule
is played by a stand-in (`nvidia_svm_rule`) that refuses what NVIDIA's OpenCL refuses.
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
_cl = pytest.importorskip("pyopencl._cl")
skcl = pytest.importorskip("safekern.opencl")
from safekern.backends.opencl import kernel as K  # noqa: E402

pytestmark = pytest.mark.timeout(240, method="thread")

N = 64
TWICE = "__kernel void twice(__global float *a_g) { a_g[get_global_id(0)] *= 2; }"
# A gather: no launch fact proves it, so the checked kernel itself runs every launch.
GATHER = """__kernel void gather(__global float *out, __global const int *idx,
                     __global const float *src) {
    int i = get_global_id(0);
    out[i] = src[idx[i]];
}
"""


@pytest.fixture
def nvidia_svm_rule(clenv, monkeypatch):
    """Launches refused as NVIDIA's OpenCL refuses them: a kernel whose argument held an SVM
    pointer and was then given something else, until an SVM pointer is set there again."""
    from pyopencl.characterize import has_coarse_grain_buffer_svm

    if not has_coarse_grain_buffer_svm(clenv.device):
        pytest.skip("no coarse-grain SVM on this device")
    state: dict = {}           # id(kernel) -> {index: "svm" | "refused"}
    alive: list = []           # (the kernels seen: no id is reused while the test runs)

    def note(knl, index, is_svm):
        alive.append(knl)
        held = state.setdefault(id(knl), {})
        if is_svm:
            held[index] = "svm"
        elif index in held:
            held[index] = "refused"

    for name, width in (("_set_arg_multi", 2), ("_set_arg_buf_multi", 2),
                        ("_set_arg_buf_pack_multi", 3)):
        real = getattr(K._BASE, name)

        def setter(knl, entries, real=real, width=width, name=name):
            for k in range(0, len(entries), width):
                note(knl, entries[k], name == "_set_arg_multi" and
                     isinstance(entries[k + width - 1], cl.SVMPointer))
            return real(knl, entries)
        monkeypatch.setattr(K._BASE, name, setter)
    real_set_arg = K._BASE.set_arg

    def set_arg(knl, index, value):
        note(knl, index, isinstance(value, cl.SVMPointer))
        return real_set_arg(knl, index, value)
    monkeypatch.setattr(K._BASE, "set_arg", set_arg)
    real_enqueue = _cl.enqueue_nd_range_kernel

    def enqueue(queue, knl, *args, **kwargs):
        if "refused" in state.get(id(knl), {}).values():
            raise cl.LogicError(_cl._ErrorRecord(
                msg="clEnqueueNDRangeKernel failed: INVALID_KERNEL_ARGS (NVIDIA's rule)",
                code=cl.status_code.INVALID_KERNEL_ARGS, routine="clEnqueueNDRangeKernel"))
        return real_enqueue(queue, knl, *args, **kwargs)
    monkeypatch.setattr(_cl, "enqueue_nd_range_kernel", enqueue)
    return state


def svm_of(env, value, opaque):
    if opaque:
        svm = cl.SVMAllocation(env.ctx, N * 4, alignment=64, flags=cl.svm_mem_flags.READ_WRITE)
    else:
        svm = cl.SVM(cl.csvm_empty(env.ctx, (N,), np.float32, alignment=64))
    cl.enqueue_svm_memfill(env.queue, svm, np.full((), value, np.float32))
    return svm


def host(env, svm, opaque):
    with svm.map_ro(env.queue) as ary:
        return np.array(ary.view(np.float32) if opaque else ary)


def test_the_stand_in_refuses_what_nvidia_refuses(clenv, nvidia_svm_rule):
    """(The rule, on PyOpenCL's own kernel: one object given an SVM pointer, then a buffer.)"""
    knl = cl.Kernel(cl.Program(clenv.ctx, TWICE).build(), "twice")
    svm = svm_of(clenv, 1.0, opaque=True)
    knl(clenv.queue, (N,), None, svm)
    with pytest.raises(cl.LogicError, match="INVALID_KERNEL_ARGS"):
        knl(clenv.queue, (N,), None, svm.as_buffer(clenv.ctx))
    knl(clenv.queue, (N,), None, svm)              # an SVM pointer again: launched
    clenv.queue.finish()


@pytest.mark.parametrize("opaque", [False, True])
def test_pyopencls_coarse_grain_svm_test_passes_checked(clenv, nvidia_svm_rule, opaque):
    """PyOpenCL's test_coarse_grain_svm (test_wrapper.py): an SVM pointer, then the same memory
    as a buffer, through `prg.twice` each time (here the user's own kernel runs)."""
    safekern.sync()
    svm = svm_of(clenv, 17.0, opaque)
    prg = skcl.Program(clenv.ctx, TWICE, filename="svm_twice.cl").build()
    prg.twice(clenv.queue, (N,), None, svm)
    prg.twice(clenv.queue, (N,), None, svm.as_buffer(clenv.ctx))
    safekern.sync()
    np.testing.assert_array_equal(host(clenv, svm, opaque), 68.0)
    prg.twice(clenv.queue, (N,), None, svm)         # and back to the SVM pointer
    safekern.sync()
    np.testing.assert_array_equal(host(clenv, svm, opaque), 136.0)


def test_a_checked_kernel_keeps_checking_after_the_switch(clenv, nvidia_svm_rule):
    """No launch fact proves the gather: the checked kernel runs, on a fresh kernel after the
    switch, with its failure buffer and sizes -- a bad index is still reported, at its line."""
    safekern.sync()
    prg = skcl.Program(clenv.ctx, GATHER, filename="svm_gather.cl").build()
    src = np.arange(N, dtype=np.float32)
    src_buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=src)
    idx = np.arange(N, dtype=np.int32)[::-1].copy()
    idx_buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                        hostbuf=idx)
    out = svm_of(clenv, 0.0, opaque=True)
    prg.gather(clenv.queue, (N,), None, out, idx_buf, src_buf)
    safekern.sync()
    np.testing.assert_array_equal(host(clenv, out, True), src[::-1])
    out_buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, N * 4)
    prg.gather(clenv.queue, (N,), None, out_buf, idx_buf, src_buf)
    got = np.empty(N, np.float32)
    cl.enqueue_copy(clenv.queue, got, out_buf)
    safekern.sync()
    np.testing.assert_array_equal(got, src[::-1])
    idx[5] = N + 3
    cl.enqueue_copy(clenv.queue, idx_buf, idx)
    prg.gather(clenv.queue, (N,), None, out_buf, idx_buf, src_buf)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.filename, info.value.index, info.value.size) == ("svm_gather.cl", N + 3, N)


def test_an_svm_pointer_after_a_buffer_keeps_the_kernel(clenv, nvidia_svm_rule):
    """A buffer, then an SVM pointer: NVIDIA's OpenCL launches that, so no kernel is made."""
    safekern.sync()
    prg = skcl.Program(clenv.ctx, TWICE, filename="svm_after.cl").build()
    svm = svm_of(clenv, 1.0, opaque=True)
    prg.twice(clenv.queue, (N,), None, svm.as_buffer(clenv.ctx))
    prg.twice(clenv.queue, (N,), None, svm)
    safekern.sync()
    np.testing.assert_array_equal(host(clenv, svm, True), 4.0)
    assert prg.twice._stand_ins == {}
