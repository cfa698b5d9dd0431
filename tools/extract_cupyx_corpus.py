"""Extract the CUDA C sources CuPy's cupyx builds through RawKernel/RawModule, as test data.

    python tools/extract_cupyx_corpus.py /path/to/cupy-checkout-or-git-dir .corpus/cupyx \
        [--captured captured.json]     # what tools/cupyx_suite.py recorded on a GPU

No CuPy and no GPU needed: each cupyx module that builds RawKernel/RawModule objects is executed
with a stand-in `cupy` package whose RawKernel/RawModule record (code, options,
name_expressions) and whose other names are inert; the builders that make their source inside a
function (per dtype, per mode) are called here with the arguments cupyx passes them. Each
distinct (code, options) becomes `<sha1[:12]>.cu`, listed in `index.json` with its options, name
expressions and where it came from. The CUDA headers of CuPy the sources include
(`<cupy/complex.cuh>` ...) are copied to `include/`. CuPy is MIT-licensed (LICENSE, copied
beside the corpus); the corpus is not committed (other projects' code): its directory is
git-ignored, tests/frontend/c_corpus_manifest.json describes it.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

import numpy as np

captured: dict[str, dict] = {}
_where = ["?"]


def _record(code, options=(), name_expressions=None, kernel=None):
    if not isinstance(code, str):
        return
    opts = [str(o) for o in (options or ())]
    key = hashlib.sha1((code + "\0" + "\0".join(opts)).encode()).hexdigest()[:12]
    rec = captured.setdefault(key, {"source": code, "options": opts, "name_expressions": [],
                                    "kernels": [], "what": _where[0]})
    for n in name_expressions or ():
        if n not in rec["name_expressions"]:
            rec["name_expressions"].append(str(n))
    if kernel and kernel not in rec["kernels"]:
        rec["kernels"].append(kernel)


class RawModule:
    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, name_expressions=None, jitify=False):
        _record(code, options, name_expressions)
        self.code, self.options = code, options

    def get_function(self, name):
        return _any(name)


class RawKernel:
    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        _record(code, options, None, name)
        self.code, self.name, self.options = code, name, options

    def __call__(self, *a, **k):
        return None


# CuPy's own C names of its dtypes (cupy/_core/_scalar.pyx)
_TYPENAMES = {"float16": "float16", "float32": "float", "float64": "double",
              "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
              "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
              "uint64": "unsigned long long", "complex64": "complex<float>",
              "complex128": "complex<double>", "bool_": "bool"}


def get_typename(dtype):
    return _TYPENAMES[np.dtype(dtype).name if np.dtype(dtype).name != "bool" else "bool_"]


def _memoize(*a, **k):
    if a and callable(a[0]) and not k:
        return a[0]
    return lambda f: f


class _AnyMeta(type):
    """Any name of the stand-in package: a fresh class (so cupyx classes may derive from
    several), whose attributes, calls, items and arithmetic are more of the same."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _any(name)

    def __call__(cls, *a, **k):
        return cls

    def __getitem__(cls, key):
        return cls

    def __iter__(cls):
        return iter(())

    def __bool__(cls):      # `if runtime.is_hip:` -- CUDA's branch
        return False

    def _same(cls, *a):
        return cls

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __or__ = __ror__ = _same
    __truediv__ = __floordiv__ = __neg__ = __and__ = _same


class _Any(metaclass=_AnyMeta):
    pass


def _any(name):
    return _AnyMeta(name, (_Any,), {})


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        # `from cupy import _util`: a private name is a submodule
        # (of a package: `cupyx.scipy.sparse._data._data_matrix` is a class)
        leaf = self.__name__.rsplit(".", 1)[-1].startswith("_") and self.__name__ != "cupy._core"
        value = (importlib.import_module(f"{self.__name__}.{name}")
                 if name.startswith("_") and not leaf else _any(name))
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("cupy", "cupyx", "cupy_backends", "cuda", "scipy"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        mod = _Stub(spec.name)
        mod.__path__ = []
        if spec.name in ("cupy", "cupy._core", "cupy._core.core", "cupy._core.raw"):
            mod.RawModule, mod.RawKernel = RawModule, RawKernel
        if spec.name in ("cupy", "cupy._util", "cupy._core.internal"):
            mod.memoize = _memoize
        if spec.name == "cupy":
            for t in _TYPENAMES:
                setattr(mod, t, getattr(np, t))
            mod.dtype = np.dtype
        if spec.name == "cupy._core._scalar":
            mod.get_typename = get_typename
        return mod

    def exec_module(self, module):
        pass


def _exec(path: str, relname: str) -> types.ModuleType:
    _where[0] = relname
    name = relname[:-3].replace("/", ".")
    mod = types.ModuleType(name)
    mod.__file__ = path
    mod.__package__ = name.rsplit(".", 1)[0]
    with open(path) as f:
        code = compile(f.read(), relname, "exec")
    try:
        exec(code, mod.__dict__)
    except Exception as err:
        print(f"  {relname}: {type(err).__name__}: {err}", file=sys.stderr)
    return mod


def _call(mod, what, fn, *args, **kw):
    _where[0] = f"{mod.__name__}.{what}"
    try:
        fn(*args, **kw)
    except Exception as err:
        print(f"  {mod.__name__}.{what}{args}: {type(err).__name__}: {err}", file=sys.stderr)


# A user's line filter, of the signature generic_filter1d requires (written here: a copy)
SHIFT_RAW = '''extern "C" __global__
void shift(const double* src, ptrdiff_t n_src, double* dst, ptrdiff_t n_dst) {
    for (ptrdiff_t k = 0; k < n_dst && k < n_src; k++) dst[k] = src[k];
}'''


def _function_builders(mods: dict) -> None:
    """The sources cupyx makes inside functions, for the arguments cupyx passes them."""
    m = mods.get("cupyx/scipy/ndimage/_spline_prefilter_core.py")
    if m is not None:    # spline_filter1d's orders 2..5, real and complex data, 1-d and 2-d
        grid = set()
        for mode in ("mirror", "grid-wrap", "reflect", "grid-mirror", "wrap", "nearest",
                     "constant", "grid-constant"):
            for order in (2, 3, 4, 5):
                grid |= {(0, 1, mode, order, "double", "double", "int"),
                         (0, 1, mode, order, "float", "float", "int")}
        for mode in ("mirror", "constant"):
            for order in (2, 3, 4, 5):
                grid |= {(0, 1, mode, order, "complex<double>", "double", "int"),
                         (0, 1, mode, order, "complex<float>", "float", "int")}
        grid |= {(1, 2, "mirror", 3, "double", "double", "long long"),
                 (0, 3, "reflect", 4, "float", "float", "int")}
        for axis, ndim, mode, order, data, pole, index in sorted(grid):
            _call(m, "get_raw_spline1d_kernel", m.get_raw_spline1d_kernel, axis, ndim, mode,
                  order, index_type=index, data_type=data, pole_type=pole)

    def source(fn, **kw):
        code = fn(**kw)
        _record(code, (), None)

    m = mods.get("cupyx/scipy/ndimage/_pba_2d.py")
    if m is not None:    # _pba_2d: int16 pixels below 2**15 - 1, int32 above (its _init_marker)
        for block_size in (32, 64):
            for marker, int2 in ((-32768, "short2"), (-2147483648, "int2")):
                _call(m, "get_pba2d_src", source, m.get_pba2d_src, block_size_2d=block_size,
                      marker=marker, pixel_int2_t=int2)
    m = mods.get("cupyx/scipy/ndimage/_pba_3d.py")
    if m is not None:
        for block_size in (32, 64):
            for size_max in (1024, 2048):
                _call(m, "get_pba3d_src", source, m.get_pba3d_src, block_size_3d=block_size,
                      size_max=size_max)
    m = mods.get("cupyx/scipy/ndimage/_filters_generic.py")
    if m is not None:    # with a line filter of its own
        rk = types.SimpleNamespace(name="shift", options=(), code=SHIFT_RAW)
        for mode in ("reflect", "constant", "nearest", "wrap", "mirror"):
            for in_t, out_t in (("double", "double"), ("float", "float"),
                                ("double", "unsigned char")):
                _call(m, "_get_generic_filter1d", m._get_generic_filter1d, rk, 5, 4, 3, 0,
                      mode, 0.0, in_t, out_t, "int")
    m = mods.get("cupyx/signal/_filtering/_filtering.py")
    if m is not None:
        for fn in ("_get_channelizer_8x8_module", "_get_channelizer_16x16_module",
                   "_get_channelizer_32x32_module"):
            if hasattr(m, fn):
                _call(m, fn, getattr(m, fn))


def _captured_sources(paths) -> None:
    """Sources recorded while cupyx ran on a GPU (tools/cupyx_suite.py --captured FILE): the
    ones the static extraction cannot make (built from run-time values), keyed the same."""
    for path in paths:
        with open(path) as f:
            for key, rec in json.load(f).items():
                _where[0] = "captured: " + rec.get("what", "?")
                _record(rec["source"], rec["options"], rec["name_expressions"])
                for k in rec.get("kernels", ()):
                    _record(rec["source"], rec["options"], None, k)


def main() -> int:
    args = sys.argv[1:]
    captured_files = []
    usage = ("usage: python tools/extract_cupyx_corpus.py <cupy checkout or git dir> <out dir> "
             "[--captured captured.json ...]")
    while "--captured" in args:
        i = args.index("--captured")
        if i + 1 >= len(args):
            print(f"--captured needs a file\n{usage}", file=sys.stderr)
            return 2
        captured_files.append(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2 or args[0] in ("-h", "--help"):
        print(usage, file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    src, out = args[0], args[1]
    tmp = tempfile.mkdtemp(prefix="cupyx-")
    if os.path.isdir(os.path.join(src, "cupyx")):
        root = src
    else:        # a bare git directory (tools' `fetch`): check the tree out
        subprocess.run(["git", "--git-dir", src, "--work-tree", tmp, "checkout", "HEAD", "--",
                        "cupyx", "cupy/_core/include", "LICENSE"], check=True)
        root = tmp
    sys.meta_path.insert(0, _Finder())
    listed = subprocess.run(["grep", "-rlE", "RawKernel|RawModule", "cupyx", "--include=*.py"],
                            cwd=root, capture_output=True, text=True).stdout.split()
    mods = {}
    # cupyx modules other builders use for real (not as stand-ins)
    for rel in ("cupyx/scipy/ndimage/_filters_core.py",
                "cupyx/scipy/spatial/delaunay_2d/_schewchuk.py"):   # Delaunay's predicates
        core = _exec(os.path.join(root, rel), rel)
        sys.modules[core.__name__] = core
        parent = importlib.import_module(core.__name__.rsplit(".", 1)[0])
        setattr(parent, core.__name__.rsplit(".", 1)[1], core)
    for rel in sorted(listed):
        if rel.startswith("cupyx/jit/") or "/tests/" in rel:
            continue   # cupyx.jit makes sources from Python functions; tests are not cupyx
        mods[rel] = _exec(os.path.join(root, rel), rel)
    _function_builders(mods)
    _captured_sources(captured_files)
    os.makedirs(out, exist_ok=True)
    index = {}
    for key, rec in sorted(captured.items()):
        with open(os.path.join(out, f"{key}.cu"), "w") as f:
            f.write(rec["source"])
        index[f"{key}.cu"] = {k: rec[k] for k in ("options", "name_expressions", "kernels",
                                                   "what")}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    inc = os.path.join(out, "include", "cupy")
    shutil.rmtree(inc, ignore_errors=True)
    here = os.path.join(root, "cupy", "_core", "include", "cupy")
    shutil.copytree(here, inc, ignore=shutil.ignore_patterns("_cccl", "_jitify", "_dlpack", "xsf"))
    shutil.copy(os.path.join(root, "LICENSE"), os.path.join(out, "LICENSE"))
    print(f"{len(index)} sources -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
