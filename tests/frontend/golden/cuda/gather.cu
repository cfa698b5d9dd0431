
extern "C" __global__ void gather(float* out, const float* src, const int* idx, int n, long long __sk_bytes_0, long long __sk_bytes_1, long long __sk_bytes_2, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*out)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*src)); const long long __sk_n_2 = __sk_count(__sk_bytes_2, (long long)sizeof(*idx));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[__sk_ix32(i, __sk_n_0, 0x2547eeaed8d4cce1ULL, 0, __sk_fb)] = src[__sk_ix32(idx[__sk_ix32(i, __sk_n_2, 0x1a4a3ca226847ecULL, 0, __sk_fb)], __sk_n_1, 0x1b728e8fe7c375bfULL, 0, __sk_fb)];   // @gather
    }
}
