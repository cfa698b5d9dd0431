"""Quick measurements on the GPU machine: launch overhead, checked vs plain; gather PTX."""
import os
import time

import numpy as np
from numba import cuda

import safekern


def plain_empty(a):
    pass


@safekern.jit
def checked_empty(a):
    pass


@safekern.jit
def checked_gather(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = src[idx[i]]


def run():
    a = cuda.to_device(np.zeros(16, np.float32))
    pk = cuda.jit(plain_empty)
    for k in (pk, checked_empty):
        k[1, 32](a)
    cuda.synchronize()
    safekern.sync()
    res = {}
    for _ in range(3):
        for name, k in (("plain", pk), ("checked", checked_empty)):
            n = 20000
            t = time.perf_counter()
            for _ in range(n):
                k[1, 32](a)
            dt = (time.perf_counter() - t) / n
            cuda.synchronize()
            res.setdefault(name, []).append(round(dt * 1e6, 2))
    safekern.sync()
    print("launch us (3 reps):", res)
    src = cuda.to_device(np.arange(1 << 20, dtype=np.float32))
    idx = cuda.to_device(np.arange(1 << 20, dtype=np.int64))
    out = cuda.device_array(1 << 20, np.float32)
    checked_gather[4096, 256](out, src, idx)
    safekern.sync()
    sig = list(checked_gather.overloads.keys())[0]
    ptx = checked_gather.inspect_asm(sig)
    with open(os.path.join(os.environ.get("OUT", "/tmp"), "gather.ptx"), "w") as f:
        f.write(ptx)
    print("ptx lines", ptx.count("\n"), "local memory used:", ".local" in ptx)


if __name__ == "__main__":
    run()
