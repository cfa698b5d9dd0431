"""Capture every OpenCL C program PyOpenCL's own library builds, as test data for the C rewrite.

    OCL_ICD_VENDORS=/etc/OpenCL/vendors python tools/capture_pyopencl_corpus.py \
        .corpus/pyopencl

Runs plain PyOpenCL (not safekern) on the first OpenCL device, exercising pyopencl.array
arithmetic and functions, elementwise, reduction, scan, clrandom, bitonic sort, take/put,
pyopencl.algorithm and clmath over several dtypes, and records each (source, options) pair that
`pyopencl.Program.build` sees. Each distinct pair becomes `<sha1[:12]>.cl` with its options in
`index.json`. PyOpenCL is MIT-licensed; the programs are not committed (other projects' code): the
corpus directory is git-ignored, tests/frontend/c_corpus_manifest.json describes it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
import warnings

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

captured: dict[str, dict] = {}
_build = cl.Program.build


def _recording_build(self, options=None, devices=None, cache_dir=None):
    source = getattr(self, "_source", None)
    if isinstance(source, bytes):
        source = source.decode()
    if isinstance(source, str):
        opts = ([] if options is None else shlex.split(options) if isinstance(options, str)
                else [o.decode() if isinstance(o, bytes) else str(o) for o in options])
        key = hashlib.sha1((source + "\0" + "\0".join(opts)).encode()).hexdigest()[:12]
        captured.setdefault(key, {"source": source, "options": opts, "what": _current[0]})
    return _build(self, options, devices, cache_dir)


_current = ["?"]


def _run(what, fn):
    _current[0] = what
    try:
        fn()
    except Exception as err:            # a library path PoCL lacks is skipped, not fatal
        print(f"  {what}: {type(err).__name__}: {str(err)[:120]}", file=sys.stderr)


def exercise(queue) -> None:
    from pyopencl import algorithm, bitonic_sort, clmath, clrandom, elementwise, reduction, scan
    ctx = queue.context
    rng = np.random.default_rng(0)
    dtypes = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64,
              np.complex128]
    for dt in dtypes:
        host = (rng.random(257) * 10).astype(dt)
        a = cla.to_device(queue, host)
        b = cla.to_device(queue, host[::-1].copy())

        def arith():
            for r in (a + b, a - b, a * b, a * 2, 2 * a, -a, a + 1, abs(a), a.copy(),
                      a == b, a < b, a.astype(np.float64), a.conj() if dt in (
                          np.complex64, np.complex128) else a, a.real, a.imag):
                r.get()
            if dt not in (np.uint8,):
                (a / (b + 1)).get(), (1 / (a + 1)).get(), (a ** 2).get()
            a.fill(3)
            a.setitem(slice(2, 10), 0)
            cla.if_positive(a.real if dt in (np.complex64, np.complex128) else a, a, b).get()
            cla.maximum(a.real, b.real).get(), cla.minimum(a.real, b.real).get()
            cla.concatenate((a, b)).get()
            cla.stack((a, b)).get()
        _run(f"array arithmetic {dt.__name__}", arith)

        def reduce_():
            cla.sum(a).get(), cla.dot(a, b).get(), cla.vdot(a, b).get()
            if dt not in (np.complex64, np.complex128):
                cla.min(a).get(), cla.max(a).get()
                cla.subset_max(cla.arange(queue, 0, 10, 1, dtype=np.int32), a).get()
            cla.subset_dot(cla.arange(queue, 0, 10, 1, dtype=np.int32), a, b).get()
            a.any(), a.all()
            cla.cumsum(a).get()
        _run(f"reductions {dt.__name__}", reduce_)

        def take_put():
            idx = cla.to_device(queue, np.arange(0, 200, 3, dtype=np.int32))
            cla.take(a, idx).get()
            out = cla.zeros_like(a)
            cla.multi_take([a, b], idx, out=[cla.empty(queue, idx.shape, dt), cla.empty(queue, idx.shape, dt)])
            cla.multi_take_put([a, b], idx, idx, out=[cla.zeros_like(a), cla.zeros_like(b)])
            cla.multi_put([a, b], idx, out=[out, cla.zeros_like(b)])
            a[idx].get()
            out[idx] = a[idx]
            out.get()
        _run(f"take/put {dt.__name__}", take_put)

    def math():
        x = cla.to_device(queue, rng.random(100).astype(np.float32) + 0.5)
        for name in ("sin", "cos", "exp", "log", "sqrt", "tan", "floor", "ceil", "fabs",
                     "atan2", "log10", "asin", "erf", "frexp", "ldexp", "modf", "fmod",
                     "bessel_jn", "bessel_yn", "hypot"):
            f = getattr(clmath, name, None)
            if f is None:
                continue
            try:
                if name in ("atan2", "fmod", "hypot"):
                    f(x, x)
                elif name == "ldexp":
                    f(x, cla.to_device(queue, np.ones(100, np.int32)))
                elif name in ("bessel_jn", "bessel_yn"):
                    f(2, x)
                else:
                    f(x)
            except Exception as err:
                print(f"  clmath.{name}: {err}", file=sys.stderr)
        (x ** x).get(), (x ** 2.5).get()
        z = cla.to_device(queue, (rng.random(64) + 1j * rng.random(64)).astype(np.complex64))
        clmath.exp(z), clmath.sqrt(z), clmath.log(z), abs(z).get()
    _run("clmath", math)

    def elementwise_():
        k = elementwise.ElementwiseKernel(ctx, "float *x, float *y, float a",
                                          "y[i] = a * x[i] + y[i]", "axpy")
        x = cla.to_device(queue, np.ones(100, np.float32))
        y = cla.to_device(queue, np.ones(100, np.float32))
        k(x, y, np.float32(2))
        k2 = elementwise.ElementwiseKernel(
            ctx, "int *out", "out[i] = twice(i)", "tw",
            preamble="int twice(int v) { return 2 * v; }\n#define TW(v) twice(v)")
        k2(cla.empty(queue, 10, np.int32))
        x[10:20] = y[20:30]
    _run("elementwise", elementwise_)

    def reduction_():
        r = reduction.ReductionKernel(ctx, np.float32, neutral="0",
                                      reduce_expr="a+b", map_expr="x[i]*y[i]",
                                      arguments="__global float *x, __global float *y")
        x = cla.to_device(queue, np.ones(5000, np.float32))
        r(x, x).get()
        from pyopencl.tools import dtype_to_ctype
        mm = reduction.ReductionKernel(ctx, np.int64, neutral="0", reduce_expr="max(a, b)",
                                       map_expr="in[i]", arguments="__global long *in")
        mm(cla.arange(queue, 0, 70000, 1, dtype=np.int64)).get()
        dtype_to_ctype(np.float32)
    _run("reduction", reduction_)

    def scan_():
        for dt in (np.int32, np.float64, np.int64):
            v = cla.to_device(queue, np.arange(10000).astype(dt))
            scan.InclusiveScanKernel(ctx, dt, "a+b", "0")(v.copy())
            scan.ExclusiveScanKernel(ctx, dt, "a+b", "0")(v.copy())
        segs = cla.to_device(queue, (np.arange(3000) % 7 == 0).astype(np.uint8))
        v = cla.to_device(queue, np.ones(3000, np.int32))
        seg = scan.GenericScanKernel(
            ctx, np.int32, arguments="__global int *ary, __global char *segflags, "
            "__global int *out", input_expr="ary[i]", scan_expr="across_seg_boundary ? b : "
            "(a+b)", neutral="0", is_segment_start_expr="segflags[i]",
            output_statement="out[i] = item + 100")
        seg(v, segs, cla.empty_like(v))
        big = cla.to_device(queue, np.ones(2 ** 20 + 3, np.int32))
        scan.InclusiveScanKernel(ctx, np.int32, "a+b", "0")(big)
        cla.cumsum(cla.to_device(queue, np.ones(100, np.float32)))
    _run("scan", scan_)

    def algorithm_():
        from pyopencl.tools import VectorArg
        a = cla.to_device(queue, rng.integers(0, 100, 5000).astype(np.int32))
        algorithm.copy_if(a, "ary[i] < 42")
        algorithm.remove_if(a, "ary[i] < 42")
        algorithm.partition(a, "ary[i] < 42")
        algorithm.unique(cla.to_device(queue, np.sort(a.get())))
        sort = algorithm.RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"])
        sort(a, key_bits=7)
        builder = algorithm.ListOfListsBuilder(
            ctx, [("mylist", np.int32)], """//CL//
            void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
            {
                for (int j = 0; j < i % 4; ++j) APPEND_mylist(i + j);
            }""", arg_decls=[])
        builder(queue, 100)
        builder2 = algorithm.ListOfListsBuilder(
            ctx, [("mylist", np.int32)], """//CL//
            void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
            {
                if (i % 3 == 0) APPEND_mylist(input_list[i]);
            }""", arg_decls=[VectorArg(np.int32, "input_list")], eliminate_empty_output_lists=True)
        builder2(queue, 100, cla.to_device(queue, np.arange(100, dtype=np.int32)))
        algorithm.KeyValueSorter(ctx)
    _run("algorithm", algorithm_)

    def bitonic_():
        s = bitonic_sort.BitonicSort(ctx)
        for dt in (np.int32, np.float32, np.uint64):
            v = cla.to_device(queue, rng.random(2 ** 12).astype(dt) * 1000)
            s(v, queue=queue)
            k = cla.to_device(queue, rng.random((4, 2 ** 10)).astype(dt))
            s(k, axis=1, queue=queue)
            idx = cla.to_device(queue, np.arange(2 ** 12, dtype=np.int32))
            s(cla.to_device(queue, rng.random(2 ** 12).astype(dt)), idx=idx, queue=queue)
    _run("bitonic sort", bitonic_)

    def random_():
        for gen in (clrandom.PhiloxGenerator(ctx), clrandom.ThreefryGenerator(ctx)):
            for dt in (np.float32, np.float64, np.int32, np.int64):
                gen.uniform(queue, 1000, dt)
            gen.normal(queue, 1000, np.float32)
            gen.normal(queue, 1000, np.float64)
        clrandom.rand(queue, 100, np.float32)
        clrandom.rand(queue, 100, np.int32, a=0, b=10)
        rl = getattr(clrandom, "RanluxGenerator", None)
        if rl is not None:
            g = rl(queue)
            g.uniform(queue, 1000, np.float32)
            g.normal(queue, 1000, np.float64)
    _run("clrandom", random_)


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else ".corpus/pyopencl"
    os.environ.setdefault("PYOPENCL_NO_CACHE", "1")
    warnings.simplefilter("ignore")
    cl.Program.build = _recording_build
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    exercise(queue)
    os.makedirs(out, exist_ok=True)
    index = {}
    for key, rec in sorted(captured.items()):
        with open(os.path.join(out, f"{key}.cl"), "w") as f:
            f.write(rec["source"])
        index[f"{key}.cl"] = {"options": rec["options"], "what": rec["what"]}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print(f"{len(index)} programs -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
