
#define TILE 16
extern "C" __global__ void transpose(const float* in, float* out, int n, int pad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*in)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*out));
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) {
        tile[__sk_ix(threadIdx.y, 16, 0x1b4131185b156228ULL, 0, __sk_fb)][__sk_ix(threadIdx.x + pad, 16, 0xa049fd5ad9b09feULL, 1, __sk_fb)] = in[__sk_ix32(y * n + x, __sk_n_0, 0x2f0b87708e7b084dULL, 0, __sk_fb)];   // @shared_axis1
    }
    __sk_sync();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n) {
        out[__sk_ix32(y * n + x, __sk_n_1, 0x391b928be9514a72ULL, 0, __sk_fb)] = tile[__sk_ix(threadIdx.x, 16, 0x2d487a444503b378ULL, 0, __sk_fb)][__sk_ix(threadIdx.y, 16, 0x3240b532f6b6386ULL, 1, __sk_fb)];
    }
}
