// launch 2 {'items': 2, 'group': 1, 'out': 1, 'a': 34, 'n': 0, 'u': 0, 'w': 2}: failure with predicates ('BoundsError', 26, 'tile', 57, (0, 0, 0), (0, 0, 0)), checked None
// only when optimised: -cl-opt-disable builds agree (undefined behaviour in the kernel, or a check the optimiser undid)
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk254687687(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    for (int k1 = n; k1 <= n; k1 *= 2) {
        if (++guard > 12) break;
        for (long k2 = 2; k2 < get_local_size(0); k2 *= 3) {
            if (++guard > 12) break;
            if (acc > 7) k2 += 1;
            short v5 = get_local_id(0);
            acc += a[(get_local_id(0) + ((k1 - k1) + get_global_id(0)))];
            if (IN_RANGE(v5, get_global_id(0), k1)) return;
        }
        int v9 = (((64 & 3) + (k1 / 1)) - (k1 + (64 % 2)));
        v9 = (v9 > ((ulong)(2))) ? ((ulong)(2)) : v9;
    }
    tile[((get_local_id(0) - (n + get_local_id(0))) / 16)] = 1;
    acc += tile[(15 / 1)] & 0;
    for (uchar k3 = 0; k3 < get_global_size(0); k3++) {
        if (++guard > 12) break;
        tile[(((int)((int)u)) + ((64 + (uchar)a[get_local_id(0) & 3]) - 7))] = 1;
        acc += tile[k3] & 0;
        uint v18 = ((k3 + get_local_id(0)) <= (get_group_id(0) - get_global_id(0)) && k3 > ((uint)(get_global_id(0))) ? ((get_local_size(0) * k3) + get_group_id(0)) : (((long)(w >> 8) + get_global_id(0)) + (get_global_id(0) % 2)));
    }
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 254687687, "name": "lk254687687", "launches": [{"items": 2, "group": 1, "out": 2, "a": 33, "n": 200, "u": 2, "w": 1099511627776}, {"items": 48, "group": 16, "out": 48, "a": 1024, "n": 47, "u": 1, "w": 0}, {"items": 2, "group": 1, "out": 1, "a": 34, "n": 0, "u": 0, "w": 2}, {"items": 32, "group": 32, "out": 48, "a": 32, "n": 33, "u": 1, "w": 1099511627776}]}
