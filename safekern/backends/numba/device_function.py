"""Checked numba device functions: `safekern.jit(device=True)` (jit.py), and a kernel called
from another kernel (kernel.py's `device_function()`). Called on the host, one does what numba's
does; numba's own code that refers to it (vectorize, declare_device) gets numba's own build of
the user's function (plain.py)."""
from __future__ import annotations

import copy
import dataclasses

from numba import cuda

from .build import supported_options
from .function import CheckedFunction
from .dispatch import check_free
from .plain import PlainUnavailable, plain_function
from .surface import SIMULATOR
from .unchecked import plain_build


def _bind_parameters(parsed, params):
    """A copy of `parsed` without the parameters `params` names, which its closure binds."""
    names = {name for name, _ in params}
    tree = copy.deepcopy(parsed.tree)
    args = tree.args
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    kept = [(a, d) for a, d in zip(args.args, defaults) if a.arg not in names]
    args.args = [a for a, _ in kept]
    args.defaults = [d for _, d in kept if d is not None]
    closure = dict(parsed.closure)
    closure.update(params)
    return dataclasses.replace(parsed, tree=tree, closure=closure)


class CheckedDeviceFunction(CheckedFunction):
    device = True
    bound_from = None      # the function this one specialises for function arguments (bound)
    specialised_from = None   # the function this one specialises for its arguments (specialise.py)

    def bound(self, params: tuple) -> "CheckedDeviceFunction":
        """This function with parameters bound to functions ((name, function), ...): the
        parameters are gone, the names mean the functions (see resolver.py)."""
        key = tuple((name, id(value)) for name, value in params)
        with self.build.lock:
            cache = self.__dict__.setdefault("_bound", {})
            hit = cache.get(key)
            if hit is None:
                parsed = _bind_parameters(self.parsed, params)
                bound = CheckedDeviceFunction(self.py_func, None, self.options, parsed=parsed)
                bound.bound_from = self
                hit = (bound, params)   # the functions are held: their ids stay theirs
                cache[key] = hit
            return hit[0]

    def __call__(self, *args):
        # What numba's device function does when called on the host: the simulator runs the
        # function there (unchecked, as numba's does); a GPU dispatcher refuses with its message.
        return self._host_dispatcher()(*args)

    def __getitem__(self, launch_config):
        return self._host_dispatcher()[launch_config]

    @property
    def _numba_type_(self):
        # What numba's typeof gives for this function where numba's own code refers to it
        # (numba's vectorize, cuda.compile or declare_device of a plain function, a plain
        # numba kernel): numba's own dispatcher of the user's function (rewritten callers
        # call the checked build by another name, see resolver.py).
        return self.plain_dispatcher()._numba_type_

    def plain_dispatcher(self):
        """numba's own build of the user's function (made once), for numba's code that calls
        it: plain.py's plain kernels, vectorize, declare_device."""
        with self.build.lock:
            plain = self.__dict__.get("_plain")
            if plain is None:
                if self.__dict__.get("_plain_making"):
                    raise PlainUnavailable(self.__qualname__)
                self.__dict__["_plain_making"] = True
                try:
                    plain = self._make_plain_dispatcher()
                finally:
                    self.__dict__.pop("_plain_making", None)
            return plain

    def _make_plain_dispatcher(self):
        # The safekern functions it calls are numba's own builds there too (swapped after this
        # one is known, so recursion finds it; with signatures numba compiles at once: before).
        # A check-free function loses nothing there: no warning.
        fn, swap = plain_function(self.py_func, deferred=True)
        eager = self.sigs is not None and not SIMULATOR
        if eager:
            swap()
        plain = self.__dict__["_plain"] = plain_build(
            fn, self.__qualname__, self.sigs, supported_options(self.options), SIMULATOR,
            warn=not check_free(self.build.final_rewrite()))
        if not eager:
            swap()
        return plain

    def device_compiles(self) -> dict:
        """What numba compiled of this function for the kernels that call it, keyed by the
        user's argument types: the checked build's (called from checked kernels), then numba's
        own build's (called from kernels whose launch ran numba's own code: plain.py)."""
        found = {}
        if self.build.numba is not None:
            for key, value in self.build.numba.overloads.items():
                found.setdefault(self.surface.user(key), value)
        for key, value in self._plain_compiles().items():
            found.setdefault(key, value)
        return found

    def _plain_compiles(self) -> dict:
        """numba's own build's compiles (its argument types are the user's), or none."""
        plain = self.__dict__.get("_plain")
        if plain is None or SIMULATOR:
            return {}
        return {tuple(key): value for key, value in plain.overloads.items()}

    @property
    def overloads(self) -> dict:
        """The compiled device functions, keyed by the user's argument types (numba's own
        build's too: a plain launch's kernel called that one)."""
        answer = self.surface.overloads()
        for key, value in self._plain_compiles().items():
            answer.setdefault(key, value)
        return answer

    def _host_dispatcher(self):
        if not SIMULATOR:
            return self.numba_dispatcher()
        host = self.__dict__.get("_host")
        if host is None:
            host = self.__dict__["_host"] = cuda.jit(device=True)(self.py_func)
        return host


__all__ = ["CheckedDeviceFunction"]
