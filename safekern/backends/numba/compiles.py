"""What numba's dispatcher says about its compiles, for a checked kernel and all its builds.

A launch of a checked kernel runs one of several builds of its function: the checked kernel, a
launch variant (predicates.py), or numba's own kernel of the function (plain.py); each is a
numba dispatcher of its own. numba's dispatcher answers about the one kernel it compiles; here a
checked kernel answers the same questions about every build its launches ran:

- `stats`: numba's cache hits and misses (cache=True: disk_cache.py), summed over the builds,
  keyed by the user's argument types; compiles made only to answer a question (`overloads` of a
  kernel that ran numba's own build, surface.py) are not counted, as numba counts none there;
- `signatures`: the argument types compiled for, without compiling anything to say so;
- `recompile()`: every argument-type tuple compiled so far compiled afresh, the function's
  globals read again (numba freezes them at compile time), numba's on-disk entries replaced;
  no build keeps a binary (nor the short path a loaded kernel) from before;
- `_launch_config_specializations`: numba's per-launch-configuration dispatchers of
  launch-configuration-sensitive kernels (numba.cuda.launchconfig), of every build.

A CheckedKernel (kernel.py) has a `Compiles` and answers those names through it; the Compiles
reads the kernel's public parts only: its forms (`forms()`), each form's Build (`build.numba`:
numba's dispatcher, if built), surface (`surface.user`) and `launched_types()`.
"""
from __future__ import annotations

from collections import Counter

from .surface import SIMULATOR


def _by_user_types(total: Counter, counts, form) -> None:
    """numba's per-signature `counts` of `form` added to `total`, keyed by the user's types."""
    for sig, n in counts.items():
        total[form.surface.user(getattr(sig, "args", sig))] += n


class Compiles:
    """numba's compile record for one checked kernel and its forms (see the module doc)."""

    __slots__ = ("kernel", "retired")

    def __init__(self, kernel):
        self.kernel = kernel
        #: (hits, misses) of launch variants a recompile dropped (made again when needed)
        self.retired = None

    def stats(self):
        kernel = self.kernel
        if SIMULATOR:
            return kernel.numba_dispatcher().stats    # (the simulator's has none: numba's error)
        from numba.cuda.dispatcher import _CompileStats

        retired = self.retired
        hits = Counter(retired[0]) if retired else Counter()
        misses = Counter(retired[1]) if retired else Counter()
        for form in kernel.forms():
            numba = form.build.numba
            if numba is None:
                continue
            _by_user_types(hits, numba._cache_hits, form)
            _by_user_types(misses, numba._cache_misses, form)
        if kernel.build.numba is None and not kernel.options.get("cache"):
            # numba's NullCache's path: nothing compiled only to say so (a kernel decorated
            # with signatures may have compiled its launch variant only: kernel.py)
            cache_path = None
        else:
            cache_path = kernel.numba_dispatcher()._cache.cache_path
        return _CompileStats(cache_path=cache_path, cache_hits=hits, cache_misses=misses)

    def signatures(self) -> list:
        kernel = self.kernel
        if SIMULATOR:
            return list(kernel.overloads)
        found = []
        failed = kernel.surface.failed_types
        for form in kernel.forms():
            for argtypes in form.launched_types():
                user = form.surface.user(getattr(argtypes, "args", argtypes))
                if user not in found and argtypes not in failed:
                    found.append(user)
        dev = kernel.device_function_made
        if dev is not None:
            found += [user for user in dev.device_compiles() if user not in found]
        return found

    def launch_config_specializations(self) -> dict:
        found = {}
        for form in self.kernel.forms():
            numba = form.build.numba
            if numba is not None and not SIMULATOR:
                found.update(numba._launch_config_specializations)
        return found

    def recompile(self) -> None:
        """numba's `recompile()` (see the module doc)."""
        kernel = self.kernel
        with kernel.build.lock:
            forms = kernel.forms()
            plain = kernel.dispatch.plain_made if kernel.dispatch is not None else None
            todo = [(form, list(form.launched_types())) for form in (kernel, plain)
                    if form is not None]
            counters = {}
            if self.retired is None:
                self.retired = (Counter(), Counter())
            for form in forms:
                numba = form.build.numba
                if numba is None or SIMULATOR:
                    continue
                # numba's on-disk entries go first (the builds share numba's index file).
                numba._cache.flush()
                if form is kernel or form is plain:
                    counters[form is kernel] = (numba._cache_hits, numba._cache_misses,
                                                numba.targetoptions.get("extensions"))
                else:                           # a launch variant: made again when needed
                    _by_user_types(self.retired[0], numba._cache_hits, form)
                    _by_user_types(self.retired[1], numba._cache_misses, form)
            kernel.forget_builds()
            for form, argtypes in todo:
                target = kernel if form is kernel else kernel.dispatch.plain()
                numba = target.numba_dispatcher()
                if SIMULATOR:
                    continue
                kept = counters.get(form is kernel)
                if kept is not None:
                    numba._cache_hits, numba._cache_misses = kept[0], kept[1]
                    if kept[2]:                 # extensions the user added to numba's list
                        numba.targetoptions["extensions"] = kept[2]
                for types in argtypes:
                    numba.compile(tuple(getattr(types, "args", types)))


__all__ = ["Compiles"]
