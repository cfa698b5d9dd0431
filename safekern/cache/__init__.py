"""The persistent kernel cache: one file of compiled kernels (docs/cache.md, docs/cache-format.md).

`Cache` is the single-file store (bytes keys to bytes payloads); `safekern.cache.kernels` builds
the kernel cache on it. Importing this package imports no GPU library.
"""
from .store import Cache, Entry
from .trust import CacheWarning
from .verify import VerifyReport

__all__ = ["Cache", "CacheWarning", "Entry", "VerifyReport"]
