"""Hashes of every C rewrite's output over the C kernels at hand: a refactoring of the C
front end must leave them all equal.

    python tools/c_rewrite_hashes.py --out base.json [--seeds 300] [--skip-corpus]
    python tools/c_rewrite_hashes.py --out new.json && python tools/c_rewrite_hashes.py \
        --compare base.json new.json

Each source is rewritten with the dialect's rewrite (safekern.frontend.c.cuda / .opencl) in
four variants -- as is, with every check kept (eliminate=False), with launch predicates, and
as the launch variant that assumes every checked access's failure code -- and each variant
hashed three times: the rewritten text alone ("text"), everything the rewrite returns
("facts": each access with its status, reason, byte ranges and `Check`, the report, the
failure sites, the kernels' facts), and the facts without the checks' index type flags
(`Check.unsigned`, `Check.int32`: where an edit reads them the text shows it). --compare
fails on any difference of text or of the facts besides those flags, and counts the rest. The sources: the C corpora in $SAFEKERN_C_CORPUS
(default .corpus/: cupyx's CUDA C, PyOpenCL's OpenCL C; see tools/c_corpus_check.py), the
kernels of the OpenCL fuzzers (tests/support/fuzz_opencl.py, fuzz_launch_opencl.py) for
--seeds seeds each, the benchmarks' C kernels and the C test kernels' modules. A refusal
(CompilationError) is hashed as its message. No GPU, no compiler: only the rewrite runs.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SAFEKERN_CACHE", "off")

_ADDRESS = re.compile(r" (object )?at 0x[0-9a-fA-F]+")


def _canon(obj) -> str:
    """repr without object addresses (cursors, functions) and libclang's declaration hashes
    (Root.key), with sets and dicts sorted (their order follows the process's string
    hashing), so equal facts hash equal."""
    if isinstance(obj, (set, frozenset)):
        return "{" + ", ".join(sorted(_canon(x) for x in obj)) + "}"
    if isinstance(obj, dict):
        return "{" + ", ".join(sorted(f"{_canon(k)}: {_canon(v)}" for k, v in obj.items())) + "}"
    if isinstance(obj, tuple) and len(obj) == 2 and obj[0] == "var":
        return "('var', #)"     # a Root's key: libclang's declaration hash, per process
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(_canon(x) for x in obj) + "]"
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return type(obj).__name__ + "(" + ", ".join(
            f"{f.name}={_canon(getattr(obj, f.name))}" for f in dataclasses.fields(obj)) + ")"
    return _ADDRESS.sub("", repr(obj))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _facts(rw, flags: bool = True) -> str:
    """Everything the rewrite returns as text; `flags=False`: without the index type flags
    of each Check (`unsigned`, `int32`), which an edit pass reads only where the text
    shows it -- a change that sets them on more checks hashes equal here, and the text
    hash tells whether any edit read them."""
    parts = [rw.source]
    for a in rw.accesses:
        fields = {k: v for k, v in vars(a).items() if k != "extra"}
        if not flags and a.check is not None:
            fields["check"] = dataclasses.replace(a.check, unsigned=False, int32=False)
        parts.append(_canon(fields) + _canon(a.extra))
    parts.append(_canon(list(rw.report())))
    parts.append(_canon(rw.failure_sites))
    parts.append(_canon(rw.kernels))
    parts.append(_canon(rw.safety))
    return "\n".join(parts)


def _variants(rewrite, source, only=None, **kw):
    """(name, text hash, facts hash) of each variant's rewrite (`only`: these variants)."""
    from safekern.errors import CompilationError

    out = []
    first = None
    for name, extra in (("plain", {}), ("all", {"eliminate": False}),
                        ("launch", {"launch_predicates": True}), ("assume", None)):
        if only is not None and name not in only:
            continue
        if extra is None:
            if first is None:
                continue
            extra = {"assume": frozenset(s.code for s in first.failure_sites)}
        try:
            rw = rewrite(source, **kw, **extra)
        except CompilationError as err:
            h = _digest("refused: " + _ADDRESS.sub("", str(err)))
            out.append((name, h, h, h))
            continue
        if name == "plain":
            first = rw
        out.append((name, _digest(rw.source), _digest(_facts(rw)),
                    _digest(_facts(rw, flags=False))))
    return out


def _sources():
    """(key, dialect, source, rewrite keywords) of every source."""
    from tests.support import c_corpus

    if c_corpus.present(c_corpus.CUPYX) and not ARGS.skip_corpus:
        from safekern.backends.cupy import nvrtc

        dirs = [os.path.join(c_corpus.CUPYX, "include")] + nvrtc.include_dirs()
        for name, meta in sorted(c_corpus.index(c_corpus.CUPYX).items()):
            options = tuple(meta["options"])
            if not any("-std=" in o for o in options):
                options += ("--std=c++17",)
            yield (f"cupyx/{name}", "cuda", c_corpus._read(c_corpus.CUPYX, name),
                   {"filename": name, "options": options, "include_dirs": dirs})
    if c_corpus.present(c_corpus.PYOPENCL) and not ARGS.skip_corpus:
        for name, meta in sorted(c_corpus.index(c_corpus.PYOPENCL).items()):
            # the include path PyOpenCL's own build passes (tools/c_corpus_check.py)
            from pyopencl import _find_pyopencl_include_path

            options = ["-I", _find_pyopencl_include_path()] + list(meta["options"])
            yield (f"pyopencl/{name}", "opencl", c_corpus._read(c_corpus.PYOPENCL, name),
                   {"filename": name, "options": options})
    from tests.support import fuzz_launch_opencl, fuzz_opencl

    for seed in range(ARGS.seed, ARGS.seed + ARGS.seeds):
        k = fuzz_opencl.generate(seed)
        yield (f"fuzz_opencl/{seed}", "opencl", k.source,
               {"filename": f"fuzz_{seed}.cl", "only": ("plain", "all")})
        k = fuzz_launch_opencl.generate(seed)
        yield (f"fuzz_launch/{seed}", "opencl", k.source,
               {"filename": f"lfuzz_{seed}.cl", "only": ("plain", "launch", "assume")})
    import importlib

    for module, dialect in (("benchmarks.cuda_c_cases", "cuda"),
                            ("benchmarks.opencl_cases", "opencl"),
                            ("tests.cupy.cuda_c_kernels", "cuda"),
                            ("tests.opencl.c_safety_kernels", "opencl"),
                            ("tests.opencl.c_hang_kernels", "opencl")):
        try:
            mod = importlib.import_module(module)
        except Exception as err:       # a benchmark module needing a GPU package
            print(f"skipped {module}: {err}", file=sys.stderr)
            continue
        for key, which, text in _texts(mod):
            yield f"{module}/{key}", which or dialect, text, {}


def _texts(mod):
    """(key, dialect or None: the module's, source) of every kernel source held by the
    module's globals: strings, dict and list values, cases with `.opencl` and `.cuda`."""
    marks = ("__global__", "__kernel", "kernel void")
    for name, value in sorted(vars(mod).items()):
        values = [(name, value)]
        if isinstance(value, dict):
            values = [(f"{name}[{k}]", v) for k, v in value.items()]
        elif isinstance(value, (list, tuple)):
            values = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        for key, v in values:
            if isinstance(v, (tuple, list)) and v and isinstance(v[0], str):
                v = v[0]
            for which in ("opencl", "cuda"):
                if isinstance(getattr(v, which, None), str):
                    yield f"{key}.{which}", which, getattr(v, which)
            if isinstance(v, str) and any(m in v for m in marks):
                yield key, None, v


def main() -> int:
    from safekern.frontend.c import cuda, opencl

    rewrite = {"cuda": cuda.rewrite, "opencl": opencl.rewrite}
    hashes = {}
    t0 = time.time()
    for key, dialect, source, kw in _sources():
        for name, *digests in _variants(rewrite[dialect], source, **kw):
            hashes[f"{key}:{name}"] = digests
    with open(ARGS.out, "w") as f:
        json.dump(hashes, f, indent=0, sort_keys=True)
    print(f"{len(hashes)} rewrites hashed in {time.time() - t0:.0f} s -> {ARGS.out}")
    return 0


def compare(a_path, b_path) -> int:
    a, b = json.load(open(a_path)), json.load(open(b_path))
    keys = sorted(set(a) | set(b))
    missing = [k for k in keys if k not in a or k not in b]
    text = [k for k in keys if k in a and k in b and a[k][0] != b[k][0]]
    facts = [k for k in keys if k in a and k in b and a[k][1] != b[k][1]]
    other = [k for k in keys if k in a and k in b and a[k][2] != b[k][2]]
    print(f"{len(keys)} rewrites: {len(text)} texts differ, {len(facts)} facts differ "
          f"({len(other)} besides the checks' index type flags), {len(missing)} in one "
          "file only")
    for k in (missing + text + other + facts)[:40]:
        print("  ", k)
    return 1 if missing or text or other else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out")
    p.add_argument("--seeds", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-corpus", action="store_true")
    p.add_argument("--compare", nargs=2)
    ARGS = p.parse_args()
    sys.exit(compare(*ARGS.compare) if ARGS.compare else main())
