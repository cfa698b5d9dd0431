"""GPU probe (issue 26, helper nreg5): what the GPU's own toolchain made of the kernel each
checked benchmark launch runs -- its PTX, SASS (when nvdisasm is on PATH) and registers per
thread -- to set beside the CPU proxies (nvJitLink 13.5 / ptxas 13.0 here), which show the
same hot loop for spmv_csr at 66abc28 and at abbd2c4 although the H100 timed it 20% slower.

    python benchmarks/results/2026-11-27-numba-regressions/gpu_sass.py OUTDIR [CASE ...]

Each case's first launch (full size) runs once through safekern (checked); the form the
dispatcher chose is recorded (checked kernel, launch variant and its subset), and every
overload numba compiled for it is written as OUTDIR/CASE.{ptx,sass} with a summary line.
"""
import os
import sys

os.environ.setdefault("SAFEKERN_CACHE", "off")
sys.path.insert(0, os.getcwd())


def main(out, names):
    from numba import cuda

    import safekern
    from benchmarks import cases
    from safekern.backends.numba import dispatch

    chosen = {}
    orig = dispatch.LaunchDispatch.variant_for

    def variant_for(self, args, cfg):
        form = orig(self, args, cfg)
        chosen[id(self)] = form
        return form
    dispatch.LaunchDispatch.variant_for = variant_for
    os.makedirs(out, exist_ok=True)
    for name in names:
        case = cases.build(name, quick=os.environ.get("QUICK") == "1")
        for kname, grid, block, args in case.first_launches():
            k = safekern.jit(case.kernels[kname]) if not hasattr(case.kernels[kname],
                                                                  "build_for_mode") \
                else case.kernels[kname].build_for_mode()
            dargs = [cuda.to_device(a) if hasattr(a, "shape") else a for a in args]
            k[grid, block](*dargs)
            safekern.sync()
            form = chosen.get(id(k.dispatch), k)
            build = form.build
            what = type(build).__name__ + (f" subset={getattr(build, 'subset', None)}"
                                           if hasattr(build, "subset") else "")
            numba = build.numba
            print(f"{name}.{kname}: launched {what}")
            for n, (sig, kern) in enumerate(numba.overloads.items()):
                stem = f"{out}/{name}.{kname}.{n}"
                with open(stem + ".ptx", "w") as f:
                    f.write(numba.inspect_asm(sig))
                try:
                    sass = kern.inspect_sass()
                except Exception as err:              # noqa: BLE001 -- no nvdisasm: no SASS
                    sass = f"(no SASS: {err})"
                with open(stem + ".sass", "w") as f:
                    f.write(sass)
                print(f"  overload {n} {sig}: "
                      f"{kern.regs_per_thread} registers, {len(sass.splitlines())} SASS lines")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["spmv_csr", "bfs_step", "rw_fbpic_gather"])
