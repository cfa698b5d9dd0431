"""Run on a GPU, twice with one SAFEKERN_CACHE file: the second run must compile nothing.

    python -m tests.numba.numba_warm_probe

Counts what numba builds (dispatchers, `_Kernel` compilations) while the kernels of
tests/numba/numba_kernels.py are decorated and launched, checks results and one out-of-bounds report,
and prints a JSON summary (tests/numba/test_numba_binary_gpu.py asserts on it).
"""
import json
import sys
import time

T0 = time.perf_counter()

import numba.cuda.dispatcher as dispatcher  # noqa: E402

COUNTS = {"dispatchers": 0, "kernel_compiles": 0}


def _counting(cls, key):
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        COUNTS[key] += 1
        return original(self, *args, **kwargs)

    cls.__init__ = __init__


_counting(dispatcher.CUDADispatcher, "dispatchers")
_counting(dispatcher._Kernel, "kernel_compiles")

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

import safekern  # noqa: E402
from safekern.backends.numba import launch as numba_binary  # noqa: E402
from tests.numba import numba_kernels as K  # noqa: E402


def main():
    out = {"import_s": time.perf_counter() - T0}
    t = time.perf_counter()
    src = np.arange(256, dtype=np.float32) * 3
    idx = (np.arange(64, dtype=np.int64) * 7) % 256
    d_out = cuda.to_device(np.zeros(64, np.float32))
    K.gather[2, 32](d_out, cuda.to_device(src), cuda.to_device(idx))
    safekern.sync()
    out["gather_ok"] = bool(np.array_equal(d_out.copy_to_host(), src[idx]))
    # An out-of-bounds index: the report must name the right place and values.
    bad = idx.copy()
    bad[45] = 1_000_000
    K.gather[2, 32](d_out, cuda.to_device(src), cuda.to_device(bad))
    try:
        safekern.sync()
        out["error"] = None
    except safekern.BoundsError as err:
        out["error"] = {"array": err.array, "axis": err.axis, "index": err.index,
                        "size": err.size, "kernel": err.kernel, "lineno": err.lineno,
                        "filename": err.filename, "thread": list(err.thread),
                        "block": list(err.block)}
    out["expected_line"] = K.expected_line("gather")
    out["file"] = K.__file__
    # A kernel calling checked device functions, one with shared memory and barriers, and the
    # signature-eager one.
    a = np.arange(32, dtype=np.float32)
    d = cuda.to_device(np.zeros(32, np.float32))
    K.calls_device[1, 32](d, cuda.to_device(a), 0)
    safekern.sync()
    out["calls_device_ok"] = bool(np.array_equal(d.copy_to_host(), a * 2))
    r = cuda.to_device(np.zeros(1, np.float32))
    K.tree_reduce[1, 64](r, cuda.to_device(np.ones(64, np.float32)), 0)
    safekern.sync()
    out["tree_reduce"] = float(r.copy_to_host()[0])
    w = cuda.to_device(np.zeros(4, np.float32))
    K.with_signature[1, 4](w, cuda.to_device(np.arange(4, dtype=np.float32)), 0)
    safekern.sync()
    out["with_signature"] = w.copy_to_host().tolist()
    out["first_results_s"] = time.perf_counter() - t
    out["counts"] = dict(COUNTS)
    out["stats"] = dict(numba_binary.STATS)
    out["built"] = sorted(name for name in ("gather", "calls_device", "tree_reduce",
                                            "with_signature")
                          if getattr(K, name).build.numba is not None)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
