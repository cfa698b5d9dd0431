"""The test suite leaves the user's own kernel cache (~/.cache/safekern) alone.

Both checks run pytest in a child whose HOME is a fresh directory, so "the user's cache" is one
this test can look at without touching the real one.
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pytest(home, *args, cwd=ROOT):
    env = {k: v for k, v in os.environ.items()
           if k not in ("SAFEKERN_CACHE", "XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(HOME=str(home), PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=240)


@pytest.mark.timeout(300)
def test_collecting_the_suite_writes_nothing_to_the_user_cache(tmp_path):
    """Test modules decorate kernels at import time, before any fixture runs; their checked
    rewrites are cached then. They must go to the suite's own cache file."""
    home = tmp_path / "home"
    home.mkdir()
    result = _pytest(home, "--collect-only", "tests")
    # (A module that fails to import is reported by the suite itself; pytest collects the
    # other modules anyway, so the check below holds for them.)
    assert " collected" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    assert not (home / ".cache" / "safekern").exists(), sorted(
        p.name for p in (home / ".cache" / "safekern").iterdir())


@pytest.mark.timeout(300)
def test_a_test_that_uses_the_user_cache_fails_the_session(tmp_path):
    """The guard in conftest.py: a test that reaches the default cache path fails the run,
    naming the path, even though the test itself passes."""
    home = tmp_path / "home"
    home.mkdir()
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_touch.py").write_text(textwrap.dedent("""
        import os
        from safekern.cache.kernels import default_path

        def test_touch():
            os.makedirs(os.path.dirname(default_path()), exist_ok=True)
    """))
    result = _pytest(home, "-p", "conftest", str(tests), cwd=tmp_path)
    expected = str(home / ".cache" / "safekern")
    assert "1 passed" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode == 1
    assert "the test suite touched the user's kernel cache" in result.stdout
    assert f"os.mkdir {expected}" in result.stdout
