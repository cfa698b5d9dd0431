// failure with elimination None, with every check (11, 'buf', -65535, 0, (0, 0, 0))
// outputs differ: [0, 2] vs [0, 0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k235(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[4];
    int grid2[4][4];
    for (int t = 0; t < 4; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (ushort v1 = 65535; v1 < 65536; ++v1) {
        if (++guard > 40) break;
        acc += buf[v1 - 65535];
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 235, "name": "k235", "items": 2, "n": 0}
