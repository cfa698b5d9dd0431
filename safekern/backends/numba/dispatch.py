"""The launch dispatcher of a checked numba kernel: what one launch runs.

numba-cuda's shape: `kernel[config]` is a configured launch (launching.Launch); calling it asks
the kernel's dispatcher for what to launch, `kernel.select(args, config)`, and launches that
(`form.launch(args, launch, source)`, kernel.py). The selection, in this order:

1. the arguments bound to the user's parameters (defaults filled in; numba's TypeError, naming
   the user's parameter, for a call that does not fit);
2. the race check (races.py): a launch proven to race is refused before anything runs;
3. the launch variant whose checks the launch predicates holding for these arguments and this
   configuration prove (predicates.py), or the checked kernel;
4. numba's own kernel of the function (plain.py) when the form chosen holds no check at all and
   nothing is pending on the current device -- the plain launch.

`select` returns (form, arguments, failure source or None); the form's launch takes the short
path (launch.py) or numba's own launch. Everything here is per kernel and read at each launch:
the answers that never change are computed once (`fixed`), so a launch pays a few attribute
reads and one dict lookup per step.
"""
from __future__ import annotations

import ast
import inspect
import logging

from ... import check_kinds, config, runtime
from ...frontend.python import names
from ...frontend.python.races import analyse_kernel
from ...frontend.python.trees import walk
from .build import LaunchVariantBuild
from .device import current_source, fast_source, launched
from .plain import COMPILE_ERRORS, simulator_runs
from .predicates import LaunchVariants
from .races import RaceChecker
from .resolver import resolver
from .surface import SIMULATOR

log = logging.getLogger("safekern.numba")


_NOT_YET = object()


class LaunchDispatch:
    """One checked kernel's launch selection (see the module doc).

    `kernel`: the CheckedKernel; `build`: its Build; `attrs`: its instance dict (a hook the user
    set on numba's compile, `_compile_for_args`, keeps every launch on numba's path);
    `make_kernel(build)`: a kernel of another build of the function (a launch variant);
    `make_plain()`: numba's own kernel of the function (kernel.PlainKernel); `hidden_first`:
    the kernel takes its failure buffer first (*args). `races`: its RaceChecker (races.py), for
    a kernel that writes an array parameter (None: no race check).
    """

    __slots__ = ("kernel", "build", "attrs", "make_kernel", "make_plain", "_races",
                 "hidden_first", "nparams", "variants", "marks_hidden", "_free", "_builds",
                 "_plain", "_fixed", "_signature")

    def __init__(self, kernel, build, attrs, *, make_kernel, make_plain, hidden_first: bool,
                 nparams: int):
        self.kernel = kernel
        self.build = build
        self.attrs = attrs
        self.make_kernel = make_kernel
        self.make_plain = make_plain
        self._races = _NOT_YET     # the RaceChecker (None: not needed), made when first asked
        self.hidden_first = hidden_first
        self.nparams = nparams
        self.variants = None       # LaunchVariants; False: none; None: not looked at yet
        self.marks_hidden = False  # launches mark the hidden argument (numba's extensions)
        self._free: dict = {}      # form -> it holds no check (check_free)
        self._builds: dict = {kernel: build}    # form -> its Build
        self._plain = None         # numba's own kernel of the function, once made
        self._fixed = None         # what allows plain launches and never changes
        self._signature = None     # inspect.signature of the user's function, once needed

    @property
    def races(self):
        """The kernel's RaceChecker, or None where no launch can race through it (or race
        checks are off): its analysis at the first launch or report, not at decoration (a
        module's kernels that never launch cost nothing for it)."""
        races = self._races
        if races is _NOT_YET:
            if config.get().races == "off":
                return None          # (not kept: a later launch with them on analyses)
            checker = RaceChecker(analyse_kernel(self.build.parsed, resolver()),
                                  kernel=self.kernel.__name__,
                                  filename=self.build.parsed.filename)
            races = self._races = checker if checker.needed else None
        return races

    # -- the selection ----------------------------------------------------------------------
    def select(self, args: tuple, launch_config, callbacks=()):
        """(form, arguments, failure source or None) for `kernel[launch_config](*args)`;
        `launch_config` None: a forall launch (no race check, no variant); `callbacks`: the
        launch's pre-launch callbacks (numba's launch runs them: never a plain launch)."""
        if len(args) != self.nparams:
            args = self.bind(args)
        kernel = self.kernel
        launched[kernel] = None
        settings = config.get()
        if launch_config is not None:
            races = self._races
            if races is _NOT_YET:
                races = self.races
            # Before anything runs, so a proven race writes nothing.
            if races is not None and isinstance(launch_config, tuple) and \
                    len(launch_config) >= 2:
                races.check(args, launch_config[0], launch_config[1], settings.races)
            if self.variants is not False:
                kernel = self.variant_for(args, launch_config)
        if callbacks:
            return kernel, args, None
        free = self._free.get(kernel)
        if free is None:
            free = self._check_free(kernel)
        if not free:
            return kernel, args, None
        fixed = self._fixed
        if fixed is None:
            self.plain_allowed()
            fixed = self._fixed
        # (plain_allowed(), inline: this runs at every launch)
        if not fixed or not settings.plain_launches or self.marks_hidden or \
                "_compile_for_args" in self.attrs:
            return kernel, args, None
        source = current_source() if SIMULATOR else fast_source()
        # With numba's cache=True the same arguments run the same build whatever ran before
        # (numba's cache entries, with the globals compiled in, are per build: disk_cache.py):
        # a failure that may be pending is waited for, and only one recorded keeps it checked.
        if source.dirty and not (self.build.options.get("cache") and
                                 runtime.settle(source)):
            return kernel, args, source
        return self.plain(), args, source

    def bind(self, args: tuple) -> tuple:
        """The launch's arguments with defaults filled in, or numba's TypeError naming the
        user's parameter (never a hidden one)."""
        signature = self._signature
        if signature is None:
            signature = self._signature = inspect.signature(self.build.py_func)
        bound = signature.bind(*args)          # raises TypeError as numba would
        bound.apply_defaults()
        return tuple(bound.args)

    def variant_for(self, args, launch_config):
        """The kernel, or the launch variant without the checks that the launch predicates
        holding for these arguments and this configuration prove."""
        variants = self.variants
        if variants is None:
            variants = self.launch_variants()
        if variants is False:
            return self.kernel
        return variants.for_launch(args, launch_config) or self.kernel

    def launch_variants(self):
        """The kernel's LaunchVariants (made on first use), or False: it has none."""
        with self.build.lock:
            if self.variants is None:
                predicates = self.build.final_rewrite().launch_predicates
                # (A hook on numba's compile sees the kernel's own compiles, extensions apply
                # to the kernel's own launches: no variant then.)
                if not predicates or "_compile_for_args" in self.attrs or \
                        self.build.options.get("extensions"):
                    self.variants = False
                else:
                    self.variants = LaunchVariants(predicates, self._variant)
            return self.variants

    def _variant(self, subset):
        """The kernel of the launch variant without the checks `subset` of the launch
        predicates proves (None: all of them)."""
        build = LaunchVariantBuild(self.build, subset)
        form = self.make_kernel(build)
        self._builds[form] = build
        return form

    def forms(self) -> list:
        """The kernel and every other form of it made so far (variants, numba's own)."""
        forms = [self.kernel]
        if self.variants:
            forms += self.variants.kernels()
        if self._plain is not None:
            forms.append(self._plain)
        return forms

    # -- plain launches (plain.py) ----------------------------------------------------------
    def _check_free(self, form) -> bool:
        free = self._free[form] = check_free(self._builds[form].final_rewrite())
        return free

    def free(self, form=None) -> bool:
        """`form` (a form of the kernel; the kernel itself by default) holds no check."""
        form = self.kernel if form is None else form
        free = self._free.get(form)
        return self._check_free(form) if free is None else free

    def plain_allowed(self) -> bool:
        """Nothing but this kernel's own code decides what its launches run (no hook on
        numba's compile, no extensions, not called with *args first) and the switch is on."""
        fixed = self._fixed
        if fixed is None:
            fixed = self._fixed = (not self.build.options.get("extensions")
                                   and not self.hidden_first
                                   and simulator_runs(self.build.py_func))
        return (fixed and config.get().plain_launches and not self.marks_hidden
                and "_compile_for_args" not in self.attrs)

    def plain(self):
        """numba's own kernel of the function (made once)."""
        plain = self._plain
        if plain is None:
            with self.build.lock:
                plain = self._plain
                if plain is None:
                    plain = self._plain = self.make_plain()
        return plain

    @property
    def plain_made(self):
        """numba's own kernel of the function if made, else None."""
        return self._plain

    def eager_plain(self) -> bool:
        """A kernel with no check, decorated with signatures: numba's own kernel, compiled now
        (what its launches run while nothing is pending). False: compile the checked one."""
        if not self.plain_allowed() or not self.free():
            return False
        return self._compile_plain()

    def _compile_plain(self) -> bool:
        """numba's own kernel compiled now; False (and its failure noted) where it fails."""
        try:
            self.plain()
        except COMPILE_ERRORS as err:
            self._plain = None
            self.plain_failed(err)
            return False
        return True

    def eager_variant(self, compile_checked) -> bool:
        """A kernel with launch variants, decorated with signatures: the variant of all its
        predicates compiled now -- what its launches run where they all hold, numba's own
        kernel instead when that variant holds no check and nothing is pending -- and not
        the checked kernel too (a second compile of nearly the same code, which launches
        where a predicate fails compile when they come). False: compile the checked one.
        A variant that does not compile: the checked kernel is compiled (`compile_checked()`)
        and, if it fails too, the variant's error raised (numba's words for a first compile
        of it; a second compile of the same error is worded apart)."""
        if self.build.options.get("cache"):
            return False      # numba's on-disk cache: its records are the checked kernel's
        variants = self.launch_variants()
        if not variants:
            return False
        if check_free(self.build.final_rewrite().launch_variant) and self.plain_allowed():
            return self._compile_plain()
        try:
            variants.full_variant()
        except Exception as err:
            log.debug("kernel %r: its launch variant did not compile at decoration (%s: %s)",
                      self.build.name, type(err).__name__, err)
            try:
                compile_checked()
            except Exception:      # noqa: BLE001 - the user's error: the first words of it
                raise err from None
        return True

    def plain_failed(self, err) -> None:
        """numba could not compile the function as written: no plain launches."""
        log.debug("kernel %r: numba's own kernel of it does not compile (%s: %s); its launches "
                  "run safekern's", self.build.name, type(err).__name__, err)
        self._fixed = False

    def checked_for(self, args, launch_config):
        """What runs when numba's own kernel fails to compile: the checked form."""
        if launch_config is None or self.variants is False:
            return self.kernel
        return self.variant_for(args, launch_config)

    def inspected(self, user_types):
        """The form whose code numba's inspect_* describe for these argument types (the
        user's): numba's own kernel when launches with them ran it -- or, for a kernel with
        no check, would run it -- else None (the kernel)."""
        if not self.plain_allowed():
            return None
        if self.free():
            return self.plain()
        plain = self._plain
        if plain is not None and user_types in plain.launched_user_types():
            return plain
        return None

    # -- numba's own launch path only ----------------------------------------------------
    def numba_only(self) -> None:
        """Extensions were added to numba's list: one kernel they apply to, numba's launch."""
        self.variants = False
        self.marks_hidden = True

    def reset(self) -> None:
        """Every form made anew on its next use (a recompile: compiles.py)."""
        self.variants = None
        self._plain = None
        self._free.clear()
        self._builds = {self.kernel: self.build}


# Calls of these record failures (a checked device function's call is looked into instead).
_RECORDING = check_kinds.helpers("python")


def check_free(rewritten, _seen=None) -> bool:
    """No call in `rewritten` can record a failure (so a launch of it may be plain: plain.py). A device function
    specialised for function arguments (bound, resolver.py) is not looked into: not free."""
    seen = set() if _seen is None else _seen
    if id(rewritten) in seen:
        return True                  # recursion: free if the rest of the cycle is
    seen.add(id(rewritten))
    if any(isinstance(node, ast.Assert) for node in walk(rewritten.parsed.tree)):
        return False                 # SAFEKERN_KERNEL_ASSERTS=0 compiled it away: not numba's
    # (trees.walk: ast.walk's nodes in its order, in half the time; a launch asks this of
    # each form it may run, the first time)
    for node in walk(rewritten.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name = node.func.id
        if name.startswith(names.DEVICE):
            dev = rewritten.device_calls.get(name)
            if dev is None or getattr(dev, "bound_from", None) is not None:
                return False
            if not check_free(dev.__safekern_build__().final_rewrite(), seen):
                return False
        elif name.startswith(_RECORDING):
            return False
    return True



__all__ = ["LaunchDispatch", "check_free"]
