"""`safekern.jit`: numba-cuda's `cuda.jit` with every indexed access checked.

It accepts every form `numba.cuda.jit` does and returns a `CheckedKernel` (kernel.py) or a
`CheckedDeviceFunction` (device_function.py); a function whose source cannot be found becomes
numba's own, unchecked, with an UncheckedWarning (unchecked.py). With SAFEKERN_CHECKS=0 it *is*
numba.cuda.jit.

The numba backend, in the order a kernel meets it: jit -> kernel (the checked function) ->
build (rewrite: frontend/python, resolver; compiled by numba with intrinsics or sim; the rewrite
kept by stored) -> launching + dispatch (what a launch runs) -> launch (the short path: keys,
payload, marshal) or numba's own launch -> device (the failure buffer per CUDA context) ->
runtime.sync().
"""
from __future__ import annotations

from numba import cuda
from numba.cuda.core import sigutils

from ... import config
from ...errors import user_error
from ...report import CheckReport
from ...frontend import python as pyfront
from . import library_functions, options as numba_options, sync as numba_sync
from .device_function import CheckedDeviceFunction
from .kernel import CheckedKernel
from .unchecked import UncheckedFunction, unchecked


def _is_numba_dispatcher(fn) -> bool:
    from numba.cuda.dispatcher import CUDADispatcher

    return isinstance(fn, CUDADispatcher) and callable(getattr(fn, "py_func", None))


def _check_signatures(sigs) -> None:
    """numba's own error for a signature it cannot read (a SyntaxError, a TypeError), raised
    where numba raises it -- when the function is decorated -- on the simulator too (whose
    cuda.jit never reads them)."""
    from numba.cuda.core.sigutils import normalize_signature

    for sig in sigs:
        try:
            normalize_signature(sig)
        except Exception as err:       # noqa: BLE001 - whatever numba raises, as numba does
            raise user_error(err) from None


def jit(func_or_sig=None, device=False, **options):
    """`numba.cuda.jit` with every indexed access checked (see module doc)."""
    if not config.get().checks:
        return _checks_off(cuda.jit(func_or_sig, device=device, **options))
    # numba-cuda's own test: its Signature and numba's (numba.void(...)) are both signatures.
    if func_or_sig is not None and not callable(func_or_sig) and \
            not isinstance(func_or_sig, list) and not sigutils.is_signature(func_or_sig):
        # Not a signature, so numba takes it for the function (inspect.signature's words).
        raise user_error(TypeError(f"{func_or_sig!r} is not a callable object"))
    if options.get("boundscheck"):
        options.pop("boundscheck")     # safekern's checks replace numba's CPU-only ones
    # numba's errors and warnings for the options, where numba gives them: at this call.
    numba_options.check_options(device, options)
    cls = CheckedDeviceFunction if device else CheckedKernel
    numba_sync.install()

    def decorate(fn, sigs=None, specialized=False):
        # A function jitted already is compiled anew from its Python function, as numba does.
        if isinstance(fn, (CheckedKernel, CheckedDeviceFunction, UncheckedFunction)) or \
                _is_numba_dispatcher(fn):
            fn = fn.py_func
        if sigs:
            _check_signatures(sigs)
        try:
            return cls(fn, sigs, options, specialized=specialized)
        except pyfront.SourceNotFound as err:
            # Nothing to rewrite (built by exec, typed at a prompt): numba's own, unchecked.
            return unchecked(fn, sigs, options, device, err.reason, specialized,
                             rebuild_as=cls)

    if func_or_sig is None:
        return decorate
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple)):
        return decorate(func_or_sig)
    # One signature (not in a list) specialises the kernel, as numba's does.
    specialized = not isinstance(func_or_sig, list)
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return lambda fn: decorate(fn, sigs, specialized)


def _checks_off(made):
    """numba's own dispatcher (SAFEKERN_CHECKS=0), with the `check_report()` a checked one has,
    saying that nothing is checked (code that logs reports keeps working with the off switch);
    `made` may be numba's decorator (signatures given first)."""
    if not hasattr(made, "py_func"):
        return (lambda fn: _checks_off(made(fn))) if callable(made) else made
    filename = getattr(getattr(made.py_func, "__code__", None), "co_filename", "")
    try:
        made.check_report = lambda: CheckReport((), filename=filename, checks=False)
    except AttributeError:       # (a dispatcher that takes no attribute: numba's as it is)
        pass
    return made


def _checked_library_function(fn, options=None):
    """numba's jit function `fn` (numba.cuda.random's, a user's `numba.njit` one) as a
    checked device function."""
    return CheckedDeviceFunction(fn, None, dict(options or {}))


library_functions.make = _checked_library_function

__all__ = ["jit", "CheckedKernel", "CheckedDeviceFunction"]
