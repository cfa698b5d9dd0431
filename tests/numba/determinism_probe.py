"""Everything the rewrite of some kernels produces, as JSON, to compare between processes.

    PYTHONHASHSEED=1 python -m tests.numba.determinism_probe lud rw_fbpic_deposit local

For each kernel of the named benchmark cases (benchmarks/cases.py; the real-world ones only
when extracted) and, for `local`, of tests/numba/determinism_kernels.py: the rewritten source,
the launch variant's, the variant for every proper subset of the launch predicates (what a
launch where only some hold runs), the check report in its order, the launch predicates, and
the sha256 of the cache-key material of the kernel and of each variant (keys.function_fields:
what the binary cache keys by, less the toolchain and device). tests/numba/
test_rewrite_determinism.py runs it with several PYTHONHASHSEEDs: all of it must be the same.
Runs under the CUDA simulator with the cache off (every process rewrites afresh).

    PYTHONHASHSEED=1 python -m tests.numba.determinism_probe --cache FILE

lud_perimeter through the kernel cache FILE instead (`through_the_cache`).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ["SAFEKERN_CACHE"] = "off"

# Subsets of more predicates than this: the singletons and all-but-one only.
_ALL_SUBSETS_UP_TO = 4


def _subsets(predicates):
    n = len(predicates)
    if n < 2:
        return []
    if n <= _ALL_SUBSETS_UP_TO:
        sizes = range(1, n)
    else:
        sizes = (1, n - 1)
    return [c for k in sizes for c in itertools.combinations(predicates, k)]


def _key_digest(build) -> str:
    from safekern.cache import keys

    return hashlib.sha256(keys.encode({"function": build.__safekern_key__()})).hexdigest()


def kernel_texts(kernel) -> dict:
    from safekern.backends.numba.build import LaunchVariantBuild

    build = kernel.build
    rewritten = build.final_rewrite()
    predicates = rewritten.launch_predicates
    out = {
        "source": rewritten.source,
        "report": [[e.function, e.lineno, e.col, e.text, str(e.status), e.reason or "",
                    e.predicate or ""] for e in kernel.check_report()],
        "predicates": [p.text() for p in predicates],
        "key": _key_digest(build),
    }
    if rewritten.launch_variant is not None:
        variant = LaunchVariantBuild(build)
        out["variant"] = variant.final_rewrite().source
        out["variant_key"] = _key_digest(variant)
    for subset in _subsets(predicates):
        variant = LaunchVariantBuild(build, frozenset(subset))
        name = " & ".join(p.text() for p in subset)
        out[f"subset {name}"] = variant.final_rewrite().source
        out[f"subset key {name}"] = _key_digest(variant)
    return out


def _benchmark_kernels(name):
    import safekern
    from benchmarks import cases
    from tools.fresh_function import fresh

    if name not in cases.CASES:
        return {}
    case = cases.build(name, quick=True)
    return {f"{name}.{k}": fn.build_for_mode() if hasattr(fn, "build_for_mode")
            else safekern.jit(fresh(fn)) for k, fn in case.kernels.items()}


def main(names) -> dict:
    out = {}
    for name in names:
        if name == "local":
            from tests.numba import determinism_kernels as K

            kernels = {f"local.{k}": getattr(K, k) for k in K.KERNELS}
        else:
            kernels = _benchmark_kernels(name)
        for kname, kernel in kernels.items():
            out[kname] = kernel_texts(kernel)
    return out


def through_the_cache(cache_file) -> dict:
    """lud_perimeter decorated with the kernel cache in `cache_file`: whether its rewrite came
    from the cache, the key digests of the kernel and of its variant for all launch predicates
    but the last (a launch where that one fails), and the warnings of a compile's fresh rewrite
    (which a stored rewrite must equal)."""
    import logging

    from safekern import config
    from safekern.backends.numba import stored
    from safekern.backends.numba.build import LaunchVariantBuild

    os.environ["SAFEKERN_CACHE"] = cache_file
    config.reload()
    warned = []
    handler = logging.Handler()
    handler.emit = lambda record: warned.append(record.getMessage())
    logging.getLogger("safekern").addHandler(handler)
    kernel = _benchmark_kernels("lud")["lud.lud_perimeter"]
    build = kernel.build
    rewritten = build.final_rewrite()
    predicates = rewritten.launch_predicates
    out = {"stored": stored.is_stored(rewritten), "key": _key_digest(build),
           "subset_key": _key_digest(LaunchVariantBuild(build, frozenset(predicates[:-1])))}
    build.compilable_rewrite()          # what a launch that compiles the kernel rewrites
    out["key_after_compile"] = _key_digest(build)
    out["warnings"] = [w for w in warned if "differs" in w]
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cache"]:
        json.dump(through_the_cache(sys.argv[2]), sys.stdout, sort_keys=True)
    else:
        json.dump(main(sys.argv[1:]), sys.stdout, indent=1, sort_keys=True)
