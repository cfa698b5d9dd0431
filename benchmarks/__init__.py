"""safekern's benchmark suite: `python -m benchmarks` (see docs/benchmarks.md).

Fourteen numba-cuda kernels (`kernels.py`) with their data and NumPy references (`cases.py`),
run side by side in every mode (`modes.py`, `harness.py`, `sanitizer.py`), plus host time per
launch and compile time (`overhead.py`); `report.py` writes results/<date>-<gpu>.json and .md.
Nothing here is imported by safekern itself.
"""
