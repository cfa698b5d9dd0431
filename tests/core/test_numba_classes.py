"""The numba backend's classes are drawn by composition (issue 28): no class has two bases (no
mixins: a checked kernel *has* a DispatcherSurface and a Compiles, and delegates numba's names to
them), and no module reads a private attribute that only another of the backend's modules
defines -- except numba's own names, which safekern's classes define to answer as numba's
dispatcher and launch configuration do, and which numba's code and safekern's read on numba's
objects and on safekern's alike."""
import ast
import collections
import pathlib

import safekern

BACKEND = pathlib.Path(safekern.__file__).parent / "backends" / "numba"

#: numba's names (its dispatcher's, launch configuration's, typeof's, serialize's protocol).
NUMBA_NAMES = {"_launch_config_specializations", "_kernel_launch_config_sensitive",
               "_specialized", "_numba_type_", "_rebuild", "_compile_for_args",
               "_explain_ambiguous"}


def _trees():
    return {p.name: ast.parse(p.read_text(), str(p)) for p in sorted(BACKEND.glob("*.py"))}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def cross_file_private_reads(trees) -> list:
    """(file, line, name, the files that define it) for each `x._name` read in one module where
    `_name` is defined (assigned on self or cls, a method, a class attribute) only in others."""
    defined, reads = collections.defaultdict(set), []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if _is_self(node.value) and isinstance(node.ctx, ast.Store):
                    defined[node.attr].add(name)
                else:
                    reads.append((name, node.lineno, node.attr))
            elif isinstance(node, ast.FunctionDef) and _private(node.name):
                defined[node.name].add(name)
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    for target in getattr(stmt, "targets", ()):
                        if isinstance(target, ast.Name) and _private(target.id):
                            defined[target.id].add(name)
    return [(f, line, attr, sorted(defined[attr])) for f, line, attr in reads
            if attr in defined and f not in defined[attr] and attr not in NUMBA_NAMES]


def test_no_class_of_the_numba_backend_has_two_bases():
    mixed = [(name, node.name, [ast.unparse(b) for b in node.bases])
             for name, tree in _trees().items() for node in ast.walk(tree)
             if isinstance(node, ast.ClassDef) and len(node.bases) > 1]
    assert not mixed, mixed


def test_no_private_attribute_of_another_module_is_read():
    found = cross_file_private_reads(_trees())
    assert not found, found


def test_a_private_read_across_modules_is_found():
    # The check itself: a read of kernel.py's private attribute from another module is seen.
    trees = _trees()
    trees["planted.py"] = ast.parse("def f(kernel):\n    return kernel._question_types()\n")
    assert [r[:3] for r in cross_file_private_reads(trees)] == [
        ("planted.py", 2, "_question_types")]
