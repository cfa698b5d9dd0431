"""The one access walk of the C front end (frontend/c/walker.py): both dialects find the same
accesses as the same records (access_check.Check), which only their edit passes spell."""
from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda, opencl  # noqa: E402
from safekern.frontend.c.access_check import Check  # noqa: E402
from safekern.frontend.c.checks import OpenCLWalker  # noqa: E402
from safekern.frontend.c.cuda_access import CudaWalker  # noqa: E402
from safekern.frontend.c.walker import AccessWalker  # noqa: E402
from safekern.report import Status  # noqa: E402

BODY = """
    float* row = a + i * n;
    float tile[4];
    tile[n] = 1.0f;
    out[i] = a[i] + row[1] + *row + tile[n];
}
"""
CUDA = ('extern "C" __global__ void k(float* a, float* out, int n) {\n'
        "    int i = threadIdx.x;" + BODY.replace("float* row", "float* row"))
OPENCL = ("__kernel void k(__global float* a, __global float* out, int n) {\n"
          "    int i = get_global_id(0);" + BODY.replace("float* row", "__global float* row"))


def _checks(rw):
    """(text of the access, how, extent) of every checked access, in source order."""
    src = rw.original.encode()
    out = []
    for a in sorted(rw.accesses, key=lambda a: a.start):
        if a.status != Status.CHECKED:
            continue
        assert isinstance(a.check, Check), a
        extent = a.check.extent if a.check.how == "index" else None
        out.append((src[a.start:a.end].decode(), a.check.how, extent))
    return out


def test_both_dialects_record_the_same_checks():
    expected = [("tile[n]", "index", 4), ("out[i]", "index", ("param", 1)),
                ("a[i]", "index", ("param", 0)), ("row[1]", "offset", None),
                ("*row", "element", None), ("tile[n]", "index", 4)]
    assert _checks(cuda.rewrite(CUDA, filename="k.cu")) == expected
    assert _checks(opencl.rewrite(OPENCL, filename="k.cl")) == expected


def test_the_records_hold_no_c_text_and_the_edit_passes_spell_them():
    cu = cuda.rewrite(CUDA, filename="k.cu")
    cl = opencl.rewrite(OPENCL, filename="k.cl")
    for rw in (cu, cl):
        for a in rw.accesses:
            if a.check is not None and a.check.how != "index":
                assert a.check.root is not None and a.check.root.name == "a"
    assert "(*__sk_ptr((row) + (1)" in cu.source        # CUDA: a derived pointer
    assert "__sk_ixb((long)(1)" in cl.source            # OpenCL: its byte offset


def test_one_walk_the_dialects_only_fill_in_hooks():
    for walker in (CudaWalker, OpenCLWalker):
        assert issubclass(walker, AccessWalker)
        assert "visit" not in vars(walker) and "record" not in vars(walker)


FLAGS_CUDA = ('extern "C" __global__ void k(float* a, int n, unsigned long long u) {\n'
              "    float t[4] = {0};\n    float* row = a + 1;\n"
              "    a[u] = t[n] + row[n] + row[u];\n}\n")
FLAGS_OPENCL = ("__kernel void k(__global float* a, int n, ulong u) {\n"
                "    float t[4] = {0};\n    __global float* row = a + 1;\n"
                "    a[u] = t[n] + row[n] + row[u];\n}\n")


def test_the_index_type_flags_are_set_in_one_place_for_both_dialects():
    """access_check makes every check, so the flags an index's type sets (`unsigned`,
    `int32`) are the same on both dialects' checks of every kind (they were set by each
    walker, CUDA's "index" checks without `unsigned`, OpenCL's "offset" ones without
    either)."""
    def flags(rw):
        src = rw.original.encode()
        return [(src[a.start:a.end].decode(), a.check.how, a.check.unsigned, a.check.int32)
                for a in sorted(rw.accesses, key=lambda a: a.start)
                if a.status == Status.CHECKED]
    expected = [("a[u]", "index", True, False), ("t[n]", "index", False, True),
                ("row[n]", "offset", False, True), ("row[u]", "offset", True, False)]
    assert flags(cuda.rewrite(FLAGS_CUDA, filename="k.cu")) == expected
    assert flags(opencl.rewrite(FLAGS_OPENCL, filename="k.cl")) == expected
