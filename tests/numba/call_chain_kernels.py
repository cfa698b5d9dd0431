"""Kernels whose failures happen inside device functions, for the call-chain tests
(test_call_chains.py; ptx: call_chain_probe.py). `line(marker)` is the line that ends with
`# <marker>`."""
from numba import cuda

import safekern


@safekern.jit(device=True)
def get(a, i):
    return a[i]                                   # get


@safekern.jit(device=True)
def get_next(a, i):
    return get(a, i + 1)                          # get_next calls get


@safekern.jit(device=True)
def get_next_next(a, i):
    return get_next(a, i + 1)                     # get_next_next calls get_next


@safekern.jit(device=True)
def get_far(a, i):
    return get_next_next(a, i)                    # get_far calls get_next_next


@safekern.jit(device=True)
def total(a, n):
    s = 0.0
    for j in range(n):
        s += a[j]                                 # total
    return s


@safekern.jit(device=True, inline=True)
def get_inlined(a, i):
    return a[i]                                   # get_inlined


@safekern.jit("float64(float64[::1], int64)", device=True)
def get_typed(a, i):
    return a[i]                                   # get_typed


@safekern.jit(device=True)
def twice(x):
    return 2 * x                                  # no check at all


@safekern.jit(device=True)
def ratio(a, i, d):
    return a[0] // d                              # ratio


@safekern.jit(device=True)
def checked_slot(i, n):
    assert i < n, "slot out of range"             # checked_slot
    return i


@safekern.jit
def asserts(a, out, n):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[checked_slot(i, n)]            # asserts calls checked_slot


@safekern.jit
def one_level(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = get(a, i + 1)                    # one_level calls get


@safekern.jit
def two_levels(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice(get_next(a, i))            # two_levels calls get_next


@safekern.jit
def four_levels(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = get_far(a, i)                    # four_levels calls get_far


@safekern.jit
def two_calls(a, out, left, right):
    i = cuda.grid(1)
    if i < out.size:
        x = get(a, i - left)                      # two_calls first
        y = get(a, i + right)                     # two_calls second
        out[i] = x + y


@safekern.jit
def other_kernel(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = get(a, 2 * i)                    # other_kernel calls get


@safekern.jit
def sums(a, out, n):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = total(a, n + i)                  # sums calls total


@safekern.jit
def inlined(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = get_inlined(a, i + 1)            # inlined calls get_inlined


@safekern.jit
def divides(a, out, d):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = ratio(a, i, d)                   # divides calls ratio


@safekern.jit
def typed_call(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = get_typed(a, i + 1)              # typed_call calls get_typed


@safekern.jit
def plain_calls(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice(a[i + 1])                  # plain_calls reads


def line(marker: str) -> int:
    """The line of this file that ends with `# <marker>`."""
    with open(__file__) as f:
        for k, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return k
    raise KeyError(marker)


#: (kernel, numba signature) compiled to PTX by call_chain_probe.py
PTX_CASES = {
    "one_level": "void(float64[::1], float64[::1])",
    "two_levels": "void(float64[::1], float64[::1])",
    "two_calls": "void(float64[::1], float64[::1], int64, int64)",
    "sums": "void(float64[::1], float64[::1], int64)",
    "inlined": "void(float64[::1], float64[::1])",
    "divides": "void(int64[::1], int64[::1], int64)",
    "plain_calls": "void(float64[::1], float64[::1])",
    "asserts": "void(float64[::1], float64[::1], int64)",
    "typed_call": "void(float64[::1], float64[::1])",
}

__all__ = ["line", "PTX_CASES"]
