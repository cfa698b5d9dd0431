"""Where a checked first launch's time goes beyond plain numba's, on a GPU: each case's
`benchmarks.overhead._compile_once` (decorate, compile, load, launch, sync), each mode
`--reps` times, untimed profiles aside: the median seconds per mode, then one cProfile of
each mode's runs and the functions whose cumulative and own time grew most.

    python benchmarks/results/2026-11-29b-device-calls/first_launch_diff.py [--reps N] CASE...
"""
import argparse, cProfile, os, pstats, statistics, sys

os.environ["SAFEKERN_CACHE"] = "off"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    from numba import cuda
    from benchmarks import cases, modes, overhead, kernels
    arr = cuda.device_array(1, "float32")
    for mode in (modes.UNCHECKED, modes.CHECKED):
        with modes.active(mode, SAFEKERN_CACHE="off"):
            modes.decorate(mode, overhead._fresh(kernels.empty_array))[1, 1](arr)
            modes.app_sync(mode)
    profs = {m.name: cProfile.Profile() for m in (modes.UNCHECKED, modes.CHECKED)}
    for name in a.cases:
        case = cases.build(name, True, 1234)
        dev = {k: cuda.to_device(v) for k, v in case.arrays.items()}
        plan = case.plan(dev)
        times = {m.name: [] for m in (modes.UNCHECKED, modes.CHECKED)}
        for rep in range(a.reps):
            for mode in (modes.UNCHECKED, modes.CHECKED):
                times[mode.name].append(overhead._compile_once(mode, case, plan)[0])
        for rep in range(2):
            for mode in (modes.UNCHECKED, modes.CHECKED):
                p = profs[mode.name]
                p.enable()
                try:
                    overhead._compile_once(mode, case, plan)
                finally:
                    p.disable()
        u, c = (statistics.median(times[m]) for m in ("unchecked", "checked"))
        print(f"{name:20s} plain {u*1e3:8.2f} ms  checked {c*1e3:8.2f} ms  +{(c-u)*1e3:6.2f} ms "
              f"{c/max(u, 1e-9):.3f}x", flush=True)
    st = {m: pstats.Stats(p).stats for m, p in profs.items()}
    out = os.environ.get("OUT")
    if out:
        for m, p in profs.items():
            p.dump_stats(os.path.join(out, f"first_launch_{m}.pstats"))
    rows = []
    for k in set(st["unchecked"]) | set(st["checked"]):
        u = st["unchecked"].get(k, (0, 0, 0, 0)); c = st["checked"].get(k, (0, 0, 0, 0))
        rows.append((c[3] - u[3], c[2] - u[2], u[1], c[1], k))
    for title, key in (("cumulative", 0), ("own", 1)):
        print(f"\n-- by {title} time grown (2 profiled runs a case and mode) --")
        print("cum_diff own_diff calls_plain calls_checked function")
        for r in sorted(rows, key=lambda r: -r[key])[:a.top]:
            f = r[4]
            print(f"{r[0]:8.4f} {r[1]:8.4f} {r[2]:7d} {r[3]:7d} "
                  f"{'/'.join(f[0].split('/')[-2:])}:{f[1]}({f[2]})")


if __name__ == "__main__":
    main()
