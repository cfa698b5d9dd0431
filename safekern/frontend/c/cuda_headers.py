"""Declarations that let libclang parse CUDA device code without CUDA's own headers.

The libclang wheel ships no headers, and CUDA's headers expect nvcc or clang's CUDA wrapper
headers. safekern only needs the *structure* of the user's code (which expressions index which
pointers or arrays), so it parses with `-x cuda --cuda-device-only -nocudainc` and these small
stand-ins: the CUDA keywords, built-in variables, vector types, and generic declarations of the
atomics, intrinsics and math functions. NVRTC compiles the rewritten source against the real
headers; nothing here reaches the compiled code.

`PARSE_PRELUDE` is included before the user's source (`-include`); `STUB_HEADERS` answer
`#include <cooperative_groups.h>` and friends.
"""
from __future__ import annotations

PRELUDE_NAME = "__safekern_cuda_parse.h"

_FLOAT_MATH = """sqrtf rsqrtf cbrtf rcbrtf expf exp2f exp10f expm1f logf log2f log10f log1pf sinf cosf
tanf asinf acosf atanf atan2f sinhf coshf tanhf asinhf acoshf atanhf powf fabsf floorf ceilf roundf
truncf rintf nearbyintf fminf fmaxf fmodf remainderf remquof fmaf hypotf erff erfcf erfinvf erfcinvf
erfcxf lgammaf tgammaf copysignf fdimf ldexpf frexpf modff scalbnf scalblnf logbf nextafterf
sinpif cospif normf rnormf rhypotf norm3df rnorm3df norm4df rnorm4df j0f j1f jnf y0f y1f ynf
cyl_bessel_i0f cyl_bessel_i1f normcdff normcdfinvf nanf __expf __exp10f __logf __log2f __log10f
__sinf __cosf __tanf __powf __fdividef __frcp_rn __frcp_rz __frcp_ru __frcp_rd __fsqrt_rn
__fsqrt_rz __fsqrt_ru __fsqrt_rd __frsqrt_rn __fadd_rn __fadd_rz __fadd_ru __fadd_rd __fsub_rn
__fsub_rz __fsub_ru __fsub_rd __fmul_rn __fmul_rz __fmul_ru __fmul_rd __fmaf_rn __fmaf_rz
__fmaf_ru __fmaf_rd __fdiv_rn __fdiv_rz __fdiv_ru __fdiv_rd __saturatef __int2float_rn
__int2float_rz __int2float_ru __int2float_rd __uint2float_rn __uint2float_rz __ll2float_rn
__ull2float_rn __int_as_float __uint_as_float __double2float_rn __double2float_rz __fmaf_ieee_rn
__half2float __bfloat162float""".split()

_DOUBLE_MATH = """sqrt rsqrt cbrt rcbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan asin acos
atan atan2 sinh cosh tanh asinh acosh atanh pow fabs floor ceil round trunc rint nearbyint fmin fmax
fmod remainder remquo fma hypot erf erfc erfinv erfcinv erfcx lgamma tgamma copysign fdim ldexp
frexp modf scalbn scalbln logb nextafter sinpi cospi norm rnorm rhypot norm3d rnorm3d norm4d
rnorm4d j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1 normcdf normcdfinv nan __dadd_rn __dadd_rz
__dadd_ru __dadd_rd __dsub_rn __dmul_rn __dmul_rz __dmul_ru __dmul_rd __fma_rn __fma_rz __fma_ru
__fma_rd __ddiv_rn __drcp_rn __dsqrt_rn __longlong_as_double __hiloint2double __int2double_rn
__uint2double_rn __ll2double_rn __ull2double_rn __float2double""".split()

_INT_FUNCS = """__popc __popcll __clz __clzll __ffs __ffsll __float2int_rn __float2int_rz
__float2int_ru __float2int_rd __double2int_rn __double2int_rz __double2int_ru __double2int_rd
__float_as_int __mul24 __mulhi __hadd __rhadd __sad __dp4a __dp2a_lo __dp2a_hi __double2hiint
__double2loint ilogbf ilogb isnan isinf isfinite signbit __isnan __isinf __isnanf __isinff
__finitef __signbitf __signbit __finite __any __all __any_sync __all_sync __uhadd __urhadd""".split()

_UINT_FUNCS = """__brev __byte_perm __funnelshift_l __funnelshift_lc __funnelshift_r
__funnelshift_rc __umul24 __umulhi __usad __float2uint_rn __float2uint_rz __float2uint_ru
__float2uint_rd __double2uint_rn __double2uint_rz __float_as_uint __ballot_sync __ballot
__activemask __lanemask_lt __lanemask_le __lanemask_eq __lanemask_gt __lanemask_ge __match_any_sync
__match_all_sync __reduce_add_sync __reduce_min_sync __reduce_max_sync __reduce_and_sync
__reduce_or_sync __reduce_xor_sync __vabs2 __vabs4 __vadd2 __vadd4 __vsub2 __vsub4 __vmaxu2
__vmaxu4 __vminu2 __vminu4 __vcmpeq2 __vcmpeq4 __smid __nsmid __warpid __laneid""".split()

_LL_FUNCS = """__mul64hi __double_as_longlong __float2ll_rn __float2ll_rz __double2ll_rn
__double2ll_rz llrint llrintf llround llroundf lrint lrintf lround lroundf llabs labs""".split()

_ULL_FUNCS = """__umul64hi __brevll __float2ull_rn __float2ull_rz __double2ull_rn
__double2ull_rz clock64 __globaltimer""".split()

_ATOMICS = """atomicAdd atomicSub atomicExch atomicMin atomicMax atomicAnd atomicOr atomicXor
atomicInc atomicDec""".split()


def _fn_block(ret: str, names) -> str:
    return "\n".join(f"template <class... __A> __device__ {ret} {n}(__A...);" for n in names)


def _atomic_block() -> str:
    out = []
    for base in _ATOMICS:
        for suffix in ("", "_block", "_system"):
            out.append(f"template <class __T, class __U> __device__ __T {base}{suffix}"
                       f"(__T*, __U);")
    for suffix in ("", "_block", "_system"):
        out.append(f"template <class __T, class __U, class __V> __device__ __T atomicCAS{suffix}"
                   "(__T*, __U, __V);")
    return "\n".join(out)


def _vector_block() -> str:
    scalars = [("char", "signed char"), ("uchar", "unsigned char"), ("short", "short"),
               ("ushort", "unsigned short"), ("int", "int"), ("uint", "unsigned int"),
               ("long", "long"), ("ulong", "unsigned long"), ("longlong", "long long"),
               ("ulonglong", "unsigned long long"), ("float", "float"), ("double", "double")]
    fields = ["x", "y", "z", "w"]
    out = []
    for name, ctype in scalars:
        for n in (1, 2, 3, 4):
            members = ", ".join(fields[:n])
            out.append(f"struct {name}{n} {{ {ctype} {members}; }};")
            params = ", ".join(ctype for _ in range(n))
            out.append(f"__host__ __device__ {name}{n} make_{name}{n}({params});")
    return "\n".join(out)


def _unknown_operators() -> str:
    """Operators on the result of a function the stand-ins do not declare."""
    out = []
    for op in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==",
               "!=", "&&", "||"):
        out.append(f"template <class __T> __device__ __sk_unknown operator{op}"
                   f"(__sk_unknown, __T);")
        out.append(f"template <class __T> __device__ __sk_unknown operator{op}"
                   f"(__T, __sk_unknown);")
        out.append(f"__device__ __sk_unknown operator{op}(__sk_unknown, __sk_unknown);")
    for op in ("-", "+", "!", "~"):
        out.append(f"__device__ __sk_unknown operator{op}(__sk_unknown);")
    return "\n".join(out)


def _texture_block() -> str:
    """Texture and surface fetches (CuPy's TextureObject/SurfaceObject): read forms return
    their template argument (`tex1Dfetch<float>(t, i)`), or nothing where the value goes
    through a pointer (`tex2D(&v, t, x, y)`); write forms return nothing."""
    reads = ("tex1Dfetch tex1D tex2D tex3D tex1DLayered tex2DLayered texCubemap "
             "texCubemapLayered tex2Dgather tex1DLod tex2DLod tex3DLod tex1DLayeredLod "
             "tex2DLayeredLod texCubemapLod tex1DGrad tex2DGrad tex3DGrad tex1DLayeredGrad "
             "tex2DLayeredGrad surf1Dread surf2Dread surf3Dread surf1DLayeredread "
             "surf2DLayeredread surfCubemapread surfCubemapLayeredread").split()
    writes = ("surf1Dwrite surf2Dwrite surf3Dwrite surf1DLayeredwrite surf2DLayeredwrite "
              "surfCubemapwrite surfCubemapLayeredwrite").split()
    return "\n".join(
        [f"template <class __T = void, class... __A> __device__ __T {n}(__A...);"
         for n in reads] +
        [f"template <class... __A> __device__ void {n}(__A...);" for n in writes])


PARSE_PRELUDE = f"""\
#pragma clang system_header
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __NVCC__ 1
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __inline_hint__
#define __restrict__ __restrict
#define __grid_constant__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __maxnreg__(n)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define NULL 0
// Asserts as functions, so that the accesses in their condition are the user's own text (a
// function-like macro would make them a macro's expansion); each name is defined as itself so
// that `#ifndef SAFEKERN_ASSERT` fallbacks stay out of the parse (safety.py).
#define assert assert
#define SAFEKERN_ASSERT SAFEKERN_ASSERT
#define SAFEKERN_ASSERT_MSG SAFEKERN_ASSERT_MSG
template <class __T> __host__ __device__ void assert(const __T&);
template <class __T> __host__ __device__ void SAFEKERN_ASSERT(const __T&);
template <class __T, class... __A> __host__ __device__ void SAFEKERN_ASSERT_MSG(const __T&,
    const char*, const __A&...);
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef signed char int8_t; typedef unsigned char uint8_t;
typedef short int16_t; typedef unsigned short uint16_t;
typedef int int32_t; typedef unsigned int uint32_t;
typedef long long int64_t; typedef unsigned long long uint64_t;
{_vector_block()}
struct dim3 {{ unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1);
  __host__ __device__ dim3(uint3 v); __host__ __device__ operator uint3() const; }};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
struct __sk_unknown {{ template <class __T> __device__ operator __T() const;
  template <class __T> __device__ __sk_unknown operator[](__T) const;
  template <class... __A> __device__ __sk_unknown operator()(__A...) const; }};
{_unknown_operators()}
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __barrier_sync(unsigned int);
__device__ void __barrier_sync_count(unsigned int, unsigned int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ void __trap();
__device__ void __brkpt();
__device__ void __nanosleep(unsigned int);
__device__ void __prof_trigger(int);
__device__ long long clock();
typedef long clock_t;
// Texture and surface objects (CuPy's TextureObject/SurfaceObject): handles, and the fetches
// as variadic templates -- `tex1Dfetch<float>(tex, i)` gives its type, the pointer forms
// (`tex2D(&v, tex, x, y)`) return nothing. They read through the handle, not an array.
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode {{ cudaBoundaryModeZero, cudaBoundaryModeClamp,
  cudaBoundaryModeTrap }};
{_texture_block()}
template <class... __A> __device__ int printf(const char*, __A...);
__device__ void* malloc(size_t);
__device__ void free(void*);
__device__ void* memcpy(void*, const void*, size_t);
__device__ void* memset(void*, int, size_t);
template <class __T, class... __A> __device__ __T __shfl_sync(unsigned int, __T, __A...);
template <class __T, class... __A> __device__ __T __shfl_up_sync(unsigned int, __T, __A...);
template <class __T, class... __A> __device__ __T __shfl_down_sync(unsigned int, __T, __A...);
template <class __T, class... __A> __device__ __T __shfl_xor_sync(unsigned int, __T, __A...);
template <class __T, class... __A> __device__ __T __shfl(__T, __A...);
template <class __T, class... __A> __device__ __T __shfl_up(__T, __A...);
template <class __T, class... __A> __device__ __T __shfl_down(__T, __A...);
template <class __T, class... __A> __device__ __T __shfl_xor(__T, __A...);
template <class __T> __device__ __T __ldg(const __T*);
template <class __T> __device__ __T __ldcg(const __T*);
template <class __T> __device__ __T __ldca(const __T*);
template <class __T> __device__ __T __ldcs(const __T*);
template <class __T> __device__ __T __ldlu(const __T*);
template <class __T> __device__ __T __ldcv(const __T*);
template <class __T, class __U> __device__ void __stwb(__T*, __U);
template <class __T, class __U> __device__ void __stcg(__T*, __U);
template <class __T, class __U> __device__ void __stcs(__T*, __U);
template <class __T, class __U> __device__ void __stwt(__T*, __U);
template <class __A, class __B> __device__ decltype(__A() + __B()) min(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) max(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) umin(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) umax(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) llmin(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) llmax(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) ullmin(__A, __B);
template <class __A, class __B> __device__ decltype(__A() + __B()) ullmax(__A, __B);
template <class __A> __device__ __A abs(__A);
template <class... __A> __device__ void sincosf(__A...);
template <class... __A> __device__ void sincos(__A...);
template <class... __A> __device__ void sincospif(__A...);
template <class... __A> __device__ void sincospi(__A...);
template <class... __A> __device__ void __sincosf(__A...);
{_fn_block("float", _FLOAT_MATH)}
{_fn_block("double", _DOUBLE_MATH)}
{_fn_block("int", _INT_FUNCS)}
{_fn_block("unsigned int", _UINT_FUNCS)}
{_fn_block("long long", _LL_FUNCS)}
{_fn_block("unsigned long long", _ULL_FUNCS)}
{_atomic_block()}
"""

_COOPERATIVE_GROUPS = """\
#pragma once
namespace cooperative_groups {
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ void barrier_wait() const;
};
struct grid_group : thread_group {
  __device__ dim3 group_dim() const;
  __device__ dim3 block_index() const;
  __device__ dim3 block_dim() const;
  __device__ unsigned long long block_rank() const;
};
struct cluster_group : thread_group {
  __device__ unsigned int block_rank() const;
  template <class T> __device__ T* map_shared_rank(T*, int) const;
};
struct coalesced_group : thread_group {
  template <class T> __device__ T shfl(T, int) const;
  template <class T> __device__ T shfl_up(T, int) const;
  template <class T> __device__ T shfl_down(T, int) const;
  __device__ int any(int) const;
  __device__ int all(int) const;
  __device__ unsigned int ballot(int) const;
};
template <unsigned int N, class P = void> struct thread_block_tile : coalesced_group {
  template <class T> __device__ T shfl_xor(T, unsigned int) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ cluster_group this_cluster();
__device__ coalesced_group coalesced_threads();
__device__ thread_group tiled_partition(const thread_group&, unsigned int);
template <unsigned int N, class P> __device__ thread_block_tile<N, P> tiled_partition(const P&);
template <class G> __device__ void sync(const G&);
template <class T> struct plus { __device__ T operator()(T, T) const; };
template <class T> struct less { __device__ T operator()(T, T) const; };
template <class T> struct greater { __device__ T operator()(T, T) const; };
template <class T> struct bit_and { __device__ T operator()(T, T) const; };
template <class T> struct bit_or { __device__ T operator()(T, T) const; };
template <class T> struct bit_xor { __device__ T operator()(T, T) const; };
template <class G, class T, class Op> __device__ T reduce(const G&, T, Op);
template <class G, class T, class Op> __device__ T inclusive_scan(const G&, T, Op);
template <class G, class T, class Op> __device__ T exclusive_scan(const G&, T, Op);
template <class G, class T> __device__ T inclusive_scan(const G&, T);
template <class G, class T> __device__ T exclusive_scan(const G&, T);
template <class... A> __device__ void memcpy_async(A...);
template <class G> __device__ void wait(const G&);
}
"""

_HALF = """\
#pragma once
struct __half { unsigned short __x; __device__ __half(); __device__ __half(float);
  __device__ __half(double); __device__ __half(int); __device__ operator float() const; };
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
template <class... A> __device__ __half __float2half(A...);
template <class... A> __device__ __half __float2half_rn(A...);
template <class... A> __device__ __half __int2half_rn(A...);
template <class... A> __device__ __half2 __floats2half2_rn(A...);
template <class... A> __device__ __half2 __float2half2_rn(A...);
template <class... A> __device__ __half2 __halves2half2(A...);
template <class... A> __device__ __half __hadd(A...);
template <class... A> __device__ __half __hsub(A...);
template <class... A> __device__ __half __hmul(A...);
template <class... A> __device__ __half __hdiv(A...);
template <class... A> __device__ __half __hfma(A...);
template <class... A> __device__ __half __hneg(A...);
template <class... A> __device__ __half __habs(A...);
template <class... A> __device__ __half __hmax(A...);
template <class... A> __device__ __half __hmin(A...);
template <class... A> __device__ __half2 __hadd2(A...);
template <class... A> __device__ __half2 __hmul2(A...);
template <class... A> __device__ __half2 __hfma2(A...);
template <class... A> __device__ __half __low2half(A...);
template <class... A> __device__ __half __high2half(A...);
template <class... A> __device__ float __low2float(A...);
template <class... A> __device__ float __high2float(A...);
template <class... A> __device__ bool __hlt(A...);
template <class... A> __device__ bool __hgt(A...);
template <class... A> __device__ bool __heq(A...);
template <class... A> __device__ bool __hisnan(A...);
template <class... A> __device__ __half hsqrt(A...);
template <class... A> __device__ __half hexp(A...);
template <class... A> __device__ __half hlog(A...);
"""

_BF16 = """\
#pragma once
struct __nv_bfloat16 { unsigned short __x; __device__ __nv_bfloat16();
  __device__ __nv_bfloat16(float); __device__ __nv_bfloat16(double);
  __device__ operator float() const; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
template <class... A> __device__ __nv_bfloat16 __float2bfloat16(A...);
template <class... A> __device__ __nv_bfloat16 __float2bfloat16_rn(A...);
template <class... A> __device__ __nv_bfloat162 __floats2bfloat162_rn(A...);
"""

_LIMITS = """\
#pragma once
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-9223372036854775807LL - 1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
"""

_FLOAT_H = """\
#pragma once
#define FLT_MAX 3.402823466e+38F
#define FLT_MIN 1.175494351e-38F
#define FLT_EPSILON 1.192092896e-07F
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-016
"""

_MATH_CONSTANTS = """\
#pragma once
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_MAX_NORMAL_F 3.40282347e+38f
"""

_NUMERIC_LIMITS = """\
#pragma once
namespace std {
template <class T> struct numeric_limits {
  __host__ __device__ static constexpr T min() { return T(); }
  __host__ __device__ static constexpr T max() { return T(); }
  __host__ __device__ static constexpr T lowest() { return T(); }
  __host__ __device__ static constexpr T epsilon() { return T(); }
  __host__ __device__ static constexpr T infinity() { return T(); }
  __host__ __device__ static constexpr T quiet_NaN() { return T(); }
  static constexpr int digits = 0;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = true;
};
}
namespace cuda { namespace std { using ::std::numeric_limits; } }
"""

_TYPE_TRAITS = """\
#pragma once
namespace std {
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };
template <class T> struct is_floating_point { static constexpr bool value = false; };
template <> struct is_floating_point<float> { static constexpr bool value = true; };
template <> struct is_floating_point<double> { static constexpr bool value = true; };
template <class T> struct is_integral { static constexpr bool value = !is_floating_point<T>::value; };
template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <class T> __host__ __device__ T&& declval();
template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b);
template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b);
template <class T> __host__ __device__ void swap(T&, T&);
}
namespace cuda { namespace std { using namespace ::std; } }
"""

_EMPTY = "#pragma once\n"

#: header name -> stand-in text, for libclang only.
STUB_HEADERS: dict[str, str] = {
    "cooperative_groups.h": _COOPERATIVE_GROUPS,
    "cooperative_groups/reduce.h": "#pragma once\n#include <cooperative_groups.h>\n",
    "cooperative_groups/scan.h": "#pragma once\n#include <cooperative_groups.h>\n",
    "cooperative_groups/memcpy_async.h": "#pragma once\n#include <cooperative_groups.h>\n",
    "cuda_fp16.h": _HALF,
    "cuda_fp16.hpp": _HALF,
    "cuda_bf16.h": _BF16,
    "cuda_bf16.hpp": _BF16,
    "math_constants.h": _MATH_CONSTANTS,
    "limits.h": _LIMITS, "climits": _LIMITS, "cuda/std/climits": _LIMITS,
    "float.h": _FLOAT_H, "cfloat": _FLOAT_H, "cuda/std/cfloat": _FLOAT_H,
    "limits": _NUMERIC_LIMITS, "cuda/std/limits": _NUMERIC_LIMITS,
    "type_traits": _TYPE_TRAITS, "cuda/std/type_traits": _TYPE_TRAITS,
    "utility": _TYPE_TRAITS, "cuda/std/utility": _TYPE_TRAITS,
    "algorithm": _TYPE_TRAITS,
}
for _name in ("cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_functions.h",
              "device_launch_parameters.h", "sm_20_atomic_functions.h", "sm_60_atomic_functions.h",
              "math.h", "cmath", "stdint.h", "cstdint", "stddef.h", "cstddef", "stdio.h", "cstdio",
              "assert.h", "cassert", "stdlib.h", "cstdlib", "string.h", "cstring",
              "cuda/std/cstdint", "cuda/std/cstddef", "cuda/std/cmath", "vector_types.h",
              "vector_functions.h", "builtin_types.h", "crt/host_defines.h", "host_defines.h"):
    STUB_HEADERS[_name] = _EMPTY


def parse_headers() -> list[tuple[str, str]]:
    """(name, text) pairs for clang.parse(headers=...)."""
    return [(PRELUDE_NAME, PARSE_PRELUDE)] + sorted(STUB_HEADERS.items())


def unknown_function_decl(name: str) -> str:
    """A declaration that accepts any call of a function the stand-ins do not know."""
    return f"template <class... __A> __device__ __sk_unknown {name}(__A&&...);"


__all__ = ["PRELUDE_NAME", "PARSE_PRELUDE", "STUB_HEADERS", "parse_headers",
           "unknown_function_decl"]
