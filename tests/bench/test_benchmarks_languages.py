"""The CuPy (CUDA C) and PyOpenCL (OpenCL C) cases of the benchmark suite.

Here (no GPU): the OpenCL cases run `--quick` on PoCL in every in-process mode and verify
against NumPy; a wrong OpenCL kernel is reported wrong; the CUDA C kernels' signatures match
the arguments their launches pass, and they compile with NVRTC for sm_90 as written and as
safekern rewrites them. On a GPU (`-m gpu`): the CuPy cases run and verify in every mode.
No timing is asserted.
"""
import re

import numpy as np
import pytest

from benchmarks import c_cases, cases, cuda_c_cases, harness, languages, modes, opencl_cases
from benchmarks import report
from tests.bench.test_benchmarks_smoke import _quick_run

C_NAMES = ["vector_add", "matmul_tiled", "histogram", "spmv_csr", "transpose", "hotspot",
           "saxpy", "jacobi", "reduce_sum", "prefix_scan", "gather_scatter", "bfs_step"]
#: the order of the suite (cases.CASES), in which runs and reports list them
C_ORDER = ["vector_add", "saxpy", "jacobi", "matmul_tiled", "reduce_sum", "prefix_scan",
           "histogram", "gather_scatter", "spmv_csr", "bfs_step", "transpose", "hotspot"]
C_TYPES = {np.dtype(np.float32): {"float"}, np.dtype(np.int32): {"int"},
           np.dtype(np.uint8): {"unsigned char", "uchar"}}


# -- which kernels a run selects -----------------------------------------------------------

def test_every_language_has_its_cases_and_ids():
    assert list(c_cases.NAMES) == C_NAMES
    assert languages.case_names("cupy") == languages.case_names("opencl") == tuple(C_ORDER)
    # the suite's 20; the real-world set (rw_*) joins them where it was extracted (.realworld/)
    numba_names = languages.case_names("numba")
    assert len([n for n in numba_names if not n.startswith("rw_")]) == 20
    assert set(cuda_c_cases.CUDA_SOURCES) == set(opencl_cases.OPENCL_SOURCES) == set(C_NAMES)
    everything = languages.select([], list(languages.NAMES))
    assert len(everything) == 44 + len(numba_names) - 20
    assert languages.select(["suite"], ["numba"]) == [("numba", n) for n in numba_names
                                                       if not n.startswith("rw_")]
    assert languages.case_id("numba", "nw") == "nw"
    assert languages.case_id("cupy", "hotspot") == "cupy:hotspot"


def test_only_and_languages_select_pairs():
    select = languages.select
    assert select(["vector_add"], ["numba", "opencl"]) == [("numba", "vector_add"),
                                                           ("opencl", "vector_add")]
    assert select(["cupy:hotspot", "nbody"], list(languages.NAMES)) == [("numba", "nbody"),
                                                                       ("cupy", "hotspot")]
    assert select([], ["opencl"]) == [("opencl", n) for n in C_ORDER]
    # grouped by case for the run (shared host data), by language for the report
    order = languages.run_order(select(["transpose", "vector_add"], list(languages.NAMES)))
    assert order == [("numba", "vector_add"), ("cupy", "vector_add"), ("opencl", "vector_add"),
                     ("numba", "transpose"), ("cupy", "transpose"), ("opencl", "transpose")]
    for only, langs, word in ((["nbody"], ["cupy"], "nbody"), (["nope"], ["numba"], "nope"),
                              (["cupy:nw"], ["cupy"], "cupy:nw"),
                              (["opencl:hotspot"], ["numba"], "not among --languages"),
                              ([], ["fortran"], "fortran")):
        with pytest.raises(ValueError, match=word):
            select(only, langs)


def test_cli_languages_usage_errors_and_list():
    import subprocess
    import sys

    from tests.bench.test_benchmarks_smoke import ROOT

    for args, word in ((["--languages", "numba,fortran"], "fortran"),
                       (["--only", "nbody", "--languages", "cupy"], "nbody")):
        proc = subprocess.run([sys.executable, "-m", "benchmarks", *args, "--list"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert word in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--list"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("cupy:hotspot", "opencl:spmv_csr", "lud", "backprop"):
        assert name in proc.stdout


# -- the C kernels match their launches ------------------------------------------------------

def _signature(source, kernel):
    match = re.search(rf"\b{kernel}\s*\(([^)]*)\)", source)
    assert match, kernel
    return [re.sub(r"\s+", " ", p.replace("__global", "").replace("const", "")).strip()
            for p in match.group(1).split(",")]


@pytest.mark.parametrize("language", ["cupy", "opencl"])
@pytest.mark.parametrize("name", C_NAMES)
def test_c_kernel_signatures_match_the_launch_arguments(language, name):
    """Every launch passes as many arguments as the kernel has parameters, each of the
    parameter's type: arrays of the pointer's element type, np.int32 / np.float32 scalars,
    CUDA bfs_step's graph a struct of the addresses of its CSR arrays."""
    lang = (cuda_c_cases.CupyLanguage() if language == "cupy"
            else opencl_cases.OpenCLLanguage())
    numba_case = cases.build(name, quick=True)
    case = lang.adapt(numba_case)
    assert case.reference is numba_case.reference and case.compare is numba_case.compare
    plan = case.plan(case.arrays)                 # host arrays stand in for device arrays
    assert [(k, g, b) for k, g, b, _ in plan] == [(k, g, b) for k, g, b, _ in
                                                  numba_case.plan(numba_case.arrays)]
    for kernel, _, _, args in plan:
        params = _signature(case.kernels[kernel], kernel)
        assert len(params) == len(args), (kernel, params)
        for param, arg in zip(params, args):
            ctype = param.rsplit(" ", 1)[0].rstrip("* ").strip()
            if isinstance(arg, np.ndarray):
                assert "*" in param and ctype in C_TYPES[arg.dtype], (param, arg.dtype)
            elif isinstance(arg, np.void):
                assert param == "Graph g" and arg.dtype.itemsize == 24, (param, arg.dtype)
                assert (arg["nodes"], arg["nindex"], arg["nlist"]) == (
                    case.arrays["frontier"].size,
                    case.arrays["indptr"].__array_interface__["data"][0],
                    case.arrays["indices"].__array_interface__["data"][0])
            else:
                assert "*" not in param and ctype in C_TYPES[np.asarray(arg).dtype], (param, arg)


def _nvrtc_ptx(source, filename):
    nvrtc = pytest.importorskip("cuda.bindings.nvrtc")
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), filename.encode(), 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    options = [b"--gpu-architecture=sm_90", b"-std=c++17"]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(options), options)
    # Writable buffers: NVRTC writes into them, and `b" " * 1` is CPython's one cached b" "
    # (writing its NUL there turned every b" " of the process into b"\x00").
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    log = bytearray(size)
    nvrtc.nvrtcGetProgramLog(prog, log)
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, bytes(log).decode(errors="replace")
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = bytearray(size)
    nvrtc.nvrtcGetPTX(prog, ptx)
    return bytes(ptx).decode(errors="replace")


@pytest.mark.nvrtc
@pytest.mark.parametrize("name", C_NAMES)
def test_cuda_c_kernels_compile_as_written_and_checked(name):
    """What CuPy would compile, without a GPU: the source, and safekern's rewrite of it (every
    access of these kernels is checked or proven -- statically or at launch -- none left
    unchecked but, until struct pointer fields are checked, bfs_step's through its struct)."""
    pytest.importorskip("clang.cindex")
    import safekern.cupy as skcp

    source = cuda_c_cases.CUDA_SOURCES[name]
    entry = {"prefix_scan": "scan_blocks"}.get(name, name)
    assert re.search(rf"\.entry {entry}\(", _nvrtc_ptx(source, f"{name}.cu"))
    kernel = skcp.RawKernel(source, entry, filename=f"{name}.cu")
    checked = _nvrtc_ptx(kernel.rewritten_source, f"{name}.cu")
    assert re.search(rf"\.entry {entry}\(", checked)
    statuses = [str(getattr(r.status, "value", r.status)) for r in kernel.check_report()
                if "inside a struct" not in r.reason]
    assert set(statuses) & {"checked", "proven at launch"} and "unchecked" not in statuses, \
        statuses


# -- OpenCL on PoCL -----------------------------------------------------------------------------

def _pocl():
    from tests.support import opencl_env

    pytest.importorskip("clang.cindex")
    opencl_env.require_env("pocl")


@pytest.mark.opencl
@pytest.mark.timeout(600)
def test_quick_opencl_run_verifies_every_kernel_in_every_mode(tmp_path):
    _pocl()
    run, md, _ = _quick_run(tmp_path, "--languages", "opencl,cupy", "--modes",
                            "unchecked,checked,sync", "--reps", "1", timeout=540)
    opencl = [c for c in run["cases"] if c["language"] == "opencl"]
    assert [c["name"] for c in opencl] == [f"opencl:{n}" for n in C_ORDER]
    assert {c["case"] for c in opencl} == set(C_NAMES)
    for case in opencl:
        for mode in ("unchecked", "checked", "sync"):
            record = case["modes"][mode]
            assert record["status"] == "ok", (case["name"], mode, record.get("error"))
            assert record["verified"] is True and record["ms_per_step"]["n"] == 1
            assert "warning" not in record, record["warning"]
        checks = case["modes"]["checked"]["checks"]
        assert set(checks) == set(case["kernels"])
        assert all(c["checked"] + c.get("launch", 0) >= 1 and c["unchecked"] == 0
                   for c in checks.values()), checks
        assert case["ratios"]["checked"] > 0 and case["ratios"]["sync"] > 0
    info = run["languages"]
    assert info["opencl"]["status"] == "ok" and info["opencl"]["device"]
    if info["cupy"]["status"] == "skipped":
        assert "CuPy" in info["cupy"]["reason"] and "skipped" in md
        assert not [c for c in run["cases"] if c["language"] == "cupy"]
    summary = run["summary"]
    assert summary["failures"] == [] and "numba" not in summary["languages"]
    assert summary["languages"]["opencl"]["checked"]["kernels"] == 12
    goals = {g["goal"]: g for g in summary["goals"]}
    assert goals["opencl_checked_geomean"]["met"] is None          # a smoke run on a CPU
    assert "host_launch" not in run and "compile" not in run        # numba's phases only
    assert "### PyOpenCL Program (OpenCL C)" in md and "| opencl:hotspot |" in md


WRONG_VECTOR_ADD = """
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] - b[i];
}
"""


@pytest.mark.opencl
def test_a_wrong_opencl_kernel_is_reported_wrong_in_every_mode(monkeypatch, no_pending_failure):
    _pocl()
    monkeypatch.setitem(opencl_cases.OPENCL_SOURCES, "vector_add", WRONG_VECTOR_ADD)
    result = harness.run_case("vector_add", [modes.UNCHECKED, modes.CHECKED],
                              harness.Settings(quick=True, reps=1, warmup=0),
                              language=languages.get("opencl"))
    assert result["name"] == "opencl:vector_add" and result["language"] == "opencl"
    for mode in ("unchecked", "checked"):
        record = result["modes"][mode]
        assert record["status"] == "wrong", record
        assert "out:" in record["error"] and "differ" in record["error"]


# -- the report ---------------------------------------------------------------------------------

def _case(name, language, checked):
    return {"name": languages.case_id(language, name), "case": name, "language": language,
            "modes": {"unchecked": {"status": "ok"}, "checked": {"status": "ok"}},
            "ratios": {"checked": checked}}


def test_report_summarizes_each_language_and_judges_its_goals():
    run = {"cases": [_case("vector_add", "numba", 1.0), _case("nw", "numba", 1.44),
                     _case("vector_add", "cupy", 1.02), _case("hotspot", "cupy", 1.10),
                     _case("vector_add", "opencl", 1.3)],
           "machine": {"simulator": False}, "settings": {"quick": False},
           "languages": {"numba": {"status": "ok"}, "cupy": {"status": "ok"},
                         "opencl": {"status": "ok", "note": "a CPU device"}}}
    s = report.summarize(run)
    assert s["checked"]["kernels"] == 2 and s["checked"]["worst_kernel"] == "nw"
    cupy = s["languages"]["cupy"]["checked"]
    assert cupy["geomean"] == pytest.approx((1.02 * 1.10) ** 0.5)
    assert cupy["worst"] == 1.10 and cupy["worst_kernel"] == "cupy:hotspot"
    goals = {g["goal"]: g["met"] for g in s["goals"]}
    assert goals["checked_geomean"] is False and goals["checked_worst"] is False
    assert goals["cupy_checked_geomean"] is False and goals["cupy_checked_worst"] is True
    assert goals["opencl_checked_geomean"] is None      # measured on a CPU: not judged
    assert report.ascii_plot(run, "checked").splitlines()[3].startswith("cupy:vector_add ")


# -- CuPy on a GPU ------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_quick_cupy_run_on_the_gpu_verifies_every_kernel(tmp_path):
    run, _, _ = _quick_run(tmp_path, "--languages", "cupy", "--modes", "unchecked,checked,sync",
                           simulator=False, timeout=540)
    assert run["languages"]["cupy"]["status"] == "ok", run["languages"]["cupy"]
    assert [c["name"] for c in run["cases"]] == [f"cupy:{n}" for n in C_ORDER]
    for case in run["cases"]:
        for mode in ("unchecked", "checked", "sync"):
            assert case["modes"][mode]["status"] == "ok", (case["name"], mode)
            assert case["modes"][mode]["ms_per_step"]["median"] > 0
        assert "warning" not in case["modes"]["checked"]
    assert run["summary"]["languages"]["cupy"]["checked"]["kernels"] == 12
