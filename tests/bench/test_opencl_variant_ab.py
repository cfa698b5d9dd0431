"""tools/opencl_variant_ab.py without a GPU, on PoCL (CI sizes): every text of bfs_step and
hotspot builds, each bfs_step variant is the edit of what safekern launches that its name says
(and only that), an edit that no longer applies stops the tool instead of timing `current`
twice, and the whole timing path runs (PoCL's times mean nothing: the path works, outputs equal
plain's, failure buffers stay zero)."""
import re
import sys

import pytest

pytest.importorskip("pyopencl")
pytest.importorskip("clang.cindex")
sys.path.insert(0, ".")

from tools import opencl_variant_ab as ab  # noqa: E402

TEST = ab.TEST


@pytest.fixture(scope="module")
def lang():
    from benchmarks import opencl_cases

    lang = opencl_cases.OpenCLLanguage()
    why = lang.unavailable()
    if why:
        pytest.skip(f"no OpenCL device: {why}")
    return lang


@pytest.fixture(scope="module")
def rows(lang):
    return {(c, r): (note, text) for c, r, note, text in ab.compile_rows(lang, ab.CASES, True)}


def _no_tests(text):
    return re.sub(r"\s+", "", text.replace(TEST, ""))


def test_every_text_builds_and_each_variant_is_its_edit_of_the_launched_text(rows):
    bfs = [r for c, r in rows if c == "bfs_step"]
    assert bfs[:3] == ["plain", "current", "checked"], bfs
    note, current = rows["bfs_step", "current"]
    assert "variant" in note and "__sk_fb" in current
    prelude, kernel = ab._parts(current)
    # what safekern launches prechecks every index (frontend/c/prechecks.py): no flag test
    # and no in-expression check is left, so the flag-test and precheck variants are absent
    assert kernel.count(ab.PRECHECK) == 3 and TEST not in kernel and "__sk_ix" not in kernel
    assert set(bfs[3:]) == {"fail-inline", "no-pending", "fail-code-only"}, bfs
    parts = {r: ab._parts(rows["bfs_step", r][1]) for r in bfs[3:]}
    for r, (p, k) in parts.items():
        assert p + k != current, r
        assert k.split("{", 1)[0] == kernel.split("{", 1)[0], r      # the same signature
        assert ("UNSOUND" in rows["bfs_step", r][0]) == (r in ("tests-none", "no-pending")), r
    # (a) only the cold path's attribute; (e) only the failure record
    assert parts["fail-inline"] == (prelude.replace(
        "#define __SK_COLD __attribute__((noinline))", "#define __SK_COLD"), kernel)
    assert parts["fail-code-only"][1] == kernel and "fb[1] = index" not in \
        parts["fail-code-only"][0] and "fb[1] = index" in prelude
    assert "__sk_pending(__sk_fb)" not in parts["no-pending"][1]
    # hotspot: the variant without every proven check has no check left
    hot = [r for c, r in rows if c == "hotspot"]
    assert hot == ["plain", "current", "checked", "variant-all"], hot
    assert "__sk_ix" not in ab._parts(rows["hotspot", "variant-all"][1])[1]
    assert "__sk_ix" in ab._parts(rows["hotspot", "checked"][1])[1]


def test_an_edit_that_does_not_apply_stops_the_tool(rows):
    current = rows["bfs_step", "current"][1]
    with pytest.raises(SystemExit, match="rewrite changed"):
        ab.bfs_variants(current.replace("__attribute__((noinline))", "__attribute__((cold))"))
    with pytest.raises(SystemExit, match="rewrite changed"):   # neither prechecks nor tests
        ab.bfs_variants(current.replace(ab.PRECHECK, "__sk_fail(__sk_fb, "))
    with pytest.raises(SystemExit, match="'precheck'"):
        ab.precheck(re.sub(r"__sk_ix32\(\(int\)\((\w+)\)", r"__sk_ix32((int)(\1 + 0)",
                           ab._parts(current)[1]))


def test_the_timing_path_runs(lang, tmp_path):
    out = tmp_path / "ab.md"
    assert ab.main(["--quick", "--rounds", "2", "--out", str(out)]) == 0
    text = out.read_text()
    assert "A CPU device" in text or "NVIDIA" in text
    table = [line for line in text.splitlines() if line.startswith("| ") and
             not line.startswith("| variant |")]
    names = [line.split("|")[1].strip() for line in table]
    assert names.count("current") == 2 and names.count("safekern") == 2 and len(names) >= 14
    for line in table:
        cells = [c.strip() for c in line.split("|")]
        assert cells[9] == "same", line                 # output equals plain-call's
        assert cells[10] in ("0", ""), line             # failure buffer untouched
    assert "kernels run while timed: {'variant" in text
    sources = tmp_path / "ab-sources"
    assert (sources / "bfs_step-current-0.cl").read_text().count(ab.PRECHECK) == 3
