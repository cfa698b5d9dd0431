
#define TILE 16
extern "C" __global__ void transpose(const float* in, float* out, int n, int pad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*in)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*out));
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) {
        tile[__sk_ix(threadIdx.y, 16, 0x3394621176cd41ecULL, 0, __sk_fb)][__sk_ix(threadIdx.x + pad, 16, 0x312aca94f2d37b48ULL, 1, __sk_fb)] = in[__sk_ix32(y * n + x, __sk_n_0, 0x355cb7d936bf4783ULL, 0, __sk_fb)];   // @shared_axis1
    }
    __sk_sync();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n) {
        out[__sk_ix32(y * n + x, __sk_n_1, 0xbaacbc327125fafULL, 0, __sk_fb)] = tile[__sk_ix(threadIdx.x, 16, 0x1582de646d3a0773ULL, 0, __sk_fb)][__sk_ix(threadIdx.y, 16, 0x9633991be13c9adULL, 1, __sk_fb)];
    }
}
