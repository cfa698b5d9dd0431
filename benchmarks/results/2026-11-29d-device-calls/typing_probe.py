"""A typing mistake in a checked kernel, launched on a GPU: numba's own error for the user's
code (as plain numba gives it), not one about safekern's helpers (launching.py)."""
import numpy as np
from numba import cuda

import safekern


def k(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, 0] * 2.0          # a is 1-D


args = (np.zeros(4, np.float32), np.zeros(4, np.float32))
try:
    cuda.jit(k)[1, 4](*args)
except Exception as err:                 # noqa: BLE001
    plain = err
try:
    safekern.jit(k)[1, 4](*args)
    raise SystemExit("no error")
except Exception as err:                 # noqa: BLE001
    mine = err
print(type(mine).__name__, str(mine)[:400])
assert type(mine).__name__ == type(plain).__name__ == "TypingError", (mine, plain)
assert "_sk_" not in str(mine) and str(mine).split() == str(plain).split()
assert mine.__traceback__ is None or "safekern" not in str(mine.__traceback__.tb_frame.f_code.co_filename)
print("OK: the launch's typing error is numba's for the user's code")
