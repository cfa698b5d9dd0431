"""Child processes that cannot outlive their test (for the cache tests that fork).

A forked child that the test forgot -- because an assertion or a pytest timeout interrupted the
test between fork and kill, or because it deadlocked on a lock held at fork time -- used to keep
running, holding a copy of pytest's output pipe, so CI waited forever. Every child started here:

- runs in its own session and process group (os.setsid, as `start_new_session=True`), and is
  always killed as a group (SIGKILL);
- has a hard lifetime: an alarm with the default action terminates it, whatever it is doing, and
  on Linux it is killed at once if the test process dies (PR_SET_PDEATHSIG);
- gets /dev/null in place of every pipe, socket and terminal that was open when its `Children`
  was created (pytest's output among them), so it never holds the test runner's output;
- is killed and reaped when the `Children` block ends, however it ends.

    with Children() as kids:
        pid = kids.fork(fn, arg, lifetime=10)          # os.fork; fn(arg) runs in the child
        p = kids.process(ctx, target, args, lifetime=60)   # a multiprocessing (fork) Process
        ...
        status = kids.reap(pid, timeout=10)            # waitpid with a deadline, else kill+fail
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import stat
import sys
import time
import traceback

_PR_SET_PDEATHSIG = 1
try:
    _libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
except OSError:
    _libc = None


def _outside_fds() -> list[int]:
    """Pipes, sockets and terminals open in this process now."""
    try:
        candidates = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        candidates = range(256)
    out = []
    for fd in candidates:
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) and os.isatty(fd):
            out.append(fd)
    return out


def _become_guarded_child(parent: int, lifetime: float, outside: list[int]) -> None:
    """First thing in a new child: own session, hard lifetime, no inherited output pipes."""
    os.setsid()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)   # pytest-timeout's handler is inherited
    signal.alarm(max(1, int(lifetime + 0.999)))
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:                      # the parent died before prctl
        os._exit(5)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in outside:
        with contextlib.suppress(OSError):
            os.dup2(devnull, fd)                    # the fd stays taken: no number is reused
    os.close(devnull)


def _guarded_target(parent, lifetime, outside, target, *args):
    _become_guarded_child(parent, lifetime, outside)
    target(*args)


class Children:
    def __init__(self):
        self._outside = _outside_fds()
        self._pids: set[int] = set()          # forked with fork(), not reaped yet
        self._procs: list = []                # multiprocessing processes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill_all()
        return False

    def fork(self, fn, *args, lifetime: float) -> int:
        """Run fn(*args) in a forked child; it exits 0 when fn returns, 3 if fn raised."""
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                _become_guarded_child(parent, lifetime, self._outside)
                fn(*args)
                code = 0
            except BaseException:           # noqa: BLE001 - report, then leave at once
                with contextlib.suppress(BaseException):
                    traceback.print_exc()
                    sys.stderr.flush()
            finally:
                os._exit(code)
        self._pids.add(pid)
        return pid

    def process(self, ctx, target, args=(), *, lifetime: float):
        """A started multiprocessing Process (fork context) running target(*args), guarded."""
        p = ctx.Process(target=_guarded_target,
                        args=(os.getpid(), lifetime, self._outside, target, *args))
        self._procs.append(p)
        p.start()
        return p

    @staticmethod
    def kill(pid: int) -> None:
        """SIGKILL the child's process group (the child alone if it has no group yet)."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def reap(self, pid: int, timeout: float) -> int:
        """Wait for a forked child up to `timeout` seconds and return its wait status; a child
        still running then is killed, reaped, and the test fails."""
        deadline = time.monotonic() + timeout
        delay = 0.0002
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                self._pids.discard(pid)
                return status
            if time.monotonic() > deadline:
                self.kill(pid)
                os.waitpid(pid, 0)
                self._pids.discard(pid)
                raise AssertionError(f"child {pid} still running after {timeout} s; killed it")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def kill_all(self) -> None:
        """Kill every child still running (as a group) and reap it."""
        for pid in list(self._pids):
            self.kill(pid)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done:
                    break
                time.sleep(0.01)
            self._pids.discard(pid)
        for p in self._procs:
            # exitcode polls waitpid: None means started and not reaped yet, so its pid (and
            # group id) cannot belong to anyone else.
            if p.pid is not None and p.exitcode is None:
                self.kill(p.pid)
                p.join(10)
        self._procs.clear()


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (for any pid, child or not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError as exc:
            return exc.errno == errno.EPERM
        return True
