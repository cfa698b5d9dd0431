
extern "C" __global__ void shift(const float* a, float* out, int n, int k, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        *__sk_ptr((out + i), out, __sk_bytes_1, 0x27f457e79f3d70e4ULL, __sk_fb) = *__sk_ptr((a + i + k), a, __sk_bytes_0, 0x3cef88d0fa0ef568ULL, __sk_fb);   // @deref
    }
}
