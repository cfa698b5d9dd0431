"""Run a rewritten CUDA C kernel on the host, one thread after another (no GPU): the kernel's
text (after the rewrite's `#line 1`) compiled by the host's C++ compiler with the check helpers
written again for the host -- a failing check records the first failure and leaves the thread,
as `__sk_fail`'s PTX exit does. For differential tests of rewrites of the same kernel (loop
versioning on and off): both run with these same helpers, so what differs is the rewrite.

    run = HostKernel(source, "bfs")           # None where no C++ compiler is found
    out = run(grid_threads, args)             # args: NumPy arrays and NumPy scalars, in order
    out.failure                               # (code, index, size, axis, thread) or None
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SHIM = r"""
#include <stdexcept>
struct dim3 { unsigned x, y, z; };
static thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
struct SkExit {};
static bool __sk_enter(long long*) { return false; }
static long long __sk_count(long long bytes, long long elem) {
  return bytes < 0 ? -1 : bytes / elem;
}
static void __sk_fail(long long* fb, unsigned long long code, long long index, long long size,
                      long long axis) {
  if (fb[0] == 0) { fb[0] = (long long)code; fb[1] = index; fb[2] = size; fb[3] = axis;
                    fb[4] = threadIdx.x; fb[7] = blockIdx.x; }
  throw SkExit();
}
template <typename I>
static long long __sk_ix(I i, long long n, unsigned long long code, int axis, long long* fb) {
  long long v = (long long)i;
  if ((unsigned long long)v >= (unsigned long long)n && n >= 0) __sk_fail(fb, code, v, n, axis);
  return v;
}
template <typename T>
static T* __sk_ptr(T* p, const volatile void* base, long long bytes, unsigned long long code,
                   long long* fb) {
  long long off = (long long)((const volatile char*)p - (const volatile char*)base);
  if ((off < 0 || off > bytes - (long long)sizeof(T)) && bytes >= 0) {
    long long e = (long long)sizeof(T);
    __sk_fail(fb, code, off >= 0 ? off / e : -((-off + e - 1) / e), bytes / e, 0);
  }
  return p;
}
static bool __sk_vok(long long a, long long b, long long n, long long top) {
  return n < 0 || (a >= 0 && b >= 0 && a < n && b < n && a <= top && b <= top);
}
static bool __sk_vin(long long lo, long long last, long long n) {
  return n < 0 || (lo >= 0 && last < n);
}
"""


@dataclass
class Outcome:
    failure: tuple | None


class HostKernel:
    """One kernel of a rewritten source, built for the host (module doc)."""

    def __new__(cls, source, name):
        if shutil.which("g++") is None:
            return None
        return super().__new__(cls)

    def __init__(self, source, name):
        body = source[source.rfind("#line 1"):]
        sig = body[body.index(f" {name}(") + len(name) + 2:]
        params = [p.strip() for p in sig[:sig.index(")")].split(",")]
        self.names = [re.findall(r"\w+", p)[-1] for p in params]
        self.types = [p[:p.rindex(self.names[i])].strip() for i, p in enumerate(params)]
        decls = ", ".join(f"void* a{i}" for i in range(len(params)))
        call = ", ".join(f"*({t}*)a{i}" if not t.endswith("*") else f"({t})a{i}"
                         for i, t in enumerate(self.types))
        driver = (f'extern "C" void sk_run(int threads, int block, {decls}) {{\n'
                  f"  for (int t = 0; t < threads; t++) {{\n"
                  f"    threadIdx = {{(unsigned)(t % block), 0, 0}};\n"
                  f"    blockIdx = {{(unsigned)(t / block), 0, 0}};\n"
                  f"    blockDim = {{(unsigned)block, 1, 1}};\n"
                  f"    gridDim = {{(unsigned)((threads + block - 1) / block), 1, 1}};\n"
                  f"    try {{ {name}({call}); }} catch (SkExit&) {{}}\n  }}\n}}\n")
        self._dir = tempfile.TemporaryDirectory()
        src = Path(self._dir.name) / "k.cpp"
        src.write_text(SHIM + body + "\n" + driver)
        lib = Path(self._dir.name) / "k.so"
        subprocess.run(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-w", "-o", str(lib),
                        str(src)], check=True, capture_output=True, text=True)
        self.lib = ctypes.CDLL(str(lib))

    def __call__(self, threads, block, args: dict):
        """`args`: parameter name -> NumPy array or scalar; hidden sizes `__sk_bytes_<i>`
        are the byte sizes of the i-th parameter's array (or given in `args`)."""
        fb = np.zeros(16, np.int64)
        keep, ptrs = [], []
        for i, (n, t) in enumerate(zip(self.names, self.types)):
            if n == "__sk_fb":
                v = fb
            elif n in args:
                v = args[n]
            elif n.startswith("__sk_bytes_"):
                v = np.int64(args[self.names[int(n.rsplit("_", 1)[1])]].nbytes)
            else:
                raise KeyError(n)
            a = v if isinstance(v, np.ndarray) and t.endswith("*") else np.array(v)
            keep.append(a)
            ptrs.append(ctypes.c_void_p(a.ctypes.data))
        self.lib.sk_run(ctypes.c_int(threads), ctypes.c_int(block), *ptrs)
        failure = None if fb[0] == 0 else (int(fb[0]), int(fb[1]), int(fb[2]), int(fb[3]),
                                           int(fb[7]) * block + int(fb[4]))
        return Outcome(failure)
