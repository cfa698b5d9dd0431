"""The guard the cache tests put around their child processes (tests/support/child_procs.py): no child --
nor anything it started -- survives its test, and none holds the test runner's output pipe.

The crash test once left a forked child running after it was interrupted; it held pytest's output
pipe, so CI hung. The last test here reproduces that situation end to end."""
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.support.child_procs import Children, alive

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = [pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork"),
              pytest.mark.timeout(120, method="signal")]


def _gone(pid, within=10.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def _sleep_with_a_grandchild(pid_w):
    """Start a grandchild (same process group), report both pids, sleep."""
    grandchild = os.fork()
    if grandchild == 0:
        while True:
            time.sleep(1)
    os.write(pid_w, f"{os.getpid()} {grandchild}\n".encode())
    while True:
        time.sleep(1)


def _read_line(fd, timeout=10):
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0, deadline - time.monotonic()))
        assert ready, "no answer from the child"
        chunk = os.read(fd, 1024)
        assert chunk, "the child closed the pipe"
        data += chunk
    return data.decode()


def test_a_failing_test_leaves_no_child_and_no_grandchild():
    pids = []
    with pytest.raises(RuntimeError, match="the test failed"):
        with Children() as kids:
            r, w = os.pipe()              # after Children(): pipes open before are taken away
            kids.fork(_sleep_with_a_grandchild, w, lifetime=60)
            pids = [int(p) for p in _read_line(r).split()]
            raise RuntimeError("the test failed")
    os.close(r)
    os.close(w)
    assert len(pids) == 2
    assert all(_gone(p) for p in pids)


def test_the_children_run_in_their_own_process_group():
    with Children() as kids:
        r, w = os.pipe()
        pid = kids.fork(_sleep_with_a_grandchild, w, lifetime=60)
        child, grandchild = (int(p) for p in _read_line(r).split())
        assert child == pid
        assert os.getpgid(pid) == pid == os.getsid(pid) == os.getpgid(grandchild)
        assert os.getpgid(pid) != os.getpgrp()
        kids.kill(pid)
        status = kids.reap(pid, 10)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        assert _gone(grandchild)                # killed as a group
    os.close(r)
    os.close(w)


def test_a_child_dies_at_the_end_of_its_lifetime_whatever_it_does():
    def stubborn():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(0.05)

    with Children() as kids:
        start = time.monotonic()
        pid = kids.fork(stubborn, lifetime=1)
        status = kids.reap(pid, 15)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM
    assert time.monotonic() - start < 10


def test_reap_kills_a_child_that_overstays():
    with Children() as kids:
        pid = kids.fork(time.sleep, 60, lifetime=60)
        with pytest.raises(AssertionError, match="still running"):
            kids.reap(pid, 0.2)
    assert not alive(pid)


def test_a_child_does_not_hold_the_output_pipes_open_before_it_started():
    out_r, out_w = os.pipe()                  # stands for pytest's (or CI's) output pipe
    try:
        with Children() as kids:
            kids.fork(time.sleep, 60, lifetime=60)
            os.close(out_w)
            out_w = None
            ready, _, _ = select.select([out_r], [], [], 10)
            assert ready and os.read(out_r, 1) == b"", "the child holds the pipe's write end"
    finally:
        os.close(out_r)
        if out_w is not None:
            os.close(out_w)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_dies_with_the_test_process():
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:                          # a test process that dies without any cleanup
        try:
            kids = Children()
            pid = kids.fork(time.sleep, 60, lifetime=60)
            os.write(w, f"{pid}\n".encode())
            time.sleep(0.2)
        finally:
            os._exit(0)
    os.close(w)
    child = int(_read_line(r))
    os.close(r)
    os.waitpid(middle, 0)
    assert _gone(child), "the child outlived the process that started it"


def test_pytest_interrupted_by_its_timeout_does_not_hang_on_a_child(tmp_path):
    """A test with a forked child is stopped by pytest-timeout: pytest exits, its output pipe
    closes (the child does not hold it), and the child is gone."""
    pid_file = tmp_path / "child.pid"
    (tmp_path / "test_stuck.py").write_text(textwrap.dedent(f"""
        import os, time
        import pytest
        from tests.support.child_procs import Children

        def busy():
            while True:
                time.sleep(0.01)

        @pytest.mark.timeout(2, method="signal")
        def test_stuck():
            with Children() as kids:
                pid = kids.fork(busy, lifetime=120)
                with open({str(pid_file)!r}, "w") as f:
                    f.write(str(pid))
                time.sleep(60)
        """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT,
                                                               os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path / "test_stuck.py")], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=60)   # EOF only once nobody holds the pipe
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 1 and b"Timeout" in out, out.decode(errors="replace")
    child = int(pid_file.read_text())
    assert _gone(child)
