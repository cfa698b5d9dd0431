
struct Particle { float x, y, vx, vy; };
extern "C" __global__ void advance(Particle* p, int n, int stride, float dt, long long __sk_bytes_0, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Particle* q = p + i * stride;
        __sk_ptr(q, p, __sk_bytes_0, 0x275b007bce46c707ULL, __sk_fb)->x += __sk_ptr(q, p, __sk_bytes_0, 0x389ada2f99d8d686ULL, __sk_fb)->vx * dt;   // @arrow
        __sk_ptr(q, p, __sk_bytes_0, 0x57131062d3ac270ULL, __sk_fb)->y += __sk_ptr(q, p, __sk_bytes_0, 0xbbb3565479ebf4cULL, __sk_fb)->vy * dt;
    }
}
