// launch 1 {'items': 96, 'group': 32, 'out': 112, 'a': 96, 'n': 200, 'u': 2147483648, 'w': 1099511627776}: outputs differ
// only when optimised: -cl-opt-disable builds agree (undefined behaviour in the kernel, or a check the optimiser undid)
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk370000518(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    if ((w - get_local_size(0)) >= w) {
        uchar v1 = (get_global_id(0) - 100);
        v1 = (v1 >= TWICE((get_global_id(0) - v1))) ? TWICE((get_global_id(0) - v1)) : v1;
    }
    for (short k1 = 0; k1 < get_local_size(0); k1 <<= 1) {
        if (++guard > 12) break;
        if (acc > 7) k1 += 1;
        short v7 = k1;
        if (!(k1 > v7)) { out[k1 - v7] = 4; }
        for (long k2 = n; k2 < 300; ++k2) {
            if (++guard > 12) break;
            uchar v11 = 31;
            v11 = 100;
        }
    }
    short v15 = (((get_group_id(0) + u) + (get_global_id(0) + get_group_id(0))) >> 3);
    int v16 = (int)u;
    v16 = (v16 * 2);
    long f18 = v16 * n + v15;
    if (v16 <= (100 + get_group_id(0)) && v15 >= 0) acc += a[f18];
    ulong v20 = ((u - (n * get_local_id(0))) + ((16 - v16) + (get_group_id(0) + get_global_size(0))));
    if (acc > 45) v20 += 1;
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 370000518, "name": "lk370000518", "launches": [{"items": 2, "group": 1, "out": 0, "a": 21, "n": 200, "u": 2, "w": 18446744073709551615}, {"items": 96, "group": 32, "out": 112, "a": 96, "n": 200, "u": 2147483648, "w": 1099511627776}]}
