"""The C front ends (CUDA C for CuPy, OpenCL C for PyOpenCL), on one libclang layer.

parse (libclang) -> checks (which accesses need a check) -> safety, writes -> exits (barrier-safe
jumps) -> the dialects' rewrites (cuda*, opencl*), which edit the text and keep its lines.
"""
