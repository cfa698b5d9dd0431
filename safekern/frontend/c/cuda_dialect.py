"""The CUDA C dialect: what differs from OpenCL C for the shared layer, and the device code
every checked source starts with.

- `CudaDialect` / `DIALECT`: libclang's arguments for a device-only parse with safekern's
  stand-in headers (cuda_headers.py), which functions are kernels, the built-ins that take an
  address (atomics, `__ldg`-style loads), the barriers and the barriers that cannot be made safe.
- `device_prelude(barriers)`: `__sk_ix`, `__sk_ptr`, `__sk_fail`, the barrier wrappers and the
  assert and division helpers that the rewrite (cuda_rewrite.py, cuda_access.py) calls.
- `spelling()`: how asserts and divisions are written in CUDA C (safety.py).
"""
from __future__ import annotations

import re

from . import device_launch, prelude
from .cuda_headers import PRELUDE_NAME, parse_headers
from .model import Dialect, Root, Unknown
from .parse import kids, kinds
from .provenance import array_type, is_pointer_type, type_kind
from .safety import Spelling

BACKEND = "cupy"

ATOMICS = frozenset(f"{base}{suffix}" for base in (
    "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicAnd", "atomicOr",
    "atomicXor", "atomicInc", "atomicDec", "atomicCAS") for suffix in ("", "_block", "_system"))
ADDRESS_BUILTINS = ATOMICS | frozenset(("__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu",
                                        "__ldcv", "__stwb", "__stcg", "__stcs", "__stwt"))
BARRIERS = {"__syncthreads": "__sk_sync", "__syncthreads_count": "__sk_sync_count",
            "__syncthreads_and": "__sk_sync_and", "__syncthreads_or": "__sk_sync_or"}
# Calls that wait for threads an exiting thread cannot stand in for.
UNSAFE_BARRIER_CALLS = {
    "__barrier_sync": "named barriers (__barrier_sync)",
    "__barrier_sync_count": "named barriers (__barrier_sync_count)",
    "arrive_and_wait": "split barriers (cuda::barrier)",
    "arrive_and_drop": "split barriers (cuda::barrier)",
    "barrier_arrive": "split barriers (thread_block::barrier_arrive)",
    "barrier_wait": "split barriers (thread_block::barrier_wait)",
}
# Functions that touch no memory through their pointer arguments.
NO_MEMORY_CALLS = frozenset(("printf", "__prefetch_global_l1", "__prefetch_global_l2",
                              "__nanosleep", "assert", "__assertfail", "SAFEKERN_ASSERT",
                              "SAFEKERN_ASSERT_MSG"))
_ASM_BARRIER = re.compile(r"\b(bar|barrier)\.|\bmbarrier\b|\bbar\.(sync|red|arrive)")


# -- the dialect -------------------------------------------------------------------------------

class CudaDialect(Dialect):
    name = "cuda"
    barrier_functions = frozenset(BARRIERS)
    unsupported_collectives = tuple(UNSAFE_BARRIER_CALLS)

    def parse_args(self, options=(), arch: str = "sm_90") -> list:
        """libclang arguments: a device-only CUDA parse with safekern's stand-in headers."""
        std = "c++17"
        args: list[str] = []
        opts = list(options)
        i = 0
        while i < len(opts):
            opt = opts[i]
            m = re.match(r"^--?std=(.+)$", opt)
            if m:
                std = m.group(1)
            elif opt in ("-D", "--define-macro", "-U", "--undefine-macro", "-I",
                         "--include-path") and i + 1 < len(opts):
                flag = {"--define-macro": "-D", "--undefine-macro": "-U",
                        "--include-path": "-I"}.get(opt, opt)
                args += [flag, opts[i + 1]]
                i += 1
            elif opt.startswith(("-D", "-U", "-I")):
                args.append(opt)
            elif opt.startswith(("--define-macro=", "--undefine-macro=", "--include-path=")):
                flag = {"--define-macro": "-D", "--undefine-macro": "-U",
                        "--include-path": "-I"}[opt.split("=", 1)[0]]
                args.append(flag + opt.split("=", 1)[1])
            i += 1
        cc = int(re.sub(r"\D", "", arch) or 90)
        # libclang 18 knows architectures up to sm_90; newer ones parse as sm_90 with the
        # right __CUDA_ARCH__.
        parse_arch = f"sm_{min(cc, 90)}"
        return (["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                 f"--cuda-gpu-arch={parse_arch}", "--cuda-path=/__safekern__/nocuda",
                 # (NVRTC only warns about narrowing in a braced initializer, `int h {tid %
                 # up}` with a size_t tid: cusignal's upfirdn; clang makes it an error)
                 "-Wno-unknown-cuda-version", "-Wno-c++11-narrowing", f"-std={std}",
                 "-I/__safekern__/include",
                 "-include", PRELUDE_NAME, "-U__CUDA_ARCH__", f"-D__CUDA_ARCH__={cc * 10}",
                 "-ferror-limit=0"] + args)

    def headers(self) -> list:
        return parse_headers()

    def is_kernel(self, fn) -> bool:
        return any(ch.kind == kinds().CUDAGLOBAL_ATTR for ch in kids(fn)) or \
            device_launch.marked(fn, kinds().ANNOTATE_ATTR)     # launched from device code

    def pointer_param(self, param) -> bool:
        return is_pointer_type(param.type)

    def pointer_builtin(self, name: str):
        return (0, 1) if name in ADDRESS_BUILTINS else None

    # -- what provenance.py's roots are called ----------------------------------------------
    def param_root(self, param, index: int, *, kernel: bool, moved: bool) -> Root:
        """A kernel's parameter i: `__sk_bytes_i` bytes (a hidden parameter) from the
        parameter (from `__sk_orig_i`, its entry value, when the kernel moves it); a
        __device__ function's: from `__sk_base_i`, the base of the caller's array."""
        name = param.spelling
        if kernel:
            base = f"__sk_orig_{index}" if moved else name
            return Root("param", name, base, f"__sk_bytes_{index}", ("param", index))
        return Root("helper_param", name, f"__sk_base_{index}", f"__sk_bytes_{index}",
                    ("param", index))

    def array_root(self, decl, text: str, scope) -> Root | Unknown:
        """`text` (the array as the use names it) and its sizeof; `extern __shared__`: the
        launch's dynamic shared memory."""
        extern = decl.storage_class.name == "EXTERN" and \
            type_kind(array_type(decl.type)) == "INCOMPLETEARRAY"
        shared = any(ch.kind == kinds().CUDASHARED_ATTR for ch in kids(decl))
        if extern and shared:
            return Root("extern", decl.spelling, text, "__sk_dynsmem()", ("var", decl.hash))
        if extern:
            return Unknown(f"'{decl.spelling}' is an extern array of unknown size")
        return Root("array", decl.spelling, text, f"(long long)sizeof({text})",
                    ("var", decl.hash), scope)

    def scalar_root(self, decl, name: str) -> Root:
        return Root("scalar", name, f"&{name}", f"(long long)sizeof({name})",
                    ("var", decl.hash))


DIALECT = CudaDialect()


# -- the device side of the checks -------------------------------------------------------------

def device_prelude(barriers: bool) -> str:
    """The device code every checked source starts with (before its #line 1): prelude.py."""
    return prelude.cuda(barriers)


#: What SAFEKERN_CHECKS=0 compiles before the user's source: the asserts compile to nothing.
CHECKS_OFF_PRELUDE = ("#ifndef SAFEKERN_ASSERT\n#define SAFEKERN_ASSERT(...) ((void)0)\n#endif\n"
                      "#ifndef SAFEKERN_ASSERT_MSG\n#define SAFEKERN_ASSERT_MSG(...) ((void)0)\n"
                      "#endif\n")


def spelling(code_literal=lambda code: f"{code:#x}ULL") -> Spelling:
    """How asserts and divisions are checked in CUDA C (the prelude's __sk_div, ...)."""
    return Spelling(backend=BACKEND, fail="__sk_fail(__sk_fb, {code}",
                    value_cast="(long long)", tail=", __sk_fb)", code_literal=code_literal,
                    divide=lambda kind, t: f"__sk_{kind}", divisor=lambda t: "__sk_dvs",
                    generic=True, assert_names=("assert", "SAFEKERN_ASSERT",
                                                "SAFEKERN_ASSERT_MSG"),
                    native=lambda name: name)


__all__ = ["CudaDialect", "DIALECT", "device_prelude", "spelling", "CHECKS_OFF_PRELUDE",
           "ATOMICS", "ADDRESS_BUILTINS", "BARRIERS", "UNSAFE_BARRIER_CALLS", "BACKEND",
           "NO_MEMORY_CALLS"]
