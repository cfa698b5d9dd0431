"""numba's own checks of `cuda.jit`'s options, where numba makes them.

safekern builds numba's dispatcher lazily (on the first launch, or from the kernel cache without
any dispatcher), so numba's decoration-time checks would come late or never: they are made
here when `safekern.jit(...)` is called, by numba's own `jit` (its errors and warnings, word
for word: an invalid `shared_memory_carveout`, `debug=True` with `opt=True`, `debug` with
`lineinfo`, `link` on a device function, ...). safekern's own later `cuda.jit` calls then keep
those warnings quiet, so each decoration warns once, as numba's does.

(A launch configuration's checks and its low-occupancy warning: launching.py.) What numba's
compile warns about is stored with a cached binary and said again when it is loaded.
"""
from __future__ import annotations

import contextlib
import warnings


from .surface import SIMULATOR


def supported_options(options: dict) -> dict:
    """The simulator's jit takes fewer options than numba's; it ignores code generation ones."""
    if not SIMULATOR:
        return dict(options)
    import inspect

    from numba import cuda

    accepted = inspect.signature(cuda.jit).parameters
    return {k: v for k, v in options.items() if k in accepted}


def check_options(device: bool, options: dict) -> None:
    """numba's decoration-time validation and warnings for these options (its jit without a
    function does exactly that and returns a decorator, discarded here)."""
    if SIMULATOR:
        return           # the simulator's jit takes fewer options and checks none of these
    from numba.cuda.decorators import jit as numba_jit

    numba_jit(device=device, **options)


@contextlib.contextmanager
def quiet_config_warnings():
    """safekern's own `cuda.jit` of a function already decorated (and warned about) once."""
    from numba.cuda.core.errors import NumbaInvalidConfigWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaInvalidConfigWarning)
        yield


@contextlib.contextmanager
def compile_warnings(said: list):
    """numba's warnings while it compiles (an uninitialised variable, ...): shown as ever,
    and numba's own noted in `said` as [category, message, file, line], so a launch loading
    the stored binary in another process shows them as numba's compile there would."""
    from numba.cuda.core.errors import NumbaWarning

    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield said
    finally:
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                   source=w.source)
            if issubclass(w.category, NumbaWarning):
                # numba's text before its highlighting (ANSI colours where numba's colour
                # scheme is on): the replay's NumbaWarning(text) highlights it once again.
                text = getattr(w.message, "msg", None)
                said.append([w.category.__name__, str(text if isinstance(text, str) else
                                                      w.message),
                             str(w.filename), int(w.lineno)])


def replay_warnings(said) -> None:
    """The numba warnings a stored binary's compile gave (only numba's warning classes)."""
    if not said:
        return
    from numba.cuda.core import errors

    for item in said:
        try:
            name, message, filename, lineno = item
            category = getattr(errors, str(name), None)
            if isinstance(category, type) and issubclass(category, errors.NumbaWarning):
                warnings.warn_explicit(category(str(message)), category, str(filename),
                                       int(lineno))
        except (TypeError, ValueError):
            continue                  # a malformed entry: nothing to say


__all__ = ["supported_options", "check_options", "quiet_config_warnings", "compile_warnings",
           "replay_warnings"]
