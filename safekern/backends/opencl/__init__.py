"""The PyOpenCL backend: checked OpenCL C programs, built by the OpenCL driver."""
