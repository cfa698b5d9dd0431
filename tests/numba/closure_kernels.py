"""Kernels with nested functions and lambdas (tests/numba/test_closures.py): closures numba
inlines are checked, closures used as values are left to numba and reported unchecked."""
from numba import cuda, float32

import safekern


@safekern.jit
def closure_load(out, a, shift):
    i = cuda.grid(1)

    def get(j):
        return a[j]  # site: closure_load

    if i < out.shape[0]:
        out[i] = get(i + shift) * 2.0


@safekern.jit
def closure_store(out, a, shift):
    i = cuda.grid(1)

    def put(j, v):
        out[j] = v  # site: closure_store

    if i < a.shape[0]:
        put(i + shift, a[i])
        a[i] = -1.0      # not reached by a thread whose put failed


@safekern.jit
def lambdas(out, a, shift):
    i = cuda.grid(1)
    twice = lambda j: a[j] * 2.0  # site: lambdas
    if i < out.shape[0]:
        out[i] = twice(i) + (lambda j: a[j])(i + shift)  # site: lambdas_inline


@safekern.jit
def nested_closures(out, a, shift):
    i = cuda.grid(1)

    def outer(j):
        def inner(m):
            return a[m]  # site: nested_closures
        return inner(j) + inner(j + shift)

    if i < out.shape[0]:
        out[i] = outer(i)


@safekern.jit
def closure_while(out, a, start):
    # A while loop in a closure: a failing load leaves it (else a stand-in 0 would loop on).
    i = cuda.grid(1)

    def walk(j):
        n = 0
        while a[j] != 0.0:  # site: closure_while
            j += 1
            n += 1
        return n

    if i < out.shape[0]:
        out[i] = walk(start)


@safekern.jit
def closure_then_barrier(out, a, shift):
    # The failing thread skips to the barrier; the whole block leaves there (no hang, and
    # nobody writes after it).
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x

    def get(j):
        return a[j]  # site: closure_then_barrier

    s[t] = get(t + shift)
    out[t] = 1.0
    cuda.syncthreads()
    out[t] = s[31 - t]


@safekern.jit(device=True)
def closure_in_device(a, j):
    get = lambda m: a[m]  # site: closure_in_device
    return get(j) + 1.0


@safekern.jit
def calls_closure_device(out, a, shift):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = closure_in_device(a, i + shift)


@safekern.jit(device=True)
def dev_get(a, j):
    return a[j]  # site: dev_get


@safekern.jit
def closure_calls_device(out, a, shift):
    # A checked device function called in a closure gets the enclosing function's buffer and
    # flag (closure variables) as its hidden arguments.
    i = cuda.grid(1)

    def get(j):
        return dev_get(a, j) + 1.0

    if i < out.shape[0]:
        out[i] = get(i + shift)


@safekern.jit(device=True)
def apply_device(func, arr, x):
    return func(arr, x)


@safekern.jit
def escaping(out, a):
    # `get` is passed as a value: numba compiles it on its own (with constant free variables
    # only), where the failure buffer is out of reach; its access is left to numba and
    # reported unchecked.
    i = cuda.grid(1)

    def get(arr, j):
        return arr[j]  # site: escaping

    if i < out.shape[0]:
        out[i] = apply_device(get, a, i)


def expected_line(name: str) -> int:
    """The line of this file that ends in `# site: NAME`."""
    with open(__file__) as f:
        for number, line in enumerate(f, start=1):
            if line.rstrip().endswith(f"# site: {name}"):
                return number
    raise KeyError(name)
