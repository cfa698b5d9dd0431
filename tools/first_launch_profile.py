"""Where the benchmark's "compile time of the first launch" goes, checked vs plain numba, on a CPU.

The benchmark (benchmarks/overhead.py) times, per case, decorating its kernels and running
one step, fresh (SAFEKERN_CACHE=off), checked and plain numba. Without a GPU the step cannot
run, so here, for each case, with numba compiling for an sm_90a (an H100) and nothing loaded:

1. the decoration (the front end; module import for the real-world set), with what a GPU
   compiles there: a kernel decorated with signatures compiles at once, numba's and safekern's
   (kernel.py defers it where no GPU is found: here it is told one is);
2. the forms the step's launches choose, by each kernel's own launch dispatcher (the launch
   variant of the predicates that hold, numba's own kernel when that form holds no check and
   nothing can be pending: `step_forms`), each compiled for the step's argument types as a
   launch compiles it (`Build.dispatcher().compile(argtypes)`), split into numba's passes
   (typing, lowering, the rest), NVVM (LLVM IR to PTX) and ptxas (PTX to cubin by numba's
   linker: what the launch's bind() does before it loads the module);
3. plain numba the same way (`safekern.jit` under SAFEKERN_CHECKS=0: numba's dispatcher).

    NUMBA_ENABLE_CUDASIM=0 SAFEKERN_BENCH_REALWORLD=.realworld \\
        python -m tools.first_launch_profile [--reps N] [--json FILE] [CASE ...]

CPU seconds of this process (time.process_time: NVVM and ptxas run in it), best of `--reps`,
each run after a collection with what is left frozen (as the benchmark's compile samples):
compare them with each other, not with a GPU run's (which adds loading the modules). Each
checked row ends with the forms its step compiled, with the seconds of each (`lud_diagonal:
plain=0.31s`: the form's build and numba's compile of it; numba's part is 0 for a form it
compiled at decoration, which the row's stages count).
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time

from tools.fresh_function import fresh

os.environ["SAFEKERN_CACHE"] = "off"
CC = (9, 0, "a")
STAGES = ("front", "typing", "lowering", "passes", "nvvm", "ptxas", "other")


# -- 1. what the first step compiles ------------------------------------------------------------


def step_forms(built, plan) -> list:
    """[(kernel name, form, its Build, argument types)] that one first step compiles, in order,
    chosen by each kernel's own launch dispatcher (dispatch.py) as its launches would: the
    launch variant of the predicates that hold (or the checked kernel), then numba's own kernel
    when that form holds no check and no launch before it in the step could have left a
    failure pending (the device's failure source is dirty after a launch of a form with a
    check). Each (form, argument types) once."""
    dirty, seen, out = False, set(), []
    for kname, grid, block, args in plan:
        kernel = built[kname]
        dispatch = kernel.dispatch
        user = _signature(args)
        form = dispatch.variant_for(args, (grid, block)) if dispatch.variants is not False \
            else kernel
        free = dispatch.free(form)
        if free and not dirty and dispatch.plain_allowed():
            form = dispatch.plain()
        dirty = dirty or not free
        key = (id(form), user)
        if key not in seen:
            seen.add(key)
            out.append((kname, form, form.build, user))
    return out


def _kind(build) -> str:
    from safekern.backends.numba.build import LaunchVariantBuild
    from safekern.backends.numba.plain import PlainBuild

    if isinstance(build, PlainBuild):
        return "plain"
    if isinstance(build, LaunchVariantBuild):
        if build.subset is None:
            return "variant"
        preds = build.main.final_rewrite().launch_predicates
        return f"variant{sorted(i for i, p in enumerate(preds) if p in build.subset)}"
    return "checked"


# -- 2. timing each part ---------------------------------------------------------------------------

class Timers:
    """numba's compile, NVVM and ptxas timed (the outermost compile_cuda only: device functions
    compile inside their caller's typing)."""

    def __init__(self):
        self.t = dict.fromkeys(STAGES, 0.0)
        self.depth = 0

    def install(self):
        import numba.cuda.dispatcher as disp
        from numba.cuda.cudadrv import nvvm

        timers = self
        compile_cuda, compile_ir = disp.compile_cuda, nvvm.compile_ir

        def timed_compile_cuda(*a, **kw):
            timers.depth += 1
            t0 = time.process_time()
            try:
                cres = compile_cuda(*a, **kw)
            finally:
                timers.depth -= 1
            if timers.depth == 0:
                timers.add_passes(cres, time.process_time() - t0)
            return cres

        def timed_compile_ir(*a, **kw):
            t0 = time.process_time()
            try:
                return compile_ir(*a, **kw)
            finally:
                timers.t["nvvm"] += time.process_time() - t0

        # Without a GPU, "the current device" is an sm_90a (an H100's).
        from numba.cuda.codegen import CUDACodeLibrary
        ensure_cc = CUDACodeLibrary._ensure_cc

        # A compile binds the kernel (its cubin: ptxas, then loading it, which needs a GPU):
        # the cubin made here, timed, not loaded.
        bind = disp._Kernel.bind

        def timed_bind(kernel):
            t0 = time.process_time()
            try:
                kernel._codelibrary.get_cubin(cc=CC)
            finally:
                timers.t["ptxas"] += time.process_time() - t0

        # On a GPU a checked kernel decorated with signatures compiles at decoration, as
        # numba's does (kernel.py; without one it defers): the same here. Its kernel-cache
        # lookup needs a context, so the signatures are compiled by numba's dispatcher, as
        # they are on a GPU with SAFEKERN_CACHE=off.
        from safekern.backends.numba import kernel as checked_kernel
        from safekern.backends.numba.launch import BinaryLauncher
        numba_cuda, prepare = checked_kernel.cuda, BinaryLauncher.prepare_signatures

        disp.compile_cuda, nvvm.compile_ir = timed_compile_cuda, timed_compile_ir
        CUDACodeLibrary._ensure_cc = lambda self, cc: CC if cc is None else cc
        disp._Kernel.bind = timed_bind
        checked_kernel.cuda = type("GPU", (), {"is_available": staticmethod(lambda: True)})
        BinaryLauncher.prepare_signatures = lambda launcher: False
        return lambda: (setattr(disp, "compile_cuda", compile_cuda),
                        setattr(nvvm, "compile_ir", compile_ir),
                        setattr(CUDACodeLibrary, "_ensure_cc", ensure_cc),
                        setattr(disp._Kernel, "bind", bind),
                        setattr(checked_kernel, "cuda", numba_cuda),
                        setattr(BinaryLauncher, "prepare_signatures", prepare))

    def add_passes(self, cres, seconds):
        """`seconds` of a compile split as numba's pass times (wall clock) are: type inference
        (with the device functions compiled in it), lowering, the other passes."""
        split = dict.fromkeys(("typing", "lowering", "passes"), 0.0)
        for pipeline in (cres.metadata or {}).get("pipeline_times", {}).values():
            for name, t in pipeline.items():
                stage = ("typing" if "type_inference" in name else
                         "lowering" if "lowering" in name else "passes")
                split[stage] += t.init + t.run + t.finalize
        total = sum(split.values()) or 1.0
        for stage, wall in split.items():
            self.t[stage] += seconds * wall / total


def _signature(args) -> tuple:
    import numba

    return tuple(numba.typeof(a) for a in args)


def _compile(timers, dispatcher, argtypes) -> None:
    """One launch's compile of `dispatcher` for `argtypes`, its PTX through ptxas."""
    from safekern.backends.numba.build import assume_device

    t0 = time.process_time()
    before = sum(timers.t.values())
    with assume_device((9, 0)):
        kernel = dispatcher.compile(argtypes)
    total = time.process_time() - t0
    timers.t["other"] += total - (sum(timers.t.values()) - before)


def _argtypes(build, user) -> tuple:
    from numba import types as nt

    if not build.hidden:
        return user
    return (nt.int64, *user) if build.hidden_first else (*user, nt.int64)


def measure_case(name, mode_name) -> dict:
    """Stage seconds of one fresh first step of case `name` in mode `mode_name`."""
    from benchmarks import cases, modes
    from safekern.backends.numba.build import assume_device

    mode = modes.MODES[mode_name]
    case = cases.build(name, True)
    plan = case.plan(case.arrays)
    timers = Timers()
    restore = timers.install()
    try:
        with modes.active(mode, SAFEKERN_CACHE="off"):
            t0 = time.process_time()
            before = sum(timers.t.values())
            with assume_device((9, 0)):         # (numba compiles at once with signatures)
                built = {k: modes.decorate(mode, fresh(fn)) for k, fn in case.kernels.items()}
            timers.t["front"] += time.process_time() - t0 - (sum(timers.t.values()) - before)
            if not mode.checked:
                done = set()
                for kname, _, _, args in plan:
                    k, user = built[kname], _signature(args)
                    if (kname, user) not in done:
                        done.add((kname, user))
                        _compile(timers, getattr(k, "_numba", k), user)
                return timers.t, []
            t0 = time.process_time()
            before = sum(timers.t.values())
            with assume_device((9, 0)):         # (a form with signatures compiles when made)
                forms = step_forms(built, plan)
            timers.t["front"] += time.process_time() - t0 - (sum(timers.t.values()) - before)
            labels = []
            for kname, form, build, user in forms:
                t0 = time.process_time()
                before = sum(timers.t.values())
                with assume_device((9, 0)):
                    disp = build.dispatcher()   # the variant's rewrite as Python, numba's jit
                timers.t["front"] += time.process_time() - t0 - (
                    sum(timers.t.values()) - before)
                _compile(timers, disp, _argtypes(build, user))
                # (this form's build -- its rewrite as Python, a partial variant's rewrite --
                # and numba's compile of it; numba's part is 0 where it compiled at decoration)
                labels.append(f"{kname}:{_kind(build)}={time.process_time() - t0:.2f}s")
    finally:
        restore()
    return timers.t, labels


def _collected(measure_one, *args):
    """`measure_one(*args)` after a collection, what is left frozen: as the benchmark's compile
    samples (benchmarks/collector.py), no run pays for the garbage of the runs before it."""
    from benchmarks.collector import settle

    settle()
    return measure_one(*args)


def measure(names, reps) -> dict:
    from safekern import config

    config.reload()
    rows = {}
    for mode in ("unchecked", "checked"):     # one-off costs (imports, NVVM, libdevice) first
        measure_case(names[0], mode)
    for name in names:
        row = {}
        try:
            for mode in ("unchecked", "checked"):
                runs = [_collected(measure_case, name, mode) for _ in range(reps)]
                row[mode], row["compiles"] = min(runs, key=lambda r: sum(r[0].values()))
        except Exception as err:      # noqa: BLE001 -- a case that fails is named, the rest go on
            print(f"{name}: {type(err).__name__}: {str(err)[:200]}", file=sys.stderr)
            continue
        finally:
            gc.unfreeze()
        rows[name] = row
    return rows


def _line(label, t, width=24):
    return f"{label[:width]:{width}s}" + "".join(f"{t.get(s, 0.0):8.3f}" for s in STAGES) + \
        f"{sum(t.get(s, 0.0) for s in STAGES):9.3f}"


def report(rows) -> str:
    head = f"{'case':24s}" + "".join(f"{s:>8s}" for s in STAGES) + f"{'total':>9s}"
    lines = [head]
    ratios, sums = [], {m: dict.fromkeys(STAGES, 0.0) for m in ("unchecked", "checked")}
    for name, row in rows.items():
        u, c = row["unchecked"], row["checked"]
        ratio = sum(c.values()) / max(sum(u.values()), 1e-9)
        ratios.append(ratio)
        kinds = ",".join(row["compiles"]) or "-"
        lines.append(_line(name + " plain", u))
        lines.append(_line(name + " checked", c) + f"  {ratio:.2f}x  [{kinds}]")
        for m in sums:
            for s in STAGES:
                sums[m][s] += row[m][s]
    lines.append(_line("TOTAL plain", sums["unchecked"]))
    lines.append(_line("TOTAL checked", sums["checked"]))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else float("nan")
    lines.append(f"geomean checked/plain over {len(ratios)} cases: {geo:.3f}; ratio of totals "
                 f"{sum(sums['checked'].values()) / max(sum(sums['unchecked'].values()), 1e-9):.3f}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--json", help="write the rows here too")
    args = p.parse_args(argv)
    from benchmarks import cases

    names = args.cases or [n for n in cases.CASES if cases.CASES[n] is not None]
    rows = measure(names, args.reps)
    print(report(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
