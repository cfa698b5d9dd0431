"""Columns count characters, not UTF-8 bytes (issue 29): with a parameter named `Σ_T` (4 bytes,
3 characters) the caret of a failure, the report's column and text, and an UnsupportedError's
caret sat to the right of the access."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import load_kernel_module

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

SOURCE = """
    from numba import cuda
    import safekern

    @safekern.jit
    def shift(out, Σ_T):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = Σ_T[i] * 2.0 + Σ_T[i + 1]
"""
LINE = "        out[i] = Σ_T[i] * 2.0 + Σ_T[i + 1]"

UNSUPPORTED = """
    from numba import cuda
    import safekern

    @safekern.jit
    def total(Σ_T):
        i = cuda.grid(1)
        Σ_T[i] = [Σ_T[j] for j in range(3)][0]
"""


def test_the_caret_and_the_report_count_characters(tmp_path):
    module = load_kernel_module(tmp_path, SOURCE, "unicode_columns")
    second = LINE.index("Σ_T[i + 1]")
    entries = [e for e in module.shift.check_report() if e.array == "Σ_T"]
    assert sorted((e.col, e.text) for e in entries) == [
        (LINE.index("Σ_T[i]"), "Σ_T[i]"), (second, "Σ_T[i + 1]")]
    out = cuda.device_array(4, np.float32)
    module.shift[1, 4](out, cuda.to_device(np.zeros(4, np.float32)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    index_at = second + len("Σ_T[")
    assert (err.col, err.end_col) == (index_at, index_at + len("i + 1")), str(err)
    source, caret = str(err).splitlines()[-2:]
    assert source[caret.index("^"):caret.rindex("^") + 1] == "i + 1", str(err)


def test_an_unsupported_constructs_caret_counts_characters(tmp_path):
    with pytest.raises(safekern.UnsupportedError) as info:
        load_kernel_module(tmp_path, UNSUPPORTED, "unicode_unsupported")
    source, caret = str(info.value).splitlines()[-2:]
    assert source[caret.index("^"):caret.rindex("^") + 1] == "[Σ_T[j] for j in range(3)]", \
        str(info.value)
