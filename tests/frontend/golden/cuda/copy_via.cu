
__device__ float fetch(long long* __sk_fb, unsigned long long __sk_cs, const volatile void* __sk_base_0, long long __sk_bytes_0, const float* p, int i) {
    return (*__sk_ptr((p) + (i), __sk_base_0, __sk_bytes_0, (0x436863b51698015ULL ^ __sk_cs), __sk_fb));   // @device_fn
}

__device__ void put(long long* __sk_fb, unsigned long long __sk_cs, const volatile void* __sk_base_0, long long __sk_bytes_0, float* p, int i, float v) { (*__sk_ptr((p) + (i), __sk_base_0, __sk_bytes_0, (0x1b1d7dca55dc49e7ULL ^ __sk_cs), __sk_fb)) = v; }

extern "C" __global__ void copy_via(const float* src, float* dst, int n, int off, long long __sk_bytes_0, long long __sk_bytes_1, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        put(__sk_fb, 0x29a34ULL, (const volatile void*)(dst), (long long)(__sk_bytes_1), dst, i, fetch(__sk_fb, 0x892d3ULL, (const volatile void*)(src), (long long)(__sk_bytes_0), src, i + off));
    }
}
