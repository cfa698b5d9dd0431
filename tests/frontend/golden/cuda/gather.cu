
extern "C" __global__ void gather(float* out, const float* src, const int* idx, int n, long long __sk_bytes_0, long long __sk_bytes_1, long long __sk_bytes_2, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*out)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*src)); const long long __sk_n_2 = __sk_count(__sk_bytes_2, (long long)sizeof(*idx));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[__sk_ix32(i, __sk_n_0, 0x36eefea5d0b4ac0cULL, 0, __sk_fb)] = src[__sk_ix32(idx[__sk_ix32(i, __sk_n_2, 0x34c2c9b95f1b01aaULL, 0, __sk_fb)], __sk_n_1, 0x1983cdaf3eacc3bbULL, 0, __sk_fb)];   // @gather
    }
}
