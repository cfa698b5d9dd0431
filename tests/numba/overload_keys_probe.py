"""Run without the simulator (no GPU needed) by tests/numba/test_overload_keys.py: cache keys of
kernels whose calls numba types from what is registered for a plain function (@overload), or
from explicit signatures. Prints {name: value} as JSON: "ok" or what went wrong for each check,
and the key digests that must agree across processes.

numba's test_extending.test_typing_vs_impl_signature_mismatch_handling_var_keyword defines a
fresh `myoverload` per kernel and registers the same implementation for it, strict and not:
kernels of the same source and line whose keys must differ -- its functions' module is under
the `numba` package, whose own functions' registrations the key leaves to numba's version."""
import hashlib
import json
import sys
import traceback

from numba.cuda import types
from numba.cuda.extending import overload

import safekern
from safekern.backends.numba import keys
from safekern.cache.kernels import kernel_key

DEVICE = {"device_name": "NVIDIA H200", "compute_capability": "9.0", "driver": "13.0"}
ARGS = (types.int64, types.int64, types.int64)


def digest(kernel, argtypes=ARGS):
    return hashlib.sha256(kernel_key(keys.key_fields(kernel, argtypes, DEVICE))).hexdigest()


def ol_kwargs(a, **kws):
    def impl(a, kw=10):
        return a
    return impl


def ol_plain(a, kw=None):
    def impl(a, kw=None):
        return a
    return impl


def gen_ol(impl, strict=True, module=None):
    """numba's test_extending.gen_ol: a fresh function, an overload for it, a kernel."""
    def myoverload(a, kw=None):
        pass

    if module is not None:
        myoverload.__module__ = module
    overload(myoverload, strict=strict)(impl)

    @safekern.jit
    def foo(a, b):
        myoverload(a, kw=11)

    return foo


# A module-level function with its overload registered at import: the same key in every
# process (a warm start finds the stored binary).
def module_level(a):
    pass


overload(module_level)(ol_plain)


@safekern.jit
def calls_module_level(a, b):
    module_level(a)


CHECKS = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


@check
def strictness_in_a_numba_test_module():
    module = "numba.cuda.tests.cudapy.test_extending"
    loose, strict = gen_ol(ol_kwargs, False, module), gen_ol(ol_kwargs, True, module)
    assert digest(loose) != digest(strict)
    assert digest(gen_ol(ol_kwargs, True, module)) == digest(strict)   # same registrations
    assert digest(gen_ol(ol_plain, True, module)) != digest(strict)    # another impl


@check
def strictness_in_a_user_module():
    assert digest(gen_ol(ol_kwargs, False)) != digest(gen_ol(ol_kwargs, True))


@check
def strictness_of_numbas_own_overload_decorator():
    # numba-cuda takes registrations from numba's typing registry too (target cuda/generic).
    from numba.extending import overload as numba_overload

    def make(strict):
        def myoverload(a, kw=None):
            pass

        numba_overload(myoverload, target="generic", strict=strict)(ol_kwargs)

        @safekern.jit
        def foo(a, b):
            myoverload(a, kw=11)
        return foo
    assert digest(make(False)) != digest(make(True))


@check
def defaults_of_a_plain_numba_device_function():
    import warnings

    from numba import cuda

    def make(scale):
        def g(x, k=scale):
            return x * k
        dev = cuda.jit(device=True)(g)

        @safekern.jit
        def f(r, x):
            r[0] = dev(x)
        return f
    arr = (types.float64[::1], types.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (a plain device function: unchecked, it warns)
        assert digest(make(2.0), arr) != digest(make(3.0), arr)


@check
def closures_over_different_values():
    def make(scale):
        def g(x):
            return x * scale

        @safekern.jit(device=True)
        def dev(x):
            return g(x)

        @safekern.jit
        def k(out, x):
            out[0] = dev(x)
        return k
    arr = (types.float64[::1], types.float64)
    assert digest(make(2.0), arr) != digest(make(3.0), arr)
    assert digest(make(2.0), arr) == digest(make(2.0), arr)


@check
def explicit_signatures_of_a_device_function():
    def add(x, y):
        return x + y

    def make(sigs):
        dev = safekern.jit(sigs, device=True)(add)

        @safekern.jit
        def f(r, x, y):
            r[0] = dev(x, y)
        return f
    arr = (types.float64[::1], types.float64, types.float64)
    one = make(["(int64, int64)"])
    two = make(["(int64, int64)", "(float64, float64)"])
    assert digest(one, arr) != digest(two, arr)


@check
def explicit_signatures_of_a_plain_numba_device_function():
    import warnings

    from numba import cuda

    from safekern.backends.numba.build import assume_device

    def add(x, y):
        return x + y

    def make(sigs):
        with assume_device((9, 0)):         # numba compiles explicit signatures at once
            dev = cuda.jit(sigs, device=True)(add)

        @safekern.jit
        def f(r, x, y):
            r[0] = dev(x, y)
        return f
    arr = (types.float64[::1], types.float64, types.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (a plain device function: unchecked, it warns)
        assert digest(make(["(int64, int64)"]), arr) != \
            digest(make(["(int64, int64)", "(float64, float64)"]), arr)


@check
def numbas_own_functions_stay_cacheable():
    from numba.cuda import libdevice

    @safekern.jit
    def k(out, x):
        out[0] = libdevice.sin(x) + math_sin(x)
    digest(k, (types.float64[::1], types.float64))


def math_sin(x):
    pass


overload(math_sin)(lambda x: (lambda x: x))


def main():
    out = {"module_level": digest(calls_module_level)}
    for name, fn in CHECKS.items():
        try:
            fn()
            out[name] = "ok"
        except Exception:                       # noqa: BLE001 - reported to the test
            out[name] = traceback.format_exc()[-2000:]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
