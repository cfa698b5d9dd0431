# An out-of-range thread index passed to numba.cuda.random's xoroshiro128p_* functions indexes the
# RNG state array out of bounds (it reads AND writes states[index]); safekern neither checks it nor
# warns (no UncheckedWarning, no entry in check_report), although the kernel's own out[tid] is
# guarded.  On the simulator numpy raises a plain IndexError (not safekern.BoundsError); on a GPU the
# state array's neighbour memory is silently corrupted.
# Pattern from graeme-winter/sidewinder monte_carlo_pi/numba_cuda.py with fewer states than threads.
# Run: cd /work/main && NUMBA_ENABLE_CUDASIM=1 .venv/bin/python -W ignore::numba.NumbaWarning /work/helper_numba/repro_2.py
import warnings
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
import safekern

@safekern.jit
def mc_pi(states, iterations, out):
    tid = cuda.grid(1)
    if tid < out.shape[0]:
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(states, tid)   # states has 32 entries, tid up to 63
            y = xoroshiro128p_uniform_float32(states, tid)
            if x ** 2 + y ** 2 <= 1.0:
                inside += 1
        out[tid] = 4.0 * inside / iterations

states = create_xoroshiro128p_states(32, seed=42)
out = cuda.to_device(np.zeros(64, dtype=np.float32))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        mc_pi[2, 32](states, 5, out)
        safekern.sync()
        print("no error")
    except safekern.BoundsError as e:
        print("BoundsError (expected):", str(e).splitlines()[0])
    except IndexError as e:
        print("NOT a safekern error:", type(e).__module__, type(e).__name__, str(e).splitlines()[0])
print("safekern warnings:", [str(x.message) for x in w if "safekern" in str(x.message)])
print(mc_pi.check_report())
