"""benchmarks.cache_startup runs end to end (on the CUDA simulator: a smoke run, no timing)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_startup_benchmark_smoke_run_writes_reports(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                     os.environ.get("PYTHONPATH")])))
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.cache_startup", "--quick",
                           "--simulator", "--variants", "cold,warm,import_only", "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".md")
    result = json.loads((out / files[0]).read_text())
    assert result["variants"] == ["cold", "warm", "import_only"] and result["simulator"]
    for variant in ("cold", "warm"):
        entry = result["summary"][variant]
        assert entry["ok"], variant
        assert set(entry["phases"]) >= {"import_numba_cuda", "context", "decorate",
                                       "launch_to_results"}
        assert 0 < entry["kernel_time"] < entry["total"]
    assert result["goals"]["cold_over_warm_total"] > 0
    md = (out / files[1]).read_text()
    assert "| cold / warm | >= 10 |" in md and "checked, cache filled (warm)" in md
