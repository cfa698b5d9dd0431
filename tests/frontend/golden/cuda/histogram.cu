
extern "C" __global__ void histogram(const int* values, unsigned int* hist, int n, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*values)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*hist));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&hist[__sk_ix32(values[__sk_ix32(i, __sk_n_0, 0x23545495c842f5f8ULL, 0, __sk_fb)], __sk_n_1, 0x44838a90898e711ULL, 0, __sk_fb)], 1u);   // @atomic
    }
}
