"""Compile each extracted source plainly with NVRTC, then safekern's rewrite (as c_corpus.py).

    python check.py [name-substring ...]      -> results.jsonl (appended; resumable)
"""
import json
import os
import sys
import time
import traceback

sys.path.insert(0, "/work/main")
from safekern.errors import CompilationError  # noqa: E402
from safekern.backends.cupy import nvrtc  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "sources")
OVERRIDES = {  # what the project passes at run time (from the call sites)
    "cupy__test_raw___test_compile_src": dict(options=["-DOP=+"]),
    "cupy__test_raw___test_source4": dict(options=["-rdc=true"]),
    "cupy__test_raw__test_cxx_template": dict(
        name_expressions=["my_sqrt<int>", "my_sqrt<float>", "my_sqrt<complex<double>>",
                          "my_func"]),
    # preambles the projects prepend at run time (see their call sites)
    "cupy__sgemm": dict(prefix="".join(f"#define {k} {v}\n" for k, v in dict(
        DIM_X=16, DIM_Y=16, BLK_M=64, BLK_N=64, BLK_K=4, DIM_XA=64, DIM_YA=4, DIM_XB=4,
        DIM_YB=64, THR_M=4, THR_N=4).items())),
    "cucim__blob__file": dict(prefix="#define BLOB_T float\n#define INT_T int\n",
                              name_expressions=["_prune_blobs"]),
    "cucim___hessian_det_appx__file": dict(prefix="#define IMAGE_T float\n#define INT_T int\n"),
    "pyinn__conv2d_depthwise": dict(prefix="#define CUDA_KERNEL_LOOP(i, n) \\\n  for (int i = "
                                    "blockIdx.x * blockDim.x + threadIdx.x; i < (n); "
                                    "i += blockDim.x * gridDim.x)\n"),
    # old CuPy's carray.cuh provided `half`; today's does not
    "chainer___memory_utility": dict(prefix="#include <cuda_fp16.h>\n"),
}


def first_error(text):
    lines = [ln for ln in str(text).splitlines() if "error" in ln.lower()]
    return (lines[0] if lines else str(text).splitlines()[0] if text else "").strip()[:400]


def check(name, meta, arch="sm_90"):
    dirs = [os.path.join(HERE, "include")] + nvrtc.include_dirs()
    with open(os.path.join(SRC, name)) as f:
        source = f.read()
    ov = next((v for k, v in OVERRIDES.items() if name.startswith(k)), {})
    source = ov.get("prefix", "") + source
    options = tuple(meta["options"]) + tuple(ov.get("options", ()))
    if not any("-std=" in o for o in options):
        options += ("--std=c++17",)
    nvrtc_opts = options + tuple(f"-I{d}" for d in dirs)
    exprs = tuple(ov.get("name_expressions", meta["name_expressions"]))

    def compile_(text):
        nvrtc.compile_program(text, filename=name, arch=arch, options=nvrtc_opts,
                              name_expressions=exprs, cubin=False)
    try:
        compile_(source)
    except nvrtc.NvrtcError as err:
        return dict(outcome="original-fails", message=first_error(err.log or err))
    try:
        rw = cuda.rewrite(source, filename=name, options=options, arch=arch,
                          include_dirs=dirs)
    except CompilationError as err:
        from safekern.errors import InternalError
        where = f"{getattr(err, 'filename', None)}:{getattr(err, 'lineno', None)}"
        return dict(outcome="internal" if isinstance(err, InternalError) else "refused",
                    message=str(getattr(err, "problem", err)).splitlines()[0][:400],
                    where=where, names_line=getattr(err, "lineno", None) is not None,
                    full=str(err)[:2000], etype=type(err).__name__)
    except Exception as err:  # noqa: BLE001
        return dict(outcome="internal", message=f"{type(err).__name__}: {err}"[:400],
                    tb=traceback.format_exc()[-3000:])
    try:
        compile_(rw.source)
    except nvrtc.NvrtcError as err:
        return dict(outcome="broken", message=first_error(err.log or err),
                    log=str(err.log)[:3000])
    except Exception as err:  # noqa: BLE001
        return dict(outcome="internal", message=f"compile rewrite: {type(err).__name__}: {err}"[:400])
    return dict(outcome="ok")


def main():
    with open(os.path.join(SRC, "index.json")) as f:
        ix = json.load(f)
    out = os.path.join(HERE, "results.jsonl")
    done = set()
    if os.path.exists(out):
        done = {json.loads(ln)["name"] for ln in open(out)}
    pats = sys.argv[1:]
    for name, meta in sorted(ix.items()):
        if pats and not any(p in name for p in pats):
            continue
        if not pats and name in done:
            continue
        t = time.time()
        r = check(name, meta)
        r.update(name=name, project=meta["project"], secs=round(time.time() - t, 1))
        print(f"{r['outcome']:15} {r['secs']:5}s {name}: {r.get('message', '')[:200]}", flush=True)
        if not pats:
            with open(out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
