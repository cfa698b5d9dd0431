"""Probe for test_typing_errors.py: a typing mistake in a checked kernel, compiled to PTX on real
numba-cuda (no simulator), gives numba's own error for the user's code, not one about safekern's
helpers. Prints JSON: per kernel, the error's class and message."""
import json

from numba import cuda

import safekern


def two_indices_on_a_vector(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, 0] * 2.0          # a is 1-D


def float_index(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i / 2]               # a float index


def main():
    found = {}
    for fn in (two_indices_on_a_vector, float_index):
        try:
            safekern.jit(fn).compile_ptx("void(float32[:], float32[:])", cc=(9, 0))
            found[fn.__name__] = None
        except Exception as err:        # noqa: BLE001 -- what the user would see
            found[fn.__name__] = [type(err).__name__, str(err)]
        try:
            cuda.compile_ptx(fn, "void(float32[:], float32[:])", cc=(9, 0))
            found[fn.__name__ + ":plain"] = None
        except Exception as err:        # noqa: BLE001
            found[fn.__name__ + ":plain"] = [type(err).__name__, str(err)]
    print(json.dumps(found))


if __name__ == "__main__":
    main()
