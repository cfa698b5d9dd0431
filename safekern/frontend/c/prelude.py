"""The C text every checked source starts with (before its `#line 1`): one generator for both
dialects.

    opencl(int64_atomics=True, little_endian=True)    # OpenCL C (+ opencl_safety.PRELUDE)
    cuda(barriers)                                    # CUDA C (cuda_dialect.device_prelude)

The parts both dialects share are written once here and filled in with the dialect's words
(`_WORDS`): the failure record (which slot of the failure buffer holds what: failures.py's
layout) and the index checks `__sk_ix` (and `__sk_ixu`, OpenCL's for a ulong index) that the
rewrite wraps around an index: `__sk_ix(i, n, code, axis, fb...)` is `i` when 0 <= i < n, and
otherwise records the failure -- the CUDA thread then exits (PTX `exit` releases its barriers),
the OpenCL work-item raises its flag, reads element 0 and leaves at the end of the statement
(exits.py). What differs beyond that is each dialect's own text below: OpenCL's `__sk_ixb`
(a byte offset against a size) and the group's pending test; CUDA's `__sk_ptr` (a pointer
against its root), the barrier wrappers, asserts and divisions, and the branch-free check of
versioned loops (loop_versions.PRELUDE).
"""
from __future__ import annotations

from ... import failures as F

#: How each dialect spells what the shared parts need.
_WORDS = {
    "opencl": dict(
        fn="static inline", long="long", ulong="ulong", u32="uint", code="long", template="",
        fb="__global long *fb,\n{pad}__private int *fp", index_type="long",
        unlikely="__SK_UNLIKELY({})", guard="",
        fail="*fp = 1; __sk_fail_bits(fb, code, v, n, axis, {bits}); return 0;",
        bits_store="fb[{unsigned}] = bits;",
        thread=("get_local_id(0)", "get_local_id(1)", "get_local_id(2)"),
        block=("get_group_id(0)", "get_group_id(1)", "get_group_id(2)")),
    "cuda": dict(
        fn="static __device__ __forceinline__", long="long long", ulong="unsigned long long",
        u32="unsigned int",
        code="unsigned long long", template="template <typename I>\n",
        fb="long long* fb", index_type="I", unlikely="__builtin_expect({}, 0)",
        guard=" && n >= 0",
        fail="__sk_fail(fb, code, v, n, axis, {bits});",
        bits_store="if (unsigned_bits) fb[{unsigned}] = unsigned_bits;  "
                   "// a uint64 >= 2**63 reads back as itself",
        thread=("threadIdx.x", "threadIdx.y", "threadIdx.z"),
        block=("blockIdx.x", "blockIdx.y", "blockIdx.z")),
}


def _record(w: dict) -> str:
    """The winner's stores into the failure buffer (failures.py: INDEX .. UNSIGNED)."""
    thread = " ".join(f"fb[{F.THREAD + k}] = {t};" for k, t in enumerate(w["thread"]))
    block = " ".join(f"fb[{F.BLOCK + k}] = {b};" for k, b in enumerate(w["block"]))
    bits = w["bits_store"].format(unsigned=F.UNSIGNED)
    return (f"    fb[{F.INDEX}] = index; fb[{F.SIZE}] = size; fb[{F.AXIS}] = axis;\n"
            f"    {bits}\n    {thread}\n    {block}")


def _index_check(w: dict, name: str, bits: str, word: str | None = None) -> str:
    """`name(i, n, code, axis, fb...)`: i when 0 <= i < n, else the failure recorded (slot
    UNSIGNED gets `bits`: 1 for an unsigned index, whose 2**63 and up read back as
    themselves). `word`: the type the index is taken as (default: the dialect's index type).
    The test is of the index as a long, and what comes back is that long (an `int` that
    passed: its zero extension, the same value): the access's address is made from it. (An
    `int` index tested in 32 bits and given back an int was not safe: the address
    sign-extends the int, and where the user's arithmetic overflows -- `int i = n * 16` --
    the compiler may compute that sign extension in 64 bits from the operands, as signed
    overflow allows, while the test saw the wrapped 32-bit value: an index the test passed,
    an address it never tested. Test and address now read one value. Against a constant
    extent the compiler may still narrow the test itself: there the index is an opaque value
    where an int arithmetic may have made it, access_check.Check.opaque.)"""
    out = w["long"]
    test = f"({w['ulong']})v >= ({w['ulong']})n"
    template = "" if word else w["template"]     # (a fixed index type: nothing to deduce)
    head = f"{w['fn']} {out} {name}("
    pad = " " * len(head)
    fb = w["fb"].format(pad=pad)
    cond = w["unlikely"].format(test) + w["guard"]
    # An int that passed is in [0, n): its zero extension is v. Zero-extended, the int given
    # back is the one tested even where the compiler narrows the test to 32 bits (a constant
    # extent, a private array's: `(ulong)sext(i) >= 8` is `(uint)i >= 8`) -- the overflowing
    # arithmetic cannot be widened under a zero extension as it can under a sign extension.
    # CUDA's unknown extent (n < 0) tests nothing: the int comes back as itself, negative too.
    back = "v"
    if word == "int":
        back = f"({out})({w['u32']})i" if not w["guard"] else \
            f"n >= 0 ? ({out})({w['u32']})i : v"
    return (f"{template}{head}{word or w['index_type']} i, {w['long']} n, "
            f"{w['code']} code, int axis,\n{pad}{fb}) {{\n"
            f"  {out} v = ({out})i;\n"
            f"  if ({cond}) {{\n"
            f"    {w['fail'].format(bits=bits)}\n"
            f"  }}\n"
            f"  return {back};\n}}")


def opaque_index(dialect: str, helper: str = "", *, pointer: bool = False) -> tuple:
    """(before, after): the text around a checked index (or, `pointer`, CUDA's checked
    pointer) of access_check.Check.opaque, inside its helper's call: a value the compiler
    cannot derive (`__sk_opq`, OpenCL's `__sk_opq32` for `__sk_ix32`'s int, CUDA's
    `__sk_opqp`), so that the test and the address read one value -- the compiler cannot
    narrow the one and widen the other from the user's arithmetic."""
    if pointer:
        return "__sk_opqp(", ")"
    if dialect == "opencl" and helper == "__sk_ix32":
        return "__sk_opq32(", ")"
    return "__sk_opq(", ")"


def opencl_index_test(helper: str, v: str, n: str) -> str:
    """The test `helper` (__sk_ix, __sk_ixu, __sk_ix32) makes of its value `v` (C text, of
    the helper's index type) against `n`, for a precheck (prechecks.py) to make the same:
    each tests the index as a long (an int sign-extended) against n, as unsigned longs."""
    if helper == "__sk_ix32":
        return f"(ulong)(long)({v}) >= (ulong)({n})"
    return f"(ulong)({v}) >= (ulong)({n})"


def _shared(dialect: str) -> dict:
    w = _WORDS[dialect]
    if dialect == "opencl":
        checks = [_index_check(w, "__sk_ix", "0"),
                  "/* An index of type ulong (size_t): slot 11 says so, so 2**63 and up read "
                  "back as\n   themselves (failures.UNSIGNED), not as negative numbers. */",
                  _index_check(w, "__sk_ixu", "1"),
                  _index_check(w, "__sk_ix32", "0", word="int")]
    else:        # templated: the index's own type says whether it is unsigned
        checks = [_index_check(w, "__sk_ix", "(I)-1 > (I)0 ? 1 : 0"),
                  _index_check(w, "__sk_ix32", "0", word="int")]
    return {"record": _record(w), "index_checks": "\n".join(checks + [_OPAQUE[dialect]])}


#: `__sk_opq`: the index of a constant extent's check as a value the compiler cannot derive
#: (opaque_index): CUDA's and NVIDIA OpenCL's an empty asm that claims to change it, a CPU's
#: OpenCL (PoCL) a volatile round trip; another OpenCL device's the value itself.
_OPAQUE = {
    "opencl": """\
/* A constant extent's index as a value the compiler cannot derive from the user's arithmetic:
   the test and the address read this one value (access_check.Check.opaque). */
#if defined(cl_nv_pragma_unroll)
/* NVIDIA's OpenCL (its extension's macro): inline PTX, a 64-bit and a 32-bit register. */
static inline long __sk_opq(long v) { __asm__("" : "+l"(v)); return v; }
static inline int __sk_opq32(int v) { __asm__("" : "+r"(v)); return v; }
#elif defined(__x86_64__) || defined(__aarch64__)
/* A CPU's (PoCL): a volatile private round trip, not an inline asm -- PoCL's kernel compiler
   fails on an inline asm (PoCL 5.0, LLVM 16: an assertion in its passes, CallBase::
   getArgOperand out of bounds, on 85% of the launch fuzzer's kernels). */
static inline long __sk_opq(long v) { volatile long w = v; return w; }
static inline int __sk_opq32(int v) { volatile int w = v; return w; }
#else
static inline long __sk_opq(long v) { return v; }
static inline int __sk_opq32(int v) { return v; }
#endif""",
    "cuda": """\
/* A constant extent's index as a value the compiler cannot derive from the user's arithmetic:
   the test and the address read this one value (access_check.Check.opaque). As the promoted
   type, `+v`: an enum's or a class's index converts to an integer. */
template <typename I>
static __device__ __forceinline__ auto __sk_opq(I v) -> decltype(+v) {
  long long w = (long long)(+v); asm("" : "+l"(w)); return (decltype(+v))w;
}
/* The same for a pointer into such an array that an int arithmetic may have made (`*(p + k)`):
   `__sk_ptr`'s test and the access read this one pointer. */
template <typename T>
static __device__ __forceinline__ T* __sk_opqp(T* p) {
  asm("" : "+l"(p)); return p;
}""",
}


def opencl(*, int64_atomics: bool = True, little_endian: bool = True) -> str:
    """OpenCL C's check helpers (opencl_safety.PRELUDE, the assert and division helpers,
    follow them)."""
    word = 0 if little_endian else 1
    if int64_atomics:
        cas = ("atom_cmpxchg((volatile __global long *)fb, 0L, code) == 0L")
        inc = "atom_inc((volatile __global long *)(fb + 10))"
        ext = "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    else:
        cas = (f"atomic_cmpxchg((volatile __global int *)fb + {word}, 0, (int)code) == 0")
        inc = f"atomic_inc((volatile __global int *)(fb + 10) + {word})"
        ext = ""
    from .loop_versions import OPENCL_PRELUDE as versioned_loops

    return _OPENCL.format(ext=ext, cas=cas, inc=inc, **_shared("opencl")) + versioned_loops


def cuda(barriers: bool) -> str:
    """CUDA C's device code: every checked source starts with it."""
    from .loop_versions import PRELUDE as versioned_loops    # (it imports edits, parse)

    return _CUDA.format(barriers=1 if barriers else 0, skipped=F.SKIPPED,
                        native="assert(__VA_ARGS__)", native_msg="assert(c)",
                        **_shared("cuda")) + versioned_loops


_OPENCL = """\
/* safekern: bounds-check helpers; the user's source follows */
{ext}#ifdef __has_builtin
#if __has_builtin(__builtin_expect)
#define __SK_UNLIKELY(x) __builtin_expect((x) != 0, 0)
#endif
#endif
#ifndef __SK_UNLIKELY
#define __SK_UNLIKELY(x) (x)
#endif
#ifdef __has_attribute
#if __has_attribute(noinline)
#define __SK_COLD __attribute__((noinline))
#endif
#endif
#ifndef __SK_COLD
#define __SK_COLD
#endif
static int __sk_first_item(void) {{
  return get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0;
}}
static int __sk_pending(__global long *fb) {{
  if (*fb == 0) return 0;   /* plain, cacheable: the buffer as the launch found it */
  if (__sk_first_item() && get_group_id(0) == 0 && get_group_id(1) == 0 &&
      get_group_id(2) == 0) {inc};
  return 1;
}}
static __SK_COLD void __sk_fail_bits(__global long *fb, long code, long index, long size,
                                     long axis, long bits) {{
  if ({cas}) {{
{record}
  }}
}}
static __SK_COLD void __sk_fail(__global long *fb, long code, long index, long size,
                                long axis) {{
  __sk_fail_bits(fb, code, index, size, axis, 0);
}}
{index_checks}
static inline long __sk_ixb(long i, long off, long esz, long nb, long code,
                            __global long *fb, __private int *fp) {{
  long pos = off + i * esz;
  /* One unsigned compare of pos (a negative one is huge): as `pos < 0 || pos > nb - esz` the
     compiler rewrote `pos < 0` from an overflowing int index's operands (`-(int)u < -1` as
     `(int)u > 1`) while the other test and the address read the wrapped value. */
  if (__SK_UNLIKELY((ulong)pos > (ulong)(nb - esz) || nb < esz)) {{
    *fp = 1;
    __sk_fail(fb, code, pos >= 0 ? pos / esz : -((esz - 1 - pos) / esz), nb / esz, 0);
    return -(off / esz);
  }}
  return i;
}}
"""


_CUDA = r"""// safekern: bounds checks (generated; the user's source follows at its own line numbers)
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
{record}
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
{index_checks}
// One element at p within [base, base + bytes) (bytes < 0: unchecked).
template <typename T>
static __device__ __forceinline__ T* __sk_ptr(T* p, const volatile void* base, long long bytes,
                                             unsigned long long code, long long* fb) {{
  long long off = (long long)((const volatile char*)p - (const volatile char*)base);
  // (one unsigned compare of off, as OpenCL's __sk_ixb: the compiler may rewrite `off < 0`
  // from an overflowing int index's operands while the address reads the wrapped value)
  if (__builtin_expect((unsigned long long)off > (unsigned long long)(bytes - (long long)sizeof(T))
                       || bytes < (long long)sizeof(T), 0) && bytes >= 0) {{
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

__all__ = ["opencl", "cuda", "opaque_index", "opencl_index_test"]
