"""Host time per launch of an OpenCL C benchmark case, PyOpenCL against safekern (any device).

    python tools/opencl_launch_host.py [CASE ...] [--launches N] [--quick]

For each case (default hotspot) of benchmarks/opencl_cases.py: the host time of the launch
calls of one benchmark step, repeated (no wait for the device between them), for
`pyopencl.Program` and `safekern.opencl.Program`; and per checked launch, which kernel ran
(plain: the user's own, variant, checked) and how many arguments were set on each kernel. A
launch whose host time is above its kernel's device time starves the device: the benchmark's
device time then measures the host.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.getcwd())

from benchmarks import cases, opencl_cases  # noqa: E402


def _count_setters():
    """Patch PyOpenCL's argument setters to count entries per kernel; the counts dict."""
    from safekern.backends.opencl import kernel as K

    seen = collections.Counter()
    for name, width in (("_set_arg_multi", 2), ("_set_arg_buf_multi", 2),
                        ("_set_arg_buf_pack_multi", 3)):
        real = getattr(K._BASE, name)

        def setter(knl, entries, real=real, width=width):
            seen[id(knl)] += len(entries) // width
            return real(knl, entries)
        setattr(K._BASE, name, setter)
    return seen


def _run(lang, kernels, plan, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        lang.launch(kernels, plan)
    host = time.perf_counter() - t0
    lang.queue.finish()
    return host / (steps * len(plan)) * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=["hotspot"])
    ap.add_argument("--launches", type=int, default=400)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    import safekern

    lang = opencl_cases.OpenCLLanguage()
    why = lang.unavailable()
    if why:
        sys.exit(f"no OpenCL device: {why}")
    print("device:", lang.describe()["device"])
    for name in a.cases:
        case = lang.adapt(cases.build(name, a.quick))
        dev = lang.upload(case)
        plan = case.plan(lang.plan_args(dev))
        steps = max(1, a.launches // len(plan))
        built = {m: lang.compile(type("Mode", (), {"checked": m == "checked"})(), case)
                 for m in ("unchecked", "checked")}
        for kernels in built.values():            # first launches: builds, variants
            _run(lang, kernels, plan, 2)
        safekern.sync()
        per = {m: [] for m in built}
        for _ in range(3):                        # interleaved
            for m, kernels in built.items():
                per[m].append(_run(lang, kernels, plan, steps))
                safekern.sync()
        line = ", ".join(f"{m} {sorted(v)[1]:.1f} us" for m, v in per.items())
        print(f"{name}: host time per launch (median of 3): {line}")
        seen = _count_setters()
        lang.launch(built["checked"], plan)
        safekern.sync()
        for kname, knl in built["checked"].items():
            own = knl._plain._kernel if knl._plain is not None else None
            names = {id(knl): "checked"}
            names.update({id(v): "variant" for v in knl._variant_kernels})
            if own is not None:
                names[id(own)] = "plain"
            sets = {names.get(k, "other"): n for k, n in seen.items() if k in names}
            print(f"  {kname}: arguments set in one step, by kernel: {sets}")


if __name__ == "__main__":
    main()
