"""Host time of safekern's own part of a numba launch, without a GPU: `kernel[1, 32](a)` with the
short path's launch itself stubbed out (the cubin lookup and cuda.core's launch are what a GPU
adds; they are the same before and after a change of the selection).

    NUMBA_ENABLE_CUDASIM=1 python tools/dispatch_cost.py [--launches N] [--rounds R]

Times three kernels: one with no check (a plain launch: numba's own kernel), one with a check
(the checked kernel), one whose launch predicates hold (its launch variant). Prints the best
round's CPU microseconds per launch of each (process time, best of R: the machine may be shared). Run it from two
checkouts to compare their selection paths.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
os.environ.setdefault("SAFEKERN_CACHE", "off")
sys.path.insert(0, os.getcwd())

KERNELS = '''
import safekern
from numba import cuda

@safekern.jit
def free(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = 1.0

@safekern.jit
def checked(a, idx):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        a[idx[i]] = 1.0

@safekern.jit
def predicated(a, n):
    i = cuda.grid(1)
    a[i] = n
'''


class _ShortPath:
    """Stands in for a kernel's BinaryLauncher: the launch is done (nothing runs)."""

    def launch(self, launch_config, args, source=None):
        return True

    def compiled_types(self):
        return []


def _forms(kernel):
    """The kernel and the forms of it made so far (before and after issue 28's dispatcher)."""
    dispatch = getattr(kernel, "dispatch", None)
    if dispatch is not None:
        return dispatch.forms()
    forms = [kernel]
    variants = kernel.__dict__.get("_variant")
    if variants:
        forms += variants.kernels()
    if kernel.__dict__.get("_plain") is not None:
        forms.append(kernel.__dict__["_plain"])
    return forms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    opts = ap.parse_args()
    import numpy as np
    from numba import cuda

    import safekern

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "cost_kernels.py"), "w") as f:
            f.write(KERNELS)
        sys.path.insert(0, tmp)
        import cost_kernels as K

        a = cuda.to_device(np.zeros(32))
        idx = cuda.to_device(np.arange(32))
        cases = {"plain (no check)": (K.free, (a,)),
                 "checked": (K.checked, (a, idx)),
                 "launch variant": (K.predicated, (a, 1.0))}
        for kernel, args in cases.values():
            kernel[1, 32](*args)             # builds the forms a launch runs
            safekern.sync()
            for form in _forms(kernel):
                form._binary = _ShortPath()
        best = {name: float("inf") for name in cases}
        for _ in range(opts.rounds):
            for name, (kernel, args) in cases.items():
                t0 = time.process_time()
                for _ in range(opts.launches):
                    kernel[1, 32](*args)
                best[name] = min(best[name], (time.process_time() - t0) / opts.launches * 1e6)
        safekern.sync()
    print(f"safekern {os.path.dirname(safekern.__file__)}")
    for name, us in best.items():
        print(f"  {name:<18} {us:.2f} us per launch (best of {opts.rounds})")


if __name__ == "__main__":
    main()
