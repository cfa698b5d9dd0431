// launch 0 {'items': 96, 'group': 32, 'out': 112, 'a': 1024, 'n': 100, 'u': 2147483648, 'w': 0}: failure with predicates ('BoundsError', 18, 'priv', 8, (3, 0, 0), (0, 0, 0)), checked ('BoundsError', 18, 'priv', 18446743798831644674, (0, 0, 0), (0, 0, 0))
// only when optimised: -cl-opt-disable builds agree (undefined behaviour in the kernel, or a check the optimiser undid)
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk500702257(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    for (int k1 = (int)(u >> 2); k1 <= (n + 3); k1 += get_local_size(0)) {
        if (++guard > 12) break;
        if (acc > 7) k1 += 1;
        out[k1] = 1;
        out[(((get_local_id(0) / 3) % 2) & 3)] = 0;
        acc += priv[(get_global_id(0) - k1)];
    }
    long v7 = (int)u;
    acc += priv[(((64 * (int)u) * 2) + ((get_global_id(0) + get_local_id(0)) + 2))];
    int v9 = (((get_global_id(0) * 16) > (get_local_id(0) + get_local_id(0)) ? v7 : v7) % 16);
    int v10 = ((v7 * 2) * 4);
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 500702257, "name": "lk500702257", "launches": [{"items": 96, "group": 32, "out": 112, "a": 1024, "n": 100, "u": 2147483648, "w": 0}, {"items": 64, "group": 32, "out": 56, "a": 5, "n": 3, "u": 1, "w": 64}]}
