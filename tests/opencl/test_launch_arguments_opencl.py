"""The arguments of a launch of a checked OpenCL kernel with launch variants or plain launches
(backends/opencl/kernel.py): set on the kernel that launch runs only -- setting each on the
checked kernel and on every variant besides doubled the host time of a launch, more than
Rodinia's hotspot kernel takes on an H100 (1.4x) -- and there only those that changed since it
last ran (arguments.py); still right whichever kernel runs next: another variant, the checked
kernel after `set_arg` and `enqueue_nd_range_kernel`."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")
from safekern.backends.opencl import kernel as K  # noqa: E402

pytestmark = pytest.mark.timeout(240, method="thread")

SRC = """__kernel void axpy(float alpha, __global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}
"""


def f32(env, n, value):
    return cla.to_device(env.queue, np.full(n, value, np.float32))


@pytest.fixture
def counted(monkeypatch):
    """id(kernel) -> the argument entries set on it (PyOpenCL's setters, counted)."""
    seen: dict = {}
    for name, width in (("_set_arg_multi", 2), ("_set_arg_buf_multi", 2),
                        ("_set_arg_buf_pack_multi", 3)):
        real = getattr(K._BASE, name)

        def setter(knl, entries, real=real, width=width):
            seen[id(knl)] = seen.get(id(knl), 0) + len(entries) // width
            return real(knl, entries)
        monkeypatch.setattr(K._BASE, name, setter)
    return seen


def test_a_plain_launch_sets_its_arguments_on_the_users_kernel_only(clenv, counted):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, SRC, filename="args1.cl").build()
    knl = prg.axpy
    x, y = f32(clenv, 64, 1.0), f32(clenv, 64, 2.0)
    knl(clenv.queue, (64,), (16,), np.float32(3.0), x, y, np.int32(64))
    own = knl._plain._kernel
    assert own is not None                    # the launch ran the user's kernel
    counted.clear()
    for _ in range(3):
        knl(clenv.queue, (64,), (16,), np.float32(3.0), x, y, np.int32(64))
    # the kernel keeps what it was given: equal arguments again set nothing, on no kernel
    assert counted == {}
    knl(clenv.queue, (64,), (16,), np.float32(0.5), x, y, np.int32(64))
    # a changed argument is set on the kernel that runs, alone
    assert counted == {id(own): 1}
    np.testing.assert_array_equal(y.get(), 2.0 + 4 * 3.0 + 0.5)


def test_arguments_follow_whichever_kernel_runs(clenv):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, SRC, filename="args2.cl").build()
    knl = prg.axpy
    x, y = f32(clenv, 64, 1.0), f32(clenv, 64, 0.0)
    knl(clenv.queue, (64,), (16,), np.float32(2.0), x, y, np.int32(64))    # plain
    np.testing.assert_array_equal(y.get(), 2.0)
    # a launch whose predicates do not hold (n past y): the checked kernel, new arguments
    short = f32(clenv, 32, 0.0)
    knl(clenv.queue, (64,), (16,), np.float32(5.0), x, short, np.int32(64))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()
    # plain again: the user's kernel gets this launch's arguments, not the last it ran with
    y2 = f32(clenv, 64, 1.0)
    knl(clenv.queue, (64,), (16,), np.float32(7.0), x, y2, np.int32(64))
    np.testing.assert_array_equal(y2.get(), 8.0)
    np.testing.assert_array_equal(y.get(), 2.0)
    # set_arg and enqueue_nd_range_kernel run the checked kernel with every argument of the
    # last launch (set on the user's kernel only) and the one set since
    knl.set_arg(0, np.float32(10.0))
    cl.enqueue_nd_range_kernel(clenv.queue, knl, (64,), (16,))
    np.testing.assert_array_equal(y2.get(), 18.0)
    safekern.sync()
    # and a launch after that sets them all again on the kernel it runs
    knl(clenv.queue, (64,), (16,), np.float32(1.0), x, y, np.int32(64))
    np.testing.assert_array_equal(y.get(), 3.0)
    safekern.sync()
