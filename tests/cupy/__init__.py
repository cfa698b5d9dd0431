"""Checked CUDA C kernels through CuPy: NVRTC compiles without a GPU; launches need one (`-m gpu`)."""
