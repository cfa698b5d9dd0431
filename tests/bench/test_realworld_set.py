"""The real-world benchmark set's machinery (benchmarks/realworld/): the manifest, the
extraction of named functions with the decorator swap, and the per-mode loader. The projects'
code itself is not in this repository (extract.py copies it from checkouts), so CI checks the
machinery on a file of its own."""
import os
import textwrap

import pytest

from benchmarks.realworld import extract, loader, manifest
from benchmarks.realworld import cases as rw_cases

PROJECT_FILE = textwrap.dedent('''
    from numba import cuda
    LIMIT = 3

    @cuda.jit(device=True)
    def helper(a, i):
        return a[i] * 2

    class TestSomething:
        def test_it(self):
            @cuda.jit
            def nested(out):
                out[cuda.grid(1)] = 1

    @compile_cupy
    def kernel(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = helper(a, i)

    fast = nb.cuda.jit(kernel, fastmath=True)
''')


def test_pieces_takes_named_functions_and_assignments_in_the_order_asked():
    got = extract.pieces(PROJECT_FILE, ("kernel", "nested", "fast"), "p.py")
    assert [name for name, _, _ in got] == ["kernel", "nested", "fast"]
    name, line, code = got[1]
    assert line == 11 and code.startswith("@cuda.jit\ndef nested(out):")   # dedented


def test_a_missing_name_says_which_file_lacks_it():
    with pytest.raises(SystemExit, match="p.py defines no absent"):
        extract.pieces(PROJECT_FILE, ("kernel", "absent"), "p.py")


def test_the_decorator_swap_is_the_only_change():
    code = extract._swap(PROJECT_FILE)
    assert "@safekern.jit(device=True)" in code and "@safekern.jit\ndef kernel" in code
    assert "fast = safekern.jit(kernel, fastmath=True)" in code
    assert code.replace("safekern.jit", "X") == PROJECT_FILE.replace(
        "@compile_cupy", "@X").replace("nb.cuda.jit", "X").replace("cuda.jit", "X")


def test_every_case_names_a_source_of_the_manifest_and_projects_are_pinned():
    for source in manifest.SOURCES.values():
        project = manifest.PROJECTS[source.project]
        assert project.licence and project.commit
        assert project.package or len(project.commit) == 40
    for build in rw_cases.BUILDERS:
        assert build.__name__.startswith("rw_")
    assert len(rw_cases.BUILDERS) >= 20


@pytest.mark.cudasim
def test_the_loader_imports_a_module_anew_per_mode(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text("import safekern\nfrom numba import cuda\n\n"
                                      "@safekern.jit\ndef k(out):\n    out[0] = 1\n")
    monkeypatch.setenv("SAFEKERN_BENCH_REALWORLD", str(tmp_path))
    ref = loader.RealWorldKernel("mine", "k")
    first, second = ref.build_for_mode(), ref.build_for_mode()
    assert first is not second
    with pytest.raises(loader.RealWorldMissing, match="benchmarks.realworld.extract"):
        loader.RealWorldKernel("absent", "k").build_for_mode()
