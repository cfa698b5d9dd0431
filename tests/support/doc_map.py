"""The map of docs/how-it-works.md ("Where things are"): the modules it names, by column.

    named = doc_map.modules()       # {"Python (numba-cuda)": {"safekern.frontend.python.parse", ...},
                                    #  ..., "shared": {...}}, each name resolved to a module

A table cell (or the "Shared by everything" paragraph) names files as `folder/file.py` or, after
such a name, as `file.py` in the same folder; a bare name with no folder before it in its cell
is looked up in the column's folders (the Python column: frontend/python, then backends/numba).
"""
from __future__ import annotations

import os
import re

import safekern

PACKAGE = os.path.dirname(safekern.__file__)
ROOT = os.path.dirname(PACKAGE)
DOC = os.path.join(ROOT, "docs", "how-it-works.md")

#: Where a column's bare file names are looked up, in order (after the cell's own folder).
COLUMN_FOLDERS = {
    "Python (numba-cuda)": ("frontend/python", "backends/numba", "backends"),
    "CUDA C (CuPy)": ("frontend/c", "backends/cupy", "backends"),
    "OpenCL C (PyOpenCL)": ("frontend/c", "backends/opencl", "backends"),
    "shared": ("", "frontend", "backends"),
}
#: Each column's entry point: what it names is reached from there through imports.
ENTRY = {
    "Python (numba-cuda)": "safekern.backends.numba.jit",
    "CUDA C (CuPy)": "safekern.cupy",
    "OpenCL C (PyOpenCL)": "safekern.opencl",
}

_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_/.]*(?:\.py|/))`")


def section() -> str:
    text = open(DOC).read()
    start = text.index("## Where things are")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _resolve(token: str, folder: str, folders) -> str | None:
    """The module a token names (a path under safekern/), or None if no such file."""
    token = token.removeprefix("safekern/")
    candidates = [token] if "/" in token else \
        [os.path.join(f, token) for f in ((folder,) if folder is not None else ()) + folders]
    for rel in candidates:
        path = os.path.join(PACKAGE, rel)
        if rel.endswith(".py") and os.path.isfile(path):
            return "safekern." + rel[:-3].replace("/", ".").removesuffix(".__init__")
    return None


def _cell(text: str, folders, found: set, missing: list, where: str) -> None:
    folder = None
    for token in _NAME.findall(text):
        if token.startswith(("tests/", "tools/", "benchmarks/", "docs/")):
            continue                     # not the package's
        if token.endswith("/"):
            folder = token.removeprefix("safekern/").rstrip("/")
            continue
        module = _resolve(token, folder, folders)
        if module is None:
            missing.append(f"{where}: `{token}`")
            continue
        if "/" in token:
            folder = os.path.dirname(token.removeprefix("safekern/"))
        found.add(module)


def modules():
    """({column: set of modules named}, [names that are no file])."""
    text = section()
    lines = text.split("\n")
    header = next(i for i, l in enumerate(lines) if l.startswith("| Step"))
    columns = [c.strip() for c in lines[header].strip("|").split("|")][1:]
    out = {c: set() for c in columns}
    out["shared"] = set()
    missing: list = []
    row = header + 2
    while row < len(lines) and lines[row].startswith("|"):
        cells = [c.strip() for c in lines[row].strip().strip("|").split(" | ")]
        step = cells[0]
        for column, cell in zip(columns, cells[1:]):
            _cell(cell, COLUMN_FOLDERS.get(column, ("",)), out[column], missing,
                  f"{step} / {column}")
        row += 1
    rest = "\n".join(lines[row:])
    _cell(rest, COLUMN_FOLDERS["shared"], out["shared"], missing, "shared")
    return out, missing


def package_modules() -> set:
    found = set()
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, name), ROOT)[:-3]
                found.add(rel.replace(os.sep, ".").removesuffix(".__init__"))
    return found


__all__ = ["modules", "package_modules", "section", "ENTRY", "COLUMN_FOLDERS"]
