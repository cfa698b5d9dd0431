// failure with elimination None, with every check (11, 'grid2', -253, 0, (0, 0, 0))
// outputs differ: [1751346524, 1345082496, -127766869, -942616071] vs [0, 0, 0, 0]
#define bump(p) (*(p) += 1)      /* writes the loop variable */
__kernel void k183(__global int *out, __global const int *data, int n) {
    int gid = get_global_id(0);
    int acc = gid, guard = 0;
    int buf[2];
    int grid2[4][4];
    for (int t = 0; t < 2; t++) buf[t] = 3 * t + gid;
    for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;
    for (char v1 = 126; v1 < 127; v1 += 3) {
        if (++guard > 40) break;
        acc += grid2[v1 - 126][1];
        acc += data[-1 & 15];
        buf[v1 - 126] = acc + 5;
    }
    out[gid] = acc;
}
// FUZZ_CASE {"seed": 183, "name": "k183", "items": 4, "n": 3}
