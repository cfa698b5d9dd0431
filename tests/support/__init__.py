"""Helpers shared by the tests of every folder: child processes, the differential runner and fuzzers, OpenCL set-up, cache helpers, the one assert_bounds_error and kernel-module loader."""
