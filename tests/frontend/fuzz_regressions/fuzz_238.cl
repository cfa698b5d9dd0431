// failure with elimination None, with every check (11, 'buf', -255, 0, (0, 0, 0))
// outputs differ: [-595185776, 1512388161, -1239317559] vs [0, 0, 0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k238(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[8];
    int grid2[4][4];
    for (int t = 0; t < 8; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (uchar v1 = 255; v1 <= 256; v1++) {
        if (++guard > 40) break;
        acc += buf[v1 - 255];
    }
    acc += buf[5];
    for (int v2 = 3; v2 < 7; ++v2) {
        if (++guard > 40) break;
        acc += buf[v2 - 3];
        acc += buf[v2];
    }
    for (int v3 = 2; v3 < 3; v3 += 2) {
        if (++guard > 40) break;
        acc += buf[v3 - 2];
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 238, "name": "k238", "items": 3, "n": 3}
