"""What the pages say about grid syncs and sync(stream) is what the code does (issue 29: checks.md
and troubleshooting.md said grid-wide synchronisation is "rejected at decoration" while numba
kernels accept it and make it failure-safe; the quickstart said sync(stream) "limits the check to
one device or stream" while the failure buffer, and so the check, is per device)."""
import os
import re

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import load_kernel_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _page(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return " ".join(f.read().split())


def _section(text, title):
    start = text.index(title)
    end = text.find(" ## ", start + len(title))
    return text[start:end if end >= 0 else None]


def test_the_pages_say_numba_grid_syncs_are_made_safe_not_rejected():
    rejected = _section(_page("checks.md"), "## Rejected at decoration time")
    grid = next(item for item in rejected.split(" - ") if "grid" in item.lower())
    assert "CUDA C" in grid and "numba kernels a grid sync" in grid and "failure-safe" in grid
    trouble = _page("troubleshooting.md")
    assert "Grid-wide synchronisation is rejected at decoration" not in trouble
    assert re.search(r"grid-wide synchronisation in CUDA C", trouble, re.I)


@pytest.mark.cudasim
def test_a_numba_grid_sync_is_accepted_at_decoration(tmp_path):
    module = load_kernel_module(tmp_path, """
        from numba import cuda
        import safekern

        @safekern.jit
        def steps(out):
            g = cuda.cg.this_grid()
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = 1
            g.sync()
    """, "docs_claims_grid")
    assert module.steps.check_report().accesses


@pytest.mark.cudasim
@pytest.mark.timeout(120)
def test_sync_of_one_stream_checks_its_whole_device(tmp_path):
    quickstart = _page("quickstart.md")
    assert "limits the check to one device or stream" not in quickstart
    assert "limits the check to one device:" in quickstart and "per device" in quickstart
    module = load_kernel_module(tmp_path, """
        from numba import cuda
        import safekern

        @safekern.jit
        def past_end(out):
            i = cuda.grid(1)
            out[i + 1] = 1.0
    """, "docs_claims_streams")
    launched_on, asked = cuda.stream(), cuda.stream()
    out = cuda.device_array(4, np.float32)
    module.past_end[1, 4, launched_on](out)
    with pytest.raises(safekern.BoundsError):
        safekern.sync(asked)             # another stream of the same device
    assert safekern.sync() is None       # checked and reset by that call
