
extern "C" __global__ void vote(const int* flags, int* counts, int n, int bad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*flags)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*counts));
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int f = i < n ? flags[__sk_ix32(i, __sk_n_0, 0x3782434a790eec0cULL, 0, __sk_fb)] : 0;
    int c = __sk_sync_count(f);
    int all = __sk_sync_and(f);
    if (t == bad) f += flags[__sk_ix32(n + 5, __sk_n_0, 0x4df99c7b4988170ULL, 0, __sk_fb)];   // @vote_fail
    int any = __sk_sync_or(f);
    if (t == 0) {
        counts[__sk_ix(3 * blockIdx.x, __sk_n_1, 0x287bba27cf2d9da0ULL, 0, __sk_fb)] = c;
        counts[__sk_ix(3 * blockIdx.x + 1, __sk_n_1, 0x37acbc3b683ecff6ULL, 0, __sk_fb)] = all;
        counts[__sk_ix(3 * blockIdx.x + 2, __sk_n_1, 0x2589fe239d39bd92ULL, 0, __sk_fb)] = any;
    }
}
