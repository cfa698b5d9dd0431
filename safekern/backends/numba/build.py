"""Compile a checked function's rewrite with numba.

A checked kernel or device function (kernel.py) keeps a `Build`: what it was decorated with
(options, signatures), its rewrite (a device function's made at decoration, maybe read from
the kernel cache: stored.py; a kernel's read from the cache at decoration on a warm start, else
made at its first build or report, its decoration checking only what it refuses), the rewrite
a build compiles (`final_rewrite`), numba's dispatcher once built, and the lock every build
holds. The function's launcher (launch.py), its cache key (keys.py) and its
stored rewrite (stored.py) read the Build, never the function's internals. Every rewrite a
Build adopts has its failure sites registered (failures.TABLE), the same way for a fresh one and
a stored one.

`Build.dispatcher()` builds numba's dispatcher, the checked functions it calls first (their
Builds, reached through the `__safekern_build__()` protocol): `compile_rewritten` (the rewrite
as a Python function bound to the check helpers of intrinsics.py, or of sim.py under the
simulator), `Build.jit` (numba's dispatcher of it); `Build.ptx` is the PTX of it.
"""
from __future__ import annotations

import threading
import warnings

from numba import cuda

from ... import config
from ..._toolkit import explain_missing_toolkit
from ...errors import UncheckedWarning
from ...failures import TABLE
from ...frontend import python as pyfront
from ...frontend.python.names import EXIT
from . import cold_bodies, keys, stored
from .disk_cache import jit_cached, rewrite_tag
from .options import quiet_config_warnings, supported_options
from .resolver import resolver
from .surface import SIMULATOR, compile_ptx, hidden_types, numba_errors_in_user_terms
from .unchecked import UncheckedFunction

_MISSING = object()
_SCALAR_TYPES = (int, float, bool, str, complex, bytes, type(None))


def helpers_namespace() -> dict:
    """What the rewritten code's `_sk_*` names are bound to."""
    if SIMULATOR:
        from . import sim
        return sim.namespace()
    from . import cold_bodies, cold_records, flag_reads, intrinsics
    return {**intrinsics.namespace(), **flag_reads.namespace(), **cold_records.namespace(),
            **cold_bodies.namespace()}


def compile_rewritten(rewritten, device_impls: dict, namespace=None, *, kernel: bool = False,
                      outlined: dict | None = None):
    """The rewritten function, defined in `namespace` (a new one by default: the function's
    globals, closure, check helpers, callees' numba functions). A `kernel`'s versioned loops'
    checked copies compile rolled (frontend/python/cold_loops.py). `outlined`: numba's options
    for a versioned body's checked copy as a function of its own (cold_bodies.py), or None."""
    parsed = rewritten.parsed
    if namespace is None:
        namespace = {}
    namespace.update(parsed.globals)
    namespace.update(parsed.closure)
    for name, value in namespace.items():
        if isinstance(value, UncheckedFunction):      # numba calls numba's own dispatcher
            namespace[name] = value.numba_dispatcher()
    namespace.update(helpers_namespace())
    namespace.update(device_impls)
    tree = pyfront.mark_cold(rewritten.tree) if kernel else rewritten.tree
    cold = None
    if not SIMULATOR:   # (flag reads as intrinsics, checked copies' records as calls; one
        from . import cold_records, flag_reads    # copy at most: the first form that edits)
        tree = cold_records.compile_form(tree, owned=tree is not rewritten.tree)
        tree = flag_reads.compile_form(tree, owned=tree is not rewritten.tree)
        if outlined is not None:
            tree, cold = cold_bodies.outline(tree)
    code = compile(tree, parsed.filename, "exec")
    exec(code, namespace)
    fn = namespace[parsed.name]
    if cold is not None:
        cold_bodies.bind(namespace, cold, outlined, getattr(parsed.pyfunc, "__module__", None))
    if SIMULATOR and kernel and any(n.endswith(EXIT) for n in fn.__code__.co_names):
        # (checks that end the thread: the simulator's thread ends there too)
        from .sim import thread_entry

        fn = thread_entry(fn, namespace)
    fn.__module__ = getattr(parsed.pyfunc, "__module__", None)
    # The user's name in what numba shows (its IR dumps, inspect_types, mangled names) and
    # what numba's rewrites match (func_id.func_name). numba's cache=True files of a checked
    # build are named by the user's function too, and keyed apart (disk_cache.py).
    fn.__qualname__ = getattr(parsed.pyfunc, "__qualname__", parsed.name)
    fn.__doc__ = getattr(parsed.pyfunc, "__doc__", None)
    return fn


def names_itself(pyfunc, name: str) -> bool:
    """`pyfunc`'s code (its nested functions' too) reads the name `name`: a global, or a
    variable of the enclosing function (a recursive call)."""
    code = getattr(pyfunc, "__code__", None)
    if code is None:
        return True                  # (nothing to read: bound, as always before)
    return name in code.co_freevars or name in keys.code_names(code)


class assume_device:
    """Without a GPU, numba-cuda compiles device functions for "the current device"; let that
    be a device of compute capability `cc` (only while compiling PTX, only without a GPU)."""

    def __init__(self, cc):
        self.cc = tuple(cc)
        self.saved = None

    def __enter__(self):
        if cuda.is_available():
            return self
        import numba.cuda.dispatcher as dispatcher

        cc = self.cc
        self.saved = dispatcher.get_current_device
        dispatcher.get_current_device = lambda: type("AssumedDevice", (), {
            "compute_capability": cc})()
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            import numba.cuda.dispatcher as dispatcher
            dispatcher.get_current_device = self.saved


def with_hidden(sig, device: bool, chain: bool = False):
    """A user signature with the hidden parameters appended (`chain`: a device function's call
    chain too, frontend/python/call_chain.py)."""
    from numba.cuda import types
    from numba.cuda.core.sigutils import normalize_signature

    args, ret = normalize_signature(sig)
    hidden = hidden_types(device, chain)     # (a kernel's: the failure buffer's address)
    if ret is None:
        ret = types.void if not device else None
    return ret(*args, *hidden) if ret is not None else tuple(args) + hidden


def _warn_plain_calls(rewritten):
    for lineno, name, *why in rewritten.plain_device_calls:
        text = (f"safekern: {name!r} is a plain numba device function: accesses inside it "
                "are not checked; decorate it with @safekern.jit(device=True)") if not why \
            else (f"safekern: {name!r} is a numba.jit function safekern cannot check "
                  f"({why[0]}): accesses inside it are not checked")
        warnings.warn_explicit(text, UncheckedWarning, rewritten.parsed.filename, lineno)


# -- what the names of the function mean, at decoration and at the build ------------------------

def _scope_snapshot(parsed) -> tuple:
    """What each name in the function's source means now: data by value, other objects by
    identity (held, so an identity cannot be reused)."""
    closure, globals_ = parsed.closure, parsed.globals
    return tuple((name, closure.get(name, globals_.get(name, _MISSING)))
                 for name in parsed.mentioned[0])


def _refresh_closure(parsed) -> None:
    """The closure's variables as they are now: one assigned after the function was defined
    (a function the kernel calls, defined below it in the enclosing function) was empty at
    decoration."""
    fn = parsed.pyfunc
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None)
    if code is None or not cells:
        return
    for name, cell in zip(code.co_freevars, cells):
        try:
            parsed.closure[name] = cell.cell_contents
        except ValueError:            # still empty
            pass


def _same_scope(a, b) -> bool:
    if len(a) != len(b):
        return False
    for (name_a, x), (name_b, y) in zip(a, b):
        if name_a != name_b or type(x) is not type(y):
            return False
        if x is not y and not (type(x) in _SCALAR_TYPES and x == y):
            return False
    return True


# -- one function's build -----------------------------------------------------------------------

_rewriting = threading.local()      # .config: the settings of the rewrite this thread makes


def _settings_now():
    """The settings a Build made now follows: those of the rewrite being made in this thread
    (a specialisation of a device function its caller asks for), else the current ones."""
    return getattr(_rewriting, "config", None) or config.get()


class Build:
    """One checked function's way to numba (see the module doc). Made at decoration: an
    unsupported construct is an error there, naming file:line (pyfront.refuse_unsupported); the
    rewrite comes from the kernel cache (an earlier process's: only successful ones are kept)
    or is made when first needed (`rewritten`). `dispatcher()` builds numba's dispatcher;
    `lock` is held while it does."""

    hidden = True        # its kernels take the failure buffer's address (launch.py)
    param_facts = ()     # a device function specialised for its arguments (specialise.py)
    _checked = None      # (scope, the decoration's check rewriter pass): rewrite() takes it

    def __init__(self, parsed, *, name: str, py_func, device: bool, options: dict, sigs,
                 specialized: bool):
        if parsed is None:                # (SourceNotFound: jit.py makes it numba's own)
            parsed = pyfront.parse_function(py_func)
        self.parsed = parsed
        self.hidden_first = parsed.hidden_first(device)   # the hidden parameters come first
        self.name = self.__qualname__ = name     # the function's qualified name
        self.py_func = py_func
        self.device = device
        self.options = options           # numba's jit options, as decorated
        self.sigs = sigs                 # the signatures given at decoration, or None
        self.specialized = specialized   # compiled for its one signature only
        self.lock = threading.RLock()
        self.numba = None                # numba's dispatcher of the rewrite, once built
        self.waiting = []                # (namespace, name) of callers built while it was
        self._building = False
        self._scope = _scope_snapshot(parsed)
        self._final = None
        # safekern's settings its rewrites follow: the decoration's (or, for a specialisation
        # made while a caller is rewritten, that rewrite's), not those of its first launch
        self.config = _settings_now()
        self._rewritten = None
        self._making = False           # its lazy rewrite is being made (`rewritten`)
        if device:
            # A device function's rewrite now: its callers' rewrites ask about it (barriers,
            # specialisations), and mutually recursive device functions made lazily would
            # each make the other's while its own is being made.
            self._rewritten = self._adopt(stored.rewrite(self, self.rewrite))
            return
        # A kernel: the kernel cache's rewrite if it has one (a warm start); else only what a
        # decoration refuses, now, and the whole rewrite -- elimination and launch variants,
        # most of the front end's time -- at the first build or report (`rewritten`): the
        # kernels a module decorates but never launches cost no more than that check.
        cached = stored.lookup(self)
        if cached is not None:
            self._rewritten = self._adopt(cached)
        else:
            checked = pyfront.refuse_unsupported(parsed, resolver=resolver(),
                                                 kernel_exceptions=not options.get("debug"),
                                                 settings=self.config)
            # The check rewriter's pass, which the first rewrite starts from where the names
            # still mean what they mean now (it is a seventh of the front end's time).
            self._checked = (self._scope, checked)

    @property
    def rewritten(self):
        """The function's rewrite (a kernel's made on first use, with what its names mean
        then)."""
        rewritten = self._rewritten
        if rewritten is None:
            with self.lock:
                if self._rewritten is None:
                    if self._making:
                        # (asked again while it is made -- a device function calling this
                        # kernel, made meanwhile: a rewrite of its own, not the cache's)
                        return self._adopt(self.rewrite())
                    self._making = True
                    try:
                        _refresh_closure(self.parsed)
                        self._scope = _scope_snapshot(self.parsed)
                        self._rewritten = self._adopt(stored.rewrite(self, self.rewrite))
                    finally:
                        self._making = False
                rewritten = self._rewritten
        return rewritten

    @rewritten.setter
    def rewritten(self, value):
        self._rewritten = value

    def rewrite(self, launch_subset=None):
        """The front end's rewrite of the function, now. With debug=True numba raises a
        kernel's exceptions at the launch itself: raise, assert and division are left to it
        (numba's messages, numba's place). `launch_subset`: its launch variant leaves out only
        the checks those launch predicates prove."""
        cfg = self.config
        checked = None
        if self._checked is not None and launch_subset is None:
            scope, checked = self._checked
            self._checked = None
            if not _same_scope(_scope_snapshot(self.parsed), scope):
                checked = None
        outer = getattr(_rewriting, "config", None)
        _rewriting.config = cfg          # (the specialisations it makes follow it too)
        try:
            return pyfront.rewrite_function(self.parsed, device=self.device,
                                            resolver=resolver(), eliminate_checks=cfg.eliminate,
                                            kernel_exceptions=not self.options.get("debug"),
                                            launch_predicates=cfg.launch_predicates and
                                            cfg.eliminate and not self.device,
                                            launch_subset=launch_subset,
                                            param_facts=self.param_facts, settings=cfg,
                                            checked=checked)
        finally:
            _rewriting.config = outer

    @staticmethod
    def _adopt(rewritten):
        """`rewritten`, its failure sites registered: what a failure code read back from the
        device means (the one place the numba backend registers them)."""
        TABLE.register_all(rewritten.failure_sites)
        return rewritten

    def final_rewrite(self):
        """The rewrite a build compiles (and the kernel cache keys on): `rewritten`, or a new
        one if a name the function uses means something else now than when that was made (a
        device function defined after this function, a global constant rebound)."""
        with self.lock:
            if self._final is None:
                _refresh_closure(self.parsed)
                if not _same_scope(_scope_snapshot(self.parsed), self._scope):
                    self.rewritten = self._adopt(self.rewrite())
                _warn_plain_calls(self.rewritten)
                self._final = self.rewritten
            return self._final

    def reset(self) -> None:
        """Forget numba's dispatcher and the rewrite it compiled: the next build rewrites the
        function with what its names mean then (a kernel's recompile(): compiles.py)."""
        with self.lock:
            _refresh_closure(self.parsed)
            self._scope = _scope_snapshot(self.parsed)
            self.config = config.get()       # (a recompile follows the settings of now)
            self._checked = None             # (made with the decoration's settings)
            self.rewritten = self._adopt(self.rewrite())
            self._final = None
            self.numba = None

    def compilable_rewrite(self):
        """final_rewrite() with a tree of the user's line numbers: a rewrite from the kernel
        cache has none, so a fresh one replaces it (stored.fresh checks they agree)."""
        with self.lock:
            rewritten = self.final_rewrite()
            if stored.is_stored(rewritten):
                rewritten = self._adopt(stored.fresh(self, rewritten))
                self.rewritten = self._final = rewritten
            return rewritten

    def dispatcher(self):
        """numba's dispatcher of the rewrite, built on first use (None while it is being built:
        a callee calling back; it is bound in the caller once built)."""
        numba = self.numba
        if numba is not None:
            return numba
        with self.lock:
            if self.numba is not None:
                return self.numba
            if self._building:
                return None          # recursion (a callee calls back): bound once built
            self._building = True
            try:
                numba = self.numba = self.compile()
            finally:
                self._building = False
            # Callers built while it was being built call it now.
            for namespace, name in self.waiting:
                namespace[name] = numba
            self.waiting.clear()
            return numba

    def compile(self):
        """numba's dispatcher of the rewrite: the checked functions it calls built first, their
        numba functions bound to its names (a callee being built -- recursion -- is bound when
        it is done), its own name bound to itself."""
        rewritten = self.compilable_rewrite()
        impls, late = {}, []
        for name, dev in rewritten.device_calls.items():
            callee = dev.__safekern_build__()
            impl = callee.dispatcher()
            if impl is None:
                late.append((name, callee))
            else:
                impls[name] = impl
        namespace = {}
        fn = compile_rewritten(rewritten, impls, namespace, kernel=not self.device,
                               outlined=cold_bodies.options_for(self.device, self.options))
        for name, callee in late:
            callee.waiting.append((namespace, name))
        numba = self.jit(fn)
        if names_itself(self.parsed.pyfunc, self.parsed.name):
            # Its own calls (recursion). Only then: bound, the name ties numba's dispatcher to
            # its own compiled kernels (their function's globals are this namespace), which
            # numba's finalizer of the dispatcher holds -- it and its code are never freed.
            namespace[self.parsed.name] = numba
        return numba

    def jit(self, fn):
        """numba's dispatcher of `fn` (the compiled rewrite) with the function's options and
        signatures (the hidden parameters added)."""
        options = supported_options(self.options)
        if options.get("extensions"):
            options["extensions"] = list(options["extensions"])   # the user's list stays theirs
        if self.device:
            options["device"] = True
        sig_arg = None
        if self.sigs is not None and not SIMULATOR:
            chain = self.final_rewrite().call_chain
            sigs = [with_hidden(s, self.device, chain) for s in self.sigs]
            one = len(sigs) == 1 and (self.specialized or self.device)
            sig_arg = sigs[0] if one else sigs
        with quiet_config_warnings(), numba_errors_in_user_terms():
            if options.get("cache") and not self.device and not SIMULATOR:
                # numba's on-disk cache, under the user's function's name (disk_cache.py).
                return jit_cached(fn, sig_arg, options, self.py_func,
                                  rewrite_tag(self.final_rewrite()))
            if sig_arg is not None:
                return cuda.jit(sig_arg, **options)(fn)
            return cuda.jit(**options)(fn)

    def ptx(self, device_impls: dict, signature, cc, **options) -> str:
        """PTX of the rewrite for `signature` (the user's types) and compute capability `cc`,
        the callees' numba functions given; works without a GPU."""
        fn = compile_rewritten(self.rewritten, device_impls, kernel=not self.device,
                               outlined=cold_bodies.options_for(self.device, self.options))
        sig = with_hidden(signature, self.device, self.rewritten.call_chain)
        args = sig if isinstance(sig, tuple) else sig.args
        opts = {k: v for k, v in self.options.items()
                if k in ("fastmath", "lineinfo", "debug", "opt")}
        opts.update(options)
        with assume_device(cc), explain_missing_toolkit("compiling to PTX", self.name):
            return compile_ptx(fn, args, self.py_func, signature, cc, self.device, opts)

    def __safekern_key__(self, depth: int = 0) -> dict:
        """The function as cache-key material (keys.function_fields)."""
        return keys.function_fields(self, depth)


class DerivedBuild(Build):
    """The build of another form of a kernel (a launch variant, numba's own kernel of the
    function: plain.py): the kernel's own Build's function, options and signatures, a lock and
    a numba dispatcher of its own."""

    def __init__(self, main: Build):
        self.main = main
        self.parsed = main.parsed
        self.hidden_first = main.hidden_first
        self.name = self.__qualname__ = main.name
        self.py_func = main.py_func
        self.device = False
        self.options = main.options
        self.sigs = main.sigs
        self.specialized = main.specialized
        self.lock = threading.RLock()
        self.numba = None
        self.waiting = []
        self._building = False
        self._scope = main._scope
        self.config = main.config
        self._final = None

    @property
    def rewritten(self):
        return self.final_rewrite()


class LaunchVariantBuild(DerivedBuild):
    """The build of a kernel's launch variant: the kernel's rewrite without the checks its
    launch predicates prove (frontend/python/launch.py), taken from the kernel's own Build so
    the two always agree (a rewrite made afresh, or the stored one's stored variant). With a
    `subset` of the predicates, without only the checks those prove: a rewrite of its own."""

    def __init__(self, main: Build, subset=None):
        super().__init__(main)
        self.subset = subset
        self._partial = None

    def rewrite(self, launch_subset=None):
        return self.main.rewrite(self.subset).launch_variant

    def _subset_rewrite(self):
        with self.lock:
            if self._partial is None:
                # (the main's scope refreshed first) Its elimination serves every subset; a
                # rewrite from the kernel cache kept none: a rewrite of its own then.
                made = self.main.final_rewrite().variant_for_subset(self.subset)
                self._partial = self._adopt(made if made is not None else self.rewrite())
            return self._partial

    def final_rewrite(self):
        if self.subset is not None:
            return self._subset_rewrite()
        return self.main.final_rewrite().launch_variant

    def compilable_rewrite(self):
        if self.subset is not None:
            return self._subset_rewrite()
        return self.main.compilable_rewrite().launch_variant


__all__ = ["Build", "DerivedBuild", "LaunchVariantBuild", "compile_rewritten", "helpers_namespace",
           "supported_options", "assume_device", "with_hidden"]
