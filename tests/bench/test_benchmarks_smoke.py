"""The benchmark suite runs end to end and its verification catches wrong results.

No timing is asserted (performance belongs to the benchmarks themselves): the smoke run is
`python -m benchmarks --quick --languages numba` on the CUDA simulator, tiny sizes, unchecked
and checked modes -- the first fourteen kernels with every phase, the six Rodinia ports on their
own (the simulator runs their 256-thread blocks slowly). The CuPy and OpenCL versions:
tests/bench/test_benchmarks_languages.py.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import cuda  # noqa: F401  (the kernels in this file use it)

ROOT = Path(__file__).resolve().parents[2]

from benchmarks import cases, harness, modes, report, rodinia  # noqa: E402

RODINIA = [f.__name__ for f in rodinia.BUILDERS]
FIRST = [name for name in cases.SUITE if name not in RODINIA]


def _quick_run(tmp_path, *args, simulator=True, timeout=240):
    """`python -m benchmarks --quick ARGS` in a subprocess; (run JSON, markdown, stem)."""
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "k.cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("SAFEKERN_CHECKS", None)
    env.pop("SAFEKERN_SYNC_EVERY_LAUNCH", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", *args, "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    written = sorted(p.name for p in out.iterdir())
    stems = {Path(name).stem for name in written}
    assert len(stems) == 1 and {f"{s}.json" for s in stems} <= set(written)
    stem = stems.pop()
    return json.loads((out / f"{stem}.json").read_text()), (out / f"{stem}.md").read_text(), stem


def test_quick_run_verifies_every_kernel_and_writes_reports(tmp_path):
    run, md, stem = _quick_run(tmp_path, "--modes", "unchecked,checked", "--reps", "1",
                               "--languages", "numba", "--only", ",".join(FIRST))
    assert stem.endswith("-cuda-simulator-quick")

    assert [c["name"] for c in run["cases"]] == FIRST
    for case in run["cases"]:
        for mode in ("unchecked", "checked"):
            record = case["modes"][mode]
            assert record["status"] == "ok", (case["name"], mode, record.get("error"))
            assert record["verified"] is True
            assert record["ms_per_step"]["n"] == 1
        assert case["ratios"]["checked"] > 0
        # every checked kernel told which of its accesses it checks
        checks = case["modes"]["checked"]["checks"]
        assert set(checks) == set(case["kernels"])
        assert all(c["sites"] >= 1 for c in checks.values()), checks
        assert case["name"] in md
    assert run["summary"]["failures"] == [] and run["complete"] is True
    assert run["summary"]["checked"]["kernels"] == len(FIRST)
    assert run["summary"]["languages"]["numba"]["checked"] == run["summary"]["checked"]
    assert run["languages"] == {"numba": {"status": "ok", "label": "numba-cuda",
                                          "device": "CUDA simulator"}}
    assert run["command"].startswith("python -m benchmarks --quick")
    assert run["machine"]["simulator"] is True
    assert {"numba", "numpy", "safekern"} <= set(run["versions"])
    host = run["host_launch"]["kernels"]
    assert set(host) == {"empty", "empty_array"}
    assert all("us_per_launch" in host[k]["checked"] for k in host)
    assert set(run["compile"]["cases"]) == set(FIRST)
    for entry in run["compile"]["cases"].values():       # the collector's share, per mode
        for mode in ("unchecked", "checked"):
            collector = entry[f"{mode}_collector"]
            assert collector["seconds"]["n"] == 1 and collector["seconds"]["min"] >= 0
            assert collector["full_collections"] >= 0
    assert set(run["compile"]["collector"]) == {"unchecked", "checked"}
    assert "The cyclic collector within the samples" in md
    assert "## Summary" in md and "checked / unchecked per kernel" in md
    assert "Smoke run" in md


@pytest.mark.timeout(600)
def test_quick_run_verifies_the_rodinia_kernels(tmp_path):
    """hotspot, srad, nw, pathfinder, lud, backprop: every kernel of each verifies against
    NumPy in both modes on the simulator, and tells which of its accesses it checks."""
    run, md, _ = _quick_run(tmp_path, "--modes", "unchecked,checked", "--reps", "1",
                            "--languages", "numba", "--only", ",".join(RODINIA), "--no-host",
                            "--compile-reps", "0", timeout=540)
    assert [c["name"] for c in run["cases"]] == RODINIA
    kernels = {"hotspot": {"hotspot"}, "srad": {"srad_reduce", "srad_stats", "srad_1", "srad_2"},
               "nw": {"nw_shared_1", "nw_shared_2"}, "pathfinder": {"pathfinder"},
               "lud": {"lud_diagonal", "lud_perimeter", "lud_internal"},
               "backprop": {"bpnn_layerforward", "bpnn_adjust_weights"}}
    launches = {"hotspot": 2, "srad": 8, "nw": 3, "pathfinder": 3, "lud": 7, "backprop": 2}
    for case in run["cases"]:
        name = case["name"]
        assert set(case["kernels"]) == kernels[name]
        assert case["launches_per_step"] == launches[name]
        for mode in ("unchecked", "checked"):
            record = case["modes"][mode]
            assert record["status"] == "ok", (name, mode, record.get("error"))
            assert record["verified"] is True
        checks = case["modes"]["checked"]["checks"]
        assert set(checks) == kernels[name]
        assert all(c["sites"] >= 1 and
                   c["checked"] + c["hoisted"] + c["eliminated"] + c["launch"] >= 1
                   for c in checks.values()), checks
        assert f"| {name} |" in md
    assert run["summary"]["failures"] == []
    assert run["summary"]["checked"]["kernels"] == len(RODINIA)
    assert "host_launch" not in run and "compile" not in run


@pytest.mark.parametrize("name", list(cases.CASES))
def test_a_kernel_that_does_nothing_fails_verification(name):
    case = cases.build(name, quick=True)
    untouched = {k: case.arrays[k].copy() for k in case.outputs}
    problem = case.compare(untouched, case.reference())
    assert problem, f"{name}: the initial outputs passed as a result"


@pytest.mark.parametrize("name", ["saxpy", "jacobi", "matmul_naive", "reduce_sum", "spmv_csr",
                                  "hotspot", "srad", "lud", "backprop"])
def test_float_results_a_little_off_fail(name):
    """Tolerances are float32-tight: a 1e-3 relative error everywhere is caught."""
    case = cases.build(name, quick=True)
    ref = case.reference()
    exact = {k: ref[k].astype(case.arrays[k].dtype) for k in case.outputs}
    assert case.compare(exact, ref) is None
    off = {k: (ref[k] * (1 + 1e-3)).astype(case.arrays[k].dtype) for k in case.outputs}
    assert case.compare(off, ref)


def test_rodinia_references_agree_with_plain_loops():
    """The vectorised NumPy references of the Rodinia cases against Rodinia's own CPU loops."""
    import numpy as np

    rng = np.random.default_rng(7)
    # nw: the running-maximum row update is the three-way recurrence
    ref = rng.integers(-4, 12, (13, 13)).astype(np.int32)
    want = np.zeros((13, 13), np.int64)
    want[0, :] = want[:, 0] = -10 * np.arange(13)
    for i in range(1, 13):
        for j in range(1, 13):
            want[i, j] = max(want[i - 1, j - 1] + ref[i, j], want[i, j - 1] - 10,
                             want[i - 1, j] - 10)
    assert (rodinia._nw_scores(ref, 10) == want).all()
    # pathfinder: the neighbours at the ends are the cell itself
    wall = rng.integers(0, 10, (6, 9)).astype(np.int32)
    r = list(wall[0])
    for row in wall[1:]:
        r = [min(r[max(x - 1, 0)], r[x], r[min(x + 1, 8)]) + row[x] for x in range(9)]
    assert list(rodinia._pathfinder_reference(wall[0], wall[1:])) == r
    # lud: Doolittle without pivoting, element by element
    a = rng.random((40, 40)) + 40 * np.eye(40)
    m = a.copy()
    for k in range(40):
        for i in range(k + 1, 40):
            m[i, k] /= m[k, k]
            for j in range(k + 1, 40):
                m[i, j] -= m[i, k] * m[k, j]
    assert np.allclose(rodinia._lu_packed(a), m, rtol=1e-12, atol=1e-12)
    # hotspot: clamped neighbours, one step at a time
    temp, power = 320 + 20 * rng.random((5, 7)), 1e-3 * rng.random((5, 7))
    cap, rx, ry, rz, step = (float(p) for p in rodinia._hotspot_parameters())
    t = temp.copy()
    for _ in range(3):
        new = t.copy()
        for y in range(5):
            for x in range(7):
                n, s_, w, e = t[max(y - 1, 0), x], t[min(y + 1, 4), x], t[y, max(x - 1, 0)], \
                    t[y, min(x + 1, 6)]
                new[y, x] = t[y, x] + step / cap * (power[y, x] + (s_ + n - 2 * t[y, x]) / ry
                                                    + (e + w - 2 * t[y, x]) / rx
                                                    + (80 - t[y, x]) / rz)
        t = new
    got = rodinia._hotspot_reference(temp.astype(np.float32), power.astype(np.float32), 3,
                                     rodinia._hotspot_parameters())
    assert np.allclose(got, t, rtol=1e-6)
    # srad: srad_v2's CPU path (iN, iS, jW, jE clamped; cN = cW = c[k])
    j0 = np.exp(rng.random((6, 8)))
    j = j0.copy()
    for _ in range(2):
        roi = j[1:4, 2:6]
        mean = roi.sum() / roi.size
        q0 = ((roi ** 2).sum() / roi.size - mean * mean) / (mean * mean)
        d = np.zeros((4, 6, 8))
        c = np.zeros((6, 8))
        for y in range(6):
            for x in range(8):
                jc = j[y, x]
                d[:, y, x] = (j[max(y - 1, 0), x] - jc, j[min(y + 1, 5), x] - jc,
                              j[y, max(x - 1, 0)] - jc, j[y, min(x + 1, 7)] - jc)
                g2 = (d[:, y, x] ** 2).sum() / (jc * jc)
                lap = d[:, y, x].sum() / jc
                qsqr = (0.5 * g2 - lap * lap / 16) / (1 + 0.25 * lap) ** 2
                c[y, x] = min(max(1 / (1 + (qsqr - q0) / (q0 * (1 + q0))), 0), 1)
        new = j.copy()
        for y in range(6):
            for x in range(8):
                dn, ds, dw, de = d[:, y, x]
                new[y, x] += 0.25 * 0.5 * (c[y, x] * dn + c[min(y + 1, 5), x] * ds
                                           + c[y, x] * dw + c[y, min(x + 1, 7)] * de)
        j = new
    assert np.allclose(rodinia._srad_reference(j0, (1, 3, 2, 5), 0.5, 2), j, rtol=1e-12)
    # backprop: per block of 16 inputs, the weighted sum for each hidden unit
    case = cases.build("backprop", quick=True)
    units, w = case.arrays["units"].astype(np.float64), case.arrays["weights"]
    partial = case.reference()["partial"]
    for b in range(partial.shape[0]):
        for h in range(16):
            rows = range(16 * b + 1, 16 * b + 17)
            assert partial[b, h] == pytest.approx(sum(units[r] * w[r, h + 1] for r in rows))


@pytest.mark.timeout(600)
def test_every_numba_kernel_compiles_to_ptx_checked_and_plain():
    """What the simulator cannot show: each kernel, with the argument types of its launches,
    compiles for sm_90 (no GPU needed) with safekern.jit and with plain numba (a shared-array
    shape that is not a constant, say, fails here and nowhere else before the H200)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-m", "tests.bench.benchmarks_ptx_probe"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=540)
    if proc.returncode != 0 and "NVVM" in proc.stderr and "not found" in proc.stderr.lower():
        pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = json.loads(proc.stdout)
    every = {k for name in cases.SUITE for k in cases.build(name, quick=True).kernels}
    assert set(lines) == every and len(every) == 29
    # A kernel whose report has sites the checked build checks has failure records in its PTX,
    # one with none has none (prefix_scan's scan_block_sums: every access proven). PTX lengths
    # say nothing here: NVVM unrolls a checked loop differently (srad_reduce's checked PTX is
    # shorter than numba's).
    assert all(x["checked"] > 0 and x["plain"] > 0 and (x["records"] > 0) == (x["sites"] > 0)
               for x in lines.values()), lines
    assert sum(x["sites"] > 0 for x in lines.values()) >= 20, lines


def test_unknown_kernel_or_mode_is_a_clear_usage_error():
    for args, word in ((["--only", "vector_add,nope"], "nope"), (["--modes", "fast"], "fast")):
        proc = subprocess.run([sys.executable, "-m", "benchmarks", *args, "--list"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert word in proc.stderr and "choose from" in proc.stderr
        assert "Traceback" not in proc.stderr


def wrong_vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] - b[i]


@pytest.mark.cudasim
def test_a_wrong_kernel_is_reported_wrong_in_every_mode(monkeypatch):
    from benchmarks import kernels

    monkeypatch.setattr(kernels, "vector_add", wrong_vector_add)
    settings = harness.Settings(quick=True, reps=1, warmup=0)
    result = harness.run_case("vector_add", [modes.UNCHECKED, modes.CHECKED], settings)
    for mode in ("unchecked", "checked"):
        record = result["modes"][mode]
        assert record["status"] == "wrong", record
        assert "out:" in record["error"] and "differ" in record["error"]
    failures = report.summarize({"cases": [result]})["failures"]
    assert {(f["kernel"], f["mode"]) for f in failures} == {("vector_add", "unchecked"),
                                                            ("vector_add", "checked")}


def test_ascii_plot_marks_one_and_the_goal():
    run = {"cases": [{"name": "a", "ratios": {"checked": 1.01}},
                     {"name": "b", "ratios": {"checked": 1.4}}]}
    plot = report.ascii_plot(run, "checked")
    lines = plot.splitlines()
    assert lines[1].startswith("a") and "1.010" in lines[1]
    assert lines[2].count("#") > lines[1].count("#")
    assert "1.03 goal" in lines[-1]
    assert report.geomean([1.0, 4.0]) == pytest.approx(2.0)


FAKE_SANITIZER = """#!/bin/sh
# Stands in for compute-sanitizer: runs the command after its six option words.
if [ "$1" = "--version" ]; then echo "Compute Sanitizer"; echo "Version 0.0.test"; exit 0; fi
[ "$1 $2 $3 $4 $5" = "--tool memcheck --leak-check no --print-limit" ] || exit 97
shift 6
"$@"
rc=$?
echo "========= ERROR SUMMARY: 0 errors"
exit $rc
"""


@pytest.mark.cudasim
def test_sanitizer_mode_runs_the_worker_and_reports_a_ratio(tmp_path, monkeypatch):
    """The memcheck plumbing, with a stand-in tool (the simulator has nothing to sanitize)."""
    from benchmarks import sanitizer

    tool = tmp_path / "compute-sanitizer"
    tool.write_text(FAKE_SANITIZER)
    tool.chmod(0o755)
    monkeypatch.setattr(harness, "simulator", lambda: False)
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    result = sanitizer.run(["vector_add"], quick=True, seed=1234, reps=1, timeout=120,
                           tool=str(tool))
    assert result["status"] == "ok", result.get("output_tail")
    assert result["errors"] == 0 and result["version"] == "0.0.test"
    worker = result["cases"]["vector_add"]["modes"]["unchecked"]
    assert worker["verified"] is True and worker["ms_per_step"]["n"] == 1

    main = {"name": "vector_add", "modes": {"unchecked": {"ms_per_step": {"median": 2.0}}}}
    sanitizer.attach_ratios(result, [main])
    assert main["modes"]["sanitizer"]["verified"] is True
    assert main["ratios"]["sanitizer"] == pytest.approx(worker["ms_per_step"]["median"] / 2.0)


def test_sanitizer_missing_is_a_note_not_a_failure(monkeypatch):
    from benchmarks import sanitizer

    monkeypatch.setattr(harness, "simulator", lambda: False)
    result = sanitizer.run(["vector_add"], quick=True, seed=1, reps=1, timeout=10,
                           tool="/nonexistent/compute-sanitizer")
    assert result["status"] == "skipped" and "not found" in result["note"]
    assert report.summarize({"cases": [], "sanitizer": result})["failures"] == []


def test_a_hung_memcheck_worker_is_stopped_with_everything_under_it(tmp_path, monkeypatch):
    import time

    from benchmarks import sanitizer

    tool = tmp_path / "compute-sanitizer"
    # the grandchild keeps the pipes open: communicate() returns only if it is killed too
    tool.write_text('#!/bin/sh\n[ "$1" = "--version" ] && { echo "Version 0"; exit 0; }\n'
                    'sleep 120 &\nwait\n')
    tool.chmod(0o755)
    monkeypatch.setattr(harness, "simulator", lambda: False)
    t0 = time.perf_counter()
    result = sanitizer.run(["vector_add"], quick=True, seed=1, reps=1, timeout=1.5,
                           tool=str(tool))
    assert result["status"] == "timeout" and "1.5 s" in result["note"]
    assert time.perf_counter() - t0 < 30
    failures = report.summarize({"cases": [], "sanitizer": result})["failures"]
    assert [f["status"] for f in failures] == ["timeout"]


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_quick_run_on_the_gpu_in_every_mode(tmp_path):
    """On a real GPU: every mode, memcheck on one kernel if compute-sanitizer is installed;
    every language that can run there (CuPy, OpenCL if the driver's platform is there)."""
    run, md, stem = _quick_run(tmp_path, "--modes", "unchecked,checked,sync,sanitizer",
                               "--sanitizer-kernels", "vector_add", simulator=False, timeout=540)
    assert not run["machine"]["simulator"] and "simulator" not in stem
    numba = [c["name"] for c in run["cases"] if c["language"] == "numba"]
    assert numba == list(cases.CASES)
    for lang in ("cupy", "opencl"):
        if run["languages"][lang]["status"] == "ok":
            assert len([c for c in run["cases"] if c["language"] == lang]) == 6
    for case in run["cases"]:
        for mode in ("unchecked", "checked", "sync"):
            assert case["modes"][mode]["status"] == "ok", (case["name"], mode)
            assert case["modes"][mode]["ms_per_step"]["median"] > 0
        assert "warning" not in case["modes"]["checked"], case["modes"]["checked"]["warning"]
        assert "warning" not in case["modes"]["sync"], case["modes"]["sync"]["warning"]
    san = run["sanitizer"]
    assert san["status"] in ("ok", "skipped"), san
    if san["status"] == "ok":
        assert san["errors"] == 0
        assert run["cases"][0]["ratios"]["sanitizer"] > 0
    assert run["host_launch"]["overhead_us"] is not None
    assert run["compile"]["ratio_of_totals"] > 0


def test_compile_goal_is_the_geomean_of_the_ratios_below_1_as_1():
    """The compile goal (issue 26: "<= 1.1x geomean over both sets") is measured as the geomean
    of the cases' ratios, one below 1 (a slow plain sample) counted as 1, not as the ratio of
    the totals, which one slow compile decides; the report shows both and the geomean as
    measured."""
    comp = {"reps": 2, "cases": {
        "a": {"unchecked_s": {"median": 1.0}, "checked_s": {"median": 4.0}, "ratio": 4.0},
        "b": {"unchecked_s": {"median": 0.1}, "checked_s": {"median": 0.1}, "ratio": 1.0},
        "c": {"unchecked_s": {"median": 0.4}, "checked_s": {"median": 0.1}, "ratio": 0.25}},
        "total_unchecked_s": 1.5, "total_checked_s": 4.2, "ratio_of_totals": 2.8}
    run = {"cases": [], "compile": comp, "machine": {}, "settings": {}}
    goals = {g["goal"]: g for g in report.summarize(run)["goals"]}
    assert goals["compile_ratio"]["measured"] == pytest.approx(4.0 ** (1 / 3))
    text = "\n".join(report._compile_section(run))
    assert "| **all** (ratio of totals) | 1.500 | 4.200 | 2.800 |" in text
    assert "as measured | | | 1.000 |" in text          # (4 * 1 * 0.25) ** (1/3)
    assert "the goal's figure) | | | 1.587 |" in text


def test_collector_time_counts_the_collections_inside_its_block_only():
    """benchmarks/collector.py: what the compile samples report of the cyclic collector."""
    import gc

    from benchmarks.collector import CollectorTime

    with CollectorTime() as inside:
        gc.collect()
        gc.collect(0)
    assert inside.counts[2] == 1 and inside.counts[0] >= 1
    assert inside.seconds[2] > 0 and inside.total >= inside.seconds[2]
    before = list(inside.counts)
    gc.collect()                                       # outside: not counted
    assert inside.counts == before
    assert inside._callback not in gc.callbacks
