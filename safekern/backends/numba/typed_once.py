"""numba-cuda's `@intrinsic` for safekern's check helpers, typed once per signature.

numba's intrinsic template refreshes the target's registries (for the lowering it registers on
a first typing: a third of a millisecond) at every call it types, and type inference types a
call again at each of its passes: with a check per access, a tenth of a checked kernel's
compile. Here a call typed before is answered from the template's own cache; the lowering a
first typing registered is found by the lowering's own refresh (numba's get_function refreshes
where it finds nothing).
"""
from __future__ import annotations

from numba.cuda import types
from numba.cuda.extending import _Intrinsic


class _TypedOnce:
    """An intrinsic's typing template that answers a call it typed before from its cache (the
    module doc)."""

    def generic(self, args, kws):
        try:
            return self._impl_cache[self.context, args, tuple(kws.items())]
        except KeyError:
            return super().generic(args, kws)


class _CheckIntrinsic(_Intrinsic):
    def _register(self):
        from numba.cuda.typing.templates import (infer, infer_global,
                                                 make_intrinsic_template)

        template = make_intrinsic_template(self, self._defn, self._name,
                                           prefer_literal=self._prefer_literal,
                                           kwargs=self._ctor_kwargs)
        template = type(template)(template.__name__, (_TypedOnce, template), {})
        infer(template)
        infer_global(self, types.Function(template))


def intrinsic(defn):
    """numba-cuda's @intrinsic, typed once per signature (_TypedOnce)."""
    made = _CheckIntrinsic(getattr(defn, "__name__", str(defn)), defn)
    made._register()
    return made


__all__ = ["intrinsic"]
