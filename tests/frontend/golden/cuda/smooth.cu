
extern "C" __global__ void smooth(const float* in, float* out, int n, int steps, int bad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*in)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*out));
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = in[__sk_ix32(i < n ? i : 0, __sk_n_0, 0x6377c926fe5c546ULL, 0, __sk_fb)];
    for (int step = 0; step < steps; ++step) {
        s[__sk_ix32(t, 256, 0x23f643b0c8abc4dcULL, 0, __sk_fb)] = v;
        __sk_sync();
        float left = t > 0 ? s[__sk_ix32(__sk_opq(t - 1), 256, 0xce5ba64a88ff035ULL, 0, __sk_fb)] : v;
        float right = t + 1 < blockDim.x ? s[__sk_ix32(__sk_opq(t + 1), 256, 0x9077bf1bbddd4c4ULL, 0, __sk_fb)] : v;
        if (step == 1 && t == bad) left = in[__sk_ix32(n + t, __sk_n_0, 0x131555883aaeb9bcULL, 0, __sk_fb)];   // @loop_fail
        __sk_sync();
        v = 0.25f * left + 0.5f * v + 0.25f * right;
    }
    if (i < n) out[__sk_ix32(i, __sk_n_1, 0x3fba4eb613b2b498ULL, 0, __sk_fb)] = v;
}
