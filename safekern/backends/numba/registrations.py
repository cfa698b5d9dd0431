"""What numba types a plain function's calls from, for the kernel cache key (keys.py): the
@overload registrations for it, and explicit signatures.

numba compiles a call of a plain Python function from what is registered for that very
function object (`@overload`, `register_jitable`), not from its code. Two kernels of the same
source and line may call functions of the same name and code registered differently -- numba's
test_extending defines a fresh local `myoverload` per kernel and registers one implementation
for it strict and one not -- so the registrations are part of the key, whatever the function's
module. Only numba's own registrations for module-level functions of numpy, math, cmath and
numba itself are left out: the toolchain's versions in the key fix them (numba's test modules
are user code, as numba-cuda's own typing context counts them).
"""
from __future__ import annotations

import types as pytypes

from .payload import Uncacheable

#: Packages whose module-level functions numba types itself; their tests are user code.
_LIBRARY_PACKAGES = ("numpy", "math", "cmath", "numba")


def library_function(fn) -> bool:
    """A module-level function of numpy, math, cmath or numba itself (not of its tests)."""
    module = fn.__module__ or ""
    return (module.partition(".")[0] in _LIBRARY_PACKAGES and ".tests." not in module + "."
            and "<locals>" not in fn.__qualname__)


def _registries() -> list:
    """numba-cuda's typing registry, and numba's (whose registrations for functions outside
    numba itself numba-cuda takes too: `numba.extending.overload(f, target="cuda")`)."""
    from numba.cuda.typing.templates import builtin_registry

    found = [builtin_registry]
    try:
        from numba.core.typing.templates import builtin_registry as numbas
    except ImportError:
        return found
    return found + ([numbas] if numbas is not builtin_registry else [])


def overload_registrations(fn) -> list:
    """[(implementation, strict, jit options)] of every @overload registered for `fn` that
    the key must name; Uncacheable for another kind of typing template of a user's function."""
    library = library_function(fn)
    found = []
    for value, ty in [entry for registry in _registries() for entry in list(registry.globals)]:
        if value is not fn:
            continue
        for template in getattr(ty, "templates", ()):
            impl = getattr(template, "_overload_func", None)
            if not isinstance(impl, pytypes.FunctionType):
                if library:
                    continue                  # numba's own typing of its own function
                raise Uncacheable(f"a typing template of {fn.__qualname__!r} that is not an "
                                  "@overload")
            if library and library_function(impl):
                continue                      # numba's own @overload of its own function
            found.append((impl, bool(getattr(template, "_strict", True)),
                          dict(getattr(template, "_jit_options", {}) or {})))
    return found


def signatures(sigs) -> tuple | None:
    """Explicit signatures (Build.sigs) as key material: a device function's decide how calls
    of it type, and which types compile at all."""
    if sigs is None:
        return None
    from numba.cuda.core.sigutils import normalize_signature

    out = []
    for sig in sigs:
        try:
            args, ret = normalize_signature(sig)
        except Exception as err:          # noqa: BLE001 - numba's own error comes at the build
            raise Uncacheable(f"a signature numba does not read: {err}") from None
        out.append((tuple(str(a) for a in args), None if ret is None else str(ret)))
    return tuple(out)


__all__ = ["library_function", "overload_registrations", "signatures"]
