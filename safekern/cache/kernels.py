"""The kernel cache that backends use: compiled kernels keyed by everything that determines them.

    from safekern.cache.kernels import get_kernel_cache, pack_payload, unpack_payload
    kc = get_kernel_cache()            # None when SAFEKERN_CACHE=off or the cache is unusable
    payload = kc.get_or_compile(fields, compile_fn, describe="opencl kernel 'k'", meta={...})
    kc.reject(fields, reason="driver refused the binary")

`fields` names every input that changes the binary; the cache adds safekern's version and the
cache format version. A lookup tries the local file, then the remote tier when one is configured
(SAFEKERN_CACHE_REMOTE, remote.py; a hit there is copied into the local file). A miss compiles
with `compile_fn()` and stores the bytes it returns in both. One thread of this process at a time
compiles a key, and one process at a time per key (`locks.key_lock`), while the others wait up to
SAFEKERN_CACHE_LOCK_TIMEOUT seconds for its result -- after which they compile it themselves. The
remote lookup happens inside that wait, so the processes of a node ask Redis once per kernel. No
lock on the file is held while compiling. Problems with the cache never reach the caller: they
are logged on "safekern.cache", shown once as a CacheWarning, and the kernel is compiled uncached.
"""
from __future__ import annotations

import json
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Mapping

from .. import config
from . import keys
from .format import FORMAT_VERSION
from .locks import key_lock
from .store import Cache
from .trust import warn_once

log = logging.getLogger("safekern.cache")

FILE_NAME = f"kernels-v{FORMAT_VERSION}.cache"
_ADDED_FIELDS = ("safekern_version", "cache_format")


class CacheUnavailable(Exception):
    """No cache file can be used (why is the message)."""


def default_path() -> str:
    """`<user cache dir>/safekern/kernels-v<format>.cache`."""
    import platformdirs

    try:
        directory = platformdirs.user_cache_dir("safekern", appauthor=False)
    except Exception as exc:   # noqa: BLE001 - newer platformdirs raise without a home
        raise CacheUnavailable(f"no user cache directory ({exc}); set SAFEKERN_CACHE to a "
                               "file path") from None
    # With neither HOME nor a passwd entry, expanduser leaves "~" and the path is relative.
    if not os.path.isabs(directory) or directory.startswith("~"):
        raise CacheUnavailable(f"no user cache directory (HOME is not set; got {directory!r}); "
                               "set SAFEKERN_CACHE to a file path")
    return os.path.join(directory, FILE_NAME)


def resolve_path(setting: str | None) -> str:
    """The cache file for a SAFEKERN_CACHE setting (None or empty: the default path)."""
    if not setting:
        return default_path()
    path = os.path.expanduser(setting)
    if path.startswith("~"):
        raise CacheUnavailable(f"SAFEKERN_CACHE={setting!r}: cannot expand '~' (HOME is not set)")
    return os.path.abspath(path)


# -- payloads: plain data only ---------------------------------------------------------------

_PAYLOAD_MAGIC = b"SKPL\x01"


def pack_payload(meta: Mapping, blobs: Mapping[str, bytes]) -> bytes:
    """JSON-able `meta` and named binary blobs as one payload (tuples come back as lists)."""
    text = json.dumps(meta, sort_keys=True, allow_nan=False).encode("utf-8")
    parts = [_PAYLOAD_MAGIC, struct.pack("<I", len(text)), text, struct.pack("<I", len(blobs))]
    for name, blob in blobs.items():
        if not isinstance(name, str):
            raise TypeError(f"payload blob names must be str, got {name!r}")
        if not isinstance(blob, (bytes, bytearray, memoryview)):
            raise TypeError(f"payload blob {name!r} is {type(blob).__name__}, not bytes")
        raw = name.encode("utf-8")
        parts += [struct.pack("<I", len(raw)), raw, struct.pack("<Q", len(blob)), bytes(blob)]
    return b"".join(parts)


def unpack_payload(payload: bytes) -> tuple[dict, dict[str, bytes]]:
    """(meta, blobs) from `pack_payload`; ValueError when the bytes are not such a payload."""
    view = memoryview(payload)
    pos = 0

    def take(n):
        nonlocal pos
        if n < 0 or pos + n > len(view):
            raise ValueError("truncated safekern payload")
        chunk = view[pos:pos + n]
        pos += n
        return chunk

    if bytes(take(len(_PAYLOAD_MAGIC))) != _PAYLOAD_MAGIC:
        raise ValueError("not a safekern payload")
    (text_len,) = struct.unpack("<I", take(4))
    meta = json.loads(bytes(take(text_len)).decode("utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("safekern payload metadata is not a JSON object")
    (count,) = struct.unpack("<I", take(4))
    blobs = {}
    for _ in range(count):
        (name_len,) = struct.unpack("<I", take(4))
        name = bytes(take(name_len)).decode("utf-8")
        (blob_len,) = struct.unpack("<Q", take(8))
        blobs[name] = bytes(take(blob_len))
    if pos != len(view):
        raise ValueError("trailing bytes after safekern payload")
    return meta, blobs


# -- the kernel cache ------------------------------------------------------------------------

def kernel_key(fields: Mapping) -> bytes:
    """The key material of `fields` plus safekern's version and the cache format."""
    from .._version import __version__

    clash = [name for name in _ADDED_FIELDS if name in fields]
    if clash:
        raise ValueError(f"cache key fields {clash} are reserved; the cache adds them")
    full = dict(fields)
    full["safekern_version"] = __version__
    full["cache_format"] = FORMAT_VERSION
    return keys.encode(full)


class _Flight:
    """One compile in progress in this process; other threads wanting the key wait on it."""

    def __init__(self):
        self.done = threading.Event()
        self.payload: bytes | None = None


# (cache path, key digest) -> _Flight, shared by every KernelCache of this process
_flights: dict[tuple[str, bytes], _Flight] = {}
_flights_lock = threading.Lock()


def _reset_after_fork() -> None:
    global _flights_lock, _instance_lock
    _flights.clear()
    _flights_lock = threading.Lock()
    _instance_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


class KernelCache:
    """Compiled kernels in a `Cache`, keyed by `keys.encode(fields + versions)`."""

    def __init__(self, store: Cache, lock_timeout: float = 10.0, remote=None):
        self.store = store
        self.lock_timeout = lock_timeout
        #: the remote tier (remote.RemoteTier), or None
        self.remote = remote
        self._rejected: dict[bytes, str] = {}  # digest -> why its stored binary is not used

    @property
    def path(self) -> str:
        return self.store.path

    def key(self, fields: Mapping) -> bytes:
        return kernel_key(fields)

    def _guarded(self, what: str, action, default):
        """Run a store operation; a bug or surprise in the cache must not stop the kernel."""
        try:
            return action()
        except Exception as exc:   # noqa: BLE001 - by design: the cache is an optimisation
            log.debug("cache %s failed", what, exc_info=True)
            warn_once(("internal", what), f"safekern kernel cache: {what} failed "
                      f"({type(exc).__name__}: {exc}); going on uncached")
            return default

    def lookup(self, fields: Mapping, describe: str = "kernel") -> bytes | None:
        """The cached payload for `fields` (local file, then remote tier), or None; compiles
        nothing. The remote tier is asked as get_or_compile asks it: by one thread and process
        of the node at a time, while the others wait for its copy (or its build)."""
        key = self.key(fields)
        digest = keys.digest(key)
        payload = self._lookup(key, digest, describe)
        if payload is not None or self.remote is None:
            return payload
        return self._one_at_a_time(key, digest, fields, None, describe, None)

    def _lookup(self, key: bytes, digest: bytes, describe: str) -> bytes | None:
        if digest in self._rejected:
            return None
        payload = self._guarded("lookup", lambda: self.store.get(key), None)
        if payload is not None:
            log.debug("hit: %s (key %s, %d bytes)", describe, digest.hex()[:12], len(payload))
        return payload

    def _remote_lookup(self, key, digest, describe, budget) -> bytes | None:
        """The remote tier's checked payload for `key`, copied into the local file; or None."""
        if digest in self._rejected:
            return None
        found = self._guarded("remote lookup", lambda: self.remote.get(key, digest, budget),
                              None)
        if found is None:
            return None
        payload, meta = found
        meta = dict(meta, describe=describe)
        copied = self._guarded("store", lambda: self.store.put(key, payload, meta,
                                                               replace=False), False)
        log.debug("hit (remote %s): %s (key %s, %d bytes; %s)", self.remote.shown_url, describe,
                  digest.hex()[:12], len(payload),
                  "copied into the local file" if copied else "not copied into the local file")
        return payload

    def get_or_compile(self, fields: Mapping, compile_fn: Callable[[], bytes], describe: str =
                       "kernel", meta: Mapping | None = None) -> bytes:
        """The cached payload for `fields`, or `compile_fn()`'s result, stored for next time."""
        key = self.key(fields)
        digest = keys.digest(key)
        payload = self._lookup(key, digest, describe)
        if payload is not None:
            return payload
        return self._one_at_a_time(key, digest, fields, compile_fn, describe, meta)

    def get_or_build(self, fields: Mapping, build: Callable, load: Callable, *,
                     describe: str = "kernel", meta: Mapping | None = None,
                     refused: tuple = (Exception,)):
        """What a backend keeps: `load(payload)` of the cached payload for `fields`, else of
        what `build()` makes, stored for next time -- the one build-or-load path.

        `build()` returns the payload (bytes), or `(payload, value)` when building already made
        the usable value (then it is not loaded again). If `load` raises one of `refused` for a
        cached payload (the driver refuses the binary, the record is stale), the entry is
        rejected and built again, once; a second refusal propagates."""
        built = []

        def compile_fn() -> bytes:
            made = build()
            if isinstance(made, tuple):
                payload, value = made
                built.append(value)
                return payload
            return made

        for attempt in (1, 2):
            payload = self.get_or_compile(fields, compile_fn, describe=describe, meta=meta)
            if built:
                return built[0]
            try:
                return load(payload)
            except refused as err:
                if attempt == 2:
                    raise
                self.reject(fields, f"{type(err).__name__}: {err}", describe=describe)

    def _one_at_a_time(self, key, digest, fields, compile_fn, describe, meta) -> bytes | None:
        """`_compile` in one thread of this process per key at a time; the other threads wait
        for its result (at most lock_timeout seconds, then go on by themselves)."""
        budget = self.remote.budget() if self.remote is not None else None
        slot = (self.path, digest)
        while True:
            with _flights_lock:
                flight = _flights.get(slot)
                leader = flight is None
                if leader:
                    flight = _flights[slot] = _Flight()
            if leader:
                break
            if not flight.done.wait(self.lock_timeout):
                # As for another process's compile: a bounded wait, then compile here too. Not
                # under the key lock, which this process already holds for the other thread.
                warn_once(("flight", self.path), f"safekern kernel cache: waited "
                          f"{self.lock_timeout:g} s for another thread compiling {describe}; "
                          + ("compiling it here too" if compile_fn else "going on without it"))
                return self._compile(key, digest, fields, compile_fn, describe, meta, budget,
                                     cross_process=False)
            if flight.payload is not None:
                return flight.payload
            # The compile in the other thread failed (or it only looked the key up): try again
            # here.
        try:
            flight.payload = self._compile(key, digest, fields, compile_fn, describe, meta,
                                           budget)
            return flight.payload
        finally:
            with _flights_lock:
                _flights.pop(slot, None)
            flight.done.set()

    def _compile(self, key, digest, fields, compile_fn, describe, meta, budget,
                 cross_process=True) -> bytes | None:
        """Under the key's lock across processes: the local file again, the remote tier, then
        `compile_fn()` (None: no compile, None is returned), stored in both."""
        writable = self.store.writable and cross_process
        lock_path = self.path + ".keylock"
        with (key_lock(lock_path, digest, self.lock_timeout) if writable else _no_lock()) as held:
            if held:
                # Another process may have compiled it while this one waited for the key.
                payload = self._lookup(key, digest, describe)
                if payload is not None:
                    log.debug("%s was compiled by another process", describe)
                    return payload
            elif held is False:
                warn_once(("keylock", self.path), f"safekern kernel cache: waited "
                          f"{self.lock_timeout:g} s for another process compiling {describe}; "
                          + ("compiling it here too" if compile_fn else "going on without it"))
            if self.remote is not None:
                # Under the key lock: one process of this node asks, the others find its copy
                # in the local file.
                payload = self._remote_lookup(key, digest, describe, budget)
                if payload is not None or compile_fn is None:
                    return payload
            self._log_miss(key, digest, fields, describe)
            start = time.perf_counter()
            payload = compile_fn()
            seconds = time.perf_counter() - start
            if not isinstance(payload, (bytes, bytearray, memoryview)):
                raise TypeError(f"compile_fn for {describe} returned {type(payload).__name__}, "
                                "not bytes")
            payload = bytes(payload)
            info = {"describe": describe, "compile_seconds": round(seconds, 4)}
            info.update(meta or {})
            stored = self._guarded("store", lambda: self.store.put(
                key, payload, info, replace=digest not in self._rejected), False)
            if not stored:
                log.debug("not stored: %s (%s)", describe, self.store.write_problem or
                          self.store.problem or "too large for the bound")
            else:
                self._rejected.pop(digest, None)
                log.info("store: %s (key %s, %d bytes, compiled in %.3f s)", describe,
                         digest.hex()[:12], len(payload), seconds)
            if self.remote is not None:
                meta_bytes = json.dumps(info, sort_keys=True, default=str).encode("utf-8")
                if self._guarded("remote store", lambda: self.remote.put(
                        key, digest, payload, meta_bytes, budget), False):
                    log.debug("store (remote %s): %s (key %s)", self.remote.shown_url,
                              describe, digest.hex()[:12])
            return payload

    def reject(self, fields: Mapping, reason: str, describe: str = "kernel") -> None:
        """Drop the entry for `fields` (its binary is unusable, e.g. the driver refused it); the
        next get_or_compile compiles again and replaces it."""
        key = self.key(fields)
        digest = keys.digest(key)
        self._rejected[digest] = reason
        log.info("reject: %s (key %s): %s", describe, digest.hex()[:12], reason)
        self._guarded("reject", lambda: self.store.delete(key), False)

    def _log_miss(self, key, digest, fields, describe) -> None:
        why = self._rejected.get(digest)
        log.info("miss: %s (key %s%s)", describe, digest.hex()[:12],
                 f"; its cached binary was rejected: {why}" if why else "")
        if not log.isEnabledFor(logging.DEBUG):
            return
        lines = self._guarded("debug listing", lambda: self._changes(key, describe), None)
        full = keys.decode(key)
        if lines:
            log.debug("miss: %s: key fields changed since the cached entry:\n  %s", describe,
                      "\n  ".join(lines))
        log.debug("miss: %s: key fields:\n  %s", describe, "\n  ".join(keys.describe(full)))

    def _changes(self, key: bytes, describe: str) -> list[str] | None:
        """How `key` differs from the newest cached entry with the same description."""
        same = [e for e in self.store.entries() if e.meta.get("describe") == describe]
        if not same:
            return None
        newest = max(same, key=lambda e: (e.created, e.offset))
        old = self.store.read_key(newest)
        if old is None:
            return None
        return keys.diff(keys.decode(old), keys.decode(key))


class _no_lock:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_instance: KernelCache | None = None
_instance_ident = None
_instance_lock = threading.Lock()


def get_or_build(fields: Mapping | None, build: Callable, load: Callable, *,
                 describe: str = "kernel", meta: Mapping | None = None,
                 refused: tuple = (Exception,), uncached: Callable | None = None):
    """`KernelCache.get_or_build` with the process's kernel cache; without one (off,
    unusable) or without `fields` (not cacheable), `uncached()` where given (the value alone:
    no payload is made that nothing would keep -- PoCL compiles every kernel of a program to
    hand out its binaries), else `build()`'s value, loaded if need be."""
    kc = get_kernel_cache() if fields is not None else None
    if kc is None:
        if uncached is not None:
            return uncached()
        made = build()
        return made[1] if isinstance(made, tuple) else load(made)
    return kc.get_or_build(fields, build, load, describe=describe, meta=meta, refused=refused)


def get_kernel_cache() -> KernelCache | None:
    """The process's kernel cache for the current configuration, or None when it is off, its
    SAFEKERN_CACHE_* settings are invalid, or no cache file can be used (a CacheWarning has said
    why). Never raises for the cache's sake; an invalid setting of anything else (SAFEKERN_CHECKS,
    SAFEKERN_LOG, ...) is config.get()'s ValueError naming the variable."""
    global _instance, _instance_ident
    cfg = config.get()
    if not cfg.cache_enabled:
        return None
    if cfg.cache_problem:
        # A bad SAFEKERN_CACHE_* value must not stop the kernel: it runs uncached.
        warn_once(("config", cfg.cache_problem), f"safekern kernel cache not used: invalid "
                  f"configuration: {cfg.cache_problem}; kernels run uncached")
        return None
    try:
        path, problem = resolve_path(cfg.cache), None
    except CacheUnavailable as exc:
        path, problem = None, str(exc)
    # The default path depends on HOME / XDG_CACHE_HOME, so the resolved path is part of this.
    ident = (path, problem, cfg.cache_max_bytes, cfg.cache_readonly, cfg.cache_lock_timeout,
             cfg.cache_remote, cfg.cache_remote_key, cfg.cache_remote_trust,
             cfg.cache_remote_timeout, cfg.cache_remote_problem)
    with _instance_lock:
        if ident != _instance_ident:
            if _instance is not None and _instance.remote is not None:
                _instance.remote.close()          # its worker thread would idle forever
            _instance, _instance_ident = _open(path, problem, cfg), ident
        return _instance


def _open(path, problem, cfg) -> KernelCache | None:
    if problem:
        warn_once(("path",), f"safekern kernel cache not used: {problem}; kernels run uncached")
        return None
    if cfg.cache_readonly and not os.path.exists(path):
        warn_once(("missing", path), f"safekern kernel cache not used: SAFEKERN_CACHE_READONLY "
                  f"is set but {path} does not exist; kernels run uncached")
        return None
    store = Cache(path, max_bytes=cfg.cache_max_bytes, readonly=cfg.cache_readonly,
                  lock_timeout=cfg.cache_lock_timeout)
    if not store.usable:
        return None
    return KernelCache(store, lock_timeout=cfg.cache_lock_timeout, remote=remote_tier(cfg))


def remote_tier(cfg):
    """The remote tier SAFEKERN_CACHE_REMOTE* ask for, or None when there is none or it cannot
    be used (one CacheWarning says why; the local file is used either way)."""
    if cfg.cache_remote is None and cfg.cache_remote_problem is None:
        return None
    if cfg.cache_remote_problem:
        warn_once(("remote-config", cfg.cache_remote_problem), f"safekern kernel cache: remote "
                  f"tier not used: invalid configuration: {cfg.cache_remote_problem}")
        return None
    from . import remote

    where = remote.redact_url(cfg.cache_remote)
    if cfg.cache_remote_key is None and not cfg.cache_remote_trust:
        # Whoever can write to the server could otherwise choose the binaries that run here.
        warn_once(("remote-trust", where), f"safekern kernel cache: remote tier {where} not "
                  "used: its entries could be written by anyone who can reach the server; set "
                  "SAFEKERN_CACHE_REMOTE_KEY to a secret shared by your nodes (entries are "
                  "then signed and checked), or SAFEKERN_CACHE_REMOTE_TRUST=1 if nobody else "
                  "can write to it")
        return None
    if not remote.client_available():
        warn_once(("remote-client",), f"safekern kernel cache: remote tier {where} not used: "
                  "the redis client is not installed (pip install 'safekern[redis]')")
        return None
    return remote.RemoteTier(cfg.cache_remote, secret=cfg.cache_remote_key,
                             trust=cfg.cache_remote_trust, timeout=cfg.cache_remote_timeout)
