"""NVIDIA's OpenCL: one kernel object given an SVM pointer, then a buffer (and the other orders),
plain PyOpenCL, no safekern: which sequences the driver refuses (INVALID_KERNEL_ARGS).

    python svm_switch_probe.py [platform substring]
"""
import sys

import numpy as np
import pyopencl as cl

SRC = "__kernel void twice(__global float *a_g) { a_g[get_global_id(0)] *= 2; }"
name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
platform = [p for p in cl.get_platforms() if name in p.name][0]
ctx = cl.Context(platform.get_devices())
queue = cl.CommandQueue(ctx)
prg = cl.Program(ctx, SRC).build()
n = 1024


def svm():
    return cl.SVMAllocation(ctx, n * 4, alignment=64, flags=cl.svm_mem_flags.READ_WRITE)


def buf():
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * 4)


SEQUENCES = {
    "svm, buffer": [svm, buf],
    "buffer, svm": [buf, svm],
    "svm, svm": [svm, svm],
    "buffer, buffer": [buf, buf],
    "svm, buffer, svm": [svm, buf, svm],
    "svm, None, buffer": [svm, None, buf],
    "svm, as_buffer": [svm, "as_buffer"],
}
for label, seq in SEQUENCES.items():
    k = cl.Kernel(prg, "twice")
    last, steps = None, []
    for item in seq:
        arg = last.as_buffer(ctx) if item == "as_buffer" else (None if item is None else item())
        try:
            k.set_arg(0, arg)
            if arg is not None:
                cl.enqueue_nd_range_kernel(queue, k, (n,), None)
                queue.finish()
            steps.append("ok")
        except cl.Error as err:
            steps.append(f"{type(err).__name__}: {err}")
        last = arg if arg is not None else last
    print(f"{label:22s} -> {steps}")
# A fresh kernel object after the SVM one: the way out.
k = cl.Kernel(prg, "twice")
k.set_arg(0, svm()); cl.enqueue_nd_range_kernel(queue, k, (n,), None)
k2 = cl.Kernel(prg, "twice")
k2.set_arg(0, buf()); cl.enqueue_nd_range_kernel(queue, k2, (n,), None); queue.finish()
print("fresh kernel after SVM: ok")
