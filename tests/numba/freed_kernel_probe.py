"""Run without the simulator: compiles a checked kernel and its launch variant to PTX (no GPU
needed), drops every reference to them and prints, as JSON, whether numba's dispatcher of
each form was freed."""
import gc
import json
import os
import weakref

os.environ["SAFEKERN_CACHE"] = "off"

from numba import cuda, types                               # noqa: E402

import safekern                                             # noqa: E402
from safekern.backends.numba.build import assume_device     # noqa: E402
from tools.first_launch_profile import Timers               # noqa: E402

ARGS = (types.float64[::1], types.int64[::1], types.float64[::1], types.int64)


def gather(a, idx, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]


def compiled_forms():
    """weakrefs to numba's dispatchers of a fresh kernel's forms, each compiled."""
    fn = type(gather)(gather.__code__, gather.__globals__, "gather")
    kernel = safekern.jit(fn)
    variant = kernel.dispatch.launch_variants().full_variant()
    refs = []
    for form in (kernel, variant):
        numba = form.build.dispatcher()
        numba.compile(ARGS)
        refs.append(weakref.ref(numba))
    return refs


def main():
    from safekern import config

    config.reload()
    restore = Timers().install()        # numba compiles for an sm_90a, links without a GPU
    try:
        with assume_device((9, 0)):
            refs = compiled_forms()
    finally:
        restore()
    gc.collect()
    print(json.dumps({"freed": [r() is None for r in refs]}))


if __name__ == "__main__":
    main()
