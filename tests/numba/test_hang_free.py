"""A failing thread never hangs: each kernel of tests/numba/hang_kernels.py (a sentinel scan past the
end of the text, barrier loops whose update a failure would skip, a data-dependent range) runs
in a child process with a deadline; a thread that spins on stand-in values fails the test by
the timeout instead of hanging the suite."""
import os
import subprocess
import sys

import pytest

from tests.numba import hang_kernels

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEADLINE = 120          # seconds: importing numba and running one small launch takes a few


@pytest.mark.parametrize("case", hang_kernels.CASES)
def test_failing_thread_leaves_its_loops(case, tmp_path):
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "tests.numba.hang_kernels", case], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"{case}: the kernel still ran after {DEADLINE} s: a failing thread hangs")
    assert proc.returncode == 0, err[-3000:]
    assert out.strip() == f"raised {hang_kernels.site_line(hang_kernels.__file__, case)}"
