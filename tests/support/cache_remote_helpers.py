"""A throwaway redis-server for the remote-tier tests (tests/cache/test_cache_remote*.py).

Each server listens on 127.0.0.1 only, on a free port, with no persistence (no RDB, no AOF) and
its working directory in the test's temporary directory; it runs in its own session, dies with
the test process (PR_SET_PDEATHSIG) and is killed with SIGKILL when its test ends. Tests that
need one skip with the reason when Debian's redis-server (or the redis client) is missing.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from safekern.cache.remote import client_available

REDIS_SERVER = shutil.which("redis-server")
needs_redis = [
    pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (Debian: "
                       "apt-get install redis-server; `bash scripts/dev.sh test` installs it "
                       "when run as root)"),
    pytest.mark.skipif(not client_available(), reason="the redis client is not installed "
                       "(pip install -e '.[redis]')"),
]

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """redis-server on 127.0.0.1:<port>; `start()`, `kill()` (SIGKILL), `pause()`/`resume()`
    (SIGSTOP/SIGCONT), `client()`, `url()`."""

    def __init__(self, directory, *args: str, port: int | None = None):
        self.directory = str(directory)
        self.args = list(args)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self, timeout: float = 20.0) -> "RedisServer":
        os.makedirs(self.directory, exist_ok=True)
        log = open(os.path.join(self.directory, f"redis-{self.port}.log"), "ab")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
             "--protected-mode", "yes", "--save", "", "--appendonly", "no",
             "--dir", self.directory, "--daemonize", "no", *self.args],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=_die_with_parent)
        log.close()
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                with open(os.path.join(self.directory, f"redis-{self.port}.log")) as f:
                    raise RuntimeError(f"redis-server on port {self.port} did not start:\n"
                                       f"{f.read()[-2000:]}")
            time.sleep(0.02)
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL, as a crash would (a stopped server is killed too)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def client(self, db: int = 0):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, db=db, socket_timeout=10,
                           socket_connect_timeout=10)

    def get_calls(self) -> int:
        """How many GET commands the server has answered since it started."""
        client = self.client()
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        return stats.get("cmdstat_get", {}).get("calls", 0)


def settle_sockets() -> None:
    """Close the sockets of unreachable redis clients now, before a `Children` block: a socket
    that the garbage collector closes after `Children()` noted the open pipes and sockets, and
    whose number a new multiprocessing queue then reuses, would be replaced by /dev/null in
    the children (tests/support/child_procs.py), and their results would never arrive."""
    import gc

    gc.collect()


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.kill()
