"""The numba backend's check report (safekern.report.CheckReport, as for CuPy and OpenCL) and its
layout: no import cycle, no module over 500 lines, protocols instead of classes across modules."""
import ast
import linecache
import os

import pytest

import safekern
from safekern.report import CheckReport, ReportEntry, Status
from tests.numba import numba_kernels as K, race_kernels as R

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BACKEND = os.path.join(ROOT, "safekern", "backends", "numba")


def test_the_report_is_a_check_report_of_located_entries():
    report = K.row_sums.check_report()
    assert isinstance(report, CheckReport) and report.filename == K.__file__
    access = next(e for e in report if e.array == "a")
    assert isinstance(access, ReportEntry) and access.function == "row_sums"
    # Hoisted out of its loop, and proven at launch where the shapes allow it.
    assert access.status is Status.PROVEN_AT_LAUNCH and access.kind == "load"
    assert access.predicate and "before the loop" in access.reason
    assert access.text == "a[i, k]"
    line = linecache.getline(K.__file__, access.lineno)
    assert line[access.col:].startswith("a[i, k]")
    # ... and reads like the dict rows it used to be.
    assert access["line"] == access.lineno and access["status"] == "proven at launch"
    assert access["kind"] == "load" and access["code"] == access.code
    table = str(report)
    assert f"{K.__file__}:{access.lineno}:{access.col + 1}" in table and "a[i, k]" in table
    assert report.proven_at_launch == [access]


def test_race_verdicts_and_other_checks_are_entries_too():
    (race,) = [e for e in R.smooth.check_report() if e.kind == "race"]
    assert race.status is Status.RACE_CHECKED and race["status"] == "checked at launch"
    assert race.array == "a" and race.function == "smooth"
    # The row sits at an access of the array, with its text: the column points at it.
    line = linecache.getline(R.__file__, race.lineno)
    assert race.text.startswith("a[") and line[race.col:].startswith(race.text)
    assert f"{race.lineno}:{race.col + 1}" in str(R.smooth.check_report())
    report = K.calls_device.check_report()
    # The device functions' sites are the kernel's too, under their own names (issue 29).
    assert {e.function for e in report} == {"calls_device", "dev_put", "dev_get"}
    assert all(e.function == "calls_device" for e in report if e.kind in ("race",))
    ns = {}
    exec("def fill(a):\n    a[0] = 1\n", ns)
    with pytest.warns(safekern.UncheckedWarning):
        unchecked = safekern.jit(ns["fill"])
    (entry,) = unchecked.check_report()
    assert entry.status is Status.UNCHECKED and entry["status"] == "unchecked"
    assert entry.reason.startswith("no source")


def _imports(path, module):
    """The safekern modules `module` (at `path`) imports, anywhere in it."""
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_no_import_cycle_and_no_long_module_in_the_backend():
    modules = {}
    for name in os.listdir(BACKEND):
        if name.endswith(".py"):
            path = os.path.join(BACKEND, name)
            module = "safekern.backends.numba" + ("" if name == "__init__.py" else
                                                  "." + name[:-3])
            modules[module] = path
            assert sum(1 for _ in open(path)) <= 500, name
    graph = {m: {d for d in _imports(p, m) if d in modules and d != m}
             for m, p in modules.items()}
    for module, path in modules.items():        # not the package face, for __version__
        assert not any(isinstance(n, ast.ImportFrom) and n.level == 3 and n.module is None
                       and any(a.name == "__version__" for a in n.names)
                       for n in ast.walk(ast.parse(open(path).read()))), module

    def reaches(start, goal, seen):
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and not seen.add(nxt)
                               and reaches(nxt, goal, seen)):
                return True
        return False

    cyclic = sorted(m for m in graph if reaches(m, m, set()))
    assert not cyclic, cyclic


def test_keys_and_the_resolver_know_checked_functions_by_protocol():
    from safekern.backends.numba import keys, resolver

    for fn in K.calls_device.rewritten.device_calls.values():
        assert resolver.device_function_of(fn) is fn
        assert keys.describe_value(fn, by_name=True)[0] == "checked"
    assert resolver.device_function_of(K.row_sums) is K.row_sums.device_function()
    assert resolver.device_function_of(object()) is None
