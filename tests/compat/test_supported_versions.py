"""The supported versions README.md claims are the ones CI installs.

The oldest-versions job (`bash scripts/dev.sh oldest`) pins .ci/oldest-constraints.txt; those
pins must be exactly pyproject.toml's lower bounds, and README.md's table must show them.
"""
import os
import re
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The extras the oldest job installs besides the dependencies (test tools are not claimed).
OLDEST_EXTRAS = ("cuda12", "opencl")
# README's row label -> the packages whose oldest version the row shows, in order
README_ROWS = {"numba-cuda": ["numba-cuda"], "numba": ["numba"], "NumPy": ["numpy"],
               "PyOpenCL (kernels run on PoCL)": ["pyopencl"], "libclang": ["libclang"],
               "filelock, platformdirs": ["filelock", "platformdirs"]}


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _pins():
    pins = {}
    for line in open(os.path.join(ROOT, ".ci", "oldest-constraints.txt")):
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = Version(version.strip())
    return pins


def _lower_bounds():
    project = _pyproject()
    requirements = list(project["dependencies"])
    for extra in OLDEST_EXTRAS:
        requirements += project["optional-dependencies"][extra]
    bounds = {}
    for text in requirements:
        req = Requirement(text)
        for spec in req.specifier:
            if spec.operator == ">=":
                bounds[req.name.lower()] = Version(spec.version)
    return bounds


def _readme_oldest_column():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text[text.index("## Supported versions"):]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and line.startswith("|"):
            rows[cells[0]] = cells[1]
    return rows


def test_every_lower_bound_is_pinned_to_itself():
    bounds, pins = _lower_bounds(), _pins()
    assert set(bounds) == set(pins), (sorted(bounds), sorted(pins))
    for name, bound in bounds.items():
        assert pins[name] == bound, f"{name}: pyproject says >={bound}, CI pins {pins[name]}"


def test_readme_shows_the_pinned_versions():
    rows, pins = _readme_oldest_column(), _pins()
    for label, names in README_ROWS.items():
        shown = [Version(v) for v in re.findall(r"\d+(?:\.\d+)+", rows[label])]
        assert shown == [pins[n] for n in names], f"README's {label!r} row: {rows[label]!r}"
    assert set(n for names in README_ROWS.values() for n in names) == set(pins)


def test_oldest_python_is_the_lowest_allowed():
    lowest = re.fullmatch(r">=\s*(3\.\d+)", _pyproject()["requires-python"]).group(1)
    assert _readme_oldest_column()["Python"] == lowest
    dev = open(os.path.join(ROOT, "scripts", "dev.sh")).read()
    assert f'SAFEKERN_OLDEST_PYTHON:-python{lowest}' in dev
