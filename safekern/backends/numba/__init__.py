"""The numba-cuda backend: `safekern.jit`, compiled by numba, launched with the failure buffer."""
