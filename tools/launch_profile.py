"""Where the host time of a checked launch goes: cProfile of many launches of an empty kernel.

    python tools/launch_profile.py [launches]     # on a GPU machine
"""
import cProfile
import pstats
import sys
import time

import numpy as np
from numba import cuda

import safekern


@safekern.jit
def empty():
    pass


@safekern.jit
def empty_array(a):
    pass


@cuda.jit
def plain_empty():
    pass


def main(n: int = 20000) -> None:
    arr = cuda.to_device(np.zeros(4, np.float32))
    for name, launch in (("plain", lambda: plain_empty[1, 32]()),
                         ("checked", lambda: empty[1, 32]()),
                         ("checked_array", lambda: empty_array[1, 32](arr))):
        for _ in range(200):
            launch()
        cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            launch()
        per = (time.perf_counter() - start) / n * 1e6
        cuda.synchronize()
        print(f"{name}: {per:.2f} us per launch")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        empty[1, 32]()
    prof.disable()
    cuda.synchronize()
    safekern.sync()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
