"""Kernels decorated with numba's cache=True (tests/numba/test_caching_semantics.py and its
probe): a check-free one, one with a checked access, and closures differing only in a value."""
import safekern

Z = 1


@safekern.jit(cache=True)
def add_z(r, x):
    r[0] = x[0] + Z


@safekern.jit(cache=True)
def gather(r, x, i):
    r[0] = x[i]


def make_closure(value):
    @safekern.jit(cache=True)
    def closure(r, x, i):
        r[0] = x[i] + value
    return closure


closure3 = make_closure(3)
closure5 = make_closure(5)
