
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cg_scan(const float* in, float* out, int n, int bad, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter_sync(__sk_fb)) return; const long long __sk_n_0 = __sk_count(__sk_bytes_0, (long long)sizeof(*in)); const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*out));
    __shared__ float s[256];
    cg::thread_block block = cg::this_thread_block();
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    s[__sk_ix(t, 256, 0x4c66ede57037859ULL, 0, __sk_fb)] = i < n ? in[__sk_ix(i, __sk_n_0, 0x33b6601d58c818fcULL, 0, __sk_fb)] : 0.0f;
    __sk_cg_sync(block);
    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        float v = t >= d ? s[__sk_ix(t - d, 256, 0x3bb05d876fda6aeaULL, 0, __sk_fb)] : 0.0f;
        if (d == 4 && (int)t == bad) v += in[__sk_ix32(n + 77, __sk_n_0, 0xf7c61a0daf3c2e7ULL, 0, __sk_fb)];   // @cg_fail
        __sk_cg_sync(cg::this_thread_block());
        s[__sk_ix(t, 256, 0x2537a82c0d4cad78ULL, 0, __sk_fb)] += v;
        __sk_cg_sync(block);
    }
    if (i < n) out[__sk_ix(i, __sk_n_1, 0xc90ca2d50ddfbd1ULL, 0, __sk_fb)] = s[__sk_ix(t, 256, 0x5a13dd8e954ab2cULL, 0, __sk_fb)];
}
