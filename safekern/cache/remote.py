"""The remote tier: compiled kernels shared by the nodes of a cluster through Redis.

`KernelCache` looks a kernel up in the local file first, then here (a hit is copied into the
local file), and compiles it only when neither has it; a compiled kernel goes to both. This
module is the Redis side (docs/cache.md, "A cluster: the remote tier"; the entry layout is in
docs/cache-format.md):

- **Trust.** Whoever can write to the Redis server could put any binary there, and a binary runs
  on your GPU. With a secret (SAFEKERN_CACHE_REMOTE_KEY) every entry is signed with
  HMAC-SHA256 over its header, key, metadata and payload, and an entry that is unsigned, badly
  signed, or stored under another key is a miss (one CacheWarning). Without a secret, entries
  are used only when SAFEKERN_CACHE_REMOTE_TRUST=1 says the server is trusted. A payload is
  plain data (JSON and binaries) in either case: nothing from Redis is executed as host code.
- **Bounds.** One kernel waits for Redis at most `timeout` seconds in all (its lookup and, after
  a compile, its store: `Budget`). Each operation runs on a worker thread that owns the
  connection, and the caller waits for it only as long as its budget allows, so a server that
  is down, slow, stopped or killed mid-answer costs at most that; the socket timeouts (the same
  value) make the abandoned worker give up soon after.
- **Faults.** A failure or a timeout skips the tier for `retry_after` seconds (one CacheWarning
  per process; each failure is logged), then it is tried again. A damaged or truncated entry is
  a miss. A full server (maxmemory with noeviction) refuses stores: one warning, and stores are
  skipped for `retry_after` seconds while lookups go on.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import os
import queue
import struct
import threading
import time
import weakref

from ..config import redact_url
from ..memo import BoundedMemo
from .trust import warn_once

log = logging.getLogger("safekern.cache")

#: Redis key of an entry: this prefix and the hex sha256 of the key material
PREFIX = "safekern:v1:"
ENTRY_MAGIC = b"SKRE"
ENTRY_VERSION = 1
FLAG_SIGNED = 1
# magic, version, flags, reserved, key_len, meta_len, payload_len
_HEADER = struct.Struct("<4sBBHIIQ")
HEADER_SIZE = _HEADER.size           # 24
CHECKSUM_SIZE = 16                   # blake2b of header and body: damage, not tampering
SIGNATURE_SIZE = 32                  # HMAC-SHA256
SIGNING_CONTEXT = b"safekern remote entry v1\x00"


def redis_key(digest: bytes) -> str:
    return PREFIX + digest.hex()


def _signature(secret: bytes, signed_part: bytes) -> bytes:
    return hmac.new(secret, SIGNING_CONTEXT + signed_part, hashlib.sha256).digest()


def pack_entry(key: bytes, meta: bytes, payload: bytes, secret: bytes | None) -> bytes:
    """The Redis value of an entry; signed when `secret` is given."""
    head = _HEADER.pack(ENTRY_MAGIC, ENTRY_VERSION, FLAG_SIGNED if secret else 0, 0, len(key),
                        len(meta), len(payload))
    body = b"".join((head, key, meta, payload))
    out = [body, hashlib.blake2b(body, digest_size=CHECKSUM_SIZE).digest()]
    if secret:
        out.append(_signature(secret, body))
    return b"".join(out)


class EntryRejected(ValueError):
    """An entry that must not be used; `kind` is "damaged", "unsigned", "bad signature" or
    "another key" (what the one warning per kind names)."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def unpack_entry(data: bytes, key: bytes | None, secret: bytes | None) -> tuple[bytes, dict,
                                                                                 bytes, bool]:
    """(key, meta, payload, signed) of an entry, after checking it: intact, for `key` (None:
    any), and, when `secret` is given, signed with it. Raises EntryRejected."""
    if len(data) < HEADER_SIZE + CHECKSUM_SIZE:
        raise EntryRejected("damaged", f"{len(data)} bytes, shorter than any entry")
    magic, version, flags, _, key_len, meta_len, payload_len = _HEADER.unpack_from(data)
    if magic != ENTRY_MAGIC or version != ENTRY_VERSION:
        raise EntryRejected("damaged", "not a safekern entry of this version")
    end = HEADER_SIZE + key_len + meta_len + payload_len
    signed = bool(flags & FLAG_SIGNED)
    expected = end + CHECKSUM_SIZE + (SIGNATURE_SIZE if signed else 0)
    if len(data) != expected:
        raise EntryRejected("damaged", f"{len(data)} bytes where its header says {expected}")
    body = memoryview(data)[:end]
    if hashlib.blake2b(body, digest_size=CHECKSUM_SIZE).digest() != data[end:end +
                                                                           CHECKSUM_SIZE]:
        raise EntryRejected("damaged", "checksum mismatch")
    if secret is not None:
        if not signed:
            raise EntryRejected("unsigned", "SAFEKERN_CACHE_REMOTE_KEY is set and the entry "
                                "carries no signature")
        if not hmac.compare_digest(_signature(secret, bytes(body)), data[end + CHECKSUM_SIZE:]):
            raise EntryRejected("bad signature", "its signature does not match "
                                "SAFEKERN_CACHE_REMOTE_KEY")
    stored_key = bytes(body[HEADER_SIZE:HEADER_SIZE + key_len])
    if key is not None and stored_key != key:
        raise EntryRejected("another key", "the entry belongs to another kernel")
    try:
        meta = json.loads(bytes(body[HEADER_SIZE + key_len:HEADER_SIZE + key_len + meta_len]))
    except ValueError:
        meta = None
    if not isinstance(meta, dict):
        meta = {}
    return stored_key, meta, bytes(body[HEADER_SIZE + key_len + meta_len:]), signed


def _peek_meta(data: bytes) -> dict:
    """The metadata of an entry that failed its checks, when its header makes sense; else {}."""
    if len(data) < HEADER_SIZE or data[:4] != ENTRY_MAGIC:
        return {}
    _, _, _, _, key_len, meta_len, _ = _HEADER.unpack_from(data)
    try:
        meta = json.loads(data[HEADER_SIZE + key_len:HEADER_SIZE + key_len + meta_len])
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


class Budget:
    """The time one kernel may still spend waiting for the remote tier (seconds)."""

    __slots__ = ("left",)

    def __init__(self, seconds: float):
        self.left = seconds


class _Job:
    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Event()
        self.result = None
        self.error: BaseException | None = None


class _Worker:
    """A daemon thread that owns one Redis connection and runs jobs on it in order. A worker
    whose caller stopped waiting is retired: it finishes (or times out on) its job, closes its
    connection and ends; the next job gets a fresh worker. `connect` must not hold the tier:
    the thread holds the worker, and a tier that is dropped retires its worker (a finalizer)
    -- issue 29: 42 idle workers, each keeping its tier alive, stayed in the test process."""

    def __init__(self, connect):
        self._connect = connect
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name="safekern-remote-cache", daemon=True).start()

    def submit(self, fn) -> _Job:
        job = _Job(fn)
        self._jobs.put(job)
        return job

    def retire(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        client = None
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                if client is None:
                    client = self._connect()
                job.result = job.fn(client)
            except BaseException as exc:     # noqa: BLE001 - handed to the caller
                job.error = exc
                client = _close(client)      # the connection's state is unknown now
            job.done.set()
        _close(client)


def _connect(url: str, timeout: float):
    """RemoteTier.connect, without the tier (what a worker thread may hold)."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                retry=Retry(NoBackoff(), 0), health_check_interval=0,
                                single_connection_client=True)


def _close(client) -> None:
    if client is not None:
        try:
            client.close()
        except Exception:    # noqa: BLE001 - closing a broken connection
            pass
    return None


_SKIPPED = object()          # the tier is backing off, or the kernel's budget is spent
_FAILED = object()           # the operation failed or timed out (the tier now backs off)

_live_tiers: "weakref.WeakSet[RemoteTier]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The parent's worker thread does not exist here and its socket is the parent's: start over.
    for tier in list(_live_tiers):
        tier._lock = threading.Lock()
        tier._worker = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def client_available() -> bool:
    """Whether the `redis` client package is installed (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("redis") is not None


class RemoteTier:
    """Compiled kernels in a Redis server, for `KernelCache` (see the module's docstring)."""

    #: seconds the tier is skipped after a failure, before it is tried again
    retry_after = 30.0
    #: seconds a miss is remembered: the process is compiling that kernel, so a second lookup
    #: (a lookup, then get_or_compile) does not ask again
    miss_memory = 10.0
    #: larger entries are not stored remotely (one store must fit the time budget)
    max_entry_bytes = 64 << 20

    def __init__(self, url: str, *, secret: str | None = None, trust: bool = False,
                 timeout: float = 0.1):
        self.url = url
        self.shown_url = redact_url(url)
        self._secret = secret.encode("utf-8") if secret else None
        self.trust = bool(trust)
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._down_until = 0.0
        self._down = False                   # the last operation failed
        self._stores_off_until = 0.0
        self._missed = BoundedMemo(4096)     # digest -> when the lookup missed
        #: counts for tests and benchmarks: gets, hits, misses, rejected, puts, failures, skipped
        self.counts = dict.fromkeys(("gets", "hits", "misses", "rejected", "puts", "refused",
                                     "failures", "skipped"), 0)
        _live_tiers.add(self)

    def __repr__(self):          # never the secret
        return f"RemoteTier({self.shown_url!r}, signed={self.signed}, trust={self.trust})"

    @property
    def signed(self) -> bool:
        return self._secret is not None

    def budget(self) -> Budget:
        return Budget(self.timeout)

    # -- the connection ------------------------------------------------------------------------

    def connect(self, timeout: float | None = None):
        """A redis client for this tier's URL: no retries, every socket wait at most `timeout`
        seconds (default: the tier's)."""
        return _connect(self.url, self.timeout if timeout is None else timeout)

    def _call(self, what: str, fn, budget: Budget):
        """fn(client) on the worker, waiting at most the budget; _SKIPPED or _FAILED else."""
        with self._lock:
            if time.monotonic() < self._down_until or budget.left <= 0:
                self.counts["skipped"] += 1
                return _SKIPPED
            if self._worker is None:
                # Imported here, on the caller's thread and outside the budget: importing the
                # client takes about 0.1 s once per process, whatever the server's health.
                try:
                    import redis.backoff
                    import redis.retry  # noqa: F401
                except ImportError as exc:
                    self._down_until = float("inf")
                    warn_once(("remote-client",), f"safekern kernel cache: remote tier "
                              f"{self.shown_url} not used: cannot import the redis client "
                              f"({exc})")
                    return _SKIPPED
                self._worker = _Worker(functools.partial(_connect, self.url, self.timeout))
                weakref.finalize(self, self._worker.retire)     # dropped: its thread ends
            worker = self._worker
        start = time.monotonic()
        job = worker.submit(fn)
        answered = job.done.wait(budget.left)
        budget.left -= time.monotonic() - start
        if not answered:
            self._failed(worker, what, f"no answer within {self.timeout * 1000:g} ms "
                         "(SAFEKERN_CACHE_REMOTE_TIMEOUT)")
            return _FAILED
        if job.error is not None:
            exc = job.error
            self._failed(worker, what, f"{type(exc).__name__}: {exc}")
            return _FAILED
        if self._down:
            self._down = False
            log.info("safekern kernel cache: remote tier %s answers again", self.shown_url)
        return job.result

    def close(self) -> None:
        """Let the worker thread end (after what it is doing); a later operation starts a new
        one."""
        with self._lock:
            if self._worker is not None:
                self._worker.retire()
                self._worker = None

    def _failed(self, worker: _Worker, what: str, why: str) -> None:
        with self._lock:
            if self._worker is worker:
                self._worker = None
            worker.retire()
            self._down_until = time.monotonic() + self.retry_after
            self._down = True
            self.counts["failures"] += 1
        warn_once(("remote-down", self.url), f"safekern kernel cache: remote tier "
                  f"{self.shown_url}: {what} failed ({why}); skipping it for "
                  f"{self.retry_after:g} s, kernels come from the local file or are compiled")

    # -- lookups and stores --------------------------------------------------------------------

    def get(self, key: bytes, digest: bytes, budget: Budget) -> tuple[bytes, dict] | None:
        """(payload, meta) of the entry for `key`, checked; None for a miss of any kind."""
        missed = self._missed.get(digest)
        if missed is not None and time.monotonic() - missed < self.miss_memory:
            return None
        name = redis_key(digest)
        data = self._call("lookup", lambda client: client.get(name), budget)
        if data is _SKIPPED or data is _FAILED:
            return None
        self.counts["gets"] += 1
        if data is None:
            self.counts["misses"] += 1
            self._missed.put(digest, time.monotonic())
            return None
        try:
            _, meta, payload, _ = unpack_entry(data, key, self._secret)
        except EntryRejected as exc:
            self.counts["rejected"] += 1
            self._missed[digest] = time.monotonic()
            warn_once(("remote-entry", self.url, exc.kind), f"safekern kernel cache: remote "
                      f"tier {self.shown_url}: entry {name} not used ({exc}); compiling the "
                      "kernel here")
            return None
        self.counts["hits"] += 1
        return payload, meta

    def put(self, key: bytes, digest: bytes, payload: bytes, meta: bytes,
            budget: Budget) -> bool:
        """Store an entry (signed when there is a secret); False when it was not stored."""
        self._missed.pop(digest, None)
        if time.monotonic() < self._stores_off_until:
            self.counts["skipped"] += 1
            return False
        entry = pack_entry(key, meta, payload, self._secret)
        if len(entry) > self.max_entry_bytes:
            log.debug("not stored remotely: %d bytes is over %d", len(entry),
                      self.max_entry_bytes)
            return False
        name = redis_key(digest)

        def store(client):
            from redis.exceptions import ResponseError

            try:
                client.set(name, entry)
            except ResponseError as exc:     # the server answered: it refuses (e.g. OOM)
                return str(exc)
            return None

        refused = self._call("store", store, budget)
        if refused is _SKIPPED or refused is _FAILED:
            return False
        if refused is not None:
            self.counts["refused"] += 1
            self._stores_off_until = time.monotonic() + self.retry_after
            full = "maxmemory" in refused or refused.startswith("OOM")
            warn_once(("remote-refused", self.url), f"safekern kernel cache: remote tier "
                      f"{self.shown_url} refused a store ({refused}); "
                      f"{'the server is full; ' if full else ''}not storing kernels there for "
                      f"{self.retry_after:g} s (lookups go on)")
            return False
        self.counts["puts"] += 1
        return True

    # -- for `python -m safekern cache` --------------------------------------------------------

    def scan_names(self, client) -> list[str]:
        return sorted(n.decode() if isinstance(n, bytes) else n
                      for n in client.scan_iter(match=PREFIX + "*", count=1000))

    def describe_entries(self, client) -> list[dict]:
        """Every entry's name, size, metadata and state ("signed", "unsigned", "bad signature",
        "damaged", ...), for listings."""
        names = self.scan_names(client)
        out = []
        for start in range(0, len(names), 100):
            batch = names[start:start + 100]
            pipe = client.pipeline(transaction=False)
            for name in batch:
                pipe.get(name)
            for name, data in zip(batch, pipe.execute()):
                if data is None:
                    continue              # removed since the scan
                row = {"name": name, "size": len(data), "meta": {}}
                try:
                    key, row["meta"], payload, signed = unpack_entry(data, None, self._secret)
                    if redis_key(hashlib.sha256(key).digest()) != name:
                        raise EntryRejected("another key", "stored under another key's name")
                    row["state"] = "signed" if signed else "unsigned"
                    row["size"] = len(payload)
                except EntryRejected as exc:
                    row["state"] = exc.kind
                    row["meta"] = _peek_meta(data)     # what it claims to be, for the listing
                out.append(row)
        return out

    def server_stats(self, client) -> dict:
        """Entries, their bytes, and the server's memory figures."""
        names = self.scan_names(client)
        total = 0
        for start in range(0, len(names), 500):
            pipe = client.pipeline(transaction=False)
            for name in names[start:start + 500]:
                pipe.strlen(name)
            total += sum(pipe.execute())
        memory = client.info("memory")
        return {"entries": len(names), "bytes": total,
                "used_memory": memory.get("used_memory"),
                "maxmemory": memory.get("maxmemory"),
                "maxmemory_policy": memory.get("maxmemory_policy")}

    def clear_entries(self, client) -> int:
        """Remove every safekern entry (other keys in the database stay); how many."""
        removed = 0
        names = self.scan_names(client)
        for start in range(0, len(names), 500):
            removed += client.delete(*names[start:start + 500])
        return removed
