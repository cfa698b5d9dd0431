// launch 3 {'items': 2, 'group': 0, 'out': 2, 'a': 256, 'n': 1, 'u': 2147483648, 'w': 2}: outputs differ
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk102777875(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    for (short k1 = get_global_id(0); k1 < 200; k1 += 100) {
        if (++guard > 12) break;
        if (k1 <= 15 && k1 > w) {
            out[get_local_id(0)] = 3;
        }
    }
    short v6 = (((get_group_id(0) * 2) >> 0) - (get_global_id(0) >> 1));
    if (acc > 29) v6 += 1;
    ulong v8 = v6;
    long f9 = v8 * get_local_size(0) + v6;
    if (v8 < (v6 + v8) && v6 >= 0) out[f9] = 2;
    for (long k2 = 1; k2 <= 300; k2 <<= 2) {
        if (++guard > 12) break;
        acc += a[get_global_size(0)];
        long v14 = 2;
        v14 = (v14 > (((uchar)a[get_local_id(0) & 3] + (int)u) * 4)) ? (((uchar)a[get_local_id(0) & 3] + (int)u) * 4) : v14;
        if (v14 <= n && v8 <= v8) return;
    }
    for (short k3 = n; k3 <= u; k3 += 100) {
        if (++guard > 12) break;
        int v20 = (u - ((7 + get_local_id(0)) + n));
        long f21 = v20 * 16 + v6;
        if (v20 < ((long)(get_global_id(0))) && v6 >= 0) out[f21] = 2;
    }
    if (v8 != (get_num_groups(0) - get_local_id(0))) {
        uint v25 = (int)(u >> 8);
        v25 = 64;
        if (acc > 0) v25 += 1;
    }
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 102777875, "name": "lk102777875", "launches": [{"items": 6, "group": 2, "out": 2, "a": 23, "n": 16, "u": 4294967295, "w": 18446744073709551615}, {"items": 16, "group": 4, "out": 1, "a": 30, "n": 1, "u": 5, "w": 9223372036854775808}, {"items": 32, "group": 16, "out": 0, "a": 34, "n": 1, "u": 4294967295, "w": 18446744073709551615}, {"items": 2, "group": 0, "out": 2, "a": 256, "n": 1, "u": 2147483648, "w": 2}]}
