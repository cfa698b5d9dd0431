"""Timing for the GPU probes in tools/: CUDA events around a batch of launches."""
import numpy as np
from numba import cuda


def event_ms(launch, reps=20, batch=10):
    """Median milliseconds per launch: `reps` batches of `batch` launches, after one warm-up."""
    launch()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = cuda.event(), cuda.event()
        start.record()
        for _ in range(batch):
            launch()
        stop.record()
        stop.synchronize()
        times.append(cuda.event_elapsed_time(start, stop) / batch)
    return float(np.median(times))
