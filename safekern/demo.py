"""`python -m safekern demo`: a kernel with a planted bug, the exception it gives, the fix.

Runs on the GPU when there is one, else on numba's CUDA simulator.
"""
from __future__ import annotations

import argparse

from . import config

SIMULATED = config.use_cuda_simulator_without_gpu()

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

import safekern  # noqa: E402


@safekern.jit
def gather(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = src[idx[i]]


@safekern.jit
def blur(out, img):
    # A 3-point horizontal blur with a planted bug: no guard at the right edge.
    x, y = cuda.grid(2)
    if x < img.shape[0] and y < img.shape[1]:
        out[x, y] = (img[x, y - 1] + img[x, y] + img[x, y + 1]) / 3


@safekern.jit
def blur_fixed(out, img):
    x, y = cuda.grid(2)
    if x < img.shape[0] and 0 < y < img.shape[1] - 1:
        out[x, y] = (img[x, y - 1] + img[x, y] + img[x, y + 1]) / 3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m safekern demo",
                                     description="safekern's demonstration")
    parser.parse_args(argv)
    if SIMULATED:
        where = "the CUDA simulator (no GPU found)"
    else:
        name = cuda.get_current_device().name
        where = "GPU " + (name.decode() if isinstance(name, bytes) else str(name))
    print(f"safekern {safekern.__version__} demo on {where}\n")

    n, m = 256, 64
    src = cuda.to_device(np.arange(n, dtype=np.float32))
    idx_host = np.arange(m, dtype=np.int64) * 3
    idx_host[45] = 1_000_000            # the planted bug: an index past the end of src
    out = cuda.device_array(m, np.float32)
    print("1) gather with a bad index; the launch returns at once, nothing waits for the GPU")
    gather[2, 32](out, src, cuda.to_device(idx_host))
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        print(f"   safekern.sync() raised {type(err).__name__}:")
        print("   " + str(err).replace("\n", "\n   "))
        print(f"   attributes: array={err.array!r} axis={err.axis} index={err.index} "
              f"size={err.size} thread={err.thread} block={err.block}\n")
    else:
        print("   no error?! (this is a bug in safekern)")
        return 1

    print("2) the program goes on after sync(): the same kernel with good indices")
    idx_host[45] = 45
    gather[2, 32](out, src, cuda.to_device(idx_host))
    safekern.sync()
    ok = np.array_equal(out.copy_to_host(), np.arange(n, dtype=np.float32)[idx_host])
    print(f"   result matches NumPy: {ok}\n")

    img = cuda.to_device(np.random.default_rng(1).random((32, 48), dtype=np.float32))
    res = cuda.device_array((32, 48), np.float32)
    print("3) a blur kernel that reads past the image's edge")
    blur[(4, 6), (8, 8)](res, img)
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        print("   " + str(err).replace("\n", "\n   ") + "\n")
    print("4) the fixed kernel")
    blur_fixed[(4, 6), (8, 8)](res, img)
    safekern.sync()
    print("   no failure: safekern.sync() returned None")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
