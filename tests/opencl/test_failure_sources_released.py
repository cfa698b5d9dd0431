"""A context the user drops is not kept alive by its failure buffer (backends/opencl/build.py:
making a failure source forgets those of dropped contexts with nothing pending). A program
that makes context after context -- PyOpenCL's own tests do, once per test -- otherwise held
every one, with its device memory: NVIDIA's OpenCL then failed new contexts with
OUT_OF_HOST_MEMORY (an H100, 2026-11-27). PoCL here; `pytest -m gpu` on NVIDIA too."""
import gc

import numpy as np
import pyopencl as cl
import pytest

import safekern
import safekern.opencl as skcl
from safekern import runtime
from tests.support.checks import assert_bounds_error

SOURCE = """
__kernel void poke(__global float *a, int shift) {
    int i = get_global_id(0);
    a[i + shift] = 1.0f;
}
"""


def _launch_on_a_new_context(device, shift: int) -> None:
    """A context, queue, buffer and checked program of their own, all dropped on return."""
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    program = skcl.Program(ctx, SOURCE).build()
    program.poke(queue, (64,), None, buf, np.int32(shift))


def test_dropped_contexts_are_released(clenv):
    gc.collect()
    before = len(runtime.failure_sources("opencl"))
    for _ in range(12):
        _launch_on_a_new_context(clenv.device, 0)
        safekern.sync()
        gc.collect()
    # (the last dropped one is forgotten when the next source is made: one more at most)
    assert len(runtime.failure_sources("opencl")) <= before + 1


def test_a_failure_pending_on_a_dropped_context_is_still_raised(clenv):
    _launch_on_a_new_context(clenv.device, 5)        # fails: a[64..68] of 64
    gc.collect()
    _launch_on_a_new_context(clenv.device, 0)        # makes a source: the sweep runs
    assert_bounds_error(array="a", index=64, size=64, kernel="poke")


def test_a_context_still_in_use_keeps_its_source(clenv):
    program = skcl.Program(clenv.ctx, SOURCE).build()
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    program.poke(clenv.queue, (64,), None, buf, np.int32(0))
    safekern.sync()
    mine = [s for s in runtime.failure_sources("opencl") if s.context == clenv.ctx]
    _launch_on_a_new_context(clenv.device, 0)
    safekern.sync()
    assert all(s in runtime.failure_sources("opencl") for s in mine)
    program.poke(clenv.queue, (64,), None, buf, np.int32(3))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()


def test_a_dropped_kernel_is_freed_with_its_variants(clenv):
    """No reference cycle through a checked kernel outlives it (PyOpenCL < 2024.2's pybind11
    never collects one: kernel.py, CYCLES_LEAK), launch variants and plain launch built."""
    import weakref

    program = skcl.Program(clenv.ctx, SOURCE).build()
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    knl = program.poke
    knl(clenv.queue, (64,), None, buf, np.int32(0))
    knl(clenv.queue, (32,), None, buf, np.int32(0))
    safekern.sync()
    assert knl._launch or knl._plain, "the launches built no variant: the test tests nothing"
    dead_kernel, dead_program = weakref.ref(knl), weakref.ref(program)
    del knl, program
    gc.collect()
    assert dead_kernel() is None and dead_program() is None
