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

from ... import failures as F
from . import device_launch
from .cuda_headers import PRELUDE_NAME, parse_headers
from .model import Dialect, Root, Unknown
from .parse import kinds
from .provenance import array_type, type_kind
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
                 "-Wno-unknown-cuda-version", f"-std={std}", "-I/__safekern__/include",
                 "-include", PRELUDE_NAME, "-U__CUDA_ARCH__", f"-D__CUDA_ARCH__={cc * 10}",
                 "-ferror-limit=0"] + args)

    def headers(self) -> list:
        return parse_headers()

    def is_kernel(self, fn) -> bool:
        return any(ch.kind == kinds().CUDAGLOBAL_ATTR for ch in fn.get_children()) or \
            device_launch.marked(fn, kinds().ANNOTATE_ATTR)     # launched from device code

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
        shared = any(ch.kind == kinds().CUDASHARED_ATTR for ch in decl.get_children())
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

_DEVICE_PRELUDE = r"""// safekern: bounds checks (generated; the user's source follows at its own line numbers)
#pragma nv_diag_suppress 177
#define __SK_BARRIERS {barriers}
#if __SK_BARRIERS
__shared__ int __sk_bf;   // the block's failure flag, read at every barrier
#endif
// The buffer as the launch found it (kernels of a stream see what earlier ones wrote): a plain,
// cacheable load. A volatile one skips L1, and every warp waited for L2 before its first access.
static __device__ __forceinline__ long long __sk_pending(long long* fb) {{
  return *fb;
}}
static __device__ __forceinline__ void __sk_count_skip(long long* fb) {{
  if ((threadIdx.x | threadIdx.y | threadIdx.z | blockIdx.x | blockIdx.y | blockIdx.z) == 0)
    atomicAdd((unsigned long long*)(fb + {skipped}), 1ULL);
}}
static __device__ __forceinline__ bool __sk_enter(long long* fb) {{
  if (__builtin_expect(__sk_pending(fb) != 0, 0)) {{ __sk_count_skip(fb); return true; }}
  return false;
}}
#if __SK_BARRIERS
static __device__ __forceinline__ bool __sk_enter_sync(long long* fb) {{
  // One barrier: the flag is cleared before anyone can fail, and the whole block decides
  // together whether a pending failure makes it skip this launch.
  if ((threadIdx.x | threadIdx.y | threadIdx.z) == 0) __sk_bf = 0;
  if (__syncthreads_or(__sk_pending(fb) != 0)) {{ __sk_count_skip(fb); return true; }}
  return false;
}}
#endif
static __device__ __forceinline__ void __sk_leave() {{
  // PTX exit: barriers and warp-synchronous operations that wait for this thread are released.
  asm volatile("exit;");
  __builtin_unreachable();
}}
// The cold path: first failure wins the slot, the winner writes its arguments.
static __device__ __noinline__ void __sk_fail(long long* fb, unsigned long long code,
                                             long long index, long long size,
                                             long long axis, long long unsigned_bits = 0) {{
  if (atomicCAS((unsigned long long*)fb, 0ULL, code) == 0ULL) {{
    fb[{index}] = index; fb[{size}] = size; fb[{axis}] = axis;
    if (unsigned_bits) fb[{unsigned}] = unsigned_bits;  // a uint64 >= 2**63 reads back as itself
    fb[{thread}] = threadIdx.x; fb[{thread} + 1] = threadIdx.y; fb[{thread} + 2] = threadIdx.z;
    fb[{block}] = blockIdx.x; fb[{block} + 1] = blockIdx.y; fb[{block} + 2] = blockIdx.z;
    __threadfence();
  }}
#if __SK_BARRIERS
  *(volatile int*)&__sk_bf = 1;
  __threadfence_block();
#endif
  __sk_leave();
}}
static __device__ __forceinline__ long long __sk_count(long long bytes, long long elem) {{
  return bytes < 0 ? -1LL : bytes / elem;
}}
static __device__ __forceinline__ long long __sk_dynsmem() {{
  unsigned int n; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n)); return n;
}}
// i against an extent n (n < 0: unchecked).
template <typename I>
static __device__ __forceinline__ long long __sk_ix(I i, long long n, unsigned long long code,
                                                    int axis, long long* fb) {{
  long long v = (long long)i;
  if (__builtin_expect((unsigned long long)v >= (unsigned long long)n, 0) && n >= 0)
    __sk_fail(fb, code, v, n, axis, (I)-1 > (I)0 ? 1 : 0);   // bit 0: an unsigned index
  return v;
}}
// One element at p within [base, base + bytes) (bytes < 0: unchecked).
template <typename T>
static __device__ __forceinline__ T* __sk_ptr(T* p, const volatile void* base, long long bytes,
                                             unsigned long long code, long long* fb) {{
  long long off = (long long)((const volatile char*)p - (const volatile char*)base);
  if (__builtin_expect(off < 0 || off > bytes - (long long)sizeof(T), 0) && bytes >= 0) {{
    long long e = (long long)sizeof(T);
    __sk_fail(fb, code, off >= 0 ? off / e : -((-off + e - 1) / e), bytes / e, 0);
  }}
  return p;
}}
#if __SK_BARRIERS
// The flag is read after the barrier: a thread that failed before it has set the flag and
// exited (which released the barrier), so the whole block sees it and leaves here.
static __device__ __forceinline__ void __sk_sync() {{
  __syncthreads(); if (*(volatile int*)&__sk_bf) __sk_leave();
}}
static __device__ __forceinline__ int __sk_sync_count(int p) {{
  int r = __syncthreads_count(p); if (*(volatile int*)&__sk_bf) __sk_leave(); return r;
}}
static __device__ __forceinline__ int __sk_sync_and(int p) {{
  int r = __syncthreads_and(p); if (*(volatile int*)&__sk_bf) __sk_leave(); return r;
}}
static __device__ __forceinline__ int __sk_sync_or(int p) {{
  int r = __syncthreads_or(p); if (*(volatile int*)&__sk_bf) __sk_leave(); return r;
}}
template <class __G> __device__ __forceinline__ void __sk_cg_sync(const __G&) {{ __sk_sync(); }}
#endif
// Asserts and integer division (safety.py): a failure records its values and exits.
#define __SK_LIKELY(x) __builtin_expect(!!(x), 1)
#define __SK_ASSERT_OFF(...) ((void)0)
// Asserts safekern cannot check (written through a macro, no failure buffer in scope).
#ifndef SAFEKERN_ASSERT
#define SAFEKERN_ASSERT(...) {native}
#endif
#ifndef SAFEKERN_ASSERT_MSG
#define SAFEKERN_ASSERT_MSG(c, ...) {native_msg}
#endif
template <class T> struct __sk_integer {{ enum {{ value = 0 }}; }};
template <> struct __sk_integer<int> {{ enum {{ value = 1 }}; }};
template <> struct __sk_integer<unsigned int> {{ enum {{ value = 1 }}; }};
template <> struct __sk_integer<long> {{ enum {{ value = 1 }}; }};
template <> struct __sk_integer<unsigned long> {{ enum {{ value = 1 }}; }};
template <> struct __sk_integer<long long> {{ enum {{ value = 1 }}; }};
template <> struct __sk_integer<unsigned long long> {{ enum {{ value = 1 }}; }};
// The zero test only where the division is an integer one (templates decide per instance).
template <bool> struct __sk_zero {{
  template <class A, class B>
  static __device__ __forceinline__ void test(const A&, const B&, unsigned long long,
                                              long long*) {{}}
}};
template <> struct __sk_zero<true> {{
  template <class A, class B>
  static __device__ __forceinline__ void test(const A& a, const B& b,
                                              unsigned long long code, long long* fb) {{
    if (__builtin_expect(b == 0, 0)) __sk_fail(fb, code, (long long)a, 0, 0);
  }}
}};
template <class A, class B>
static __device__ __forceinline__ auto __sk_div(A a, B b, unsigned long long code,
                                               long long* fb) -> decltype(a / b) {{
  __sk_zero<__sk_integer<decltype(a / b)>::value>::test(a, b, code, fb);
  return a / b;
}}
template <class A, class B>
static __device__ __forceinline__ auto __sk_mod(A a, B b, unsigned long long code,
                                               long long* fb) -> decltype(a % b) {{
  __sk_zero<__sk_integer<decltype(a % b)>::value>::test(a, b, code, fb);
  return a % b;
}}
// The divisor of `a /= b` (integer types only), after testing it.
template <class B, class D>
static __device__ __forceinline__ B __sk_dvs(B b, const D& a, unsigned long long code,
                                            long long* fb) {{
  if (__builtin_expect(b == 0, 0)) __sk_fail(fb, code, (long long)a, 0, 0);
  return b;
}}
#pragma nv_diag_default 177
"""


def device_prelude(barriers: bool) -> str:
    """The device code every checked source starts with (before its #line 1)."""
    from .loop_versions import PRELUDE as versioned_loops

    return _DEVICE_PRELUDE.format(barriers=1 if barriers else 0, skipped=F.SKIPPED,
                                  index=F.INDEX, size=F.SIZE, axis=F.AXIS, thread=F.THREAD,
                                  unsigned=F.UNSIGNED,
                                  block=F.BLOCK, native="assert(__VA_ARGS__)",
                                  native_msg="assert(c)") + versioned_loops


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
