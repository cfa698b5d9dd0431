/* safekern: bounds-check helpers; the user's source follows */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#ifdef __has_builtin
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
static int __sk_first_item(void) {
  return get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0;
}
static int __sk_pending(__global long *fb) {
  if (*fb == 0) return 0;   /* plain, cacheable: the buffer as the launch found it */
  if (__sk_first_item() && get_group_id(0) == 0 && get_group_id(1) == 0 &&
      get_group_id(2) == 0) atom_inc((volatile __global long *)(fb + 10));
  return 1;
}
static __SK_COLD void __sk_fail_bits(__global long *fb, long code, long index, long size,
                                     long axis, long bits) {
  if (atom_cmpxchg((volatile __global long *)fb, 0L, code) == 0L) {
    fb[1] = index; fb[2] = size; fb[3] = axis;
    fb[11] = bits;
    fb[4] = get_local_id(0); fb[5] = get_local_id(1); fb[6] = get_local_id(2);
    fb[7] = get_group_id(0); fb[8] = get_group_id(1); fb[9] = get_group_id(2);
  }
}
static __SK_COLD void __sk_fail(__global long *fb, long code, long index, long size,
                                long axis) {
  __sk_fail_bits(fb, code, index, size, axis, 0);
}
static inline long __sk_ix(long i, long n, long code, int axis,
                           __global long *fb,
                           __private int *fp) {
  long v = (long)i;
  if (__SK_UNLIKELY((ulong)v >= (ulong)n)) {
    *fp = 1; __sk_fail_bits(fb, code, v, n, axis, 0); return 0;
  }
  return v;
}
/* An index of type ulong (size_t): slot 11 says so, so 2**63 and up read back as
   themselves (failures.UNSIGNED), not as negative numbers. */
static inline long __sk_ixu(long i, long n, long code, int axis,
                            __global long *fb,
                            __private int *fp) {
  long v = (long)i;
  if (__SK_UNLIKELY((ulong)v >= (ulong)n)) {
    *fp = 1; __sk_fail_bits(fb, code, v, n, axis, 1); return 0;
  }
  return v;
}
static inline long __sk_ix32(int i, long n, long code, int axis,
                             __global long *fb,
                             __private int *fp) {
  long v = (long)i;
  if (__SK_UNLIKELY((ulong)v >= (ulong)n)) {
    *fp = 1; __sk_fail_bits(fb, code, v, n, axis, 0); return 0;
  }
  return (long)(uint)i;
}
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
#endif
static inline long __sk_ixb(long i, long off, long esz, long nb, long code,
                            __global long *fb, __private int *fp) {
  long pos = off + i * esz;
  /* One unsigned compare of pos (a negative one is huge): as `pos < 0 || pos > nb - esz` the
     compiler rewrote `pos < 0` from an overflowing int index's operands (`-(int)u < -1` as
     `(int)u > 1`) while the other test and the address read the wrapped value. */
  if (__SK_UNLIKELY((ulong)pos > (ulong)(nb - esz) || nb < esz)) {
    *fp = 1;
    __sk_fail(fb, code, pos >= 0 ? pos / esz : -((esz - 1 - pos) / esz), nb / esz, 0);
    return -(off / esz);
  }
  return i;
}

/* (unsigned compares, one a bound: as `a >= 0 && a < n` the compiler may rewrite `a >= 0`
   from an overflowing int index's operands while `a < n` reads the wrapped value) */
static inline int __sk_vok(long a, long b, long n, long top) {
  return n < 0 || (top >= 0 && (ulong)a < (ulong)n && (ulong)b < (ulong)n &&
                   (ulong)a <= (ulong)top && (ulong)b <= (ulong)top);
}
static inline int __sk_vin(long lo, long last, long n) {
  return n < 0 || ((ulong)lo < (ulong)n && (ulong)last < (ulong)n);
}
static inline uint __sk_dm32(uint u, uint last, __private uint *seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static inline ulong __sk_dm64(ulong u, ulong last, __private ulong *seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static inline uint __sk_dc32(uint u, uint last) {
  return u < last ? u : last;
}
static inline ulong __sk_dc64(ulong u, ulong last) {
  return u < last ? u : last;
}
#define __SK_LIKELY(x) __builtin_expect((x) != 0, 1)
#define __SK_ASSERT_OFF(...) ((void)0)
static __SK_COLD void __sk_afail(__global long *fb, __private int *fp, long code,
                                 long v0, long v1, long v2) {
  *fp = 1; __sk_fail(fb, code, v0, v1, v2);
}
static inline int __sk_div_int(int a, int b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a / b;
}
static inline int __sk_mod_int(int a, int b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a % b;
}
static inline int __sk_dvs_int(int b, long a, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) { *fp = 1; __sk_fail(fb, code, a, 0, 0); return 1; }
  return b;
}
static inline uint __sk_div_uint(uint a, uint b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a / b;
}
static inline uint __sk_mod_uint(uint a, uint b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a % b;
}
static inline uint __sk_dvs_uint(uint b, long a, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) { *fp = 1; __sk_fail(fb, code, a, 0, 0); return 1; }
  return b;
}
static inline long __sk_div_long(long a, long b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a / b;
}
static inline long __sk_mod_long(long a, long b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a % b;
}
static inline long __sk_dvs_long(long b, long a, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) { *fp = 1; __sk_fail(fb, code, a, 0, 0); return 1; }
  return b;
}
static inline ulong __sk_div_ulong(ulong a, ulong b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a / b;
}
static inline ulong __sk_mod_ulong(ulong a, ulong b, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) {
    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;
  }
  return a % b;
}
static inline ulong __sk_dvs_ulong(ulong b, long a, long code, __global long *fb, __private int *fp) {
  if (__SK_UNLIKELY(b == 0)) { *fp = 1; __sk_fail(fb, code, a, 0, 0); return 1; }
  return b;
}
#line 1 "lfuzz_543077073.cl"
// launch 0 {'items': 64, 'group': 32, 'out': 512, 'a': 1024, 'n': 64, 'u': 4294967295, 'w': 9223372036854775808}: outputs differ
// launch 2 {'items': 64, 'group': 32, 'out': 1024, 'a': 1024, 'n': 3, 'u': 5, 'w': 9223372036854775808}: outputs differ
// only when optimised: -cl-opt-disable builds agree (undefined behaviour in the kernel, or a check the optimiser undid)
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define WADD(x, y) ((int)((uint)(x) + (uint)(y)))
#define WSUB(x, y) ((int)((uint)(x) - (uint)(y)))
#define WMUL(x, y) ((int)((uint)(x) * (uint)(y)))
#define LADD(x, y) ((long)((ulong)(x) + (ulong)(y)))
#define LSUB(x, y) ((long)((ulong)(x) - (ulong)(y)))
#define LMUL(x, y) ((long)((ulong)(x) * (ulong)(y)))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk543077073(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res, __global long *__sk_fb, long __sk_nb_out, long __sk_nb_a, long __sk_nb_res) { if (__sk_pending(__sk_fb)) return; int __sk_f = 0; __private int *__sk_fp = &__sk_f; const long __sk_n_out = __sk_nb_out / (long)sizeof(*out); const long __sk_n_a = __sk_nb_a / (long)sizeof(*a);
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    int v0 = (((get_group_id(0) + get_global_id(0)) + (get_local_id(0) >> 2)) * 3);
    int xs1 = get_local_id(0) - 2;
    int ys1 = n - 8;
    int lo1 = (ys1 < 0) ? -(ys1) : 0;
    int hi1 = (ys1 + 15 > n - 1) ? 15 - (ys1 + 15 - n - 1) : 15;
    int fl1 = 0;
    for (int it1 = 0; it1 < n; it1++) {
        fl1 = 0;
        if (xs1 >= lo1 && xs1 <= hi1) fl1 = 1;
    }
    if (fl1) { acc += priv[__sk_ix32(__sk_opq32((int)(ys1 + xs1 + 1)), 8L, 0x2399c772dd66c021L, 0, __sk_fb, __sk_fp)]; if (__SK_UNLIKELY(*__sk_fp)) return; }
    for (long k1 = 1; k1 <= get_local_size(0); k1 += 2) {
        if (++guard > 12) break;
        int v13 = (((get_num_groups(0) / 2) / 3) + ((get_group_id(0) + n) >> 2));
        v13 = (((v0) >=(8) &&(v0) <=((get_local_size(0) / 1))) ? (get_local_id(0) * ((long)(w >> 8) - 100)) : (((int)(u >> 8) * 4) + (k1 + 15)));
        for (short k2 = 1; k2 < get_local_size(0); k2 += 100) {
            if (++guard > 12) break;
            uchar v17 = (short)a[0];
            v17 = (v17 < v13) ? v13 : v17;
            ulong v19 = (((k2 * 16) * (v13 & 3)) % 5);
            int v20 = (w + ((get_local_size(0) + (uchar)a[get_local_id(0) & 3]) - v19));
        }
        if (((long)(get_global_id(0))) >= 15) {
            if (v0 != (get_local_id(0) * 3)) {
                if (v0 >= (31 & 15)) return;
                if (v0 >= k1) { acc += tile[v0 - k1] & 0; }
                if (k1 >= v0 && v0 != (get_local_id(0) + get_num_groups(0))) { acc += priv[__sk_ix((long)(k1 - v0), 8L, 0x373eb1ddc92bc799L, 0, __sk_fb, __sk_fp)]; if (__SK_UNLIKELY(*__sk_fp)) return; }
            }
            if (k1 < v0) {
                int lo29 = (v0 < 0) ? -(v0) : 0;
                int hi29 = (v0 + 15 > (int)get_local_size(0)) ? 15 - (v0 + 15 - (int)get_local_size(0)) : 15;
                int fl29 = 0;
                if (k1 <= lo29 && k1 >= hi29) { fl29 = 1; }
                if (fl29) { acc += a[k1 + v0 - 1]; }
                int v34 = (int)u;
                long f35 = k1 * get_local_size(0) + v0;
                if (k1 < min(max((int)(k1), 0), n - 1) && v0 >= 0) { if (__SK_UNLIKELY((ulong)((long)(f35)) >= (ulong)(__sk_n_a))) { __sk_fail_bits(__sk_fb, 0x1d76df848f2d5c35L, (long)(f35), __sk_n_a, 0, 0); return; } acc += a[f35]; }
                acc += a[__sk_ix32((int)(a[get_local_id(0) & 3]), __sk_n_a, 0x31613af12371c8eeL, 0, __sk_fb, __sk_fp)]; if (__SK_UNLIKELY(*__sk_fp)) return;
            }
            uchar v39 = (v13 + (get_global_id(0) * 2));
            v39 = ((WMUL(v13, 2) + (long)(w >> 8)) / 2);
        }
    }
    int v43 = ((get_num_groups(0) / 2) & 3);
    if (acc > 22) v43 += 1;
    if (v43 != get_local_id(0)) {
        for (short k3 = 1; k3 < 300; k3 <<= 1) {
            if (++guard > 12) break;
            acc += a[__sk_ix((long)(((long)(v43))), __sk_n_a, 0x159df29b4ecdb992L, 0, __sk_fb, __sk_fp)]; if (__SK_UNLIKELY(*__sk_fp)) return;
            uint v49 = (short)a[0];
            v49 = ((8 - (31 - v0)) + (get_global_size(0) + get_num_groups(0)));
        }
        for (uchar k4 = (int)(u >> 2); k4 < 16; ++k4) {
            if (++guard > 12) break;
            if (acc > 7) k4 += 1;
            if (k4 >= (get_group_id(0) % 16)) {
                out[(get_global_id(0) * 2)] = 7;
                out[__sk_ixu((long)((((get_group_id(0) + k4) - (v0 + w)) + ((get_global_id(0) & 3) + (0 >> 2)))), __sk_n_out, 0x270f0a58acd85781L, 0, __sk_fb, __sk_fp)] = 1; if (__SK_UNLIKELY(*__sk_fp)) return;
            }
            int v59 = (get_local_id(0) >> 1);
            v59 = (((short)a[0] + 3) + get_local_id(0));
            v59 = (v59 < (get_num_groups(0) & 15)) ? (get_num_groups(0) & 15) : v59;
            out[(int)(u >> 8)] = 3;
        }
    }
    uchar v65 = (a[get_local_id(0) & 3] >> 2);
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 543077073, "name": "lk543077073", "launches": [{"items": 64, "group": 32, "out": 512, "a": 1024, "n": 64, "u": 4294967295, "w": 9223372036854775808}, {"items": 8, "group": 0, "out": 8, "a": 8, "n": 8, "u": 5, "w": 1099511627776}, {"items": 64, "group": 32, "out": 1024, "a": 1024, "n": 3, "u": 5, "w": 9223372036854775808}]}
