// failure with elimination None, with every check (28, 'buf', 6, 0, (0, 0, 0))
// outputs differ: [651660719, -125586759] vs [0, 0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k193(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[6];
    int grid2[4][4];
    for (int t = 0; t < 6; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (short v1 = 2; v1 <= 6; ++v1) {
        if (++guard > 40) break;
        acc += buf[2];
    }
    for (ulong v2 = 2UL; v2 < 10; v2 += 2) {
        if (++guard > 40) break;
        acc += buf[2];
        acc += data[v2 & 15];
        if (acc % 3 == 0) break;
    }
    for (int v3 = 0; v3 <= 1; v3 += 2) {
        if (++guard > 40) break;
        if (acc % 4 == 0) break;
        buf[v3 - 0] = acc + 1;
        if (acc % 2 == 0) continue;
    }
    acc += buf[0];
    for (uint v4 = 2U; v4 <= -2; v4++) {
        if (++guard > 40) break;
        acc += buf[v4];
        acc += buf[v4 - 2];
        buf[1] = acc + 3;
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 193, "name": "k193", "items": 2, "n": 0}
