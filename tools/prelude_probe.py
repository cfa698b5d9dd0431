"""What the kernel prelude and a check cost on a memory-bound kernel (vector add, 64M float32).

Hand-written numba kernels, each a variant of what safekern emits, timed with CUDA events
(median of 30 after warm-up). Run on the GPU: `python tools/prelude_probe.py`.
"""
import sys

import numpy as np
from numba import cuda

sys.path.insert(0, ".")
from tools.timing import event_ms  # noqa: E402


@cuda.jit
def plain(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


@cuda.jit
def early_return(a, b, out, fb):
    if fb[0] != 0:
        return
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


@cuda.jit
def flag_on_store(a, b, out, fb):
    pending = fb[0] != 0
    i = cuda.grid(1)
    if i < out.shape[0]:
        v = a[i] + b[i]
        if not pending:
            out[i] = v


@cuda.jit
def checks_only(a, b, out, fb):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if i >= a.shape[0] or i >= b.shape[0]:
            cuda.atomic.cas(fb, 0, 0, 7)
            return
        out[i] = a[i] + b[i]


def timeit(fn, *args):
    grid = (args[0].shape[0] + 255) // 256
    return event_ms(lambda: fn[grid, 256](*args), reps=30, batch=20)


def main():
    import safekern

    n = 1 << 26
    a = cuda.to_device(np.ones(n, np.float32))
    b = cuda.to_device(np.ones(n, np.float32))
    out = cuda.device_array(n, np.float32)
    fb = cuda.to_device(np.zeros(16, np.int64))

    @safekern.jit
    def checked(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + b[i]

    @safekern.jit
    def checked_proven(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0] and i < a.shape[0] and i < b.shape[0]:
            out[i] = a[i] + b[i]

    base = timeit(plain, a, b, out)
    rows = {"plain numba": base,
            "early return on fb[0]": timeit(early_return, a, b, out, fb),
            "fb[0] tested at the store": timeit(flag_on_store, a, b, out, fb),
            "checks, no prelude": timeit(checks_only, a, b, out, fb),
            "safekern checked": timeit(checked, a, b, out),
            "safekern, all proven": timeit(checked_proven, a, b, out)}
    safekern.sync()
    for name, t in rows.items():
        print(f"{name:28s} {t * 1e3:8.1f} us  {t / base:6.3f}x")


if __name__ == "__main__":
    main()
