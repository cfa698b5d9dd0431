"""Run without the simulator: decorates kernels with signatures as on a GPU (where they compile
at once; without a GPU kernel.py defers them, so here the GPU's answer to "is one available?"
is given, and numba's dispatcher compiles the signatures, as on a GPU with SAFEKERN_CACHE=off:
tools.first_launch_profile's emulation), then picks and compiles what a first launch runs as
the launch dispatcher picks it. Prints, as JSON, per kernel: numba's compiles at decoration and
at the launch, and whether the checked kernel was compiled."""
import json
import os

import numpy as np
from numba import cuda
from numba.cuda import dispatcher as numba_dispatcher

os.environ["SAFEKERN_CACHE"] = "off"

import safekern                                              # noqa: E402
from safekern.backends.numba.build import assume_device     # noqa: E402
from tools.first_launch_profile import Timers, _argtypes, step_forms   # noqa: E402

SIG = "void(float64[:], int64[:], float64[:])"


def gather(a, idx, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]


def mistyped(a, idx, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]] + "one"


def main():
    from safekern import config

    config.reload()
    restore = Timers().install()
    compile_cuda, calls = numba_dispatcher.compile_cuda, []

    def counted(*args, **kwargs):
        calls.append(1)
        return compile_cuda(*args, **kwargs)

    numba_dispatcher.compile_cuda = counted
    try:
        with assume_device((9, 0)):
            kernel = safekern.jit(SIG)(gather)
            at_decoration = len(calls)
            args = (np.arange(10.0), np.arange(16) % 10, np.zeros(16))
            for _, _, build, user in step_forms({"k": kernel}, [("k", 2, 8, args)]):
                build.dispatcher().compile(_argtypes(build, user))
            at_launch = len(calls) - at_decoration
        try:
            with assume_device((9, 0)):
                safekern.jit(SIG)(mistyped)
            error = None
        except Exception as err:         # noqa: BLE001 - what decoration raises, reported
            error = {"type": type(err).__name__, "text": str(err)}
    finally:
        numba_dispatcher.compile_cuda = compile_cuda
        restore()
    print(json.dumps({"gather": {"decoration": at_decoration,
                                 "launch": at_launch,
                                 "checked_compiled": kernel.build.numba is not None},
                      "mistyped": error}))


if __name__ == "__main__":
    main()
