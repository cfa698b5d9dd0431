"""The walk from `@safekern.jit` to a raised BoundsError: which safekern modules it crosses.

    NUMBA_ENABLE_CUDASIM=1 python tools/launch_walk.py [--warm] [--edges]

Decorates a kernel that writes one element past its array, launches it and calls
`safekern.sync()`, with every Python call traced (sys.setprofile). A *crossing* is a call from
a function in one safekern module into a function of another (the first time that pair of
modules is seen: distinct module-to-module edges, so a loop counts once); calls into numba,
NumPy and the standard library are not counted, nor anything they call back, nor what importing
a module runs (the backend is imported on first use). `--warm` traces
a second launch of the decorated kernel only (the per-launch path); the count is printed with
the modules entered, and `--edges` lists the edges (docs/how-it-works.md's walk).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
sys.path.insert(0, os.getcwd())          # the checkout it is run from
PACKAGE = ""                              # safekern's folder, once imported

KERNEL = '''
import safekern

@safekern.jit
def one_past(a):
    i = len(a)
    a[i] = 1.0
'''


def _module(path: str) -> str | None:
    if not path.startswith(PACKAGE):
        return None
    return path[len(PACKAGE):].removesuffix(".py").replace(os.sep, ".")


class Walk:
    def __init__(self):
        self.edges: list[tuple[str, str]] = []
        self.seen: set = set()

    def profile(self, frame, event, arg):
        if event != "call":
            return
        callee = _module(frame.f_code.co_filename)
        if callee is None:
            return
        # The nearest safekern caller frame, if the call came straight from safekern code
        # (a call from numba or NumPy back into safekern is numba's, not the walk's).
        back = frame.f_back
        caller = _module(back.f_code.co_filename) if back is not None else None
        if caller is None or caller == callee:
            return
        if "<module>" in (frame.f_code.co_name, back.f_code.co_name):
            return                # importing a module (first use), not the walk
        edge = (caller, callee)
        if edge not in self.seen:
            self.seen.add(edge)
            self.edges.append(edge)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warm", action="store_true", help="trace a second launch only")
    ap.add_argument("--edges", action="store_true", help="list the edges in call order")
    opts = ap.parse_args()
    os.environ["SAFEKERN_CACHE"] = "off"
    import numpy as np
    from numba import cuda

    import safekern

    global PACKAGE
    PACKAGE = os.path.dirname(os.path.abspath(safekern.__file__)) + os.sep
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "walk_kernel.py")
        with open(path, "w") as f:
            f.write(KERNEL)
        sys.path.insert(0, tmp)
        walk = Walk()
        a = cuda.to_device(np.zeros(8))
        if opts.warm:
            import walk_kernel
            walk_kernel.one_past[1, 1](a)
            try:
                safekern.sync()
            except safekern.BoundsError:
                pass
        sys.setprofile(walk.profile)
        try:
            if not opts.warm:
                import walk_kernel
            walk_kernel.one_past[1, 1](a)
            safekern.sync()
        except safekern.BoundsError as err:
            raised = err
        else:
            raised = None
        finally:
            sys.setprofile(None)
    if raised is None:
        sys.exit("no BoundsError was raised")
    modules = sorted({m for e in walk.edges for m in e})
    numba_files = [m for m in modules if m.startswith("backends.numba.")]
    print(f"crossings: {len(walk.edges)} (distinct module-to-module calls), "
          f"modules: {len(modules)}, numba backend files: {len(numba_files)}")
    if opts.edges:
        for caller, callee in walk.edges:
            print(f"  {caller} -> {callee}")


if __name__ == "__main__":
    main()
