"""OpenCL errors reach the user from the user's frame (issue 29, as for numba kernels:
tests/numba/test_user_frames.py): a build that fails carries at most one line of safekern's."""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import os
import traceback

import pytest

import safekern
import safekern.opencl as skcl

pytestmark = pytest.mark.timeout(120, method="thread")
PACKAGE = os.path.dirname(os.path.abspath(safekern.__file__))

BAD = """
__kernel void k(__global float *a) {
    int i = get_global_id(0);
    a[i] = no_such_function(i);
}
"""


def test_a_failed_build_shows_the_users_line(clenv):
    with pytest.raises(safekern.CompilationError, match="no_such_function") as info:
        skcl.Program(clenv.ctx, BAD).build()
    frames = traceback.extract_tb(info.value.__traceback__)
    ours = [f for f in frames if os.path.abspath(f.filename).startswith(PACKAGE + os.sep)]
    assert frames[0].filename == __file__ and len(ours) <= 1, traceback.format_tb(
        info.value.__traceback__)
