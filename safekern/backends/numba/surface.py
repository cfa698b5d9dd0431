"""The parts of numba's dispatcher that users touch, in the user's own signatures.

numba compiles the *rewritten* function, whose parameters end with safekern's hidden ones (a
kernel's failure-buffer address; a device function's buffer and thread flag). Everything a user
asks numba's dispatcher by signature (`inspect_asm(sig)`, `get_regs_per_thread(sig)`,
`overloads[sig]`, ...) and everything it answers keyed by signature is translated here, so a
checked kernel answers as numba's dispatcher of the user's function would.

A checked function (function.py) *has* a `DispatcherSurface` and delegates numba's questions to
it by name; the surface knows the function only through what it is given: numba's dispatcher
of it (`dispatcher()`), its hidden parameters' types, the argument types its launches ran
(`launched()`: those need an overload before numba's answers are complete) and, for a kernel,
which other form of it ran for given argument types (`route`: numba's own kernel, plain.py).
"""
from __future__ import annotations

import contextlib
from collections import Counter

from numba.cuda.core import config as _numba_config

#: numba runs kernels on its CUDA simulator (NUMBA_ENABLE_CUDASIM=1): the numba backend's one
#: reading of it.
SIMULATOR = bool(_numba_config.ENABLE_CUDASIM)


def hidden_types(device: bool, chain: bool = False) -> tuple:
    """The types of the hidden parameters: a kernel's buffer address; a device function's
    buffer and flag, and its call chain where it takes one (frontend/python/call_chain.py)."""
    from numba.cuda import types

    if device:
        return (types.Array(types.int64, 1, "C"), types.Array(types.int32, 1, "C")) + (
            (types.int64,) if chain else ())
    return (types.int64,)


class DispatcherSurface:
    """numba's dispatcher questions about one checked function, in the user's terms.

    `dispatcher()`: numba's dispatcher of the rewritten function (built on first call);
    `hidden`: the types of its hidden parameters (none for numba's own kernel of the function);
    `device`: a device function; `launched()`: the full argument-type tuples its launches ran
    (they get an overload before numba's answers); `route(user_types)`: the surface of the form
    whose code the launches with these argument types ran, or None (this one).
    """

    __slots__ = ("dispatcher", "hidden", "device", "launched", "route", "failed_types")

    def __init__(self, dispatcher, *, hidden: tuple, device: bool, launched=None, route=None):
        self.dispatcher = dispatcher
        self.hidden = hidden
        self.device = device
        self.launched = launched
        self.route = route
        #: argument types whose compile failed (numba's TypingError): not compiled again
        self.failed_types: set = set()

    # -- signatures: the user's <-> the rewritten function's ------------------------------------
    def full(self, signature):
        """The rewritten function's signature for a user's (tuple, list, Signature, string)."""
        hidden = self.hidden
        if isinstance(signature, str):
            from numba.cuda.core.sigutils import normalize_signature

            args, ret = normalize_signature(signature)
            return tuple(args) + hidden
        if hasattr(signature, "args") and hasattr(signature, "replace"):
            return signature.replace(args=tuple(signature.args) + hidden)
        return tuple(signature) + hidden

    def user(self, full_args) -> tuple:
        """The user's argument types of the rewritten function's (`full_args`)."""
        full_args = tuple(full_args)
        return full_args[:len(full_args) - len(self.hidden)]

    # -- numba's dispatcher, compiled for what the launches ran ------------------------------
    def compiled(self):
        """numba's dispatcher, with an overload for every argument type tuple this function was
        launched with (a launch from the kernel cache compiles nothing in numba; a launch that
        ran a launch variant compiled the variant, but numba's answers are for this kernel)."""
        dispatcher = self.dispatcher()
        if self.launched is not None:
            for argtypes in self.launched():
                self.ensure_launched(dispatcher, argtypes)
        return dispatcher

    def ensure_launched(self, dispatcher, full_args):
        """An overload for argument types a launch had. A launch whose compile failed (numba's
        launch raised numba's error, a TypingError for types no signature takes) left no
        overload in numba's dispatcher either: those types are skipped, and not compiled again
        at each question."""
        from numba.cuda.core.errors import NumbaError

        key = tuple(getattr(full_args, "args", full_args))
        failed = self.failed_types
        if key in failed:
            return
        # A compile made only to answer a question is no launch's: numba's stats keep out of
        # it (numba's own dispatcher compiles nothing to answer).
        counts = [(c, Counter(c)) for c in (getattr(dispatcher, "_cache_hits", None),
                                           getattr(dispatcher, "_cache_misses", None))
                  if c is not None]
        try:
            self.ensure(dispatcher, key)
        except NumbaError:
            failed.add(key)
        finally:
            for counter, before in counts:
                counter.clear()
                counter.update(before)

    def ensure(self, dispatcher, full_args):
        full_args = tuple(getattr(full_args, "args", full_args))
        if full_args in dispatcher.overloads:
            return
        if self.device:
            dispatcher.compile_device(full_args)
        else:
            dispatcher.compile(full_args)

    # -- what numba's dispatcher answers -------------------------------------------------------
    def ask(self, method: str, signature=None, **kw):
        """numba's `method(signature)` (inspect_*, get_*) for the form that ran with
        these argument types (`route`); without a signature, its answers keyed by the user's
        argument types, each from the form that ran with them."""
        route = self.route
        if route is None:
            return self._ask(method, signature, **kw)
        if signature is not None:
            full = self.full(signature)
            target = route(self.user(getattr(full, "args", full)))
            return (target or self)._ask(method, signature, **kw)
        answer = self._ask(method, None, **kw)
        if isinstance(answer, dict):
            routed = None
            for user in list(answer):
                target = route(tuple(user))
                if target is not None:
                    if routed is None:
                        routed = target._ask(method, None, **kw)
                    answer[user] = routed.get(user, answer[user])
        return answer

    def _ask(self, method: str, signature=None, **kw):
        """numba's `method(signature)`, asked with the rewritten function's signature; without
        one, its answer keyed by the user's argument types. (numba's get_* take a Signature,
        its inspect_* a tuple of argument types: the same kind is passed on.)"""
        dispatcher = self.compiled()
        if signature is None:
            answer = getattr(dispatcher, method)(**kw)
            if isinstance(answer, dict):
                return {self.user(getattr(k, "args", k)): v for k, v in answer.items()}
            return answer
        full = self.full(signature)
        with numba_errors_in_user_terms():
            self.ensure(dispatcher, full)
        return getattr(dispatcher, method)(full, **kw)

    def overloads(self) -> dict:
        """The compiled kernels, keyed by the user's argument types."""
        if SIMULATOR:
            return self.dispatcher().overloads       # the simulator's answers any key
        return {self.user(k): v for k, v in self.compiled().overloads.items()}

    def compile(self, sig):
        """numba's compile of a kernel for the user's signature (numba's errors in its terms)."""
        dispatcher = self.dispatcher()
        with numba_errors_in_user_terms():
            return dispatcher.compile(self.full(sig))

    def compile_device(self, args, return_type=None):
        """numba's compile of a device function for the user's argument types."""
        dispatcher = self.dispatcher()
        with numba_errors_in_user_terms():
            return dispatcher.compile_device(self.full(args), return_type)

    def inspect_types(self, overloads, file=None):
        """numba's annotated source per compiled kernel (`overloads`: the function's, keyed by
        the user's argument types), headed by the user's argument types (numba prints its
        kernel's own argument types, here with the hidden one)."""
        if SIMULATOR or self.device:
            return self.compiled().inspect_types(file=file)
        import sys

        file = sys.stdout if file is None else file
        for argtypes, kernel in overloads.items():
            if kernel._type_annotation is None:
                raise ValueError("Type annotation is not available")
            print("%s %s" % (kernel.entry_name, argtypes), file=file)
            print("-" * 80, file=file)
            print(kernel._type_annotation, file=file)
            print("=" * 80, file=file)

    def explain_ambiguous(self, py_func, args) -> None:
        """numba's TypeError for arguments that fit two signatures equally well, naming the
        user's function (`py_func`) and types (numba's own names the rewritten function's)."""
        dispatcher = self.dispatcher()
        sigs = [sig.replace(args=self.user(sig.args)) for sig in dispatcher.nopython_signatures]
        argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
        dispatcher.typingctx.resolve_overload(py_func, sigs, argtypes, {},
                                              allow_ambiguous=False)


# How numba's messages show a checked device function's hidden parameters (its str and repr).
_HIDDEN_IN_MESSAGES = (      # (with the call chain first)
    ", array(int64, 1d, C), array(int32, 1d, C), int64",
    ", Array(int64, 1, 'C', False, aligned=True), Array(int32, 1, 'C', False, aligned=True), "
    "int64",
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


def is_numba_error(err) -> bool:
    """numba's own compile errors (numba's and numba-cuda's error classes alike)."""
    return type(err).__module__.split(".")[0] == "numba" and isinstance(err, Exception)


def in_user_terms(err, plain_compile):
    """`err`, numba's error compiling a checked function -- or, where it names safekern's
    helpers (a typing mistake inside a checked access: `a[i, 0]` of a 1-D array fails in
    `_sk_load`, with safekern's hidden arguments in the signature), the error numba's own
    compile of the user's function gives (`plain_compile()` raises it): numba's words for the
    user's code, with its file and line."""
    if "_sk_" not in str(err):
        return err
    try:
        plain_compile()
    except Exception as mine:      # noqa: BLE001 -- numba's error for the user's own code
        if is_numba_error(mine):
            return mine
    return err


def compile_ptx(fn, args, py_func, signature, cc, device, options) -> str:
    """numba's PTX of the checked function `fn` for `args`; numba's error in the user's terms
    (in_user_terms: the user's `py_func` compiled for `signature`)."""
    from numba import cuda

    try:
        return cuda.compile_ptx(fn, args, cc=cc, device=device, **options)[0]
    except Exception as err:     # noqa: BLE001 -- numba's error, in the user's terms
        raise (in_user_terms(err, lambda: cuda.compile_ptx(
            py_func, signature, cc=cc, device=device, **options))
            if is_numba_error(err) else err) from None


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


__all__ = ["is_numba_error", "in_user_terms", "DispatcherSurface", "HiddenArgument", "UserExtensions",
           "numba_errors_in_user_terms", "hidden_types"]
