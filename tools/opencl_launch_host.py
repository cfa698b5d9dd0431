"""Host time per launch of an OpenCL C benchmark case, PyOpenCL against safekern (any device).

    python tools/opencl_launch_host.py [CASE ...] [--launches N] [--quick] [--per-call]
                                       [--profile N]

For each case (default hotspot) of benchmarks/opencl_cases.py, or `scalars` (a kernel of two
buffers and twelve scalars, a launch of one work-group): the host time of the launch calls of
one benchmark step, repeated (no wait for the device between them), for `pyopencl.Program`
and `safekern.opencl.Program`; and per checked launch, which kernel ran (plain: the user's own,
variant, checked) and how many arguments were set on each kernel. A launch whose host time is
above its kernel's device time starves the device: the benchmark's device time then measures
the host.

`--per-call` times each launch call alone (the queue finished between steps, untimed) and gives
the median: on a CPU device (PoCL), whose work-items run on the cores the host uses, and on a
loaded machine, it measures the host path without the device's work. `--profile N` adds the
cProfile of the checked launch calls, top N by own time; PyOpenCL's C argument setters and
enqueue are wrapped as `C_<name>` so that their time is theirs, not their caller's.
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.getcwd())

from benchmarks import cases, languages, opencl_cases  # noqa: E402

SCALARS = """
__kernel void scalars(__global float* out, __global const float* a, int n, int s0, int s1,
                      int s2, int s3, float f0, float f1, float f2, float f3, int s4, int s5) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] * f0 + f1 * s0 + f2 * s1 + f3 * (s2 + s3 + s4 + s5);
}
"""
_SETTERS = (("_set_arg_multi", 2), ("_set_arg_buf_multi", 2), ("_set_arg_buf_pack_multi", 3))


def _count_setters():
    """Patch PyOpenCL's argument setters to count entries per kernel; the counts dict."""
    from safekern.backends.opencl import kernel as K

    seen = collections.Counter()
    for name, width in _SETTERS:
        real = getattr(K._BASE, name)

        def setter(knl, entries, real=real, width=width):
            seen[id(knl)] += len(entries) // width
            return real(knl, entries)
        setattr(K._BASE, name, setter)
    return seen


def _name_c_calls():
    """Wrap PyOpenCL's C setters and enqueue in Python functions named C_<name> (cProfile
    charges a nanobind function's time to its caller)."""
    import pyopencl._cl as _cl

    from safekern.backends.opencl import kernel as K

    for name, _ in _SETTERS:
        ns = {"real": getattr(K._BASE, name)}
        exec(f"def C{name}(knl, entries):\n    return real(knl, entries)", ns)
        setattr(K._BASE, name, ns["C" + name])
    ns = {"real": _cl.enqueue_nd_range_kernel}
    exec("def C_enqueue_nd_range_kernel(*a):\n    return real(*a)", ns)

    class _CL:
        def __getattr__(self, attr):
            return getattr(_cl, attr)
    _CL.enqueue_nd_range_kernel = staticmethod(ns["C_enqueue_nd_range_kernel"])
    K._cl = _CL()


def _scalars_case(lang):
    """(built kernels by mode, plan) of the many-scalar kernel."""
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla

    import safekern.opencl as skcl

    out, a = (cla.zeros(lang.queue, 64, np.float32) for _ in range(2))
    args = (out.data, a.data, np.int32(64), *map(np.int32, range(4)),
            *map(np.float32, (0.5, 1.5, 2.5, 3.5)), np.int32(4), np.int32(5))
    built = {"unchecked": cl.Program(lang.ctx, SCALARS).build(),
             "checked": skcl.Program(lang.ctx, SCALARS, filename="scalars.cl").build()}
    built = {m: languages.Kernels({"scalars": prg.scalars}) for m, prg in built.items()}
    return built, [("scalars", (1,), (64,), args)]


def _case(lang, name, quick):
    if name == "scalars":
        return _scalars_case(lang)
    case = lang.adapt(cases.build(name, quick))
    plan = case.plan(lang.plan_args(lang.upload(case)))
    built = {m: lang.compile(type("Mode", (), {"checked": m == "checked"})(), case)
             for m in ("unchecked", "checked")}
    return built, plan


def _run(lang, kernels, plan, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        lang.launch(kernels, plan)
    host = time.perf_counter() - t0
    lang.queue.finish()
    return host / (steps * len(plan)) * 1e6


def _calls(kernels, plan):
    calls = []
    for name, grid, block, args in plan:
        local = opencl_cases._dims(block)
        size = tuple(g * b for g, b in zip(opencl_cases._dims(grid), local))
        calls.append((kernels[name], size, local, args))
    return calls


def _per_call(lang, kernels, plan, steps, prof=None):
    """Median host time of one launch call (us); the queue finishes between steps, untimed."""
    times, queue, clock = [], lang.queue, time.perf_counter
    calls = _calls(kernels, plan)
    for _ in range(steps):
        for knl, size, local, args in calls:
            if prof is not None:
                prof.enable()
            t0 = clock()
            knl(queue, size, local, *args)
            times.append(clock() - t0)
            if prof is not None:
                prof.disable()
        queue.finish()
    times.sort()
    return times[len(times) // 2] * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=["hotspot"])
    ap.add_argument("--launches", type=int, default=400)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--per-call", action="store_true", help="median of each call alone")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="cProfile of the checked launches: the top N by own time")
    a = ap.parse_args(argv)
    import safekern

    lang = opencl_cases.OpenCLLanguage()
    why = lang.unavailable()
    if why:
        sys.exit(f"no OpenCL device: {why}")
    print("device:", lang.describe()["device"])
    if a.profile:
        _name_c_calls()
    for name in a.cases:
        built, plan = _case(lang, name, a.quick)
        steps = max(1, a.launches // len(plan))
        for kernels in built.values():            # first launches: builds, variants
            _run(lang, kernels, plan, 2)
        safekern.sync()
        per = {m: [] for m in built}
        for _ in range(3 if not a.per_call else 5):   # interleaved
            for m, kernels in built.items():
                per[m].append(_per_call(lang, kernels, plan, steps) if a.per_call
                              else _run(lang, kernels, plan, steps))
                safekern.sync()
        how = "median call" if a.per_call else "per launch"
        line = ", ".join(f"{m} {sorted(v)[len(v) // 2]:.1f} us" for m, v in per.items())
        print(f"{name}: host time {how} (median of {len(per['checked'])}): {line}")
        if a.profile:
            prof = cProfile.Profile()
            _per_call(lang, built["checked"], plan, steps, prof)
            safekern.sync()
            pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(a.profile)
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
