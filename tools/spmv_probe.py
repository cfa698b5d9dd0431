"""The checked CSR SpMV's loop copies, timed on the GPU (the benchmark's data; CUDA events).

Run on the GPU: `python tools/spmv_probe.py`. Variants of the rewritten kernel, compiled by
numba as plain kernels: as rewritten; the unchecked copy only; the checked copy only.
"""
import re
import sys

import numpy as np
from numba import cuda, float32

import safekern
from safekern.backends.numba import intrinsics as numba_helpers

sys.path.insert(0, ".")
import benchmarks.kernels as K  # noqa: E402
from tools.timing import event_ms as timeit  # noqa: E402
from benchmarks.cases import random_csr  # noqa: E402


def build(src, name):
    ns = dict(numba_helpers.namespace())
    ns.update(cuda=cuda, float32=float32)
    exec(compile(src, "<variant>", "exec"), ns)
    return cuda.jit(ns[name])


def main():
    rng = np.random.default_rng(0)
    n = 1 << 22
    indptr, indices, _ = random_csr(rng, n, 8, 24)
    data = rng.uniform(-1, 1, indices.size).astype(np.float32)
    x = rng.random(n, dtype=np.float32)
    d = [cuda.to_device(v) for v in (indptr, indices, data, x, np.zeros(n, np.float32))]
    fb = cuda.to_device(np.zeros(16, np.int64))
    fbp = int(fb.device_ctypes_pointer.value)
    grid, block = (n + 255) // 256, 256
    plain = cuda.jit(K.spmv_csr)
    base = timeit(lambda: plain[grid, block](*d))
    print(f"{'plain numba':20s} regs {list(plain.get_regs_per_thread().values())} "
          f"{base:.4f} ms")
    src = safekern.jit(K.spmv_csr).rewritten_source
    fast = re.sub(r"if _sk_t0 >= _sk_t1 or \(.*\):", "if True:", src)
    slow = re.sub(r"if _sk_t0 >= _sk_t1 or \(.*\):", "if False:", src)
    for name, s in (("as rewritten", src), ("unchecked copy", fast), ("checked copy", slow)):
        k = build(s, "spmv_csr")
        t = timeit(lambda: k[grid, block](*d, fbp))
        print(f"{name:20s} regs {list(k.get_regs_per_thread().values())} {t:.4f} ms "
              f"{t / base:.3f}x")
    print("pending failure:", fb.copy_to_host()[:3])
    sk = safekern.jit(K.spmv_csr)
    t = timeit(lambda: sk[grid, block](*d))
    safekern.sync()
    print(f"{'safekern.jit':20s} {t:.4f} ms {t / base:.3f}x")


if __name__ == "__main__":
    main()
