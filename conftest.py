"""Test set-up shared by every test.

- numba-cuda kernels run on the real GPU when there is one, else on the CUDA simulator
  (NUMBA_ENABLE_CUDASIM=1 is set here, before numba is imported). Tests marked `cudasim` get the
  `gpu` marker too when they run on a real device, so `pytest -m gpu` runs them there.
- The suite never uses the user's own kernel cache (~/.cache/safekern), nor a remote tier of
  theirs (SAFEKERN_CACHE_REMOTE* are unset): SAFEKERN_CACHE points
  at a file in a temporary directory from the moment this file is imported -- before pytest
  imports the test modules, whose kernels are decorated (and their rewrites cached) at import
  time -- and every test gets a fresh cache file of its own on top of that. An audit hook
  watches the user's cache directory: if anything in this process opens, creates, renames or
  removes a file there, the session fails and names the culprit.
- Every test gets a fresh configuration.
"""
import atexit
import os
import shutil
import sys
import tempfile
import traceback

import pytest


def _has_nvidia_gpu() -> bool:
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0") or bool(
        shutil.which("nvidia-smi") and os.system("nvidia-smi -L >/dev/null 2>&1") == 0)


HAS_GPU = _has_nvidia_gpu()
if not HAS_GPU:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


# -- the user's kernel cache stays untouched ---------------------------------------------------

def _user_cache_dir():
    """The directory of the cache file safekern would use with the caller's environment (with
    SAFEKERN_CACHE unset), or None when there is none (no HOME)."""
    from safekern.cache.kernels import CacheUnavailable, default_path

    try:
        return os.path.dirname(default_path())
    except CacheUnavailable:
        return None


USER_CACHE_DIR = _user_cache_dir()
_SESSION_DIR = tempfile.mkdtemp(prefix="safekern-tests-")
atexit.register(shutil.rmtree, _SESSION_DIR, ignore_errors=True)
# Unconditionally: a SAFEKERN_CACHE from the caller's shell may be their real cache too.
os.environ["SAFEKERN_CACHE"] = os.path.join(_SESSION_DIR, "session.cache")
# Nor the user's shared remote tier: the remote-cache tests start Redis servers of their own.
for _name in ("SAFEKERN_CACHE_REMOTE", "SAFEKERN_CACHE_REMOTE_KEY", "SAFEKERN_CACHE_REMOTE_TRUST",
              "SAFEKERN_CACHE_REMOTE_TIMEOUT"):
    os.environ.pop(_name, None)

_touches: list = []
# Audit events that reach a file by path; the first argument is the path (or an fd: ignored).
_PATH_EVENTS = {"open", "os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.truncate",
                "os.chmod", "os.chown", "os.utime", "os.link", "os.symlink"}


def _inside_user_cache(path) -> bool:
    if isinstance(path, int):
        return False
    try:
        path = os.path.abspath(os.fsdecode(os.fspath(path)))
    except (TypeError, ValueError):
        return False
    return path == USER_CACHE_DIR or path.startswith(USER_CACHE_DIR + os.sep)


def _audit(event, args):
    # An exception raised here would break the audited call itself, so nothing escapes.
    if event not in _PATH_EVENTS or not args:
        return
    try:
        paths = args[:2] if event in ("os.rename", "os.link", "os.symlink") else args[:1]
        hit = next((p for p in paths if _inside_user_cache(p)), None)
        if hit is not None and len(_touches) < 20:
            stack = "".join(traceback.format_stack(limit=12)[:-1])
            _touches.append(f"{event} {os.fsdecode(os.fspath(hit))}\n{stack}")
    except Exception:  # noqa: BLE001
        pass


if USER_CACHE_DIR is not None:
    sys.addaudithook(_audit)


def pytest_terminal_summary(terminalreporter):
    if _touches:
        terminalreporter.section("the test suite touched the user's kernel cache", red=True)
        terminalreporter.write_line(f"{USER_CACHE_DIR} was used {len(_touches)} time(s) "
                                    "(first ones below); tests must use SAFEKERN_CACHE:")
        for touch in _touches[:3]:
            terminalreporter.write_line(touch)


def pytest_sessionfinish(session, exitstatus):
    if _touches and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# -- markers -----------------------------------------------------------------------------------

def _gpu_count() -> int:
    """NVIDIA GPUs visible here (nvidia-smi -L), without initialising CUDA in this process."""
    if not HAS_GPU or not shutil.which("nvidia-smi"):
        return 0
    import subprocess

    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True,
                                timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in listed.splitlines() if line.startswith("GPU "))


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="needs a real GPU")
    skip_multigpu = pytest.mark.skip(reason="needs two GPUs")
    gpus = None
    for item in items:
        if "cudasim" in item.keywords and not SIMULATOR:
            item.add_marker(pytest.mark.gpu)
        if "gpu" in item.keywords and (SIMULATOR or not HAS_GPU):
            item.add_marker(skip_gpu)
        if "multigpu" in item.keywords:
            if gpus is None:
                gpus = 0 if SIMULATOR else _gpu_count()
            if gpus < 2:
                item.add_marker(skip_multigpu)


@pytest.fixture(autouse=True)
def _fresh_safekern_config(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEKERN_CACHE", str(tmp_path / "safekern-test.cache"))
    for name in ("SAFEKERN_CHECKS", "SAFEKERN_SYNC_EVERY_LAUNCH", "SAFEKERN_CACHE_READONLY",
                 "SAFEKERN_CACHE_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)
    from safekern import config

    config.reload()
    yield
    monkeypatch.undo()
    config.reload()


def _drain_failures():
    import safekern

    try:
        safekern.sync()
    except safekern.KernelError:
        pass


@pytest.fixture
def no_pending_failure():
    """A failure left pending by one test must not leak into the next one."""
    _drain_failures()
    yield
    _drain_failures()
