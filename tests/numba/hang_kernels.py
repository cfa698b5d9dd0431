"""Kernels whose failing thread would spin for ever if it did not leave its loops.

`python -m tests.numba.hang_kernels CASE` launches one case, expects the BoundsError at the next sync
point and prints `raised LINE`; test_hang_free.py runs each case in a child process with a
timeout, so a regression fails instead of hanging. `# site: NAME` marks the expected line.
"""
import sys

import numpy as np
from numba import cuda, float64

import safekern
from tests.numba.numba_kernels import site_line

NEWLINE = 10


@safekern.jit
def sentinel_if_break(text, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        j = i
        while True:
            if text[j] == NEWLINE:  # site: sentinel_if_break
                break
            j += 1
        out[i] = j


@safekern.jit
def sentinel_in_header(text, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        j = i
        while text[j] != NEWLINE:  # site: sentinel_in_header
            j += 1
        out[i] = j


@safekern.jit(device=True)
def scan_to_newline(text, j):
    while True:
        c = text[j]  # site: scan_to_newline
        if c == NEWLINE:
            return j
        j += 1


@safekern.jit
def calls_scan(text, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = scan_to_newline(text, i)


@safekern.jit(device=True)
def tree_sum(buf, vals, t):
    buf[t] = vals[t + 1]  # site: tree_sum
    cuda.syncthreads()
    s = 16
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    return buf[0]


@safekern.jit
def calls_tree_sum(vals, out):
    buf = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    total = tree_sum(buf, vals, t)
    if t == 0:
        out[0] = total


@safekern.jit(device=True)
def rounds_of_tree_sums(buf, vals, t, rounds):
    r = 0
    acc = 0.0
    while r < rounds:
        buf[t] = vals[t + r]  # site: rounds_of_tree_sums
        for s in (16, 8, 4, 2, 1):
            cuda.syncthreads()
            if t < s:
                buf[t] += buf[t + s]
        cuda.syncthreads()
        acc += buf[0]
        r += 1
    return acc


@safekern.jit
def calls_rounds(vals, out, rounds):
    buf = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    total = rounds_of_tree_sums(buf, vals, t, rounds)
    if t == 0:
        out[0] = total


@safekern.jit
def block_scan(a, out):
    sh = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    sh[t] = a[t + 1]  # site: block_scan
    cuda.syncthreads()
    s = 1
    while s < 32:
        v = 0.0
        if t >= s:
            v = sh[t - s]
        cuda.syncthreads()
        sh[t] += v
        cuda.syncthreads()
        s *= 2
    out[t] = sh[t]


@safekern.jit
def csr_row_sums(ptr, vals, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k in range(ptr[i], ptr[i + 1]):  # site: csr_row_sums
            acc += vals[k]
        out[i] = acc


@safekern.jit
def sentinel_with_barrier(text, out):
    sh = cuda.shared.array(32, float64)
    i = cuda.threadIdx.x
    sh[i] = 0
    cuda.syncthreads()
    j = i
    while True:
        if text[j] == NEWLINE:  # site: sentinel_with_barrier
            break
        j += 1
    sh[i] = j
    cuda.syncthreads()
    out[i] = sh[i]


def _text(n=40):
    return cuda.to_device(np.ones(n, dtype=np.uint8))      # no newline anywhere


def _launch(case):
    out = cuda.device_array(32)
    if case == "sentinel_if_break":
        sentinel_if_break[1, 32](_text(), out)
    elif case == "sentinel_in_header":
        sentinel_in_header[1, 32](_text(), out)
    elif case == "scan_to_newline":
        calls_scan[1, 32](_text(), out)
    elif case == "tree_sum":
        calls_tree_sum[1, 32](cuda.to_device(np.ones(32)), out)
    elif case == "rounds_of_tree_sums":
        calls_rounds[1, 32](cuda.to_device(np.ones(34)), out, 4)
    elif case == "block_scan":
        block_scan[1, 32](cuda.to_device(np.ones(32)), out)
    elif case == "csr_row_sums":
        ptr = np.arange(0, 33, dtype=np.int64)[:32]        # the last row's end is past ptr
        csr_row_sums[1, 32](cuda.to_device(ptr), cuda.to_device(np.ones(32)), out)
    elif case == "sentinel_with_barrier":
        sentinel_with_barrier[1, 32](_text(), out)
    else:
        raise SystemExit(f"unknown case {case!r}")
    return out


CASES = ("sentinel_if_break", "sentinel_in_header", "scan_to_newline", "tree_sum",
         "rounds_of_tree_sums", "block_scan", "csr_row_sums", "sentinel_with_barrier")


def main(case: str) -> None:
    out = _launch(case)
    try:
        out.copy_to_host()
    except safekern.BoundsError as err:
        assert err.lineno == site_line(__file__, case), str(err)
        print(f"raised {err.lineno}", flush=True)
        return
    raise SystemExit(f"{case}: no BoundsError at copy_to_host()")


if __name__ == "__main__":
    main(sys.argv[1])
