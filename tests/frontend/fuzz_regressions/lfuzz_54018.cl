// launch 0 {'items': 16, 'group': 16, 'out': 32, 'a': 16, 'n': 1, 'u': 2147483647, 'w': 1099511627776}: failure with predicates ('BoundsError', 10, 'a', -2, (0, 0, 0), (0, 0, 0)), checked ('BoundsError', 10, 'a', 4294967294, (0, 0, 0), (0, 0, 0))
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk54018(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    acc += a[((int)u * 2)];
    for (uint k1 = 1; k1 < u; k1 += get_global_size(0)) {
        if (++guard > 12) break;
        acc += priv[k1];
        for (short k2 = get_global_id(0); k2 < (n + 3); k2 += 2) {
            if (++guard > 12) break;
            out[(k1 + (get_group_id(0) >> 0))] = 1;
        }
        int v8 = w;
    }
    uchar v10 = (n * 4);
    v10 = (((get_global_id(0) + get_global_size(0)) - (get_local_size(0) * v10)) - get_global_id(0));
    if (v10 <= n) {
        int v13 = v10;
        long f14 = v10 * get_local_size(0) + v13;
        if (v10 < v10 && v13 >= 0) acc += a[f14];
        int v16 = ((get_group_id(0) + (get_global_size(0) / 2)) % 16);
        v16 = (n + v10);
        acc += a[get_group_id(0)];
    }
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 54018, "name": "lk54018", "launches": [{"items": 16, "group": 16, "out": 32, "a": 16, "n": 1, "u": 2147483647, "w": 1099511627776}, {"items": 64, "group": 16, "out": 1024, "a": 256, "n": 3, "u": 1, "w": 64}]}
