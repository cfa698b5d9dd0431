
extern "C" __global__ void smooth(const float* in, float* out, int n, int steps, int bad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*in)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*out));
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = in[__sk_ix32(i < n ? i : 0, __sk_n_0, 0x28a17e6c766493aeULL, 0, __sk_fb)];
    for (int step = 0; step < steps; ++step) {
        s[__sk_ix32(t, 256, 0x285cfdd5cd2bfa7fULL, 0, __sk_fb)] = v;
        __sk_sync();
        float left = t > 0 ? s[__sk_ix32(__sk_opq(t - 1), 256, 0x328a338bf062815eULL, 0, __sk_fb)] : v;
        float right = t + 1 < blockDim.x ? s[__sk_ix32(__sk_opq(t + 1), 256, 0x28ab59b2c095ba5dULL, 0, __sk_fb)] : v;
        if (step == 1 && t == bad) left = in[__sk_ix32(n + t, __sk_n_0, 0x227033db8481365dULL, 0, __sk_fb)];   // @loop_fail
        __sk_sync();
        v = 0.25f * left + 0.5f * v + 0.25f * right;
    }
    if (i < n) out[__sk_ix32(i, __sk_n_1, 0x2881705ea5b12184ULL, 0, __sk_fb)] = v;
}
