// crashed PoCL (a segmentation fault) in both builds at 1cb5f9c: a constant extent's test narrowed to 32 bits, its address widened from the overflowing (int)u * 2 (access_check.Check.opaque)
#define TWICE(x) ((x) * 2)
#define SUM(x, y) ((x) + (y))
#define GID2 (get_global_id(0) * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
__kernel void lk255312649(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
    __local int tile[16];
    int priv[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) priv[t] = t;
    uint v0 = (get_global_id(0) / 2);
    v0 = get_local_id(0);
    v0 = (v0 < v0) ? v0 : v0;
    int xs3 = get_local_id(0) - 2;
    int ys3 = (int)get_group_id(0) * 6 - 3;
    int lo3 = (ys3 < 0) ? -(ys3) : 0;
    int hi3 = (ys3 + 15 > n - 1) ? 15 - (ys3 + 15 - n - 1) : 15;
    int fl3 = 0;
    for (int it3 = 0; it3 < n; it3++) {
        fl3 = 0;
        if (IN_RANGE(xs3, lo3, hi3)) fl3 = 1;
    }
    if (fl3) { acc += a[xs3 + ys3 - 1]; }
    acc += priv[(((get_local_id(0) >> 1) + ((int)u * 2)) + v0)];
    ulong v14 = (get_num_groups(0) - (int)u);
    if (v0 < (get_group_id(0) - v0)) return;
    res[get_global_id(0)] = acc;
}
// FUZZ_LAUNCH_CASE {"seed": 255312649, "name": "lk255312649", "launches": [{"items": 3, "group": 1, "out": 512, "a": 256, "n": 100, "u": 2147483648, "w": 0}, {"items": 32, "group": 16, "out": 32, "a": 256, "n": 33, "u": 5, "w": 2}]}
