
template <typename T>
__device__ T twice(long long* __sk_fb, unsigned long long __sk_cs, const volatile void* __sk_base_0, long long __sk_bytes_0, const T* p, int i) {
    return (*__sk_ptr((p) + (i), __sk_base_0, __sk_bytes_0, (0x28442a9410d9384ULL ^ __sk_cs), __sk_fb)) + (*__sk_ptr((p) + (i), __sk_base_0, __sk_bytes_0, (0x1670a6a901b7f176ULL ^ __sk_cs), __sk_fb));   // @template_device
}

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n, int off, long long __sk_bytes_1, long long __sk_bytes_2, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return; const long long __sk_n_1 = __sk_count(__sk_bytes_1, (long long)sizeof(*x)); const long long __sk_n_2 = __sk_count(__sk_bytes_2, (long long)sizeof(*y));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[__sk_ix32(i + off, __sk_n_2, 0x38f411d2501c69e8ULL, 0, __sk_fb)] = a * x[__sk_ix32(i, __sk_n_1, 0x2be57edc3e578205ULL, 0, __sk_fb)] + twice(__sk_fb, 0xb0729ULL, (const volatile void*)(y), (long long)(__sk_bytes_2), y, i);   // @template_kernel
    }
}
