"""Every SAFEKERN_* environment variable, typed, read here and nowhere else; so are the few other
variables safekern reads (CUDA_PATH / CUDA_HOME, CONDA_PREFIX, the snapshot of the NUMBA_*,
CUDA_*, ... variables that cache keys carry): no other module reads the environment.

`get()` returns the current configuration; it is read once and cached. Tests (and programs that
change the environment at run time) call `reload()` to read it again.
"""
from __future__ import annotations

import logging
import math
import os
import threading
from dataclasses import dataclass, field

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
    Variable("SAFEKERN_SYNC_POINTS", "1",
             "1 raises a pending kernel failure at the synchronisation points of numba-cuda, "
             "CuPy and PyOpenCL (copies back to the host, synchronize, finish, event waits), "
             "as safekern.sync() does; 0: only safekern.sync() raises."),
    Variable("SAFEKERN_EXIT_ON_PENDING", "0",
             "1 makes the process exit with status 1 when a kernel failure is still pending at "
             "exit (for CI jobs); the warning is printed either way."),
    Variable("SAFEKERN_ELIMINATE", "1",
             "0 keeps every check: no check is eliminated or hoisted out of a loop (for "
             "differential testing of the elimination)."),
    Variable("SAFEKERN_LAUNCH_PREDICATES", "1",
             "1 proves at each launch, from the arguments' shapes and the block and grid "
             "dimensions, the checks no static proof removes, and launches a variant without "
             "them when every predicate holds (the checked kernel otherwise); 0 always "
             "launches the checked kernel."),
    Variable("SAFEKERN_PLAIN_LAUNCHES", "1",
             "1: a numba launch that can record no failure (every check proven, statically or "
             "by the launch's predicates) while nothing is pending on its device runs numba's "
             "own kernel of the function: no pending-failure test, no hidden argument, the code "
             "numba.cuda.jit makes; 0: such launches run safekern's variant with the test."),
    Variable("SAFEKERN_KERNEL_ASSERTS", "1",
             "0 compiles `assert` statements in kernels away (what `python -O` users expect); "
             "bounds checks, `raise` and division checks stay."),
    Variable("SAFEKERN_FLOAT_DIVISION", "numpy",
             "numpy: float division by zero gives inf/nan as in numba; raise: a zero divisor "
             "of any type (/, //, %) raises safekern.KernelZeroDivisionError."),
    Variable("SAFEKERN_RACES", "on",
             "on: a launch whose threads would race through global memory raises "
             "safekern.RaceError before it runs, and arguments that share memory where no proof "
             "either way exists give one safekern.RaceWarning; error: that warning is a "
             "RaceError too; off: no race analysis."),
    Variable("SAFEKERN_OPENCL_ALL", "0",
             "1 checks every OpenCL C program the process builds from source, PyOpenCL's own "
             "(pyopencl.array, ElementwiseKernel, ReductionKernel, scan, clrandom) included, "
             "as safekern.opencl.install() does, from `import safekern.opencl` on; a program "
             "safekern cannot check yet runs unchecked with an UncheckedWarning."),
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
    Variable("SAFEKERN_CACHE_REMOTE", "",
             "URL of a Redis server whose kernels the nodes of a cluster share "
             "(redis://host:port/db, rediss://..., unix:///path?db=N): a second tier after the "
             "local file; empty: none. Needs the redis client (safekern[redis])."),
    Variable("SAFEKERN_CACHE_REMOTE_KEY", "",
             "Secret (16 characters or more) with which remote entries are signed and checked "
             "(HMAC-SHA256); an unsigned or badly signed entry is a miss. Never printed."),
    Variable("SAFEKERN_CACHE_REMOTE_TRUST", "0",
             "1 uses unsigned remote entries when SAFEKERN_CACHE_REMOTE_KEY is not set (only "
             "for a Redis server nobody else can write to); 0: without a key, no remote tier."),
    Variable("SAFEKERN_CACHE_REMOTE_TIMEOUT", "0.1",
             "Seconds one kernel may wait for the remote tier in all (its lookup and its "
             "store); a failure or timeout skips the tier for 30 s with one warning."),
    Variable("SAFEKERN_DEBUG_INTERNALS", "0",
             "1 keeps safekern's own frames in the tracebacks of the errors it raises (for a "
             "bug report); 0: an error shows the user's frame and the message, as numba-cuda's "
             "do."),
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
    raise ValueError(f"{name}={raw!r}: expected 0 or 1 (also accepted: true/false, "
                     "yes/no, on/off)")


def _choice(raw: str, name: str, choices) -> str:
    value = raw.strip().lower()
    if value not in choices:
        raise ValueError(f"{name}={raw!r}: expected one of {', '.join(choices)}")
    return value


def _int(raw: str, name: str) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected an integer") from None
    if value < 0:
        raise ValueError(f"{name}={raw!r}: expected a non-negative integer")
    return value


def _positive_float(raw: str, name: str) -> float:
    value = _float(raw, name)
    if value == 0:
        raise ValueError(f"{name}={raw!r}: expected a positive number of seconds")
    return value


def redact_url(url: str) -> str:
    """`url` with any password replaced by '***' (for messages)."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None and "password=" not in parts.query:
        return url
    if parts.password is not None:
        host = parts.netloc.rsplit("@", 1)[-1]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    if "password=" in parts.query:        # redis://host/0?password=...
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        parts = parts._replace(query=urllib.parse.urlencode(
            [(k, "***" if k == "password" else v) for k, v in query], safe="*"))
    return urllib.parse.urlunsplit(parts)


def _remote_url(raw: str, name: str) -> str | None:
    """A Redis URL the redis client accepts, or None when empty."""
    import urllib.parse

    url = raw.strip()
    if not url:
        return None
    problem = None
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port               # ValueError for a bad one
    except ValueError as exc:
        parts, port, problem = None, None, str(exc)
    if parts is not None and parts.scheme not in ("redis", "rediss", "unix"):
        problem = "expected redis://host:port/db, rediss://host:port/db or unix:///path?db=N"
    elif parts is not None and parts.scheme == "unix" and not parts.path:
        problem = "unix:// needs the socket's path"
    elif parts is not None and parts.scheme != "unix":
        db = parts.path.strip("/")
        if not parts.hostname:
            problem = "no host"
        elif db and not db.isdigit():
            problem = f"the database must be a number, not {db!r}"
        elif port == 0:
            problem = "port 0"
    if problem:
        raise ValueError(f"{name}={redact_url(url)!r}: {problem}")
    return url


_MIN_SECRET = 16


def _secret(raw: str, name: str) -> str | None:
    # The value is never part of a message: it is a secret.
    if not raw:
        return None
    if len(raw) < _MIN_SECRET:
        raise ValueError(f"{name} is too short: at least {_MIN_SECRET} characters (the value "
                         "is not shown)")
    return raw


def _float(raw: str, name: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected a number of seconds") from None
    if not math.isfinite(value) or value < 0:     # a negative timeout means "wait forever"
        raise ValueError(f"{name}={raw!r}: expected a finite, non-negative number of seconds")
    return value


_LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def _log_level(environ) -> str | None:
    """SAFEKERN_LOG as a level name, or None when it is unset (or empty)."""
    raw = environ.get("SAFEKERN_LOG", "")
    level = raw.strip().lower()
    if not level:
        return None
    if level not in _LOG_LEVELS:
        raise ValueError(f"SAFEKERN_LOG={raw!r}: expected debug, info, warning or error")
    return level


@dataclass(frozen=True)
class Config:
    checks: bool
    sync_every_launch: bool
    sync_points: bool
    exit_on_pending: bool
    eliminate: bool
    launch_predicates: bool
    plain_launches: bool
    kernel_asserts: bool
    float_division: str        # "numpy" | "raise"
    races: str                 # "on" | "off" | "error"
    opencl_all: bool           # SAFEKERN_OPENCL_ALL: every OpenCL program checked
    cache: str | None          # None: default path; "off": disabled; else a path
    cache_max_bytes: int
    cache_readonly: bool
    cache_lock_timeout: float
    log: str | None            # None: SAFEKERN_LOG unset, logging is left to the application
    #: Why the SAFEKERN_CACHE_* settings are invalid (each bad variable and its value), or None.
    #: The kernel cache is then not used (one CacheWarning says why) and the cache_* fields above
    #: hold the defaults in place of the bad values. Every other variable raises ValueError.
    cache_problem: str | None = None
    #: the remote tier (docs/cache.md): its URL (None: none), signing secret (None: unsigned;
    #: never shown, hence repr=False), whether unsigned entries are trusted, the time budget per
    #: kernel, and why its settings are invalid (the tier is then not used; one CacheWarning)
    cache_remote: str | None = None
    cache_remote_key: str | None = field(default=None, repr=False)
    cache_remote_trust: bool = False
    cache_remote_timeout: float = 0.1
    cache_remote_problem: str | None = None
    #: keep safekern's frames in the tracebacks of its errors (errors.for_user)
    debug_internals: bool = False

    @property
    def cache_enabled(self) -> bool:
        return self.cache != "off"


def _read(environ) -> Config:
    def default(name):
        return next(v.default for v in VARIABLES if v.name == name)

    def raw(name):
        return environ.get(name, default(name))

    cache_problems = []

    def cache_setting(parse, name):
        # A bad cache setting must not stop kernels: it disables the cache (kernels.py warns).
        try:
            return parse(raw(name), name)
        except ValueError as exc:
            cache_problems.append(str(exc))
            return parse(default(name), name)

    remote_problems = []

    def remote_setting(parse, name):
        # A bad remote setting must not stop kernels: the tier is not used (kernels.py warns).
        try:
            return parse(raw(name), name)
        except ValueError as exc:
            remote_problems.append(str(exc))
            return parse(default(name), name)

    cache = raw("SAFEKERN_CACHE").strip()
    if cache.lower() in {"off", "0", "none", "false"}:
        cache = "off"
    return Config(
        checks=_flag(raw("SAFEKERN_CHECKS"), "SAFEKERN_CHECKS"),
        sync_every_launch=_flag(raw("SAFEKERN_SYNC_EVERY_LAUNCH"), "SAFEKERN_SYNC_EVERY_LAUNCH"),
        sync_points=_flag(raw("SAFEKERN_SYNC_POINTS"), "SAFEKERN_SYNC_POINTS"),
        exit_on_pending=_flag(raw("SAFEKERN_EXIT_ON_PENDING"), "SAFEKERN_EXIT_ON_PENDING"),
        eliminate=_flag(raw("SAFEKERN_ELIMINATE"), "SAFEKERN_ELIMINATE"),
        launch_predicates=_flag(raw("SAFEKERN_LAUNCH_PREDICATES"),
                                "SAFEKERN_LAUNCH_PREDICATES"),
        plain_launches=_flag(raw("SAFEKERN_PLAIN_LAUNCHES"), "SAFEKERN_PLAIN_LAUNCHES"),
        kernel_asserts=_flag(raw("SAFEKERN_KERNEL_ASSERTS"), "SAFEKERN_KERNEL_ASSERTS"),
        float_division=_choice(raw("SAFEKERN_FLOAT_DIVISION"), "SAFEKERN_FLOAT_DIVISION",
                               ("numpy", "raise")),
        races=_choice(raw("SAFEKERN_RACES"), "SAFEKERN_RACES", ("on", "off", "error")),
        opencl_all=_flag(raw("SAFEKERN_OPENCL_ALL"), "SAFEKERN_OPENCL_ALL"),
        cache=cache or None,
        cache_max_bytes=cache_setting(_int, "SAFEKERN_CACHE_MAX_BYTES"),
        cache_readonly=cache_setting(_flag, "SAFEKERN_CACHE_READONLY"),
        cache_lock_timeout=cache_setting(_float, "SAFEKERN_CACHE_LOCK_TIMEOUT"),
        log=_log_level(environ),
        cache_problem="; ".join(cache_problems) or None,
        cache_remote=remote_setting(_remote_url, "SAFEKERN_CACHE_REMOTE"),
        cache_remote_key=remote_setting(_secret, "SAFEKERN_CACHE_REMOTE_KEY"),
        cache_remote_trust=remote_setting(_flag, "SAFEKERN_CACHE_REMOTE_TRUST"),
        cache_remote_timeout=remote_setting(_positive_float, "SAFEKERN_CACHE_REMOTE_TIMEOUT"),
        cache_remote_problem="; ".join(remote_problems) or None,
        debug_internals=_flag(raw("SAFEKERN_DEBUG_INTERNALS"), "SAFEKERN_DEBUG_INTERNALS"),
    )


_current: Config | None = None


def get() -> Config:
    global _current
    if _current is None:
        _current = _read(os.environ)
        _apply_logging(_current.log)
    return _current


def reload() -> Config:
    """Read the environment again (after a test or a program changed it)."""
    global _current
    _current = None
    return get()


def environ_snapshot(prefixes=("NUMBA_", "CUDA_", "PYOPENCL_", "POCL_", "CUPY_")) -> dict:
    """Environment variables that can change generated code; part of cache keys."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith(prefixes)}


def cuda_toolkit_roots() -> list[str]:
    """The CUDA toolkits the environment names: CUDA_PATH, then CUDA_HOME (each where set and
    not empty), read at each call (NVRTC's search, numba-cuda's own look)."""
    return [os.environ[var] for var in ("CUDA_PATH", "CUDA_HOME") if os.environ.get(var)]


def conda_prefix() -> str | None:
    """The active conda environment (CONDA_PREFIX): where numba-cuda finds a conda CUDA."""
    return os.environ.get("CONDA_PREFIX")


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


# -- logging: the one place safekern configures it ------------------------------------------

_logger = logging.getLogger("safekern")
if not any(isinstance(h, logging.NullHandler) for h in _logger.handlers):
    _logger.addHandler(logging.NullHandler())   # library etiquette: no output unless asked for
_handler: logging.Handler | None = None           # the StreamHandler SAFEKERN_LOG attached
_level_set = False                                # whether SAFEKERN_LOG set the logger's level
_logging_lock = threading.Lock()


def _apply_logging(level: str | None) -> None:
    """SAFEKERN_LOG=<level> sets the "safekern" logger's level and, when the logger has no
    handler of its own (the application configured none), attaches one StreamHandler on stderr
    ("safekern.cache: hit: ..."). Unset, logging is the application's business: nothing is
    touched (whatever an earlier setting attached is taken away again)."""
    global _handler, _level_set
    with _logging_lock:
        if level is None:
            if _handler is not None:
                _logger.removeHandler(_handler)
                _handler = None
            if _level_set:
                _logger.setLevel(logging.NOTSET)
                _level_set = False
            return
        _logger.setLevel(level.upper())
        _level_set = True
        if _handler is None and all(isinstance(h, logging.NullHandler)
                                    for h in _logger.handlers):
            _handler = logging.StreamHandler()      # sys.stderr
            _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
            _logger.addHandler(_handler)


def _apply_logging_at_import() -> None:
    # Also at import, so that SAFEKERN_LOG covers code that never reads the rest of the
    # configuration (safekern.cache.Cache used directly). A bad value is left for get() to report.
    try:
        level = _log_level(os.environ)
    except ValueError:
        return
    _apply_logging(level)


_apply_logging_at_import()


__all__ = ["Config", "VARIABLES", "get", "reload", "environ_snapshot", "has_nvidia_gpu",
           "use_cuda_simulator_without_gpu"]
