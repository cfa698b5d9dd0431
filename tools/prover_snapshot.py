"""What the front end's prover decided for every benchmark kernel, as JSON, to compare two versions.

For each kernel the benchmark cases launch (the suite and, when extracted, the real-world set):
every check site of its check report (device functions' included) with its status, reason and
launch predicate, the kernel's launch predicates, and the source of its rewrite and of its
launch variant. A change that makes the prover cheaper must leave all of it as it was:

    python -m tools.prover_snapshot --out before.json          # on the old code
    python -m tools.prover_snapshot --compare before.json      # on the new: lists differences
    python -m tools.prover_snapshot --fuzz 300 --fuzz-seed 0 --out fuzz.json   # fuzzed kernels

`--fuzz N` snapshots the kernels of N seeds of the elimination fuzzer (tests/support/
fuzz_kernels.py, from `--fuzz-seed`) instead of the benchmark cases: each seed's module is written
to one fixed path and imported (its kernel and device functions decorated there); a seed whose
decoration is refused records the error's type and message.

Runs under the CUDA simulator (decoration only: nothing is compiled or launched), with
PYTHONHASHSEED=0 (it starts itself again so when it is not).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

from tools.fresh_function import fresh

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
os.environ["SAFEKERN_CACHE"] = "off"



def _codes_numbered(source):
    """Failure codes (hashes of the site and its file's path) by order of appearance: the same
    kernels in two checkouts compare equal."""
    if source is None:
        return None
    seen: dict = {}
    return re.sub(r"\b\d{12,}\b", lambda m: f"CODE{seen.setdefault(m.group(), len(seen))}",
                  source)


def _chain_ids_numbered(source):
    """A call's id in its caller's call chain (`_sk_int64(N)`: a hash of the call's place, its
    file's path included -- the fuzzed kernels' path holds the process id) by order of
    appearance: two runs of the same tree compare equal."""
    if source is None:
        return None
    seen: dict = {}
    return re.sub(r"_sk_int64\((\d+)\)",
                  lambda m: f"_sk_int64(ID{seen.setdefault(m.group(1), len(seen))})", source)


def kernel_snapshot(kernel) -> dict:
    """The prover's decisions for one checked kernel (see the module doc)."""
    rewritten = kernel.build.final_rewrite()
    variant = rewritten.launch_variant
    return {
        "sites": sorted([e.function, e.lineno, e.col, e.text, str(e.status), e.reason or "",
                         e.predicate or ""] for e in kernel.check_report()),
        "predicates": [p.text() for p in rewritten.launch_predicates],
        "source": _codes_numbered(rewritten.source),
        "variant": _codes_numbered(variant.source if variant is not None else None),
    }


def snapshot(names=None) -> dict:
    import safekern
    from benchmarks import cases

    out = {}
    for name in names or list(cases.CASES):
        case = cases.build(name, quick=True)
        for kname, fn in case.kernels.items():
            kernel = fn.build_for_mode() if hasattr(fn, "build_for_mode") else \
                safekern.jit(fresh(fn))
            out[f"{name}.{kname}"] = kernel_snapshot(kernel)
    return out


def fuzz_snapshot(count: int, seed: int) -> dict:
    import tempfile

    from tests.support import differential, fuzz_kernels

    # one fixed path: a path that differs would change nothing but the (renumbered) codes
    work = os.path.join(tempfile.gettempdir(), f"safekern-prover-snapshot-{os.getpid()}")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "fuzz_kernel.py")
    out = {}
    try:
        for s in range(seed, seed + count):
            fk = fuzz_kernels.generate(s)
            with open(path, "w") as f:
                f.write(fk.source)
            try:
                module = differential.import_file(path, f"_sk_prover_snapshot_{s}")
                try:
                    entry = kernel_snapshot(getattr(module, fk.kernel))
                finally:
                    differential.forget(module)
            except Exception as exc:    # noqa: BLE001 -- a refused kernel: compared as refused
                entry = {field: f"{type(exc).__name__}: {exc}"
                         for field in ("sites", "predicates", "source", "variant")}
            out[f"fuzz.{s}"] = entry
    finally:
        if os.path.exists(path):
            os.remove(path)
        os.rmdir(work)
    return out


def differences(before: dict, after: dict) -> list:
    found = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            found.append(f"{key}: only {'after' if key in after else 'before'}")
            continue
        for field in ("sites", "predicates", "source", "variant"):
            old, new = before[key][field], after[key][field]
            if field in ("source", "variant") and isinstance(old, str) and isinstance(new, str):
                old, new = _chain_ids_numbered(old), _chain_ids_numbered(new)
            if old != new:
                found.append(f"{key}: {field} differ")
    return found


def main(argv=None) -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # (The rewrite no longer depends on the seed -- tests/numba/test_rewrite_determinism.py
        # -- but a snapshot made by an older tree did: one seed keeps them comparable.)
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, "-m", "tools.prover_snapshot",
                                  *(sys.argv[1:] if argv is None else argv)])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*")
    p.add_argument("--out")
    p.add_argument("--compare")
    p.add_argument("--fuzz", type=int, default=0, help="snapshot N fuzzed kernels instead")
    p.add_argument("--fuzz-seed", type=int, default=0)
    args = p.parse_args(argv)
    snap = fuzz_snapshot(args.fuzz, args.fuzz_seed) if args.fuzz else snapshot(args.cases)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(snap, f, indent=1, sort_keys=True)
    if args.compare:
        with open(args.compare) as f:
            diff = differences(json.load(f), snap)
        print("\n".join(diff) if diff else f"{len(snap)} kernels: the same")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
