"""Checked OpenCL C kernels through PyOpenCL: on PoCL in CI, on NVIDIA's OpenCL on a GPU machine."""
