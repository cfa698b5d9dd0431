"""The kernel cache's start-up benchmarks run end to end (`--quick`, nothing written): the
concurrency one counts one compile per kernel for processes sharing a file, and one per asker
without a cache; the remote one finds a new node compiling nothing with a warm Redis. No timing
is asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cache_remote_helpers import needs_redis

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(400, method="signal")


def _run(module, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")])), TMPDIR=str(tmp_path))
    for name in ("SAFEKERN_CACHE_REMOTE", "SAFEKERN_CACHE_REMOTE_KEY",
                 "SAFEKERN_CACHE_REMOTE_TRUST"):
        env.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", module, "--quick", "--out",
                           str(tmp_path / "results")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=380, start_new_session=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not (tmp_path / "results").exists()          # --quick writes nothing
    rows = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    return {r["scenario"]: r for r in rows}, proc.stdout


def test_cache_concurrency_quick(tmp_path):
    rows, text = _run("benchmarks.cache_concurrency", tmp_path)
    assert rows["8 processes"]["compiles"] == 2 and rows["8 processes"]["askers"] == 8
    assert rows["8 threads, 1 process"]["compiles"] == 2
    assert rows["8 processes, no cache"]["compiles"] == 16
    assert "| 8 processes | 8 | 2 (1) |" in text


@needs_redis[0]
@needs_redis[1]
def test_cache_remote_quick(tmp_path):
    rows, text = _run("benchmarks.cache_remote", tmp_path)
    new_node = rows["new node: empty local file, warm Redis (signed)"]
    assert new_node["compiles"] == 0 and new_node["redis_gets"] == 3
    assert rows["cold: empty local file, empty Redis"]["compiles"] == 3
    assert rows["local warm: filled local file (Redis configured, not asked)"]["redis_gets"] == 0
    eight = rows["8 processes of a new node at once (warm Redis)"]
    assert eight["compiles"] == 0 and eight["redis_gets"] == 3
    assert rows["Redis stopped (SIGSTOP), empty local file"]["compiles"] == 3
