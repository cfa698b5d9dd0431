#include <stddef.h>
#include <stdio.h>
typedef unsigned int uint; typedef unsigned long ulong; typedef unsigned char uchar; typedef unsigned short ushort;
#define __kernel
#define __global
#define __local
#define __private
static size_t WI_L, WI_G, WI_GR;
static size_t get_local_id(int d) { return d ? 0 : WI_L; }
static size_t get_global_id(int d) { return d ? 0 : WI_G; }
static size_t get_group_id(int d) { return d ? 0 : WI_GR; }
static size_t get_local_size(int d) { return d ? 1 : 32; }
static size_t get_global_size(int d) { return d ? 1 : 64; }
static size_t get_num_groups(int d) { return d ? 1 : 2; }
static long atom_inc(volatile long *p) { return (*p)++; }
static long atom_cmpxchg(volatile long *p, long o, long n) { long v = *p; if (v == o) *p = n; return v; }
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define clamp(x, lo, hi) min(max((x), (lo)), (hi))
