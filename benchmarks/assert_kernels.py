"""The numba kernel of benchmarks/assert_cost.py (imported once the CUDA target is chosen: numba
must see NUMBA_ENABLE_CUDASIM before its first import)."""
from numba import cuda


def scale(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        assert x[i] >= 0
        out[i] = 2.0 * x[i] + 1.0
