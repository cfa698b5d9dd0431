"""What an assert per element costs a correct kernel: checked vs unchecked, numba, CuPy, OpenCL.

    python -m benchmarks.assert_cost [--n 16777216] [--reps 30] [--only numba,cupy,opencl]
                                     [--quick] [--out DIR]

One kernel, `out[i] = 2 * x[i] + 1` with an assert that `x[i] >= 0` on every element (it always
holds), in each front end and each mode:

- `unchecked`: the library's own build -- numba's `cuda.jit` (which compiles `assert` away
  unless debug=True), `cupy.RawKernel` (CUDA's own `assert`, a trap when it fails), PyOpenCL's
  `Program` (SAFEKERN_ASSERT defined as nothing: OpenCL has no assert);
- `unchecked, no assert`: the same kernel without the assert (CuPy and OpenCL only: numba's
  unchecked build already drops it);
- `checked`: safekern's build, every access bounds-checked and the assert a failure site;
- `checked, SAFEKERN_KERNEL_ASSERTS=0`: safekern's build with the asserts compiled away.

Per mode, the median over `--reps` timed repetitions of one launch (device time: CUDA events,
OpenCL profiling events), modes interleaved repetition by repetition, after warm-up; every mode's
output is verified. `--quick` is a smoke run (small n, few repetitions); numba on the CUDA
simulator and OpenCL on a CPU (PoCL) run and verify but their times say nothing about a GPU.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from . import results_json
from .backends import cupy_unavailable, opencl_device, opencl_device_name, opencl_on_cpu

ALL = ("numba", "cupy", "opencl")

CUDA_SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ASSERT(x[i] >= 0.0f);
        out[i] = 2.0f * x[i] + 1.0f;
    }
}
"""

OPENCL_SOURCE = r"""
__kernel void scale(__global const float *x, __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) {
        ASSERT(x[i] >= 0.0f);
        out[i] = 2.0f * x[i] + 1.0f;
    }
}
"""

NO_ASSERT = "#define ASSERT(c) ((void)0)\n"
ASSERTS_OFF = "checked, SAFEKERN_KERNEL_ASSERTS=0"


def _kernel_source(template: str, assert_name: str, prefix: str = "") -> str:
    return prefix + template.replace("ASSERT(", f"{assert_name}(")


def _with_asserts(enabled: bool):
    """SAFEKERN_KERNEL_ASSERTS for the builds made inside the block."""
    from safekern import config

    class _Switch:
        def __enter__(self):
            self.old = os.environ.get("SAFEKERN_KERNEL_ASSERTS")
            os.environ["SAFEKERN_KERNEL_ASSERTS"] = "1" if enabled else "0"
            config.reload()

        def __exit__(self, *exc):
            if self.old is None:
                os.environ.pop("SAFEKERN_KERNEL_ASSERTS", None)
            else:
                os.environ["SAFEKERN_KERNEL_ASSERTS"] = self.old
            config.reload()

    return _Switch()


def _interleaved(runs: dict, reps: int, warmup: int) -> dict:
    """Median ms per mode; `runs[mode]()` launches once and returns its device time in ms."""
    for run in runs.values():
        for _ in range(warmup):
            run()
    samples = {mode: [] for mode in runs}
    names = list(runs)
    for rep in range(reps):
        k = rep % len(names)
        for mode in names[k:] + names[:k]:
            samples[mode].append(runs[mode]())
    return {mode: {"median_ms": round(statistics.median(v), 4),
                   "min_ms": round(min(v), 4), "n": len(v)} for mode, v in samples.items()}


# -- numba -------------------------------------------------------------------------------------

def bench_numba(n: int, reps: int, warmup: int) -> dict:
    from numba import cuda
    from numba.core import config as numba_config

    import safekern

    from .assert_kernels import scale

    x = np.random.default_rng(0).random(n, dtype=np.float32)
    want = 2 * x + 1
    d_x = cuda.to_device(x)
    threads = 256
    blocks = (n + threads - 1) // threads
    kernels = {"unchecked": cuda.jit(scale)}
    with _with_asserts(True):
        kernels["checked"] = safekern.jit(scale)
    with _with_asserts(False):
        kernels[ASSERTS_OFF] = safekern.jit(scale)
    outs = {m: cuda.device_array(n, np.float32) for m in kernels}

    def launch(mode):
        with _with_asserts(mode != ASSERTS_OFF):
            kernels[mode][blocks, threads](d_x, outs[mode])

    for mode in kernels:
        launch(mode)
    safekern.sync()
    verified = {m: bool(np.allclose(o.copy_to_host(), want)) for m, o in outs.items()}
    if numba_config.ENABLE_CUDASIM:
        return {"skipped": "CUDA simulator: the kernels ran and were verified, times would "
                           "mean nothing", "verified": verified}
    start, end = cuda.event(), cuda.event()

    def timed(mode):
        def run():
            with _with_asserts(mode != ASSERTS_OFF):    # host work outside the events
                start.record()
                kernels[mode][blocks, threads](d_x, outs[mode])
                end.record()
                end.synchronize()
            return cuda.event_elapsed_time(start, end)
        return run

    times = _interleaved({m: timed(m) for m in kernels}, reps, warmup)
    safekern.sync()
    return {"times": times, "verified": verified}


# -- CuPy ----------------------------------------------------------------------------------------

def bench_cupy(n: int, reps: int, warmup: int) -> dict:
    why = cupy_unavailable()
    if why:
        return {"skipped": why}
    import cupy as cp

    import safekern
    import safekern.cupy as skcp

    x = cp.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
    want = 2 * x + 1
    kernels = {
        "unchecked": cp.RawKernel(_kernel_source(CUDA_SOURCE, "assert"), "scale"),
        "unchecked, no assert": cp.RawKernel(_kernel_source(CUDA_SOURCE, "ASSERT", NO_ASSERT),
                                             "scale"),
    }
    kernels["checked"] = skcp.RawKernel(_kernel_source(CUDA_SOURCE, "assert"), "scale",
                                        filename="scale.cu")
    kernels[ASSERTS_OFF] = skcp.RawKernel(_kernel_source(CUDA_SOURCE, "assert"), "scale",
                                          filename="scale.cu")
    threads = 256
    blocks = (n + threads - 1) // threads
    outs = {m: cp.empty(n, dtype=cp.float32) for m in kernels}
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def timed(mode):
        def run():
            # a checked kernel is loaded per SAFEKERN_KERNEL_ASSERTS setting: the one of its
            # mode, switched outside the events
            with _with_asserts(mode != ASSERTS_OFF):
                start.record()
                kernels[mode]((blocks,), (threads,), (x, outs[mode], np.int32(n)))
                end.record()
                end.synchronize()
            return cp.cuda.get_elapsed_time(start, end)
        return run

    runs = {m: timed(m) for m in kernels}
    for run in runs.values():
        run()
    safekern.sync()
    verified = {m: bool(cp.allclose(o, want)) for m, o in outs.items()}
    times = _interleaved(runs, reps, warmup)
    safekern.sync()
    return {"times": times, "verified": verified}


# -- OpenCL ---------------------------------------------------------------------------------------

def bench_opencl(n: int, reps: int, warmup: int) -> dict:
    device, why = opencl_device()
    if device is None:
        return {"skipped": why}
    import pyopencl as cl
    import pyopencl.array as cla

    import safekern
    import safekern.opencl as skcl

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    x = cla.to_device(queue, np.random.default_rng(0).random(n, dtype=np.float32))
    want = 2 * x.get() + 1
    programs = {
        "unchecked": cl.Program(ctx, _kernel_source(OPENCL_SOURCE, "SAFEKERN_ASSERT",
                                                    "#define SAFEKERN_ASSERT(c) ((void)0)\n")
                                ).build(),
        "unchecked, no assert": cl.Program(ctx, _kernel_source(OPENCL_SOURCE, "ASSERT",
                                                               NO_ASSERT)).build(),
    }
    with _with_asserts(True):
        programs["checked"] = skcl.Program(ctx, _kernel_source(OPENCL_SOURCE,
                                                               "SAFEKERN_ASSERT"),
                                           filename="scale.cl").build()
    with _with_asserts(False):
        programs[ASSERTS_OFF] = skcl.Program(
            ctx, _kernel_source(OPENCL_SOURCE, "SAFEKERN_ASSERT"), filename="scale.cl").build()
    kernels = {m: p.scale for m, p in programs.items()}
    outs = {m: cla.empty(queue, n, np.float32) for m in kernels}
    local = 256 if device.max_work_group_size >= 256 else None
    size = ((n + 255) // 256) * 256

    def timed(mode):
        def run():
            out = outs[mode]
            args = (x, out) if mode.startswith("checked") else (x.data, out.data)
            evt = kernels[mode](queue, (size,), (local,) if local else None, *args,
                                np.int32(n))
            evt.wait()
            return (evt.profile.end - evt.profile.start) / 1e6
        return run

    runs = {m: timed(m) for m in kernels}
    for run in runs.values():
        run()
    safekern.sync()
    verified = {m: bool(np.allclose(o.get(), want)) for m, o in outs.items()}
    times = _interleaved(runs, reps, warmup)
    safekern.sync()
    result = {"times": times, "verified": verified, "device": opencl_device_name(device)}
    if opencl_on_cpu(device):
        result["note"] = "a CPU device: the times say nothing about a GPU"
    return result


# -- the run -------------------------------------------------------------------------------------

BENCHES = {"numba": bench_numba, "cupy": bench_cupy, "opencl": bench_opencl}


def _markdown(results: dict, meta: dict) -> str:
    lines = [f"# An assert per element: checked vs unchecked ({meta['date']})", "",
             f"`{meta['command']}`; n = {meta['n']} float32 elements, median of "
             f"{meta['reps']} launches per mode (device time), modes interleaved.", ""]
    for name, result in results.items():
        lines.append(f"## {name}" + (f" ({result['device']})" if "device" in result else ""))
        lines.append("")
        if "skipped" in result:
            lines += [f"skipped: {result['skipped']}", ""]
            if "verified" in result:
                lines += [f"verified: {result['verified']}", ""]
            continue
        times = result["times"]
        base = times["unchecked"]["median_ms"]
        lines += ["| mode | median (ms) | min (ms) | vs unchecked | verified |",
                  "| --- | --- | --- | --- | --- |"]
        for mode, t in times.items():
            ratio = t["median_ms"] / base if base else float("nan")
            lines.append(f"| {mode} | {t['median_ms']} | {t['min_ms']} | {ratio:.3f} | "
                         f"{result['verified'][mode]} |")
        if "note" in result:
            lines += ["", result["note"]]
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.assert_cost",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24, help="elements (default 16M)")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--only", default=",".join(ALL), help="numba,cupy,opencl")
    parser.add_argument("--quick", action="store_true", help="a smoke run: n=4096, 3 reps")
    parser.add_argument("--out", default=None, help="directory for the .json and .md results")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.reps, args.warmup = 4096, 3, 1
    only = [w.strip() for w in args.only.split(",") if w.strip()]
    unknown = set(only) - set(ALL)
    if unknown:
        parser.error(f"unknown --only {sorted(unknown)}; choose from {', '.join(ALL)}")
    if "numba" in only:
        from safekern.config import use_cuda_simulator_without_gpu

        use_cuda_simulator_without_gpu()
    results = {name: BENCHES[name](args.n, args.reps, args.warmup) for name in only}
    meta = {"date": time.strftime("%Y-%m-%d"), "n": args.n, "reps": args.reps,
            "python": platform.python_version(),
            "command": "python -m benchmarks.assert_cost " + " ".join(
                argv if argv is not None else sys.argv[1:])}
    text = _markdown(results, meta)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        stem = os.path.join(args.out, f"assert_cost-{meta['date']}")
        with open(stem + ".json", "w") as f:
            f.write(results_json.text({"meta": meta, "results": results}))
        with open(stem + ".md", "w") as f:
            f.write(text)
    failed = [f"{name}: {mode}" for name, r in results.items()
              for mode, ok in r.get("verified", {}).items() if not ok]
    if failed:
        print("wrong results: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
