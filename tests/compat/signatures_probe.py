"""Run without the simulator and without a GPU (tests/compat/test_device_signatures.py): a kernel
calling a device function declared with several explicit signatures, compiled for types none of
them takes, raises numba's TypingError in the user's terms, and the kernel's `overloads` then
hold only what compiled (numba-cuda's test_dispatcher.test_explicit_signatures_device).

numba compiles explicit signatures eagerly for the current device and loads each kernel it
compiles: both are stood in for here (compute capability 9.0, nothing loaded). Prints
{check: "ok" or what went wrong} as JSON."""
import json
import traceback

import numba.cuda.cudadrv.devices as _devices
import numba.cuda.dispatcher as _dispatcher
from numba.cuda import types
from numba.cuda.core.errors import TypingError

import safekern


class _Device:
    compute_capability = (9, 0)


class _Context:
    device = _Device()


_dispatcher.get_current_device = lambda: _Device()
_devices.get_context = lambda *args: _Context()
_dispatcher._Kernel.bind = lambda self: None          # (loading the cubin needs a GPU)


def add(x, y):
    return x + y


I64 = (types.int64[::1], types.int64, types.int64)
F64 = (types.float64[::1], types.float64, types.float64)
C128 = (types.complex128[::1], types.complex128, types.complex128)


def _kernel():
    add_device = safekern.jit(["(int64, int64)", "(float64, float64)"], device=True)(add)

    @safekern.jit
    def f(r, x, y):
        r[0] = add_device(x, y)

    return f


def explicit_signatures_device_typing_error():
    f = _kernel()
    f.compile(I64)
    f.compile(F64)
    try:
        f.compile(C128)
    except TypingError as err:
        msg = str(err)
    else:
        raise AssertionError("no TypingError")
    assert "Invalid use of type" in msg, msg
    assert "with parameters (complex128, complex128)\n" in msg, msg
    assert " * (int64, int64) -> int64" in msg and "int32" not in msg, msg
    assert len(f.overloads) == 2, f.overloads


class _Launched:
    """What a kernel's short launch path remembers: every argument type tuple launched, the
    one numba failed to compile (its launch raised numba's TypingError) included."""

    def compiled_types(self):
        return [sig + (types.int64,) for sig in (I64, F64, C128)]


def overloads_skip_launches_that_failed_to_compile():
    f = _kernel()
    f.__dict__["_binary"] = _Launched()
    assert sorted(map(str, f.overloads)) == sorted(map(str, (I64, F64))), f.overloads
    assert len(f.overloads) == 2 and len(f.signatures) == 2    # (asked again: no new compile)


def main():
    out = {}
    for check in (explicit_signatures_device_typing_error,
                  overloads_skip_launches_that_failed_to_compile):
        try:
            check()
            out[check.__name__] = "ok"
        except Exception:                      # noqa: BLE001 - reported to the test
            out[check.__name__] = traceback.format_exc()[-2000:]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
