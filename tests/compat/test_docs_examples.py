"""Every ```python block of README.md and docs/*.md runs, and does what the page says.

The rules a block follows are in tests/support/doc_blocks.py. Each block runs as `example.py` in a
fresh directory, in a child process, with the safekern that is installed (the source tree with
CI's editable install; the wheel in the oldest-versions job, .ci/run).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

from tests.support.opencl_env import find_env  # sets up the ICD vendors before pyopencl is imported

import pytest

from tests.support.doc_blocks import DOCS_DIR, RUNNER, blocks_of, python_blocks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCKS = python_blocks()

# Blocks of pages being written by others that are not complete programs yet, by page and first
# code line. Each is an expected failure until its page is fixed; then it passes, strict xfail
# fails the run, and its entry here must go.
UNFINISHED: dict = {}      # (path, first line) -> why a block cannot run yet (xfail, strict)


def _marks(block):
    marks = []
    first = next((line for line in block.code.splitlines() if line.strip()), "")
    reason = UNFINISHED.get((block.path, first.strip()))
    if reason:
        marks.append(pytest.mark.xfail(strict=True, reason=f"{block.id}: {reason}"))
    if "gpu" in block.needs:
        marks.append(pytest.mark.gpu)
    if "opencl" in block.needs:
        marks.append(pytest.mark.opencl)
    if "numba" in block.needs:
        marks.append(pytest.mark.cudasim)
    return marks


def _child_env(block) -> dict:
    """The test's environment (simulator when there is no GPU, the test's own cache file, the
    ICD vendors). The child imports safekern as this process does: the installed one, or the
    checkout where PYTHONPATH puts it first (the GPU machine's kit installs nothing)."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if "opencl" in block.needs and "PYOPENCL_CTX" not in env:
        import pyopencl as cl

        found = find_env("pocl") or find_env("nvidia")
        if found is None:
            pytest.skip("no OpenCL platform here")
        # create_some_context() picks this platform without asking.
        env["PYOPENCL_CTX"] = str([p.int_ptr for p in cl.get_platforms()].index(
            found.platform.int_ptr))
    return env


def run_block(block, tmp_path):
    """Run `block` as example.py; (report dict, stdout, stderr)."""
    workdir = tmp_path / "doc"
    workdir.mkdir()
    example = workdir / "example.py"
    example.write_text(block.code)
    name, _, _ = block.expected_exception()
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(example), name or "", str(report)],
                          cwd=workdir, env=_child_env(block), capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0 and report.exists(), proc.stderr[-3000:]
    result = json.loads(report.read_text())
    # Messages name the file by its full path; the docs show it in DOCS_DIR.
    for key in ("message", "traceback"):
        if result.get(key):
            result[key] = result[key].replace(str(workdir), DOCS_DIR)
    return result, proc.stdout, proc.stderr


@pytest.mark.timeout(300)
@pytest.mark.parametrize("block", [pytest.param(b, id=b.id, marks=_marks(b)) for b in BLOCKS])
def test_python_block(block, tmp_path):
    name, line, message = block.expected_exception()
    result, stdout, stderr = run_block(block, tmp_path)
    if name is None:
        assert result["raised"] is None, (f"{block.id} raised, and the page does not say it "
                                          f"does:\n{result['traceback']}")
        return
    assert result["raised"] is not None, (f"{block.id} should raise {name}"
                                          + (f" at line {line}" if line else "")
                                          + f" and ran through; its output:\n{stdout}{stderr}")
    assert result["matches"], (f"{block.id} should raise {name}, raised {result['raised']}:\n"
                               f"{result['traceback']}")
    if line is not None:
        # Where the exception comes from is part of what the page teaches.
        assert result["example_lines"][-1:] == [line], (
            f"{block.id}: {name} should come from the block's line {line} "
            f"({block.code.splitlines()[line - 1].strip()!r}):\n{result['traceback']}")
    if message is not None:
        assert result["message"].rstrip() == message.rstrip(), (
            f"the output shown after {block.id} is not what it prints")


# -- the README's example, exactly as the README says to run it -------------------------------

def _readme_example():
    blocks = [b for b in blocks_of("README.md") if b.lang == "python"]
    assert blocks, "README.md has no Python example"
    return blocks[0]


def _readme_command(example_name):
    """The shell line the README gives for running the example without a GPU."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    commands = [b.code for b in blocks_of("README.md") if b.lang in ("sh", "bash", "console")]
    for code in commands:
        for line in code.splitlines():
            line = line.split("#")[0].strip()
            if "NUMBA_ENABLE_CUDASIM=1" in line and example_name in line:
                return line
    raise AssertionError(f"README.md does not say how to run {example_name} on the simulator "
                         f"(looked in {len(commands)} shell blocks of {len(text)} characters)")


@pytest.mark.cudasim
@pytest.mark.timeout(300)
def test_readme_example_runs_as_written_on_the_simulator(tmp_path):
    """Saved as the README names it, run with the README's command: the traceback ends with
    the output the README shows, raised at the line the README marks."""
    block = _readme_example()
    name, line, message = block.expected_exception()
    assert name == "safekern.BoundsError" and line is not None and message
    saved_as = re.search(r"[Ss]ave (?:it|this) as `([\w.-]+\.py)`",
                         open(os.path.join(ROOT, "README.md"), encoding="utf-8").read())
    assert saved_as, "README.md does not say what to save the example as"
    example_name = saved_as.group(1)
    command = _readme_command(example_name)
    assert shlex.split(command)[-1] == example_name
    (tmp_path / example_name).write_text(block.code)
    # The README's own command sets the simulator; safekern is imported as this process
    # imports it (installed, or the checkout on PYTHONPATH: the GPU machine's kit).
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    err = proc.stderr.replace(str(tmp_path), DOCS_DIR)
    assert f'File "{DOCS_DIR}/{example_name}", line {line}, in <module>' in err, err
    # The traceback holds the user's frame and at most the one line of safekern's boundary
    # (errors.for_user; issue 29: sync_points.py and runtime.py frames came first).
    frames = re.findall(r'^  File "([^"]+)"', err, re.M)
    assert len(frames) <= 2 and frames[0] == f"{DOCS_DIR}/{example_name}", err
    expected = f"{name}: {message}".rstrip()
    assert err.rstrip().endswith(expected), err


def test_every_page_is_found():
    """The rules apply to every page: a new page is picked up without a list to update."""
    paths = {b.path for b in BLOCKS}
    assert "README.md" in paths and "docs/quickstart.md" in paths
