"""Where the checked tiled matmul's time goes: variants of the rewritten kernel, timed on the
GPU (2048x2048 float32, 16x16 tiles; CUDA events, median of 20).

Run on the GPU: `python tools/tiled_probe.py`. Prints registers (from numba's cubin) and time.
"""
import re
import sys

import numpy as np
from numba import cuda, float32

import safekern
from safekern.backends.numba import intrinsics as numba_helpers

sys.path.insert(0, ".")
import benchmarks.kernels as K  # noqa: E402
from tools.timing import event_ms  # noqa: E402

N = 2048


def variants():
    base = safekern.jit(K.matmul_tiled).rewritten_source
    out = {"as rewritten": base}
    no_slow = re.sub(r"        else:\n            for kk in range\(TILE\):\n"
                     r"                acc \+= _sk_load.*\n", "", base)
    out["no slow loop"] = no_slow
    out["or-barriers -> plain"] = base.replace(
        "if _sk_cuda.syncthreads_or(_sk_flag[0]):\n            return", "_sk_cuda.syncthreads()")
    out["fill stores plain"] = re.sub(
        r"_sk_store\((s[ab]), \(ty, tx\), (.*), \d+, _sk_fb, _sk_flag\)", r"\1[ty, tx] = \2", base)
    out["no prelude"] = base.replace("    if _sk_fb[0] != 0:\n        _sk_skip(_sk_fb)\n"
                                     "        return\n", "")
    return out


def build(src):
    ns = dict(numba_helpers.namespace())
    ns.update(cuda=cuda, float32=float32, TILE=K.TILE)
    exec(compile(src, "<variant>", "exec"), ns)
    return cuda.jit(ns["matmul_tiled"])


def main():
    rng = np.random.default_rng(0)
    a = cuda.to_device(rng.random((N, N), dtype=np.float32))
    b = cuda.to_device(rng.random((N, N), dtype=np.float32))
    c = cuda.device_array((N, N), np.float32)
    fb = cuda.to_device(np.zeros(16, np.int64))
    fbp = int(fb.device_ctypes_pointer.value)
    grid, block = (N // K.TILE, N // K.TILE), (K.TILE, K.TILE)
    plain = cuda.jit(K.matmul_tiled)
    base = event_ms(lambda: plain[grid, block](a, b, c), batch=5)
    print(f"{'plain numba':24s} regs {list(plain.get_regs_per_thread().values())} "
          f"{base:.3f} ms 1.000x")
    for name, src in variants().items():
        k = build(src)
        t = event_ms(lambda: k[grid, block](a, b, c, fbp), batch=5)
        print(f"{name:24s} regs {list(k.get_regs_per_thread().values())} {t:.3f} ms "
              f"{t / base:.3f}x")


if __name__ == "__main__":
    main()
