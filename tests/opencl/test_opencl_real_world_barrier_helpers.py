"""silx's bitonic sort (tests/opencl/realworld/silx_bitonic.cl, unchanged), whose helpers
`my_sort_file` / `my_sort_book` sort a work-group's data in __local memory between barriers:
safekern refused it until 29 Nov 2026 (a helper with barriers and checked accesses). Checked,
it sorts exactly as plain PyOpenCL does; given too little local memory, the failure names the
helper's line and the kernel's call, and the work-group does not hang."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import os

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

SOURCE = os.path.join(os.path.dirname(__file__), "realworld", "silx_bitonic.cl")
WG, GROUPS = 64, 4           # silx: a work-group sorts 8 floats per work-item


def _sorted(program_class, ctx, queue, kernel, data, local_bytes):
    prg = program_class(ctx, open(SOURCE).read()).build()
    buf = cla.to_device(queue, data.reshape(-1, 4))
    getattr(prg, kernel)(queue, (WG * GROUPS,), (WG,), buf.data, cl.LocalMemory(local_bytes))
    return buf


@pytest.mark.parametrize("kernel", ["bsort_all", "bsort_file"])
def test_silx_bitonic_sort_checked_equals_plain(clenv, kernel):
    data = np.random.default_rng(7).random(8 * WG * GROUPS).astype(np.float32)
    plain = _sorted(cl.Program, clenv.ctx, clenv.queue, kernel, data, 8 * WG * 4).get()
    checked = _sorted(skcl.Program, clenv.ctx, clenv.queue, kernel, data, 8 * WG * 4)
    safekern.sync()
    np.testing.assert_array_equal(checked.get(), plain)
    groups = plain.reshape(GROUPS, -1)
    np.testing.assert_array_equal(groups[0], np.sort(data.reshape(GROUPS, -1)[0]))


def test_silx_bitonic_sort_with_too_little_local_memory_is_reported(clenv):
    data = np.random.default_rng(8).random(8 * WG * GROUPS).astype(np.float32)
    # one float4 short of the 2 * WG float4 the helper stores into
    _sorted(skcl.Program, clenv.ctx, clenv.queue, "bsort_all", data, 8 * WG * 4 - 16)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.array, e.index, e.size) == ("my_sort_file", "l_data", 2 * WG - 1,
                                                    2 * WG - 1)
    assert e.lineno == 120 and e.source_line.strip() == "l_data[id+1] = input2;"
    assert e.called_from == ("bsort_all",)
    assert [(f.kernel, f.lineno) for f in e.call_chain] == [("bsort_all", 296)]
    assert e.thread == (WG - 1, 0, 0)
