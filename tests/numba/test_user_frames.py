"""Errors reach the user from the user's frame (issue 29): a failure raised at a sync point,
by safekern.sync(), at decoration or at a launch carries at most one line of safekern's own (the
boundary that raises it; pytest and IPython hide that one too) -- not the sync hooks, the
runtime, the AST visitor or the cache it passed through -- and no implicit context.
SAFEKERN_DEBUG_INTERNALS=1 keeps safekern's frames for a bug report."""
import os
import traceback

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import load_kernel_module
from tests.support.settings import safekern_setting

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

PACKAGE = os.path.dirname(os.path.abspath(safekern.__file__))

KERNELS = """
    import numpy as np
    from numba import cuda
    import safekern

    @safekern.jit
    def gather(out, src, idx):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = src[idx[i]]

    @safekern.jit
    def one_cell(out):
        i = cuda.grid(1)
        out[0] = i
"""

COMPREHENSION = """
    from numba import cuda
    import safekern

    @safekern.jit{options}
    def total(out):
        i = cuda.grid(1)
        xs = [out[j] for j in range(3)]
        out[i] = xs[0]
"""


def safekern_frames(exc):
    return [f for f in traceback.extract_tb(exc.__traceback__)
            if os.path.abspath(f.filename).startswith(PACKAGE + os.sep)]


def assert_from_user(exc, here):
    frames = traceback.extract_tb(exc.__traceback__)
    assert frames[0].filename == here, frames
    ours = safekern_frames(exc)
    assert len(ours) <= 1 and (not ours or ours[0] == frames[-1]), \
        "".join(traceback.format_tb(exc.__traceback__))
    assert exc.__suppress_context__


def _failing_launch(module):
    d_out = cuda.device_array(8, np.float32)
    idx = np.arange(8)
    idx[3] = 1000
    module.gather[1, 8](d_out, cuda.to_device(np.zeros(8, np.float32)), cuda.to_device(idx))
    return d_out


def test_a_sync_point_raises_from_the_users_line(tmp_path):
    module = load_kernel_module(tmp_path, KERNELS, "frames_sync_point")
    d_out = _failing_launch(module)
    with pytest.raises(safekern.BoundsError) as info:
        d_out.copy_to_host()
    assert_from_user(info.value, __file__)
    assert not any(f.filename.endswith("runtime.py") for f in safekern_frames(info.value))


def test_safekern_sync_raises_from_the_users_line(tmp_path):
    module = load_kernel_module(tmp_path, KERNELS, "frames_sync")
    _failing_launch(module)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert_from_user(info.value, __file__)


@pytest.mark.parametrize("options", ["", "(fastmath=True)"])
def test_an_unsupported_construct_at_decoration(tmp_path, options):
    source = COMPREHENSION.format(options=options)
    with pytest.raises(safekern.UnsupportedError, match="comprehension") as info:
        load_kernel_module(tmp_path, source, f"frames_comprehension{len(options)}")
    exc = info.value
    ours = safekern_frames(exc)
    assert len(ours) <= 1, "".join(traceback.format_tb(exc.__traceback__))
    # The user's decorator line is the last frame before safekern's one.
    user = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(
        f"frames_comprehension{len(options)}.py")]
    assert user and user[-1].lineno == 5


def test_a_race_at_launch(tmp_path):
    module = load_kernel_module(tmp_path, KERNELS, "frames_race")
    with pytest.raises(safekern.RaceError) as info:
        module.one_cell[1, 4](cuda.device_array(4, np.float32))
    assert_from_user(info.value, __file__)


def test_the_internal_frames_stay_reachable_with_the_setting(tmp_path, monkeypatch):
    module = load_kernel_module(tmp_path, KERNELS, "frames_debug")
    with safekern_setting(monkeypatch, "SAFEKERN_DEBUG_INTERNALS", "1"):
        d_out = _failing_launch(module)
        with pytest.raises(safekern.BoundsError) as info:
            d_out.copy_to_host()
        names = {os.path.basename(f.filename) for f in safekern_frames(info.value)}
        assert {"sync_points.py", "runtime.py"} <= names
        with pytest.raises(safekern.UnsupportedError) as info:
            load_kernel_module(tmp_path, COMPREHENSION.format(options=""), "frames_debug2")
        assert len(safekern_frames(info.value)) > 5
