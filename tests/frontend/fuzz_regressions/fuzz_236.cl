// failure with elimination None, with every check (18, 'buf', -253, 0, (0, 0, 0))
// outputs differ: [-1686661517] vs [0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k236(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[7];
    int grid2[4][4];
    for (int t = 0; t < 7; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (ulong v1 = 3UL; v1 < 8; v1 += 3) {
        if (++guard > 40) break;
        acc += buf[v1 - 3];
        acc += grid2[v1 - 3][2];
        for (int v2 = 0; v2 < 7; ++v2) {
            if (++guard > 40) break;
            for (uchar v3 = 255; v3 < 256; v3 += 3) {
                if (++guard > 40) break;
                acc += data[v3 - 255 & 15];
                acc += buf[v3 - 255];
                acc += data[v3 - 255 & 15];
            }
        }
    }
    for (short v4 = 0; v4 < 6; v4 += 3) {
        if (++guard > 40) break;
        if (acc % 4 == 0) continue;
        acc += buf[1];
    }
    for (int v5 = 0; v5 < 0; v5 += 3) {
        if (++guard > 40) break;
        for (int v6 = 0; v6 < 0; v6 += 3) {
            if (++guard > 40) break;
            if (acc % 4 == 0) continue;
        }
        if (acc % 4 == 0) break;
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 236, "name": "k236", "items": 1, "n": 2}
