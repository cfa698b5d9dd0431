"""The persistent kernel cache: one file of compiled kernels (docs/cache.md, docs/cache-format.md).

`Cache` is the single-file store (bytes keys to bytes payloads); `safekern.cache.kernels` builds
the kernel cache on it. Importing this package imports no GPU library.
"""
from .store import Cache, CacheWarning, Entry, VerifyReport

__all__ = ["Cache", "CacheWarning", "Entry", "VerifyReport"]
