"""The benchmark suite's smoke runs (measurements are benchmarks, never timed tests)."""
