
extern "C" __global__ void vote(const int* flags, int* counts, int n, int bad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*flags)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*counts));
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int f = i < n ? flags[__sk_ix32(i, __sk_n_0, 0x177a9f0eccf1b3d8ULL, 0, __sk_fb)] : 0;
    int c = __sk_sync_count(f);
    int all = __sk_sync_and(f);
    if (t == bad) f += flags[__sk_ix32(n + 5, __sk_n_0, 0x2e6aaaba19c8d034ULL, 0, __sk_fb)];   // @vote_fail
    int any = __sk_sync_or(f);
    if (t == 0) {
        counts[__sk_ix(3 * blockIdx.x, __sk_n_1, 0x21094f2016d1698aULL, 0, __sk_fb)] = c;
        counts[__sk_ix(3 * blockIdx.x + 1, __sk_n_1, 0x1c0a8dc09d417317ULL, 0, __sk_fb)] = all;
        counts[__sk_ix(3 * blockIdx.x + 2, __sk_n_1, 0x3a1004007fa5870dULL, 0, __sk_fb)] = any;
    }
}
