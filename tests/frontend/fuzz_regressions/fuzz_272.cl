// failure with elimination None, with every check (14, 'buf', -253, 0, (0, 0, 0))
// outputs differ: [-604514948] vs [0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k272(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[5];
    int grid2[4][4];
    for (int t = 0; t < 5; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (uchar v1 = 1; v1 < 6; v1 += 2) {
        if (++guard > 40) break;
        bump(&v1);
        for (char v2 = 125; v2 <= 127; ++v2) {
            if (++guard > 40) break;
            acc += buf[v2 - 125];
            acc += data[v2 - 125 & 15];
        }
        v1 += 1;
    }
    for (short v3 = 32765; v3 < 0; v3 += 2) {
        if (++guard > 40) break;
        acc += buf[v3 - 32765];
        acc += buf[v3 - 32765];
        acc += grid2[v3 - 32765][2];
    }
    for (short v4 = 0; v4 < 7; ++v4) {
        if (++guard > 40) break;
        acc += buf[v4 - 0];
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 272, "name": "k272", "items": 1, "n": 2}
