"""The array a failure names is the user's text even where it holds another checked access:
`r[i].v[j]` (an array field of a record reached by a subscript) names `r[i].v`, not the
rewrite's call (found on datashader-style record kernels, 29 Nov 2026). Simulator or GPU."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

REC = np.dtype([("x", np.float64), ("v", np.float64, (3,))])


@safekern.jit
def field_sum(out, r):
    i = cuda.grid(1)
    if i < r.shape[0]:
        for j in range(4):                  # v has 3 elements
            out[i] += r[i].v[j]


@safekern.jit
def field_item(out, r, k):
    i = cuda.grid(1)
    if i < r.shape[0]:
        out[i] = r[i]["v"][k]


def test_a_record_fields_array_is_named_as_written():
    out = cuda.to_device(np.zeros(2))
    field_sum[1, 2](out, cuda.to_device(np.zeros(2, REC)))
    err = assert_bounds_error(array="r[i].v", axis=0, index=3, size=3)
    assert "_sk_" not in str(err)
    field_item[1, 2](out, cuda.to_device(np.zeros(2, REC)), 5)
    err = assert_bounds_error(array="r[i]['v']", axis=0, index=5, size=3)
    assert "_sk_" not in str(err)
