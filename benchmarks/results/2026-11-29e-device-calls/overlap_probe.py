"""Can the front end hide behind numba's own compile? For benchmark cases whose first step
launches numba's own kernels (every launch variant check-free): the wall seconds of numba's
compile of the step's kernels alone (P), safekern's front end alone (F: decoration, the forms
the step chooses, their dispatchers -- nothing compiled), both one after the other (S), and both
at once: numba's compile in a thread while the front end runs (O). NVVM and ptxas release the
GIL; numba's typing and lowering do not.

    SAFEKERN_BENCH_REALWORLD=.realworld python .../overlap_probe.py [--reps N] CASE ...
"""
import argparse, gc, os, statistics, sys, threading, time

os.environ["SAFEKERN_CACHE"] = "off"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--switch", type=float, default=None,
                    help="sys.setswitchinterval while both run (seconds; Python's default 0.005)")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    from numba import cuda
    import numba.cuda.dispatcher as disp
    from benchmarks import cases, modes
    from tools.fresh_function import fresh
    from tools.first_launch_profile import step_forms, _signature

    gpu = cuda.is_available()
    if not gpu:                     # (a CPU: the cubin made, nothing loaded)
        from numba.cuda.codegen import CUDACodeLibrary
        cc = (9, 0, "a")
        CUDACodeLibrary._ensure_cc = lambda self, c: cc if c is None else c
        disp._Kernel.bind = lambda k: k._codelibrary.get_cubin(cc=cc)
    import contextlib
    from safekern.backends.numba.build import assume_device
    device = contextlib.nullcontext if gpu else (lambda: assume_device((9, 0)))
    plain_mode, checked_mode = modes.MODES["unchecked"], modes.MODES["checked"]

    def plain(case, plan):
        with modes.active(plain_mode, SAFEKERN_CACHE="off"):
            built = {k: modes.decorate(plain_mode, fresh(fn)) for k, fn in case.kernels.items()}
            seen = set()
            for kname, _, _, args in plan:
                if kname not in seen:
                    seen.add(kname)
                    k = built[kname]
                    with device():
                        getattr(k, "_numba", k).compile(_signature(args))

    def front(case, plan):
        with modes.active(checked_mode, SAFEKERN_CACHE="off"):
            built = {k: modes.decorate(checked_mode, fresh(fn)) for k, fn in case.kernels.items()}
            for _, _, build, _ in step_forms(built, plan):
                build.dispatcher()

    def both(case, plan):
        front(case, plan)
        plain(case, plan)

    def overlapped(case, plan):
        before = sys.getswitchinterval()
        if a.switch:
            sys.setswitchinterval(a.switch)
        try:
            th = threading.Thread(target=plain, args=(case, plan))
            th.start()
            front(case, plan)
            th.join()
        finally:
            sys.setswitchinterval(before)

    for name in a.cases:
        case = cases.build(name, True)
        arrays = {k: cuda.to_device(v) for k, v in case.arrays.items()} if gpu else case.arrays
        plan = case.plan(arrays)
        plain(case, plan); front(case, plan)           # one-off costs
        t = {k: [] for k in "PFSO"}
        for rep in range(a.reps):
            for key, fn in (("P", plain), ("F", front), ("S", both), ("O", overlapped)):
                gc.collect()
                t0 = time.perf_counter()
                fn(case, plan)
                t[key].append(time.perf_counter() - t0)
        m = {k: statistics.median(v) for k, v in t.items()}
        print(f"{name:18s} P {m['P']:.3f}  F {m['F']:.3f}  S {m['S']:.3f} ({m['S'] / m['P']:.3f}x)"
              f"  O {m['O']:.3f} ({m['O'] / m['P']:.3f}x)", flush=True)


if __name__ == "__main__":
    main()
