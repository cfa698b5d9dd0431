"""Load the extracted real-world modules once per benchmark mode, as their users would.

A generated module in `.realworld/` is the project's code with `@safekern.jit` where the project
wrote `@cuda.jit`; importing it while a mode's SAFEKERN_* settings are active decorates its
kernels and device functions the way that mode does (SAFEKERN_CHECKS=0: numba's own). Each
build imports the module anew, so every mode -- and every compile-time sample -- gets fresh
dispatchers, device functions included.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
from dataclasses import dataclass

from .extract import DEFAULT_OUT

_serial = itertools.count()


class RealWorldMissing(RuntimeError):
    """The extracted modules are not there (run `python -m benchmarks.realworld.extract`)."""


def directory() -> str:
    return os.environ.get("SAFEKERN_BENCH_REALWORLD", DEFAULT_OUT)


def available() -> bool:
    return os.path.isdir(directory())


def load_module(source: str):
    path = os.path.join(directory(), source + ".py")
    if not os.path.exists(path):
        raise RealWorldMissing(f"{path} is missing: run `python -m benchmarks.realworld.extract`"
                               " (or set SAFEKERN_BENCH_REALWORLD)")
    spec = importlib.util.spec_from_file_location(f"_realworld_{source}_{next(_serial)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class RealWorldKernel:
    """Kernel `name` of generated module `source`; `build_for_mode` decorates it anew."""
    source: str
    name: str

    def build_for_mode(self, mode=None):
        return getattr(load_module(self.source), self.name)


def plain_reference(kernels: dict, arrays: dict, outputs: tuple, plan):
    """The case's reference: its kernels under plain numba (SAFEKERN_CHECKS=0) on its data."""
    def reference():
        from numba import cuda

        from .. import modes
        from ..harness import run_step

        with modes.active(modes.UNCHECKED):
            built = {n: k.build_for_mode(modes.UNCHECKED) for n, k in kernels.items()}
            dev = {k: cuda.to_device(v) for k, v in arrays.items()}
            run_step(built, plan(dev))
            cuda.synchronize()
            return {o: dev[o].copy_to_host() for o in outputs}

    return reference
