"""Shared by repro_N.py: plain NVRTC compile, then safekern's rewrite + NVRTC (as tests/support/c_corpus.py)."""
import sys
import traceback

sys.path.insert(0, "/work/main")
from safekern.backends.cupy import nvrtc  # noqa: E402
from safekern.errors import CompilationError  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402


def run(src, *, name="repro.cu", options=("--std=c++17",), name_expressions=(), arch="sm_90"):
    dirs = nvrtc.include_dirs()
    opts = tuple(options) + tuple(f"-I{d}" for d in dirs)
    nvrtc.compile_program(src, filename=name, arch=arch, options=opts,
                          name_expressions=tuple(name_expressions), cubin=False)
    print("plain NVRTC: OK")
    try:
        rw = cuda.rewrite(src, filename=name, options=tuple(options), arch=arch, include_dirs=dirs)
    except CompilationError as e:
        print(f"safekern rewrite: {type(e).__name__}:\n{e}")
        return 1
    except Exception:
        print("safekern rewrite: INTERNAL\n" + traceback.format_exc())
        return 2
    try:
        nvrtc.compile_program(rw.source, filename=name, arch=arch, options=opts,
                              name_expressions=tuple(name_expressions), cubin=False)
    except nvrtc.NvrtcError as e:
        print("rewritten source: NVRTC ERROR\n" + str(e.log or e)[:2000])
        return 3
    print("safekern: OK")
    return 0
