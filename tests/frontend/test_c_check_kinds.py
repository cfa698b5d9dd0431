"""The C front ends' check kinds come from the one registry (safekern/check_kinds.py): every
site they make has a registered kind, and every C helper the registry names is one the C
preludes or rewrites define -- renaming a helper on one side only fails here."""
import re

import pytest

pytest.importorskip("clang.cindex")

from safekern import check_kinds
from safekern.frontend.c import cuda, model, opencl, opencl_safety, prelude

SRC_CL = """__kernel void k(__global float *a, int n, int d) {
    int i = get_global_id(0);
    SAFEKERN_ASSERT(i < n);
    a[i] = a[i + 1] / 2 + (n / d);
}
"""
SRC_CU = """__device__ float get(const float* p, int i) { return p[i]; }
extern "C" __global__ void k(float* a, int n, int d) {
    int i = threadIdx.x;
    assert(i < n);
    a[i] = get(a, i + 1) + (n / d);
}
"""


def test_the_c_kinds_are_registered():
    assert {model.BOUNDS, model.ASSERT, model.ZERO_DIVISION, model.CALL} <= set(
        check_kinds.KINDS)


@pytest.mark.parametrize("dialect", ["cuda", "opencl"])
def test_every_site_has_a_registered_kind(dialect):
    rw = (cuda.rewrite(SRC_CU, filename="k.cu") if dialect == "cuda"
          else opencl.rewrite(SRC_CL, filename="k.cl"))
    kinds = {s.kind for s in rw.failure_sites}
    expected = {model.BOUNDS, model.ASSERT, model.ZERO_DIVISION}
    if dialect == "cuda":
        expected.add(model.CALL)        # the device function's call site (call chains)
    assert kinds == expected
    assert all(check_kinds.get(k) is check_kinds.KINDS[k] for k in kinds)


def test_the_registrys_c_helpers_are_defined():
    from safekern.backends.cupy.raw_sites import RAW_PRELUDE

    texts = [prelude.cuda(True), prelude.opencl() + opencl_safety.PRELUDE, RAW_PRELUDE,
             cuda.rewrite(SRC_CU, filename="k.cu").source,
             opencl.rewrite(SRC_CL, filename="k.cl").source]
    for name in check_kinds.helpers("c"):
        assert any(re.search(rf"\b{re.escape(name)}\b", t) for t in texts), name
