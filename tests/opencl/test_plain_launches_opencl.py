"""Plain launches of OpenCL C kernels on a device (PoCL here): a launch whose every check is
proven by the predicates that hold, while nothing is pending, runs the kernel of the program
built from the user's unmodified source (c_launch.PlainLaunch) -- with the user's arguments, set
before or after that kernel was made; a launch after one that may have failed runs the variant
(whose prelude tests for the pending failure), and one that breaks a predicate still reports."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from safekern.frontend.c import opencl as frontend

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

SRC = """__kernel void add(__global const float *a, __global const float *b,
                  __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
__kernel void gather(__global float *out, __global const float *x,
                     __global const int *idx, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = x[idx[i]];
}
"""


def f32(env, n, value=1.0):
    return cla.to_device(env.queue, np.full(n, value, np.float32))


def made(knl):
    """(the user's kernel was made, the variants made)."""
    variants = knl._launch_variants()
    return (knl._plain is not None and knl._plain._kernel is not None,
            [] if not variants else variants.kernels())


def test_a_proven_launch_runs_the_users_kernel(clenv):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, SRC, filename="plain.cl").build()
    knl = prg.add
    a, b, out = f32(clenv, 64), f32(clenv, 64, 2.0), f32(clenv, 64, 0.0)
    knl(clenv.queue, (64,), (16,), a, b, out, np.int32(64))
    assert made(knl) == (True, [])
    source = knl._fb_source
    assert not source.dirty                  # it can record nothing
    np.testing.assert_array_equal(out.get(), 3.0)
    # new arguments reach the user's kernel too
    c, out2 = f32(clenv, 64, 5.0), f32(clenv, 64, 0.0)
    knl(clenv.queue, (64,), (16,), a, c, out2, np.int32(64))
    np.testing.assert_array_equal(out2.get(), 6.0)
    # safekern.sync() finishes the queue of a plain launch, as of a checked one
    from safekern import runtime
    from safekern.backends.opencl import build as backend

    assert backend._plain_sync in runtime._plain_launched
    safekern.sync()
    assert clenv.queue.int_ptr not in backend._plain_queues and not runtime._plain_launched
    own = prg._variant(frozenset(), checks=False)
    assert own.rewritten is None and own.source == SRC       # the user's program


def test_a_pending_failure_keeps_the_prelude_and_a_broken_predicate_reports(clenv):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, SRC, filename="plain2.cl").build()
    a, b, out = f32(clenv, 64), f32(clenv, 64), f32(clenv, 64, 0.0)
    x, idx = f32(clenv, 64), cla.to_device(clenv.queue, np.full(64, 100, np.int32))
    prg.gather(clenv.queue, (64,), (16,), out, x, idx, np.int32(64))     # x[100]: fails
    prg.add(clenv.queue, (64,), (16,), a, b, out, np.int32(64))
    assert made(prg.add)[0] is False and len(made(prg.add)[1]) == 1      # the variant ran
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "x"
    # out too small: the checks stay, the failure is reported
    prg.add(clenv.queue, (64,), (16,), a, b, f32(clenv, 40), np.int32(64))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.size) == ("out", 40)
    assert made(prg.add)[0] is False


def test_program_scope_state_is_seen():
    """An OpenCL 2.0 program-scope variable lives in the built program: the user's kernel, in
    a program of its own, would not share it (c_launch.plain_launch refuses)."""
    src = "__global int hits = 0;\n__kernel void k(__global int *a) { hits += a[0]; }\n"
    rw = frontend.rewrite(src, options=["-cl-std=CL2.0"])
    assert [(v.name, v.lineno) for v in rw.state] == [("hits", 1)]
    assert frontend.rewrite(SRC).state == ()
