"""docs/how-it-works.md's map ("Where things are") matches the code: every file it names exists,
every module of the package is named, and what a language's column names is reached from that
language's entry point through the imports (tests/support/doc_map.py reads the table)."""
from tests.core.test_layout import _imports, _modules
from tests.support import doc_map


def test_every_file_the_map_names_exists():
    _, missing = doc_map.modules()
    assert not missing, missing


def test_every_module_is_on_the_map():
    named, _ = doc_map.modules()
    on_map = set().union(*named.values())
    packages = {m for m in doc_map.package_modules() if m.count(".") <= 2 and
                m in ("safekern", "safekern.frontend", "safekern.backends", "safekern.cache",
                      "safekern.frontend.python", "safekern.frontend.c",
                      "safekern.backends.numba", "safekern.backends.cupy",
                      "safekern.backends.opencl", "safekern.backends.torch")}
    unnamed = sorted(doc_map.package_modules() - on_map - packages)
    assert not unnamed, f"modules docs/how-it-works.md's map does not name: {unnamed}"


def test_each_column_names_what_its_entry_point_imports():
    named, _ = doc_map.modules()
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    for column, entry in doc_map.ENTRY.items():
        reached, todo = set(), [entry]
        while todo:
            m = todo.pop()
            if m not in reached:
                reached.add(m)
                todo += graph.get(m, ())
        stray = sorted(named.get(column, set()) - reached)
        assert not stray, f"{column}: named in the map but not imported from {entry}: {stray}"
