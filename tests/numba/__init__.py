"""Checked numba-cuda kernels end to end: on the CUDA simulator, and on a GPU with `pytest -m gpu`."""
