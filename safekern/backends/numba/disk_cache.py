"""numba's own on-disk cache (`cache=True`) for every build of a checked kernel.

A kernel decorated with `cache=True` keeps its binaries where numba keeps them, as numba does
(docs/cache.md, "numba-cuda's cache=True"): index and data files beside the source, in
`__pycache__` (or numba's fallback locations), named by the *user's* function -- its module,
qualified name and first line -- whichever build of it a launch runs:

- numba's own kernel of the function (plain.py) is numba's `cache=True` unchanged: its index
  key is the one numba computes for the user's function, so plain numba and safekern share it;
- the checked kernel and its launch variants are compiled from the rewrite (build.py). Their
  cache is `KernelDiskCache`, numba's `CUDACache` (the extension point numba's dispatcher
  consults as `_cache`) made for the user's function, so the files, the source stamp that
  invalidates them and the closure values in the key are the user's function's, and with a tag
  added to the index key: a digest of the rewrite and of safekern's check helpers, so that no
  build ever loads another's binary (the checked kernel, a launch variant without some checks,
  another version of safekern).

What numba's cache semantics mean follows from that: a global's value is compiled in and not
part of the key (numba's); `recompile()` overwrites the entries; `stats` counts numba's hits and
misses; launch-configuration-sensitive kernels get numba's marker file and per-configuration
keys (numba.cuda.dispatcher.CUDACache).
"""
from __future__ import annotations

import hashlib

from numba import cuda

from .surface import SIMULATOR


def _cache_class():
    from numba.cuda.dispatcher import CUDACache

    class KernelDiskCache(CUDACache):
        """numba's CUDACache for `py_func` (the user's function), its index keys tagged."""

        def __init__(self, py_func, tag: str):
            self._safekern_tag = tag
            super().__init__(py_func)

        def _index_key(self, sig, codegen):
            return super()._index_key(sig, codegen) + (("safekern", self._safekern_tag),)

    return KernelDiskCache


_CLASS = None


def disk_cache(py_func, tag: str):
    """numba's on-disk cache of a build of `py_func` (see the module doc)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _cache_class()
    return _CLASS(py_func, tag)


def rewrite_tag(rewritten) -> str:
    """The index-key tag of a build compiled from `rewritten`: its source (the checks are in
    it) and safekern's part of code generation."""
    from .keys import codegen_digest

    h = hashlib.sha256(rewritten.source.encode())
    h.update(codegen_digest().encode())
    return h.hexdigest()[:32]


def jit_cached(fn, sig_arg, options: dict, py_func, tag: str):
    """`cuda.jit(sig_arg, **options)(fn)` for a kernel (`sig_arg`: None, a signature or a
    list of them) whose binaries go to `disk_cache(py_func, tag)` instead of a cache of `fn`:
    numba's decorator with the cache in place before any compile (with signatures numba
    compiles at once, each loaded from the cache or stored there, as numba's `jit` does)."""
    options = dict(options)
    options.pop("cache", None)
    disp = cuda.jit(**options)(fn)
    if SIMULATOR:
        return disp
    disp._cache = disk_cache(py_func, tag)
    _specializations_cached(disp, py_func, tag)
    if sig_arg is None:
        return disp
    from numba.cuda import types
    from numba.cuda.core import sigutils

    for sig in (sig_arg if isinstance(sig_arg, list) else [sig_arg]):
        argtypes, restype = sigutils.normalize_signature(sig)
        if restype and restype != types.void:
            raise TypeError("CUDA kernel must have void return type.")
        disp.compile(argtypes)
    disp._specialized = not isinstance(sig_arg, list)
    disp.disable_compile()
    return disp


def _specializations_cached(disp, py_func, tag: str) -> None:
    """numba makes a dispatcher per launch configuration of a launch-configuration-sensitive
    kernel, with a cache of the function it compiles (here the rewrite, whose closure values
    numba would not see): each gets this build's cache instead, keyed for its configuration."""
    make = disp._get_launch_config_specialization

    def specialization(key):
        made = disp._launch_config_specializations.get(key)
        if made is not None:
            return made
        made = make(key)
        made._cache = disk_cache(py_func, tag)
        made._configure_cache_for_launch_config(None)
        return made

    disp._get_launch_config_specialization = specialization


__all__ = ["disk_cache", "rewrite_tag", "jit_cached"]
