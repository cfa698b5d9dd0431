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
__kernel void lk543077073(__global int *out, __global const int *a, int n, uint u, ulong w, __global int *res) {
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
    if (fl1) { acc += priv[ys1 + xs1 + 1]; }
    for (long k1 = 1; k1 <= get_local_size(0); k1 += 2) {
        if (++guard > 12) break;
        int v13 = (((get_num_groups(0) / 2) / 3) + ((get_group_id(0) + n) >> 2));
        v13 = (IN_RANGE(v0, 8, (get_local_size(0) / 1)) ? (get_local_id(0) * ((long)(w >> 8) - 100)) : (((int)(u >> 8) * 4) + (k1 + 15)));
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
                if (k1 >= v0 && v0 != (get_local_id(0) + get_num_groups(0))) { acc += priv[k1 - v0]; }
            }
            if (k1 < v0) {
                int lo29 = (v0 < 0) ? -(v0) : 0;
                int hi29 = (v0 + 15 > (int)get_local_size(0)) ? 15 - (v0 + 15 - (int)get_local_size(0)) : 15;
                int fl29 = 0;
                if (k1 <= lo29 && k1 >= hi29) { fl29 = 1; }
                if (fl29) { acc += a[k1 + v0 - 1]; }
                int v34 = (int)u;
                long f35 = k1 * get_local_size(0) + v0;
                if (k1 < min(max((int)(k1), 0), n - 1) && v0 >= 0) acc += a[f35];
                acc += a[a[get_local_id(0) & 3]];
            }
            uchar v39 = (v13 + GID2);
            v39 = ((WMUL(v13, 2) + (long)(w >> 8)) / 2);
        }
    }
    int v43 = ((get_num_groups(0) / 2) & 3);
    if (acc > 22) v43 += 1;
    if (v43 != get_local_id(0)) {
        for (short k3 = 1; k3 < 300; k3 <<= 1) {
            if (++guard > 12) break;
            acc += a[((long)(v43))];
            uint v49 = (short)a[0];
            v49 = ((8 - (31 - v0)) + (get_global_size(0) + get_num_groups(0)));
        }
        for (uchar k4 = (int)(u >> 2); k4 < 16; ++k4) {
            if (++guard > 12) break;
            if (acc > 7) k4 += 1;
            if (k4 >= (get_group_id(0) % 16)) {
                out[GID2] = 7;
                out[(((get_group_id(0) + k4) - (v0 + w)) + ((get_global_id(0) & 3) + (0 >> 2)))] = 1;
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
