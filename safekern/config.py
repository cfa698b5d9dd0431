"""Every SAFEKERN_* environment variable, typed, read here and nowhere else.

`get()` returns the current configuration; it is read once and cached. Tests (and programs that
change the environment at run time) call `reload()` to read it again.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    doc: str


#: The documented variables, in the order docs/configuration.md lists them.
VARIABLES = (
    Variable("SAFEKERN_CHECKS", "1",
             "0 turns every check off: safekern.jit returns numba's own dispatcher, the C "
             "wrappers compile the user's source unchanged, and sync() only synchronises."),
    Variable("SAFEKERN_SYNC_EVERY_LAUNCH", "0",
             "1 checks the failure buffer after every launch (synchronous, slow): the "
             "exception then points at the exact launch. A debugging mode."),
    Variable("SAFEKERN_CACHE", "",
             "Path of the single-file kernel cache; 'off' disables it; empty: "
             "<user cache dir>/safekern/kernels-v<format>.cache."),
    Variable("SAFEKERN_CACHE_MAX_BYTES", str(1 << 30),
             "Upper bound of the cache file in bytes; eviction compacts it to about half."),
    Variable("SAFEKERN_CACHE_READONLY", "0",
             "1 uses a pre-seeded cache file without ever writing to it."),
    Variable("SAFEKERN_CACHE_LOCK_TIMEOUT", "10",
             "Seconds to wait for the cache's write lock or another process's compile of the "
             "same kernel before going on uncached / compiling locally."),
    Variable("SAFEKERN_LOG", "warning",
             "Level of the 'safekern' loggers (debug, info, warning, error); debug also prints "
             "the key fields of a cache miss."),
)


def _flag(raw: str, name: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name}={raw!r}: expected 0 or 1")


def _int(raw: str, name: str) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected an integer") from None
    if value < 0:
        raise ValueError(f"{name}={raw!r}: expected a non-negative integer")
    return value


def _float(raw: str, name: str) -> float:
    try:
        return float(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected a number of seconds") from None


@dataclass(frozen=True)
class Config:
    checks: bool
    sync_every_launch: bool
    cache: str | None          # None: default path; "off": disabled; else a path
    cache_max_bytes: int
    cache_readonly: bool
    cache_lock_timeout: float
    log: str

    @property
    def cache_enabled(self) -> bool:
        return self.cache != "off"


def _read(environ) -> Config:
    def raw(name):
        default = next(v.default for v in VARIABLES if v.name == name)
        return environ.get(name, default)

    cache = raw("SAFEKERN_CACHE").strip()
    if cache.lower() in {"off", "0", "none", "false"}:
        cache = "off"
    log = raw("SAFEKERN_LOG").strip().lower() or "warning"
    if log not in {"debug", "info", "warning", "error", "critical"}:
        raise ValueError(f"SAFEKERN_LOG={log!r}: expected debug, info, warning or error")
    return Config(
        checks=_flag(raw("SAFEKERN_CHECKS"), "SAFEKERN_CHECKS"),
        sync_every_launch=_flag(raw("SAFEKERN_SYNC_EVERY_LAUNCH"), "SAFEKERN_SYNC_EVERY_LAUNCH"),
        cache=cache or None,
        cache_max_bytes=_int(raw("SAFEKERN_CACHE_MAX_BYTES"), "SAFEKERN_CACHE_MAX_BYTES"),
        cache_readonly=_flag(raw("SAFEKERN_CACHE_READONLY"), "SAFEKERN_CACHE_READONLY"),
        cache_lock_timeout=_float(raw("SAFEKERN_CACHE_LOCK_TIMEOUT"),
                                  "SAFEKERN_CACHE_LOCK_TIMEOUT"),
        log=log,
    )


_current: Config | None = None


def get() -> Config:
    global _current
    if _current is None:
        _current = _read(os.environ)
        _apply_logging(_current)
    return _current


def reload() -> Config:
    """Read the environment again (after a test or a program changed it)."""
    global _current
    _current = None
    return get()


def environ_snapshot(prefixes=("NUMBA_", "CUDA_", "PYOPENCL_", "POCL_", "CUPY_")) -> dict:
    """Environment variables that can change generated code; part of cache keys."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith(prefixes)}


def has_nvidia_gpu() -> bool:
    """A cheap look for an NVIDIA driver, without importing numba or initialising CUDA."""
    import shutil
    import subprocess

    if os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0"):
        return True
    if shutil.which("nvidia-smi"):
        try:
            return subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                  timeout=20).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False
    return False


def use_cuda_simulator_without_gpu() -> bool:
    """Select numba's CUDA simulator when there is no GPU (call before importing numba).
    Returns whether the simulator is selected."""
    if "NUMBA_ENABLE_CUDASIM" not in os.environ and not has_nvidia_gpu():
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def _apply_logging(cfg: Config) -> None:
    import logging

    logger = logging.getLogger("safekern")
    logger.setLevel(cfg.log.upper())
    if cfg.log == "debug" and not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
        logger.addHandler(handler)


__all__ = ["Config", "VARIABLES", "get", "reload", "environ_snapshot", "has_nvidia_gpu",
           "use_cuda_simulator_without_gpu"]
