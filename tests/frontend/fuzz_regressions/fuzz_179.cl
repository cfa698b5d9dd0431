// failure with elimination (17, 'buf', -1, 0, (0, 0, 0)), with every check (15, 'buf', -65532, 0, (0, 0, 0))
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k179(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[8];
    int grid2[4][4];
    for (int t = 0; t < 8; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (uchar v1 = -2; v1 < 6; v1 += 3) {
        if (++guard > 40) break;
        acc += grid2[3][1];
    }
    for (ushort v2 = 65532; v2 <= 65535; v2 += 2) {
        if (++guard > 40) break;
        acc += buf[v2 - 65532];
    }
    acc += buf[-1];
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 179, "name": "k179", "items": 4, "n": 0}
