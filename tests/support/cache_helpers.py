"""Shared by the tests/cache/ files: deterministic keys and payloads, warning capture."""
from __future__ import annotations

import contextlib
import hashlib
import random
import warnings

import pytest

from safekern.cache import trust


def key(*parts) -> bytes:
    return ("key/" + "/".join(map(str, parts))).encode()


def payload(*parts, size: int | None = None, max_size: int = 4096) -> bytes:
    """Bytes that depend only on `parts` (so any reader can tell a wrong payload)."""
    seed = int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little")
    rng = random.Random(seed)
    n = size if size is not None else rng.randrange(0, max_size)
    return rng.randbytes(n)


@pytest.fixture(autouse=True)
def fresh_cache_warnings():
    """Each test sees the once-per-process cache warnings afresh."""
    trust._warned.clear()
    yield
    trust._warned.clear()


@contextlib.contextmanager
def cache_warnings():
    """Collect the CacheWarnings raised inside the block (every one, no de-duplication by
    location)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = []
        yield got
    got.extend(w for w in caught if issubclass(w.category, trust.CacheWarning))
