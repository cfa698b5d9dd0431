"""OpenCL C kernels whose index is an `int` arithmetic that overflows (`(int)u * 2` with
u = 2**31): undefined in C, and a compiler may test the index in 32 bits, or rewrite one side of
its test from the operands, while it makes the address from the wrapped value or from the
operands in 64 bits -- a checked kernel then reaches an address its check never saw
(access_check.Check.opaque: a constant extent's, the launch fuzzer's seed 255312649;
prelude's `__sk_ixb`: a pointer into a buffer, `p[-(int)u]`).

`generate(seed)` writes one: a private, `__local` or `__global` array read or written at an
overflowing index -- in the subscript, through an `int` or a `long` variable, through a pointer
into the array, as `*(a + i)`, through a pointer made at the index (`q = a + i; *q`), in a loop
over `s` (`a[i + s]`, `a[s * big + small]`), or the overflowing part in a
variable of its own -- launched by `run` at u = 2**31, 2**31 + 2, 2**32 - 1 and 3. A check
reports the index or the index wraps into the array; the process must not die.

    python -m tests.support.overflow_kernels PLATFORM SECONDS AT_LEAST FIRST_SEED

runs seeds from FIRST_SEED on the OpenCL platform whose name or version holds PLATFORM, for
SECONDS (at least AT_LEAST kernels), printing each seed before it runs it and "done N" at the
end (a crash leaves the seed that crashed last on stdout).
"""
from __future__ import annotations

import random
import sys
import time

_BIG = ["(int)u", "((int)u * 2)", "((int)u * 4)", "((int)u + (int)u)", "(-(int)u)",
        "((int)u << 1)", "((int)u * 16)"]
_SMALL = ["get_local_id(0)", "(get_local_id(0) >> 1)", "(int)get_local_id(0)", "0", "1",
          "(long)get_local_id(0)"]


def generate(seed: int) -> str:
    r = random.Random(seed)
    big, small = r.choice(_BIG), r.choice(_SMALL)
    index = r.choice([f"{small} + {big}", f"{big} + {small}", f"(long)({big})",
                      f"(ulong)({big})", f"(size_t)({big}) + {small}", f"({big}) / 2",
                      f"({big}) + 3", big])
    array = r.choice(["priv", "tile", "g"])
    space = {"priv": "__private", "tile": "__local", "g": "__global"}[array]
    base = f"{array} + 1" if array == "g" else array
    before, access, loop = r.choice([
        ("", f"{array}[{index}]", False),
        (f"int i = {index};", f"{array}[i]", False),
        (f"long i = {index};", f"{array}[i]", False),
        (f"{space} int *p = {base};", f"p[{index}]", False),
        ("", f"*({array} + ({index}))", False),
        (f"int b = {big};", f"{array}[{small} + b]", False),
        (f"{space} int *q = {base} + ({index});", "*q", False),
        ("", f"{array}[({index}) + s]", True),             # in a loop over s, below
        ("", f"{array}[s * {big} + {small}]", True),
    ])
    if loop:
        # A loop: its index may overflow in the rewrite's copies of the loop too (an index
        # of int arithmetic is data-dependent there: the copies clamp it, __sk_dc64).
        body = (f"    int acc = 0;\n    for (int s = 0; s < 4; s++) acc += {access};\n"
                f"    out[get_global_id(0)] = acc;\n")
    elif r.random() < 0.5:
        body = (f"    {before}\n    {access} = 7;\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
                f"    out[get_global_id(0)] = {array}[get_local_id(0) & 7];\n")
    else:
        body = f"    {before}\n    out[get_global_id(0)] = {access};\n"
    return ("__kernel void k(__global int *out, uint u, __global int *g) {\n"
            "    int priv[8];\n    __local int tile[16];\n"
            "    for (int t = 0; t < 8; t++) priv[t] = t + 10;\n"
            "    tile[get_local_id(0) & 15] = 20;\n"
            "    barrier(CLK_LOCAL_MEM_FENCE);\n" + body + "}\n")


def run(ctx, queue, source: str) -> None:
    """Build `source` checked and launch it at the overflowing u's (16 work-items, one
    group); a failure is reported and cleared."""
    import numpy as np
    import pyopencl as cl

    import safekern
    import safekern.opencl as skcl

    prg = skcl.Program(ctx, source, filename="overflow.cl").build()
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16 * 4)
    g = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    for u in (2 ** 31, 2 ** 31 + 2, 2 ** 32 - 1, 3):
        prg.k(queue, (16,), (16,), out, np.uint32(u), g)
        try:
            safekern.sync()
        except safekern.BoundsError:
            pass


def main(argv) -> int:
    import warnings

    import pyopencl as cl

    platform, seconds, at_least, first = argv[0], float(argv[1]), int(argv[2]), int(argv[3])
    plat = next(p for p in cl.get_platforms()
                if platform.lower() in f"{p.name} {p.version}".lower())
    ctx = cl.Context(devices=plat.get_devices()[:1])
    queue = cl.CommandQueue(ctx)
    warnings.simplefilter("ignore")
    start, done = time.monotonic(), 0
    while done < at_least or time.monotonic() - start < seconds:
        print(first + done, flush=True)
        run(ctx, queue, generate(first + done))
        done += 1
    print(f"done {done}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
