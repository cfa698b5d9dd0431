"""numba-cuda's own test suite under safekern.jit: per-test outcomes, plain numba vs safekern.

numba-cuda ships its tests in the wheel (numba.cuda.tests.cudapy, .doc_examples); they import
under unittest. Each module runs in a process of its own, twice: with plain numba, and with
`numba.cuda.jit` replaced by `safekern.jit` for every caller -- the tests, the modules they
import from temporary folders (the cache tests'), and every Python process they start
(tools/suite_site/sitecustomize.py) -- except numba's internals (vectorize, gufuncs, reductions
keep numba's jit) and safekern itself. The two runs' outcomes are compared test by test.

    python tools/numba_suite.py                      # every cudapy and doc_examples module
    python tools/numba_suite.py --workers 12 --table docs-table.md --json results.json
    python tools/numba_suite.py test_sync test_atomics --modes safekern
    python tools/numba_suite.py --child MODULE --mode safekern --json-out PATH   (one module)

On a machine without a GPU, NUMBA_ENABLE_CUDASIM=1 is set for the children (the simulator).
The exit status is 1 when a test passes with plain numba but not with safekern, apart from the
known real out-of-bounds bugs (KNOWN_BUGS, also listed in docs/compatibility.md).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUITES = ("numba.cuda.tests.cudapy", "numba.cuda.tests.doc_examples")
SITE = os.path.join(HERE, "suite_site")
SITE_CUSTOMIZE = os.path.join(SITE, "sitecustomize.py")

T = "numba.cuda.tests."

#: Tests of numba-cuda with a real bug that safekern reports (test id -> why). They fail under
#: safekern by design; docs/compatibility.md gives the line and the fix.
KNOWN_BUGS = {
    T + "cudapy.test_localmem.TestCudaLocalMem.test_struct_model_type_arr":
        "out of bounds: np.array((10,), dtype='int32') is the one-element array [10] and the "
        "kernel writes arr[i] for i in range(10); fix: np.zeros(10, dtype='int32')",
    T + "cudapy.test_sm.TestSharedMemoryIssue.test_issue_2393":
        "race: all 48 blocks write d_block_costs[0] (and read uninitialised shared memory); "
        "safekern.RaceError before the launch; fix: d_block_costs[cuda.blockIdx.x]",
}

#: Incompatibilities still open, each with where it is being fixed (they are reported, and do
#: not fail the comparison; an entry that passes again is reported as stale).
OPEN: dict = {}

#: Tests whose outcome varies from run to run whatever the jit (not counted either way).
FLAKY = {
    T + "cudapy.test_print.TestPrint.test_cuhello":
        "simulator: print() of threads interleaves within a line (a child process, plain numba)",
    T + "cudapy.test_print.TestPrint.test_dim3":
        "simulator: print() of threads interleaves within a line (a child process, plain numba)",
    T + "cudapy.test_print.TestPrint.test_string":
        "simulator: print() of threads interleaves within a line (a child process)",
}

#: The CI selection on the simulator (tests/compat/test_numba_suite_compat.py): every module with a
#: test that runs there, less test_print (its kernels run in child processes and take half a
#: minute).
CI_MODULES = tuple("cudapy." + name for name in (
    "test_alignment", "test_array", "test_array_alignment", "test_array_args",
    "test_array_methods", "test_atomics", "test_blackscholes", "test_boolean", "test_byteflow",
    "test_casting", "test_complex", "test_complex_kernel", "test_const_string", "test_constmem",
    "test_cooperative_groups", "test_cuda_jit_no_types", "test_datetime", "test_device_func",
    "test_dispatcher", "test_enums", "test_errors", "test_exception", "test_forall",
    "test_freevar", "test_frexp_ldexp", "test_globals", "test_gufunc_scheduling", "test_idiv",
    "test_intrinsics", "test_ir", "test_iterators", "test_lang", "test_laplace",
    "test_make_function_to_jit_function", "test_math", "test_montecarlo", "test_nondet",
    "test_operator", "test_powi", "test_py2_div_issue", "test_random", "test_record_dtype",
    "test_recursion", "test_reduction", "test_retrieve_autoconverted_arrays", "test_slicing",
    "test_sm", "test_sm_creation", "test_ssa", "test_stream_api", "test_sync", "test_tracing",
    "test_typeconv", "test_typeinfer", "test_ufuncs", "test_userexc", "test_vector_type"
))

PASSED = ("pass", "skip", "xfail")      # outcomes that count as passing


# -- the child: one module, one mode --------------------------------------------------------------


def install_safekern_jit() -> None:
    """Make `numba.cuda.jit` safekern.jit for every caller but numba and safekern themselves
    (tools/suite_site/sitecustomize.py, which a safekern child's processes run at start)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_suite_site", SITE_CUSTOMIZE)
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)
    site.install_now()


def safekern_env(env: dict) -> dict:
    """The environment of a safekern child: every Python process it starts replaces the jit
    too (numba's tests run kernels in subprocesses and multiprocessing pools)."""
    env = dict(env)
    env["PYTHONPATH"] = SITE + os.pathsep + env.get("PYTHONPATH", "")
    env["SAFEKERN_SUITE_JIT"] = "1"
    return env


def _short(err_text: str, limit: int = 600) -> str:
    """The last line of a traceback (the exception) and the frame above it."""
    lines = [ln for ln in err_text.rstrip().splitlines() if ln.strip()]
    if not lines:
        return ""
    last = lines[-1]
    # An exception message spanning lines: from its first line ("Name: ...") on.
    for k in range(len(lines) - 1, -1, -1):
        head = lines[k]
        if not head.startswith(" ") and ":" in head and not head.startswith("Traceback"):
            last = "\n".join(lines[k:])
            break
    return last[:limit]


def _flatten(suite):
    import unittest

    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flatten(test)
        else:
            yield test


def run_module(module: str, mode: str, shard=(0, 1)) -> dict:
    """{test id: {"outcome": ..., "detail": ...}} of one module's tests (those of one shard:
    every n-th test from the k-th, for `shard` (k, n))."""
    import unittest

    if mode == "safekern":
        install_safekern_jit()
    outcomes: dict = {}

    class Result(unittest.TestResult):
        def _put(self, test, outcome, detail=""):
            tid = test.id()
            # A subtest failure marks its test failed (a later success must not hide it).
            if tid in outcomes and outcomes[tid]["outcome"] in ("fail", "error"):
                return
            outcomes[tid] = {"outcome": outcome, "detail": detail}

        def startTest(self, test):
            super().startTest(test)
            self._t0 = time.perf_counter()

        def addSuccess(self, test):
            super().addSuccess(test)
            if test.id() not in outcomes:
                self._put(test, "pass")
            outcomes[test.id()]["seconds"] = round(time.perf_counter() - self._t0, 3)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._put(test, "fail", _short(self._exc_info_to_string(err, test)))

        def addError(self, test, err):
            super().addError(test, err)
            self._put(test, "error", _short(self._exc_info_to_string(err, test)))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._put(test, "skip", str(reason)[:200])

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._put(test, "xfail")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._put(test, "xpass")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                kind = "fail" if issubclass(err[0], test.failureException) else "error"
                self._put(test, kind, f"{subtest._subDescription()}: "
                                      f"{_short(self._exc_info_to_string(err, test))}")

    suite = unittest.defaultTestLoader.loadTestsFromName(module)
    k, n = shard
    if n > 1:
        suite = unittest.TestSuite(t for i, t in enumerate(_flatten(suite)) if i % n == k)
    result = Result()
    suite.run(result)
    return outcomes


def child_main(module: str, mode: str, json_out: str, shard=(0, 1)) -> int:
    t0 = time.perf_counter()
    import unittest

    try:
        outcomes = run_module(module, mode, shard)
        status = "ok"
    except unittest.SkipTest as why:      # the module skips itself at import
        outcomes = {f"{module}.<module>": {"outcome": "skip", "detail": str(why)[:200]}}
        status = "ok"
    except BaseException as err:          # noqa: BLE001 - reported as the module's outcome
        import traceback

        outcomes = {f"{module}.<module>": {"outcome": "error",
                                           "detail": _short(traceback.format_exc())}}
        status = f"{type(err).__name__}: {err}"
    # A failure still pending at exit belongs to the last test; say so in the record.
    data = {"module": module, "mode": mode, "status": status, "outcomes": outcomes,
            "seconds": round(time.perf_counter() - t0, 2)}
    with open(json_out, "w") as f:
        json.dump(data, f)
    return 0


# -- the parent: every module, both modes, compared -----------------------------------------------


def discover(suites=SUITES) -> list[str]:
    """The test modules of the suites, found in the installed numba-cuda."""
    import importlib.util

    out = []
    for suite in suites:
        spec = importlib.util.find_spec(suite)
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = list(spec.submodule_search_locations)[0]
        for name in sorted(os.listdir(folder)):
            if name.startswith("test_") and name.endswith(".py"):
                out.append(f"{suite}.{name[:-3]}")
    return out


def _has_gpu() -> bool:
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")


def child_env(simulator: bool, cache_dir: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    env.setdefault("PYTHONUNBUFFERED", "1")
    # Never the user's kernel cache: one file per run, shared by its children (the cache is
    # safe between processes).
    env["SAFEKERN_CACHE"] = os.path.join(cache_dir, "suite.cache")
    # numba's tests check warnings and output of their own: no low-occupancy noise.
    env.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    return env


#: Modules that take longest on a GPU (many kernels compiled each), started first.
_HEAVY = ("test_libdevice", "test_debuginfo", "test_atomics", "test_caching", "test_math",
          "test_intrinsics", "test_dispatcher", "test_fastmath", "test_warp_ops", "test_ufuncs",
          "test_record_dtype", "test_gufunc", "test_complex", "test_cuda_array_interface",
          "test_fp8_bindings", "test_bfloat16_bindings", "test_vectorize", "test_print",
          "test_operator", "test_random", "test_array_reductions", "test_sync")


def _expected_cost(module: str) -> int:
    name = module.rsplit(".", 1)[-1]
    return len(_HEAVY) - _HEAVY.index(name) if name in _HEAVY else 0


#: Modules run in several processes on a GPU (shards of their tests), so that none of them
#: outlasts the rest of the run: module name -> shards.
SHARDS = {"test_libdevice": 8, "test_atomics": 3, "test_intrinsics": 2, "test_math": 2,
          "test_debuginfo": 2, "test_dispatcher": 2, "test_caching": 2}


def run_child(module: str, mode: str, env: dict, timeout: float, workdir: str,
              shard=(0, 1)) -> dict:
    tag = f"{module}.{mode}.{shard[0]}of{shard[1]}"
    out = os.path.join(workdir, f"{tag}.json")
    log = os.path.join(workdir, f"{tag}.log")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", module, "--mode", mode,
           "--json-out", out, "--shard", f"{shard[0]}/{shard[1]}"]
    t0 = time.perf_counter()
    if mode == "safekern":
        env = safekern_env(env)
    with open(log, "wb") as logf:
        proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                cwd=workdir, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            import signal

            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = "timeout"
    seconds = round(time.perf_counter() - t0, 2)
    data = None
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    if data is None:
        with open(log, "rb") as f:
            tail = f.read()[-1500:].decode(errors="replace")
        why = f"timed out after {timeout:.0f} s" if rc == "timeout" else f"exit status {rc}"
        data = {"module": module, "mode": mode, "status": why,
                "outcomes": {f"{module}.<module>": {"outcome": "error",
                                                    "detail": f"{why}: {_short(tail)}"}}}
    data["wall"] = seconds
    return data


def compare(plain: dict, checked: dict) -> list[dict]:
    """Tests that pass with plain numba but not with safekern."""
    out = []
    if checked.get("status") == "not run" or plain.get("status") == "not run":
        return out                     # the deadline came first: the table says so
    for tid, p in sorted(plain["outcomes"].items()):
        if p["outcome"] not in PASSED:
            continue
        s = checked["outcomes"].get(tid, {"outcome": "missing", "detail": "not run"})
        if p["outcome"] == "xfail" and s["outcome"] == "xpass":
            # numba's own expected failure, whose assertions hold under safekern (a raise in
            # a device function reported at the debug=True launch: numba issue #8036).
            continue
        if s["outcome"] not in PASSED:
            known = KNOWN_BUGS.get(tid)
            out.append({"test": tid, "outcome": s["outcome"], "detail": s.get("detail", ""),
                        "known": known, "open": OPEN.get(tid), "flaky": FLAKY.get(tid),
                        "excused": bool(known or OPEN.get(tid) or FLAKY.get(tid))})
    # Tests only the safekern run has (a module that failed to import under plain numba).
    return out


def _count(data: dict, outcomes) -> int:
    return sum(1 for v in data["outcomes"].values() if v["outcome"] in outcomes)


def _why(regression: dict) -> str:
    if regression["known"]:
        return f"real bug in the test ({regression['known']})"
    if regression["open"]:
        return f"open: {regression['open']}"
    if regression["flaky"]:
        return f"flaky: {regression['flaky']}"
    detail = regression["detail"].splitlines()
    return detail[0][:160] if detail else regression["outcome"]


def table(results: dict, modes) -> str:
    lines = ["| module | tests | passed (plain) | skipped | plain failures | "
             "safekern failures | regressions | why |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    totals = [0] * 6
    for module in sorted(results):
        r = results[module]
        plain, checked = r.get("plain"), r.get("safekern")
        ref = plain or checked
        tests = len(ref["outcomes"])
        passed = _count(ref, ("pass", "xfail"))
        skipped = _count(ref, ("skip",))
        pfail = _count(plain, ("fail", "error", "xpass", "missing")) if plain else 0
        sfail = _count(checked, ("fail", "error", "xpass", "missing")) if checked else 0
        regress = r.get("regressions", [])
        why = "; ".join(f"{x['test'].rsplit('.', 1)[-1]}: {_why(x)}" for x in regress)
        short = module.replace("numba.cuda.tests.", "")
        lines.append(f"| {short} | {tests} | {passed} | {skipped} | {pfail} | "
                     f"{sfail if checked else '-'} | {len(regress)} | {why} |")
        for k, v in enumerate((tests, passed, skipped, pfail, sfail, len(regress))):
            totals[k] += v
    lines.append("| **total** | " + " | ".join(str(t) for t in totals) + " | |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="modules (full or test_x names); default: all")
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--modes", default="plain,safekern")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per module and mode")
    ap.add_argument("--simulator", action="store_true", help="NUMBA_ENABLE_CUDASIM=1 "
                    "(the default without a GPU)")
    ap.add_argument("--table", help="write the markdown result table here")
    ap.add_argument("--json", help="write every outcome here")
    ap.add_argument("--exclude", default="", help="comma-separated modules to leave out")
    ap.add_argument("--ci", action="store_true", help="the CI selection (CI_MODULES)")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds for the whole run: children still running then are "
                         "stopped, jobs not started are reported as not run (0: none)")
    ap.add_argument("--keep", action="store_true", help="keep the children's logs")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--json-out", help=argparse.SUPPRESS)
    ap.add_argument("--shard", default="0/1", help=argparse.SUPPRESS)
    ap.add_argument("--no-shards", action="store_true", help="one process per module and mode")
    args = ap.parse_args(argv)
    if args.child:
        k, n = (int(x) for x in args.shard.split("/"))
        return child_main(args.child, args.mode, args.json_out, (k, n))

    suites = [s for s in args.suites.split(",") if s]
    modules = discover(suites)
    if args.modules or args.ci:
        wanted = set(args.modules) | (set(CI_MODULES) if args.ci else set())
        modules = [m for m in modules
                   if wanted & {m, m.rsplit(".", 1)[-1], m.replace(T, "", 1)}]
    exclude = {x for x in args.exclude.split(",") if x}
    modules = [m for m in modules if m not in exclude and m.rsplit(".", 1)[-1] not in exclude]
    modes = [m for m in args.modes.split(",") if m]
    simulator = args.simulator or not _has_gpu()
    workdir = tempfile.mkdtemp(prefix="numba-suite-")
    env = child_env(simulator, workdir)
    shards = {} if args.no_shards else SHARDS
    jobs = [(m, mode, (k, n)) for m in modules for mode in modes
            for n in [shards.get(m.rsplit(".", 1)[-1], 1)] for k in range(n)]
    # The longest modules first, so the run ends with short ones on every worker.
    jobs.sort(key=lambda j: (_expected_cost(j[0]), j[1] == "safekern"), reverse=True)
    parts: dict = {}
    t0 = time.perf_counter()
    deadline = t0 + args.deadline if args.deadline else None

    def one(job):
        module, mode, shard = job
        timeout = args.timeout
        if deadline is not None:
            timeout = min(timeout, deadline - time.perf_counter())
        if timeout <= 1:
            data = {"module": module, "mode": mode, "status": "not run", "wall": 0,
                    "outcomes": {f"{module}.<module>": {"outcome": "missing",
                                                        "detail": "deadline"}}}
        else:
            data = run_child(module, mode, env, timeout, workdir, shard)
        parts.setdefault((module, mode), []).append(data)
        print(f"[{time.perf_counter() - t0:6.0f}s] {module} {mode} {shard[0]}/{shard[1]}: "
              f"{data['status']} ({len(data['outcomes'])} tests, {data['wall']} s)", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        list(pool.map(one, jobs))
    results: dict = {m: {} for m in modules}
    for (module, mode), datas in parts.items():
        merged = {"module": module, "mode": mode, "outcomes": {},
                  "wall": round(sum(d["wall"] for d in datas), 2)}
        statuses = sorted({d["status"] for d in datas})
        merged["status"] = "not run" if statuses == ["not run"] else "; ".join(statuses)
        for d in datas:
            merged["outcomes"].update(d["outcomes"])
        results[module][mode] = merged

    regressions = []
    for module, r in results.items():
        if "plain" in r and "safekern" in r:
            r["regressions"] = compare(r["plain"], r["safekern"])
            regressions += r["regressions"]
    text = table(results, modes)
    header = (f"{len(modules)} modules, {'simulator' if simulator else 'GPU'}, "
              f"{time.perf_counter() - t0:.0f} s wall, {args.workers} workers\n\n")
    print(header + text)
    if args.table:
        with open(args.table, "w") as f:
            f.write(header + text)
    if args.json:
        with open(args.json, "w") as f:
            # (compact, as benchmarks/results_json.py writes results: run as a script, this
            # tool cannot import the benchmarks package)
            json.dump({"simulator": simulator, "results": results}, f, separators=(",", ":"))
            f.write("\n")
    if not args.keep:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"logs: {workdir}")
    unexpected = [r for r in regressions if not r["excused"]]
    for r in unexpected:
        print(f"REGRESSION {r['test']}: {r['outcome']}: {r['detail']}")
    for r in regressions:
        if r["excused"]:
            print(f"excused {r['test']}: {_why(r)}")
    failing = {r["test"] for r in regressions}
    ran = {tid for r in results.values() for mode in r.values() if isinstance(mode, dict)
           for tid in mode.get("outcomes", {})}
    for tid in sorted((set(KNOWN_BUGS) | set(OPEN)) & ran - failing):
        print(f"stale entry (passes now, or plain numba fails it): {tid}")
    print(f"{len(unexpected)} regressions, {len(regressions) - len(unexpected)} excused "
          "(real bugs in numba's tests, open, flaky)")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
