"""A ulong (size_t) index of 2**63 or more -- an unsigned `0 - 1` -- is reported as itself, not
as -1 (issue 29; failures.UNSIGNED, the prelude's __sk_ixu); a signed index keeps its sign."""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
import safekern.opencl as skcl

pytestmark = pytest.mark.timeout(120, method="thread")

SOURCE = """
__kernel void back_one(__global float *out, __global const float *src, ulong j, long k) {
    int i = get_global_id(0);
    if (i == 5) out[i] = src[j - 1];
    if (i == 6) out[i] = src[k - 1];
}
"""


@pytest.mark.parametrize("j, k, index, thread", [(0, 1, 2**64 - 1, 5), (1, 0, -1, 6)])
def test_the_index_reads_back_as_its_type_says(clenv, j, k, index, thread):
    import pyopencl.array as cla

    prg = skcl.Program(clenv.ctx, SOURCE).build()
    out = cla.zeros(clenv.queue, 8, np.float32)
    src = cla.zeros(clenv.queue, 16, np.float32)
    prg.back_one(clenv.queue, (8,), (8,), out, src, np.uint64(j), np.int64(k))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.index, err.size, err.array, err.thread[0]) == (index, 16, "src", thread), \
        str(err)
