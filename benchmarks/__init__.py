"""safekern's benchmark suite: `python -m benchmarks` (see docs/benchmarks.md).

Twenty numba-cuda kernels -- fourteen in `kernels.py`, six ported from Rodinia in
`rodinia_kernels.py` -- with their data and NumPy references (`cases.py`, `rodinia.py`, the
shared `casekit.py`), and CUDA C (CuPy) and OpenCL C (PyOpenCL) versions of six of them
(`c_cases.py`, `cuda_c_cases.py`, `opencl_cases.py`), run side by side in every mode
(`languages.py`, `modes.py`, `harness.py`, `sanitizer.py`), plus host time per launch and
compile time (`overhead.py`); `report.py` writes results/<date>-<gpu>.json and .md.
Nothing here is imported by safekern itself.
"""
