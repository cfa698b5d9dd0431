"""Run a checked numba kernel on the CUDA simulator with check elimination on and off, and compare.

Check elimination and loop versioning must never change what a kernel does: with every check
kept (SAFEKERN_ELIMINATE=0) and with checks proven away, each thread must fail at the same access
with the same index, or not at all, and leave the same outputs. Used by the regression tests of
the elimination and by the differential fuzzer (tests/support/fuzz_kernels.py, tools/fuzz_elimination.py).

What is compared is deterministic although the simulator runs a block's threads concurrently:
- every thread's *first* failure (code, index, size, axis, thread, block), not only the one the
  failure buffer keeps: while `recording()` is active, a failing check sets the thread's flag and
  is appended to a list, and the buffer stays clear -- so no thread skips its launch because
  another one failed first, which would depend on the order the simulator runs them in;
- an exception that escapes the launch (a wrongly eliminated access raises NumPy's IndexError
  on the simulator, since the plain access is NumPy's): its type only, since which thread the
  simulator reports first is not deterministic;
- the arrays after the launch.
"""
from __future__ import annotations

import contextlib
import importlib.util
import linecache
import os
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from tests.support.settings import reload_settings

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
_recorded: list | None = None
_recorded_lock = threading.Lock()


def _record_every_first_failure(fb, flag, code, index, size, axis):
    from safekern.backends.numba import sim as numba_sim

    first = int(flag[0]) == 0
    flag[0] = 1
    if first and _recorded is not None:
        thread, block = numba_sim._thread_ids()
        with _recorded_lock:
            _recorded.append((int(code), int(index), int(size), int(axis), thread, block))


@contextlib.contextmanager
def recording():
    """While active, failing checks on the simulator are listed (see module doc), not buffered."""
    from safekern.backends.numba import sim as numba_sim

    global _recorded
    original = numba_sim._record
    numba_sim._record = _record_every_first_failure
    _recorded = []
    try:
        yield
    finally:
        numba_sim._record = original
        _recorded = None


@contextlib.contextmanager
def eliminating(on: bool):
    """SAFEKERN_ELIMINATE set to `on` for the kernels decorated inside; the rewrite cache and
    the race analysis (not the subject here: it refuses launches the same way in both modes)
    off."""
    saved = {k: os.environ.get(k) for k in ("SAFEKERN_ELIMINATE", "SAFEKERN_CACHE",
                                            "SAFEKERN_RACES")}
    os.environ["SAFEKERN_ELIMINATE"] = "1" if on else "0"
    os.environ["SAFEKERN_CACHE"] = "off"
    os.environ["SAFEKERN_RACES"] = "off"
    reload_settings()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reload_settings()


def import_file(path: str, module_name: str):
    """Import the file at `path` as a fresh module (its kernels decorated now)."""
    linecache.checkcache(path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module        # inspect.getsource looks the module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def forget(module) -> None:
    sys.modules.pop(module.__name__, None)


@dataclass
class Outcome:
    barriers: bool = False                           # the kernel has barriers
    failures: list = field(default_factory=list)  # sorted (code, index, size, axis, thread, block)
    raised: str | None = None                        # type of an exception escaping the launch
    message: str = ""                                # its text (for the report only)
    outputs: list = field(default_factory=list)      # every array argument after the launch

    def describe_failures(self) -> list[str]:
        from safekern.failures import TABLE

        out = []
        for code, index, size, axis, thread, block in self.failures:
            site = TABLE.lookup(code)
            where = f"line {site.lineno} array {site.array!r}" if site is not None else \
                f"code {code}"
            out.append(f"{where}: index {index} axis {axis} size {size} thread {thread} "
                       f"block {block}")
        return out


def _join_simulator_threads(timeout: float = 10.0) -> None:
    """The simulator re-raises a thread's exception without waiting for the block's other
    threads: wait for them, so none of them runs into the next launch."""
    from numba.cuda.simulator.kernel import BlockThread

    for t in threading.enumerate():
        if isinstance(t, BlockThread):
            t.join(timeout)


def launch(kernel, griddim, blockdim, args) -> Outcome:
    """Launch `kernel` on the simulator; every thread's first failure, what escaped, outputs."""
    import safekern

    outcome = Outcome(barriers=bool(getattr(kernel, "has_barriers", False)))
    with recording():
        try:
            kernel[griddim, blockdim](*args)
        except Exception as exc:      # noqa: BLE001  (what escapes is the result)
            outcome.raised = type(exc).__name__
            outcome.message = str(exc)
            _join_simulator_threads()
        outcome.failures = sorted(_recorded)
    with contextlib.suppress(safekern.KernelError):
        safekern.sync()               # nothing is buffered while recording; stay clean anyway
    outcome.outputs = [np.array(a, copy=True) for a in args if isinstance(a, np.ndarray)]
    return outcome


# Runs set apart as not the elimination's doing (see barrier_group_artifact); callers count them.
ARTIFACTS: list = []
_NUMPY_ERRORS = ("OverflowError", "FloatingPointError")


def barrier_group_artifact(with_elimination: Outcome, all_checks: Outcome) -> bool:
    """Only the run with every check raised NumPy's arithmetic error, and every failure it
    recorded before that the other run recorded too. A failed thread still runs the statements
    exits.py groups after its failing one (one flag test per group: after a loop, before a
    barrier), and with every check kept more of them (more statements may fail, so groups
    start earlier): on the simulator such a statement's NumPy error escapes and stops the
    launch. A wrongly eliminated access raises in the other run (NumPy's IndexError), or
    misses a failure the checked run recorded (the subset test)."""
    return with_elimination.raised is None and all_checks.raised in _NUMPY_ERRORS and \
        set(all_checks.failures) <= set(with_elimination.failures)


def differences(with_elimination: Outcome, all_checks: Outcome) -> list[str]:
    """What differs between the two runs (empty: the same). When both raised the same exception
    (NumPy's OverflowError for `-1 * x` of an unsigned x, in some thread) the simulator
    stopped the launch wherever the other threads were: only the exception is compared."""
    out = []
    if barrier_group_artifact(with_elimination, all_checks):
        ARTIFACTS.append(f"{all_checks.raised} ({all_checks.message}) with every check only")
        return out
    if with_elimination.raised != all_checks.raised:
        out.append(f"launch raised {with_elimination.raised} ({with_elimination.message}) with "
                   f"elimination, {all_checks.raised} ({all_checks.message}) with every check")
    elif with_elimination.raised is not None:
        return out
    if with_elimination.failures != all_checks.failures:
        out.append("failures with elimination: " +
                   "; ".join(with_elimination.describe_failures()) +
                   " | with every check: " + "; ".join(all_checks.describe_failures()))
    if with_elimination.raised is None and all_checks.raised is None:
        for pos, (x, y) in enumerate(zip(with_elimination.outputs, all_checks.outputs)):
            if x.shape != y.shape or not np.array_equal(x, y):
                out.append(f"array argument {pos} differs")
    return out


def compare_file(path: str, kernel: str, griddim, blockdim, make_args) -> list[str]:
    """Import the module at `path` once per mode, launch its `kernel` on fresh `make_args()`,
    and return the differences (empty: elimination changed nothing)."""
    outcomes = []
    for on in (True, False):
        name = f"_sk_differential_{os.path.basename(path)[:-3]}_{int(on)}"
        try:
            with eliminating(on):
                module = import_file(path, name)
        except Exception as exc:      # noqa: BLE001  (a rejected kernel: rejected both ways)
            outcomes.append(Outcome(raised=f"decoration: {type(exc).__name__}",
                                    message=str(exc)))
            continue
        try:
            outcomes.append(launch(getattr(module, kernel), griddim, blockdim, make_args()))
        finally:
            forget(module)
    return differences(*outcomes)


def compare_function(pyfunc, griddim, blockdim, make_args, device_functions=()) -> list[str]:
    """Decorate the plain function `pyfunc` once per mode, launch, compare (see compare_file).
    `device_functions`: plain functions of pyfunc's module that it calls, decorated as checked
    device functions in each mode too (under their own names)."""
    import safekern

    scope = pyfunc.__globals__
    saved = {f.__name__: scope.get(f.__name__) for f in device_functions}
    outcomes = []
    try:
        for on in (True, False):
            with eliminating(on):
                for f in device_functions:
                    scope[f.__name__] = safekern.jit(device=True)(f)
                kernel = safekern.jit(pyfunc)
            outcomes.append(launch(kernel, griddim, blockdim, make_args()))
    finally:
        scope.update(saved)
    return differences(*outcomes)


def eliminated_sites(kernel) -> int:
    """How many of a kernel's check sites elimination removed or hoisted."""
    return sum(1 for r in kernel.check_report()
               if r["status"] != "checked" and r["kind"] in ("load", "store", "atomic"))
