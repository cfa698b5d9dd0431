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
"""
from __future__ import annotations

from collections import Counter

from .surface import SIMULATOR


class NumbaCompiles:
    """Mixin of CheckedKernel (kernel.py): see the module doc."""

    def _kernels(self) -> list:
        """This kernel and the builds of it made so far (launch variants, numba's own)."""
        return self.dispatch.forms() if self.dispatch is not None else [self]

    @property
    def stats(self):
        if SIMULATOR:
            return self._build().stats           # (the simulator's has none: numba's error)
        from numba.cuda.dispatcher import _CompileStats

        retired = self.__dict__.get("_retired_stats")
        hits = Counter(retired[0]) if retired else Counter()
        misses = Counter(retired[1]) if retired else Counter()
        for kernel in self._kernels():
            numba = kernel._numba
            if numba is None:
                continue
            for total, counts in ((hits, numba._cache_hits), (misses, numba._cache_misses)):
                for sig, n in counts.items():
                    total[kernel._user(getattr(sig, "args", sig))] += n
        return _CompileStats(cache_path=self._build()._cache.cache_path, cache_hits=hits,
                             cache_misses=misses)

    @property
    def signatures(self) -> list:
        if SIMULATOR:
            return list(self.overloads)
        found = []
        for kernel in self._kernels():
            for argtypes in kernel._launched_types():
                user = kernel._user(getattr(argtypes, "args", argtypes))
                if user not in found and argtypes not in self.__dict__.get("_failed_types", ()):
                    found.append(user)
        dev = self.__dict__.get("_device_function")
        if dev is not None and dev._numba is not None:
            for key in dev._numba.overloads:
                user = dev._user(key)
                if user not in found:
                    found.append(user)
        return found

    @property
    def _launch_config_specializations(self) -> dict:
        found = {}
        for kernel in self._kernels():
            numba = kernel._numba
            if numba is not None and not SIMULATOR:
                found.update(numba._launch_config_specializations)
        return found

    def recompile(self):
        """numba's `recompile()` (see the module doc)."""
        with self._lock:
            kernels = self._kernels()
            plain = self.dispatch.plain_made if self.dispatch is not None else None
            todo = [(kernel, list(kernel._launched_types())) for kernel in (self, plain)
                    if kernel is not None]
            counters = {}
            retired = self.__dict__.setdefault("_retired_stats", (Counter(), Counter()))
            for kernel in kernels:
                numba = kernel._numba
                if numba is None or SIMULATOR:
                    continue
                # numba's on-disk entries go first (the builds share numba's index file).
                numba._cache.flush()
                if kernel is self or kernel is plain:
                    counters[kernel is self] = (numba._cache_hits, numba._cache_misses,
                                                numba.targetoptions.get("extensions"))
                else:                           # a launch variant: made again when needed
                    for total, counts in zip(retired, (numba._cache_hits,
                                                       numba._cache_misses)):
                        for sig, n in counts.items():
                            total[kernel._user(getattr(sig, "args", sig))] += n
            self._forget_builds()
            for kernel, argtypes in todo:
                target = self if kernel is self else self.dispatch.plain()
                numba = target._build()
                if SIMULATOR:
                    continue
                kept = counters.get(kernel is self)
                if kept is not None:
                    numba._cache_hits, numba._cache_misses = kept[0], kept[1]
                    if kept[2]:                 # extensions the user added to numba's list
                        numba.targetoptions["extensions"] = kept[2]
                for types in argtypes:
                    numba.compile(tuple(getattr(types, "args", types)))

    def _forget_builds(self) -> None:
        """Every build of this kernel made anew on its next use, from the function's names as
        they are then (the rewrite too: it may have used a global's value)."""
        self._numba_build.reset()
        self.__dict__.pop("_failed_types", None)
        if self.dispatch is not None:
            self.dispatch.reset()
        if self.__dict__.get("_binary", getattr(type(self), "_binary", None)) is not None:
            from .launch import BinaryLauncher

            self._binary = BinaryLauncher(self._numba_build)


__all__ = ["NumbaCompiles"]
