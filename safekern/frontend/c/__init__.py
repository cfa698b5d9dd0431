"""The C front ends (CUDA C for CuPy, OpenCL C for PyOpenCL), on one libclang layer.

parse (libclang) -> model (the facts) -> provenance (what a pointer points into) -> checks /
cuda_access (which accesses need a check), safety (asserts, divisions), writes (stores through
parameters) -> exits (barrier-safe jumps, OpenCL) -> the dialects' rewrites (opencl_rewrite,
cuda_rewrite), which edit the text (edits) and keep its lines; buildlog maps a driver's log back.
opencl.py and cuda.py are the entries: `rewrite(source, ...)`.
"""
