// failure with elimination (27, 'buf', -2, 0, (0, 0, 0)), with every check (24, 'grid2', -4294967294, 0, (0, 0, 0))
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k24(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[7];
    int grid2[4][4];
    for (int t = 0; t < 7; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (int v1 = -1; v1 < 2; ++v1) {
        if (++guard > 40) break;
        if (acc > 5) v1++;
    }
    for (short v2 = 0; v2 < 0; v2 += 3) {
        if (++guard > 40) break;
        acc += data[v2 & 15];
        acc += grid2[6][2];
        buf[3] = acc + 4;
    }
    acc += buf[4];
    for (int v3 = -2; v3 <= 6; v3 += 2) {
        if (++guard > 40) break;
        for (uint v4 = 4294967295U; v4 < 4294967298; v4 += 2) {
            if (++guard > 40) break;
            acc += grid2[v4 - 4294967295][1];
            acc += buf[v4 - 4294967295];
        }
        acc += buf[v3];
        buf[v3 + 2] = acc + 4;
    }
    acc += buf[7];
    for (ushort v5 = -1; v5 <= 0; ++v5) {
        if (++guard > 40) break;
        acc += buf[v5 + 1];
        acc += buf[v5];
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 24, "name": "k24", "items": 1, "n": 3}
