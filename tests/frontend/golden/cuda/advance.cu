
struct Particle { float x, y, vx, vy; };
extern "C" __global__ void advance(Particle* p, int n, int stride, float dt, long long __sk_bytes_0, long long* __sk_fb) {if (__sk_enter(__sk_fb)) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Particle* q = p + i * stride;
        __sk_ptr(q, p, __sk_bytes_0, 0x3c22b48e749424c6ULL, __sk_fb)->x += __sk_ptr(q, p, __sk_bytes_0, 0x1b838316cf9dee2aULL, __sk_fb)->vx * dt;   // @arrow
        __sk_ptr(q, p, __sk_bytes_0, 0x214932953be1cbdULL, __sk_fb)->y += __sk_ptr(q, p, __sk_bytes_0, 0x10292e1870e031c4ULL, __sk_fb)->vy * dt;
    }
}
