"""The CuPy backend: checked CUDA C `RawKernel` / `RawModule`, compiled with NVRTC."""
