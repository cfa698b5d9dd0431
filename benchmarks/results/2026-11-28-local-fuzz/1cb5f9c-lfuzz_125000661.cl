// launch 1 {'items': 64, 'group': 32, 'out': 64, 'a': 64, 'n': 3, 'u': 2147483648, 'w': 64}: failure with predicates ('BoundsError', 16, 'a', 496, (0, 0, 0), (1, 0, 0)), checked None
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk125000661(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    for (uint k1 = 0; k1 < 300; k1 *= 2) {
        if (++guard > 12) break;
        if (k1 > (k1 * 2)) return;
        if ((get_group_id(0) % 2) <= ((int)u * 16)) return;
        int v4 = (IN_RANGE(k1, (short)a[0], (get_global_id(0) * 1)) && k1 < (long)(w >> 8) && k1 <= max((int)(100), (int)(u)) ? (k1 / 1) : ((get_global_id(0) & 15) + get_group_id(0)));
    }
    acc += a[((get_global_id(0) * (get_global_id(0) % 2)) + (((short)(31)) * 16))];
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 125000661, "name": "lk125000661", "launches": [{"items": 2, "group": 2, "out": 18, "a": 1024, "n": 0, "u": 2147483648, "w": 0}, {"items": 64, "group": 32, "out": 64, "a": 64, "n": 3, "u": 2147483648, "w": 64}, {"items": 32, "group": 0, "out": 15, "a": 32, "n": 200, "u": 2147483647, "w": 0}]}
