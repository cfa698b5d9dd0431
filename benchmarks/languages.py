"""The kernel languages of the suite, and which (language, case) pairs a run selects.

- `numba`: numba-cuda kernels (`kernels.py`, `rodinia_kernels.py`): `harness.NumbaLanguage`;
- `cupy`: CUDA C through `cupy.RawKernel` / `safekern.cupy.RawKernel` (`cuda_c_cases.py`);
- `opencl`: OpenCL C through `pyopencl.Program` / `safekern.opencl.Program`
  (`opencl_cases.py`).

`harness.run_case` drives a `Language`: upload a case's arrays, build its kernels the way a
mode builds them, launch a step, synchronise as an application does, time repetitions. A case
of the C languages is the numba case with C kernels (`c_cases.py`). Results of the numba cases
keep their plain names (`vector_add`); the others are `cupy:vector_add`, `opencl:vector_add`.
"""
from __future__ import annotations

import time

NAMES = ("numba", "cupy", "opencl")
LABELS = {"numba": "numba-cuda", "cupy": "CuPy RawKernel (CUDA C)",
          "opencl": "PyOpenCL Program (OpenCL C)"}


class Kernels(dict):
    """A mode's built kernels by name; `reports[name]`, where given, is what lists the kernel's
    checks (`check_report()`) when the kernel object itself does not."""

    def __init__(self, kernels=(), reports=None):
        super().__init__(kernels)
        self.reports = reports or {}


class Language:
    """How a kernel language runs a case (the defaults suit array libraries with events)."""

    name = ""

    @property
    def label(self) -> str:
        return LABELS[self.name]

    def unavailable(self) -> str | None:
        """Why this language cannot run here, or None (and then it is ready to)."""
        return None

    def describe(self) -> dict:
        """The device, for the report."""
        return {}

    def adapt(self, case):
        """This language's version of a numba case."""
        return case

    def upload(self, case) -> dict:
        raise NotImplementedError

    def plan_args(self, dev: dict) -> dict:
        """What a case's plan indexes for its launch arguments."""
        return dev

    def reset(self, case, dev) -> None:
        for name in case.reset_names():
            dev[name].set(case.arrays[name])

    def fetch(self, case, dev) -> dict:
        return {name: dev[name].get() for name in case.outputs}

    def compile(self, mode, case) -> Kernels:
        """The case's kernels as `mode` builds them; called while the mode is active."""
        raise NotImplementedError

    def launch(self, kernels, plan):
        """Run one step; (first, last) launch event where the language returns events."""
        raise NotImplementedError

    def app_sync(self, mode) -> None:
        raise NotImplementedError

    def timer(self):
        """(mode, kernels, plan, steps) -> (device ms, host wall ms) of `steps` steps."""
        raise NotImplementedError

    def check_summary(self, kernels) -> dict:
        from . import modes

        out = {name: modes.check_summary(kernels.reports.get(name, k))
               for name, k in kernels.items()}
        return {k: v for k, v in out.items() if v is not None}

    def release(self) -> None:
        """Give back what a finished case left behind (memory pools, deferred frees)."""


class HostTimer:
    """Times a loop of steps ending in the application's sync with the host clock, and with
    the device's events where `launch` returns them (first launch's start to last one's end)."""

    def __init__(self, language, device_ms=None):
        self.language = language
        self.device_ms = device_ms       # (first event, last event) -> ms, or None

    def __call__(self, mode, kernels, plan, steps):
        t0 = time.perf_counter()
        first = last = None
        for _ in range(steps):
            events = self.language.launch(kernels, plan)
            if events is not None:
                first = events[0] if first is None else first
                last = events[1]
        self.language.app_sync(mode)
        wall = (time.perf_counter() - t0) * 1e3
        if self.device_ms and first is not None and last is not None:
            return self.device_ms(first, last), wall
        return wall, wall


_LOADED: dict = {}


def get(name: str) -> Language:
    """The language's runner (one per process)."""
    if name not in _LOADED:
        if name == "numba":
            from .harness import NUMBA as runner
        elif name == "cupy":
            from .cuda_c_cases import CupyLanguage
            runner = CupyLanguage()
        elif name == "opencl":
            from .opencl_cases import OpenCLLanguage
            runner = OpenCLLanguage()
        else:
            raise KeyError(name)
        _LOADED[name] = runner
    return _LOADED[name]


def case_names(language: str) -> tuple:
    """The cases a language has, in report order."""
    from . import c_cases, cases

    return tuple(cases.CASES) if language == "numba" else \
        tuple(n for n in cases.CASES if n in c_cases.NAMES)


def case_id(language: str, name: str) -> str:
    return name if language == "numba" else f"{language}:{name}"


def select(only: list, languages: list) -> list:
    """[(language, case)] that `--only` names (plain names in every language that has them,
    `language:name` in that one) among `--languages`; ValueError says what matched nothing."""
    unknown = [lang for lang in languages if lang not in NAMES]
    if unknown:
        raise ValueError(f"--languages: unknown language(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(NAMES)}")
    every = [(lang, name) for lang in NAMES if lang in languages for name in case_names(lang)]
    if not only:
        return every
    chosen, missing = set(), []
    # two set names: "realworld" (the kernels of public projects, rw_*) and "suite" (the rest)
    groups = {"realworld": lambda n: n.startswith("rw_"),
              "suite": lambda n: not n.startswith("rw_")}
    for entry in list(only):
        lang, _, name = entry.rpartition(":")
        if name in groups:
            only = [o for o in only if o != entry] + [
                f"{lang}:{n}" if lang else n for lg, n in every
                if groups[name](n) and lang in ("", lg)]
    for entry in only:
        lang, _, name = entry.rpartition(":")
        hits = [(lg, n) for lg, n in every if n == name and lang in ("", lg)]
        if not hits:
            missing.append(f"{entry} ({lang} is not among --languages)" if lang and lang not in
                           languages else f"{entry} (no kernel of that name in "
                           f"{lang or ','.join(languages)})")
        chosen.update(hits)
    if missing:
        names = sorted({case_id(lg, n) for lg, n in every})
        raise ValueError(f"--only: unknown kernel(s) {'; '.join(missing)}; choose from "
                         f"{', '.join(names)}")
    return [pair for pair in every if pair in chosen]


def run_order(selection: list) -> list:
    """Grouped by case, so that the languages of a case share its host data and reference."""
    from . import cases

    index = {n: i for i, n in enumerate(cases.CASES)}
    return sorted(selection, key=lambda p: (index[p[1]], NAMES.index(p[0])))


def report_order(results: list) -> list:
    """Language by language, each in the order of `cases.CASES`."""
    from . import cases

    index = {n: i for i, n in enumerate(cases.CASES)}
    return sorted(results, key=lambda r: (NAMES.index(r.get("language", "numba")),
                                          index.get(r.get("case", r["name"]), 0)))


__all__ = ["NAMES", "LABELS", "Language", "Kernels", "HostTimer", "get", "case_names",
           "case_id", "select", "run_order", "report_order"]
