"""CUDA C++ (CuPy RawKernel / RawModule sources): the dialect and the checking rewrite.

    rw = rewrite(source, filename="gather.cu", options=("-std=c++17",), arch="sm_90")
    rw.source            # compile this with NVRTC; line numbers are the user's (#line)
    rw.kernels["gather"] # parameters, and the hidden arguments the launch must append
    rw.report()          # every access: checked / safe / unchecked (with the reason)

What the rewrite does (each edit stays on its line):

- Every kernel gets hidden parameters after its own: `long long __sk_bytes_<p>` for each pointer
  parameter (the size of what the launch passed, in bytes; -1 when the user marked it
  unchecked) and `long long* __sk_fb`, the device's failure buffer. Its body starts with the
  prelude: return at once (counting the skipped launch) when a failure is pending.
- `__device__` functions get `long long* __sk_fb` and, per pointer parameter, the base address
  and byte size of the array the caller's argument points into; call sites pass them.
- `p[i]` on a kernel parameter that is never reassigned: `p[__sk_ix(i, n, CODE, 0, __sk_fb)]`.
  Arrays of constant size (local, `__shared__`, `__device__`/`__constant__`), per axis, the
  same way with their extents; `extern __shared__` arrays against the launch's dynamic shared
  memory. Other pointers whose origin is visible (`row = a + r * n`, `(float*)smem`, device
  function parameters): `p[i]` becomes `(*__sk_ptr((p) + (i), base, bytes, CODE, __sk_fb))`,
  checked against the array the pointer was derived from; so are `*p`, `p->f` and the address
  arguments of atomics and `__ldg`-style loads. Everything else is reported as unchecked.
- Barriers (`__syncthreads*`, cooperative groups' `thread_block::sync()`) become `__sk_sync*`:
  a failing thread records the failure, raises the block's flag and exits (PTX `exit` releases
  the barriers its block waits at), and at the next barrier the whole block leaves together.
  Barriers that an exiting thread cannot release (grid/cluster sync, named or split barriers,
  `bar` in inline PTX) are rejected at compile time, naming their line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import UnsupportedError
from . import parse as C
from .cuda_headers import PRELUDE_NAME, parse_headers, unknown_function_decl

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
_ASM_BARRIER = re.compile(r"\b(bar|barrier)\.|\bmbarrier\b|\bbar\.(sync|red|arrive)")


# -- the dialect -------------------------------------------------------------------------------

class CudaDialect(C.Dialect):
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
        return any(ch.kind == C.kinds().CUDAGLOBAL_ATTR for ch in fn.get_children())

    def pointer_builtin(self, name: str):
        return (0, 1) if name in ADDRESS_BUILTINS else None


DIALECT = CudaDialect()


# -- the device side of the checks -------------------------------------------------------------

_DEVICE_PRELUDE = r"""// safekern: bounds checks (generated; the user's source follows at its own line numbers)
#pragma nv_diag_suppress 177
#define __SK_BARRIERS {barriers}
#if __SK_BARRIERS
__shared__ int __sk_bf;   // the block's failure flag, read at every barrier
#endif
static __device__ __forceinline__ long long __sk_pending(long long* fb) {{
  return *(volatile long long*)fb;
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
                                             long long axis) {{
  if (atomicCAS((unsigned long long*)fb, 0ULL, code) == 0ULL) {{
    fb[{index}] = index; fb[{size}] = size; fb[{axis}] = axis;
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
    __sk_fail(fb, code, v, n, axis);
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
    from ... import failures as F

    return _DEVICE_PRELUDE.format(barriers=1 if barriers else 0, skipped=F.SKIPPED,
                                  index=F.INDEX, size=F.SIZE, axis=F.AXIS, thread=F.THREAD,
                                  block=F.BLOCK, native="assert(__VA_ARGS__)",
                                  native_msg="assert(c)")


#: What SAFEKERN_CHECKS=0 compiles before the user's source: the asserts compile to nothing.
CHECKS_OFF_PRELUDE = ("#ifndef SAFEKERN_ASSERT\n#define SAFEKERN_ASSERT(...) ((void)0)\n#endif\n"
                      "#ifndef SAFEKERN_ASSERT_MSG\n#define SAFEKERN_ASSERT_MSG(...) ((void)0)\n"
                      "#endif\n")


def spelling(code_literal=lambda code: f"{code:#x}ULL") -> "c_safety.Spelling":
    """How asserts and divisions are checked in CUDA C (the prelude's __sk_div, ...)."""
    from .safety import Spelling

    return Spelling(backend=BACKEND, fail="__sk_fail(__sk_fb, {code}",
                    value_cast="(long long)", tail=", __sk_fb)", code_literal=code_literal,
                    divide=lambda kind, t: f"__sk_{kind}", divisor=lambda t: "__sk_dvs",
                    generic=True, assert_names=("assert", "SAFEKERN_ASSERT",
                                                "SAFEKERN_ASSERT_MSG"),
                    native=lambda name: name)


# -- results -----------------------------------------------------------------------------------

@dataclass
class ParamInfo:
    name: str
    type: str
    pointer: bool


@dataclass
class KernelInfo:
    """A `__global__` function as the launch sees it."""

    name: str                 # as written
    qualified: str            # with namespaces (ns::k)
    extern_c: bool
    template: bool
    mangled: str              # the symbol of the unchecked kernel (libclang's mangling)
    params: list[ParamInfo]
    lineno: int
    barriers: bool = False
    checked: bool = True      # False: launched with the user's arguments only (see report)
    written: tuple = ()       # pointer parameters the kernel stores through (writes.py)
    writes_unknown: str = ""  # why any pointer parameter may be written

    @property
    def pointer_params(self) -> list[str]:
        """The pointer parameters, in order: one hidden size argument each, then the buffer."""
        return [p.name for p in self.params if p.pointer]


@dataclass
class CudaRewrite:
    source: str               # what NVRTC compiles
    original: str
    filename: str
    checked: bool
    kernels: list[KernelInfo] = field(default_factory=list)
    accesses: list[C.Access] = field(default_factory=list)
    barriers: bool = False    # some kernel synchronises its block
    includes: tuple = ()      # (path, sha256) of the real files the source includes
    safety: list = field(default_factory=list)   # c_safety.SafetySite: asserts, divisions

    def find_kernels(self, name: str) -> list[KernelInfo]:
        """Kernels a symbol, a name or a name expression (`ns::axpy<float>`) can mean."""
        base = _strip_template_args(name).strip().lstrip("&").strip()
        out = [k for k in self.kernels if name in (k.mangled, k.name, k.qualified)
               or base in (k.name, k.qualified)]
        return out

    def report(self):
        """Every access, in source order: a c_checks.CheckReport of ReportEntry (the same
        report as the OpenCL path's)."""
        from .checks import CheckReport, ReportEntry

        data = self.original.encode("utf-8")
        entries = []
        for a in self.accesses:
            line_start = data.rfind(b"\n", 0, a.start) + 1
            col = len(data[line_start:a.start].decode("utf-8", "replace"))
            text = " ".join(data[a.start:a.end].decode("utf-8", "replace").split())
            entries.append((a.start, ReportEntry(a.function, a.extra.get("lineno") or 0, col,
                                                 text, a.array, a.status, a.reason)))
        entries += [(s.start, s.entry()) for s in self.safety]
        entries = [e for _, e in sorted(entries, key=lambda pair: pair[0])]
        return CheckReport(entries, filename=self.filename, checks=self.checked)

    @property
    def unchecked(self) -> list[C.Access]:
        return [a for a in self.accesses if a.status == "unchecked"]


def _strip_template_args(name: str) -> str:
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


class ParseError(UnsupportedError):
    """libclang could not make sense of the source. The backend first compiles the user's own
    source with NVRTC: if that fails too, NVRTC's error is the one to show."""

    def __init__(self, problem, *, diagnostics=(), **kw):
        self.diagnostics = list(diagnostics)
        super().__init__(problem, **kw)


# -- parsing -----------------------------------------------------------------------------------

_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'")


def parse_cuda(source: str, *, filename: str, options=(), arch="sm_90", include_dirs=()):
    """Parse with the stand-in headers; functions the stand-ins lack are declared generically
    (they matter only as calls), and the parse is repeated."""
    args = DIALECT.parse_args(options, arch)
    headers = list(DIALECT.headers())
    extra: list[str] = []
    for _ in range(3):
        hdrs = headers
        if extra:
            prelude = dict(headers)[PRELUDE_NAME] + "\n".join(extra) + "\n"
            hdrs = [(n, prelude if n == PRELUDE_NAME else t) for n, t in headers]
        ps = C.parse(source, filename=filename, args=args, headers=hdrs,
                     include_dirs=include_dirs)
        missing = set()
        for d in ps.errors():
            m = _UNDECLARED.search(d.message)
            if m and d.in_main:
                offset = _offset_of(ps, d.lineno, d.col)
                here = ps.next_token(offset) if offset is not None else None
                if here is None or here[0] != offset or here[2] != m.group(1):
                    continue    # e.g. inside a macro expansion: a genuine error
                tok = ps.next_token(here[1])
                if tok is not None and tok[2] == "(":
                    missing.add(m.group(1))
        new = sorted(n for n in missing if unknown_function_decl(n) not in extra)
        if not new:
            break
        extra += [unknown_function_decl(n) for n in new]
    main_errors = [d for d in ps.errors() if d.in_main]
    if main_errors:
        first = main_errors[0]
        raise ParseError(
            f"safekern cannot analyse this source (libclang: {first.message})",
            diagnostics=main_errors, filename=filename, lineno=first.lineno,
            source_line=ps.source_line(first.lineno) if first.lineno else None, col=first.col)
    return ps


def _offset_of(ps, lineno, col):
    if lineno is None:
        return None
    start = ps._line_starts[lineno - 1]
    line = ps.source_line(lineno)
    return start + len(line[:col].encode("utf-8"))


# -- the rewrite -------------------------------------------------------------------------------

def rewrite(source: str, *, filename: str = "kernel.cu", options=(), arch="sm_90",
            include_dirs=(), checks: bool = True, kernel_asserts: bool = True,
            eliminate: bool = True) -> CudaRewrite:
    """Parse `source`, find every access, and return the checked source (or, with
    `checks=False`, the user's source with the kernel facts the launch needs).
    `kernel_asserts=False` compiles asserts away (SAFEKERN_KERNEL_ASSERTS=0);
    `eliminate=False` checks accesses proven in bounds too (SAFEKERN_ELIMINATE=0)."""
    ps = parse_cuda(source, filename=filename, options=options, arch=arch,
                    include_dirs=include_dirs)
    from .cuda_rewrite import ModuleRewriter   # cuda_rewrite imports this module

    return ModuleRewriter(ps, checks=checks, kernel_asserts=kernel_asserts,
                          options=options, eliminate=eliminate).run()


__all__ = ["CudaDialect", "DIALECT", "rewrite", "parse_cuda", "CudaRewrite", "KernelInfo",
           "ParamInfo", "ParseError", "device_prelude", "ATOMICS", "ADDRESS_BUILTINS", "BARRIERS", "BACKEND"]
