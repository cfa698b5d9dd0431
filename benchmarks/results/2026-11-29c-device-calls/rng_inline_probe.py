"""numba.cuda.random's normal_float64 through its checked copy (library_functions.py) vs plain numba:
the copy as made (a device function), and made with numba's inline="always" and with
forceinline: which gives plain numba's bits.

    python rng_inline_probe.py
"""
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float64

import safekern
from safekern.backends.numba import library_functions
from safekern.backends.numba.device_function import CheckedDeviceFunction


def normals(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = xoroshiro128p_normal_float64(states, i) + xoroshiro128p_normal_float64(states, i)


def run(kernel):
    states = create_xoroshiro128p_states(1024, seed=42)
    out = cuda.to_device(np.zeros(1024))
    kernel[8, 128](states, out)
    return out.copy_to_host()


plain = run(cuda.jit(normals))
for label, options in (("as made", {}), ("inline=always", {"inline": "always"}),
                       ("forceinline", {"forceinline": True})):
    library_functions._checked.clear()
    library_functions.make = lambda fn, o=options: CheckedDeviceFunction(fn, None, dict(o))
    try:
        got = run(safekern.jit(normals))
        safekern.sync()
        print(f"{label:14s} equal bits: {np.array_equal(got, plain)}, differing "
              f"{int((got != plain).sum())} of {got.size}, max |diff| {np.abs(got - plain).max():.3g}")
    except Exception as err:          # noqa: BLE001
        print(f"{label:14s} {type(err).__name__}: {str(err)[:300]}")
