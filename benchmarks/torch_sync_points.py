"""Host time of PyTorch's sync points with safekern's hooks in and out (issue 27, part 3).

    python -m benchmarks.torch_sync_points [--reps 5000] [--batches 15] [--out DIR]

Per call, median over batches (plain and hooked interleaved batch by batch):
- `plain`: PyTorch's own call (safekern's torch hooks uninstalled);
- `hooked, nothing pending`: the same call with the hooks installed and no checked kernel
  launched since the last check (the case that must cost nothing measurable).
Needs PyTorch and a CUDA device; imports no other GPU library.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time


def _per_call_us(fn, reps: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        fn()
    return (time.perf_counter_ns() - t0) / reps / 1e3


def measure(reps: int, batches: int) -> dict:
    import torch

    from safekern import runtime, sync_points
    from safekern.backends.torch import sync as torch_sync

    scalar = torch.ones((), device="cuda")
    small = torch.ones(256, device="cuda")             # 1 KiB back to the host
    host_scalar = torch.ones(())
    # Each call looks its method up anew, as user code does: the hooked or the plain one.
    calls = {"cuda_tensor.item()": lambda: scalar.item(),
             "torch.cuda.synchronize()": lambda: torch.cuda.synchronize(),
             "cuda_tensor.cpu() (1 KiB)": lambda: small.cpu(),
             "cpu_tensor.item()": lambda: host_scalar.item()}
    samples = {name: {"plain": [], "hooked": []} for name in calls}
    for batch in range(batches):
        for state in (["plain", "hooked"] if batch % 2 == 0 else ["hooked", "plain"]):
            if state == "plain":
                sync_points.uninstall(torch_sync.BACKEND)
            else:
                torch_sync.install()
            assert not runtime.pending_sources()
            for name, call in calls.items():
                for _ in range(50):
                    call()
                samples[name][state].append(_per_call_us(call, reps))
    torch_sync.install()
    result = {"reps": reps, "batches": batches, "calls": {}}
    for name, per in samples.items():
        plain, hooked = statistics.median(per["plain"]), statistics.median(per["hooked"])
        result["calls"][name] = {
            "plain (us)": round(plain, 3), "hooked, nothing pending (us)": round(hooked, 3),
            "difference (us)": round(hooked - plain, 3),
            "spread of plain over batches (us)": round(max(per["plain"]) - min(per["plain"]),
                                                       3)}
    return result


def _markdown(result: dict, meta: dict) -> str:
    lines = [f"# PyTorch sync points: host time per call ({meta['device']})", "",
             f"`{meta['command']}`, {meta['date']}, torch {meta['torch']}; median of "
             f"{result['batches']} batches of {result['reps']} calls, plain and hooked "
             "interleaved.", "",
             "| call | plain (us) | hooked, nothing pending (us) | difference (us) | "
             "spread of plain (us) |", "| --- | --- | --- | --- | --- |"]
    for name, e in result["calls"].items():
        lines.append(f"| `{name}` | {e['plain (us)']} | {e['hooked, nothing pending (us)']} | "
                     f"{e['difference (us)']} | {e['spread of plain over batches (us)']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    import torch

    from .harness import save_report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5000)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--out", default=None, help="directory for the .json and .md results")
    args = parser.parse_args(argv)
    result = measure(args.reps, args.batches)
    meta = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d"),
            "python": platform.python_version(), "torch": torch.__version__,
            "command": "python -m benchmarks.torch_sync_points " + " ".join(
                argv or sys.argv[1:])}
    save_report(args.out, "torch_sync_points", meta, result, _markdown(result, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
