"""The shape of the package (issue 12): no import cycle among safekern's modules (imports
inside functions count too), no module over 500 lines, nothing but the package face reads the
package face, and the core imports no backend and no front end at import time."""
import ast
import os

import safekern

PACKAGE = os.path.dirname(safekern.__file__)
CORE = ("safekern.config", "safekern.errors", "safekern.failures", "safekern.report",
        "safekern.runtime", "safekern.sync_points", "safekern._version", "safekern._stack",
        "safekern._targets", "safekern._toolkit")


def _modules() -> dict:
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
                found[rel.removesuffix(".__init__")] = path
    return found


def _imports(module: str, path: str, modules: dict, top_level_only=False) -> set:
    tree = ast.parse(open(path).read())
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in modules and m != module}


def test_no_import_cycle():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}

    def cyclic(start):
        todo, seen = list(graph[start]), set()
        while todo:
            m = todo.pop()
            if m == start:
                return True
            if m not in seen:
                seen.add(m)
                todo += graph[m]
        return False

    assert not [m for m in graph if cyclic(m)]


def test_no_module_over_500_lines():
    long = {m: n for m, p in _modules().items() if (n := sum(1 for _ in open(p))) > 500}
    assert not long, long


def test_only_the_face_reads_the_face_and_the_core_reads_no_backend_at_import():
    modules = _modules()
    for module, path in modules.items():
        if module != "safekern" and module not in ("safekern.__main__", "safekern.demo"):
            assert "safekern" not in _imports(module, path, modules), module
    for module in CORE:
        loaded = _imports(module, modules[module], modules, top_level_only=True)
        assert not {m for m in loaded if m.startswith(("safekern.backends",
                                                       "safekern.frontend"))}, module
