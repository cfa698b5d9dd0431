"""numba.cuda.random's generators called from a checked kernel index the states array the kernel
passes (backends/numba/library_functions.py): `xoroshiro128p_uniform_float32(states, tid)` with
more threads than states -- the Monte-Carlo pi kernel of graeme-winter/sidewinder with 32
states for 64 threads -- reads and writes `states[32]`, which safekern now reports where numba's
code indexes (numba's random.py), naming the array, index and size, and the kernel. With enough
states the kernel gives plain numba's numbers. On the simulator without a GPU, on the device
with one (`pytest -m gpu`)."""
import numpy as np
import pytest
from numba import cuda
from numba.cuda import random as nrandom
from numba.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_normal_float64,
                               xoroshiro128p_uniform_float32)

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]


def mc_pi(states, iterations, out):
    tid = cuda.grid(1)
    if tid < out.shape[0]:
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(states, tid)
            y = xoroshiro128p_uniform_float32(states, tid)
            if x ** 2 + y ** 2 <= 1.0:
                inside += 1
        out[tid] = 4.0 * inside / iterations


def normals(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = xoroshiro128p_normal_float64(states, i) + xoroshiro128p_normal_float64(
            states, i)


def _run(kernel, n_states, n_out, *args):
    states = create_xoroshiro128p_states(n_states, seed=42)
    out = cuda.to_device(np.zeros(n_out, np.float32 if kernel.py_func is mc_pi else
                                  np.float64))
    kernel[(n_out + 31) // 32, 32](states, *args, out)
    return out


@pytest.mark.parametrize("fn, args", [(mc_pi, (5,)), (normals, ())])
def test_the_checked_kernel_draws_plain_numbas_numbers(fn, args):
    checked = _run(safekern.jit(fn), 64, 64, *args).copy_to_host()
    plain = _run(cuda.jit(fn), 64, 64, *args).copy_to_host()
    safekern.sync()
    if fn is mc_pi:
        np.testing.assert_array_equal(checked, plain)
    else:
        # Box-Muller in float64 (sqrt, log, cos of the same uniform draws): on an H200 the
        # checked copy's sums differ from numba's in the last bit for 277 of 1024 draws, with
        # the copy inlined or not (benchmarks/results/2026-11-29c-device-calls/
        # rng_inline_probe.py); on the simulator they are equal.
        np.testing.assert_allclose(checked, plain, rtol=0, atol=1e-15)


def test_more_threads_than_states_is_reported_where_numba_indexes_them():
    _run(safekern.jit(mc_pi), 32, 64, 5)
    err = assert_bounds_error(array="states", axis=0, index=32, size=32,
                              filename=nrandom.__file__, kernel="xoroshiro128p_next")
    assert "called from kernel 'mc_pi'" in str(err)
    assert err.block == (1, 0, 0)
