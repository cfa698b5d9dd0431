"""The parts of numba's dispatcher that users touch, in the user's own signatures.

numba compiles the *rewritten* function, whose parameters end with safekern's hidden ones (a
kernel's failure-buffer address; a device function's buffer and thread flag). Everything a user
asks numba's dispatcher by signature (`inspect_asm(sig)`, `get_regs_per_thread(sig)`,
`overloads[sig]`, ...) and everything it answers keyed by signature is translated here, so a
checked kernel answers as numba's dispatcher of the user's function would. Launch
configurations and argument counts are checked where numba checks them, with numba's words.
"""
from __future__ import annotations

import contextlib
from collections import Counter

from numba.cuda.core import config as _numba_config

#: numba runs kernels on its CUDA simulator (NUMBA_ENABLE_CUDASIM=1): the numba backend's one
#: reading of it.
SIMULATOR = bool(_numba_config.ENABLE_CUDASIM)

def hidden_types(device: bool) -> tuple:
    from numba.cuda import types

    if device:
        return (types.Array(types.int64, 1, "C"), types.Array(types.int32, 1, "C"))
    return (types.int64,)


class DispatcherSurface:
    """Mixin of checked kernels and device functions (see the module doc)."""

    device = False
    _specialized = False

    # numba's dispatcher answers these for its function (numba's own code reads them of a
    # dispatcher it is handed, e.g. compile_subroutine, or jit of a jitted function).
    @property
    def __code__(self):
        return self.py_func.__code__

    @property
    def __defaults__(self):
        return self.py_func.__defaults__

    # -- signatures: the user's <-> the rewritten function's ------------------------------------
    def _full(self, signature):
        """The rewritten function's signature for a user's (tuple, list, Signature, string)."""
        hidden = hidden_types(self.device)
        if isinstance(signature, str):
            from numba.cuda.core.sigutils import normalize_signature

            args, ret = normalize_signature(signature)
            return tuple(args) + hidden
        if hasattr(signature, "args") and hasattr(signature, "replace"):
            return signature.replace(args=tuple(signature.args) + hidden)
        return tuple(signature) + hidden

    def _user(self, full_args) -> tuple:
        return tuple(full_args)[:-len(hidden_types(self.device))]

    def _compiled(self):
        """numba's dispatcher, with an overload for every argument type tuple this function was
        launched with (a launch from the kernel cache compiles nothing in numba)."""
        dispatcher = self._build()
        binary = getattr(self, "_binary", None)
        launched = list(binary.compiled_types()) if binary is not None else []
        # A launch that ran the launch variant compiled the variant, not this kernel: numba's
        # answers (overloads, inspect_*) are for this kernel, for the same argument types.
        dispatch = getattr(self, "dispatch", None)
        if dispatch is not None and dispatch.variants:
            for variant in dispatch.variants.kernels():
                launched += variant._launched_types()
        for argtypes in launched:
            self._ensure_launched(dispatcher, argtypes)
        return dispatcher

    def _ensure_launched(self, dispatcher, full_args):
        """An overload for argument types a launch had. A launch whose compile failed (numba's
        launch raised numba's error, a TypingError for types no signature takes) left no
        overload in numba's dispatcher either: those types are skipped, and not compiled again
        at each question."""
        from numba.cuda.core.errors import NumbaError

        key = tuple(getattr(full_args, "args", full_args))
        failed = self.__dict__.setdefault("_failed_types", set())
        if key in failed:
            return
        # A compile made only to answer a question is no launch's: numba's stats keep out of
        # it (numba's own dispatcher compiles nothing to answer).
        counts = [(c, Counter(c)) for c in (getattr(dispatcher, "_cache_hits", None),
                                           getattr(dispatcher, "_cache_misses", None))
                  if c is not None]
        try:
            self._ensure(dispatcher, key)
        except NumbaError:
            failed.add(key)
        finally:
            for counter, before in counts:
                counter.clear()
                counter.update(before)

    def _launched_types(self) -> list:
        """The argument type tuples (hidden ones included) this kernel was compiled for."""
        binary = getattr(self, "_binary", None)
        found = list(binary.compiled_types()) if binary is not None else []
        numba = self._numba
        if numba is not None and not SIMULATOR:
            found += [k for k in numba.overloads if k not in found]
        return found

    def _ensure(self, dispatcher, full_args):
        full_args = tuple(getattr(full_args, "args", full_args))
        if full_args in dispatcher.overloads:
            return
        if self.device:
            dispatcher.compile_device(full_args)
        else:
            dispatcher.compile(full_args)

    def _by_signature(self, method: str, signature=None, **kw):
        """numba's `method(signature)`, asked with the rewritten function's signature; without
        one, its answer keyed by the user's argument types. (numba's get_* take a Signature,
        its inspect_* a tuple of argument types: the same kind is passed on.)"""
        dispatcher = self._compiled()
        if signature is None:
            answer = getattr(dispatcher, method)(**kw)
            if isinstance(answer, dict):
                return {self._user(getattr(k, "args", k)): v for k, v in answer.items()}
            return answer
        full = self._full(signature)
        with numba_errors_in_user_terms():
            self._ensure(dispatcher, full)
        return getattr(dispatcher, method)(full, **kw)

    # -- what numba's dispatcher answers -------------------------------------------------------
    def inspect_llvm(self, signature=None):
        return self._by_signature("inspect_llvm", signature)

    def inspect_asm(self, signature=None):
        return self._by_signature("inspect_asm", signature)

    def inspect_lto_ptx(self, signature=None):
        return self._by_signature("inspect_lto_ptx", signature)

    def inspect_sass(self, signature=None):
        return self._by_signature("inspect_sass", signature)

    def inspect_sass_cfg(self, signature=None):
        return self._by_signature("inspect_sass_cfg", signature)

    def get_metadata(self, signature=None):
        return self._by_signature("get_metadata", signature)

    def get_regs_per_thread(self, signature=None):
        return self._by_signature("get_regs_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        return self._by_signature("get_const_mem_size", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self._by_signature("get_shared_mem_per_block", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._by_signature("get_max_threads_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._by_signature("get_local_mem_per_thread", signature)

    @property
    def overloads(self) -> dict:
        """The compiled kernels, keyed by the user's argument types."""
        if SIMULATOR:
            return self._build().overloads       # the simulator's answers any key
        answer = {self._user(k): v for k, v in self._compiled().overloads.items()}
        # A kernel that other kernels call is compiled as a device function too: numba keeps
        # those compilations in the same dispatcher, so its overloads show them as well.
        dev = self.__dict__.get("_device_function")
        if dev is not None and dev._numba is not None:
            for key, value in dev._numba.overloads.items():
                answer.setdefault(dev._user(key), value)
        return answer

    @property
    def signatures(self) -> list:
        return list(self.overloads)

    @property
    def specialized(self) -> bool:
        return self._specialized

    @property
    def targetoptions(self) -> dict:
        return dict(self._build().targetoptions)

    @property
    def lineinfo(self) -> bool:
        return bool(self._options.get("lineinfo", False))

    def compile(self, sig):
        """numba's compile of a kernel for the user's signature (numba's errors in its terms)."""
        dispatcher = self._build()
        with numba_errors_in_user_terms():
            return dispatcher.compile(self._full(sig))

    def compile_device(self, args, return_type=None):
        """numba's compile of a device function for the user's argument types."""
        dispatcher = self._build()
        with numba_errors_in_user_terms():
            return dispatcher.compile_device(self._full(args), return_type)

    def inspect_types(self, file=None):
        """numba's annotated source per compiled kernel, headed by the user's argument types
        (numba prints its kernel's own argument types, here with the hidden one)."""
        if SIMULATOR or self.device:
            return self._compiled().inspect_types(file=file)
        import sys

        file = sys.stdout if file is None else file
        for argtypes, kernel in self.overloads.items():
            if kernel._type_annotation is None:
                raise ValueError("Type annotation is not available")
            print("%s %s" % (kernel.entry_name, argtypes), file=file)
            print("-" * 80, file=file)
            print(kernel._type_annotation, file=file)
            print("=" * 80, file=file)

    def specialize(self, *args):
        """A kernel compiled for the types of `args` only, as numba's `specialize` makes."""
        if SIMULATOR:
            return self            # the simulator's dispatcher does the same
        from numba import cuda
        from numba.cuda.typing.typeof import Purpose, typeof

        cc = cuda.get_current_device().compute_capability
        argtypes = tuple(typeof(a, Purpose.argument) for a in args)
        if self.specialized:
            raise RuntimeError("Dispatcher already specialized")
        with self._lock:
            cache = self.__dict__.setdefault("_specializations", {})
            spec = cache.get((cc, argtypes))
            if spec is None:
                spec = type(self)(self.py_func, [argtypes], self._options, parsed=self.parsed,
                                  specialized=True)
                cache[(cc, argtypes)] = spec
            return spec

    @property
    def specializations(self) -> dict:
        return dict(self.__dict__.get("_specializations", {}))

    def _explain_ambiguous(self, args) -> None:
        """numba's TypeError for arguments that fit two signatures equally well, naming the
        user's function and types (numba's own names the rewritten function's)."""
        dispatcher = self._build()
        sigs = [sig.replace(args=self._user(sig.args)) for sig in dispatcher.nopython_signatures]
        argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
        dispatcher.typingctx.resolve_overload(self.py_func, sigs, argtypes, {},
                                              allow_ambiguous=False)


# How numba's messages show a checked device function's hidden parameters (its str and repr).
_HIDDEN_IN_MESSAGES = (
    ", array(int64, 1d, C), array(int32, 1d, C)",
    ", Array(int64, 1, 'C', False, aligned=True), Array(int32, 1, 'C', False, aligned=True)",
)


@contextlib.contextmanager
def numba_errors_in_user_terms():
    """numba's compile errors (a device function called with types none of its signatures
    takes, ...) as numba words them for the user's functions: without safekern's hidden
    parameters and names."""
    from numba.cuda.core.errors import NumbaError

    try:
        yield
    except NumbaError as err:
        msg = err.args[0] if err.args and isinstance(err.args[0], str) else None
        if msg is not None:
            new = msg.replace("__safekern", "")
            for hidden in _HIDDEN_IN_MESSAGES:
                new = new.replace(hidden, "")
            if new != msg:
                err.patch_message(new)
        raise


class HiddenArgument(int):
    """The failure buffer's address in a launch of a kernel with extensions: marked, so
    the user's extensions never see (nor wrap) safekern's own argument."""


class UserExtensions:
    """The one extension numba's dispatcher holds for a checked kernel: the user's
    extensions, applied as numba applies them (last first), to the user's arguments only."""

    def __init__(self, extensions: list):
        self.extensions = extensions

    @classmethod
    def installed(cls, numba_list: list) -> "UserExtensions":
        """The adapter in numba's extension list, put there (around what it held) if not."""
        if len(numba_list) == 1 and isinstance(numba_list[0], cls):
            return numba_list[0]
        adapter = cls(list(numba_list))
        numba_list[:] = [adapter]
        return adapter

    def prepare_args(self, ty, val, **kwargs):
        if isinstance(val, HiddenArgument):
            return ty, int(val)
        for extension in reversed(self.extensions):
            ty, val = extension.prepare_args(ty, val, **kwargs)
        return ty, val


__all__ = ["DispatcherSurface", "HiddenArgument", "UserExtensions", "numba_errors_in_user_terms",
           "hidden_types"]
