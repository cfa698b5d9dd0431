# elimination soundness probes: each kernel has a real OOB access; expect BoundsError
import numpy as np, warnings
from numba import cuda, float32
import safekern
warnings.simplefilter("ignore")
exec(open("/work/helper_numba/probes/p2.py").read().split("def transpose_oob")[0].split("warnings.simplefilter(\"ignore\")")[1])

def rebound_array(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a = b
        out[i] = a[i]
expect(rebound_array, lambda k, x: k[1, 8](*x), lambda: [np.zeros(8), np.zeros(8), np.zeros(3)])

def rebound_array_tuple(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a, b = b, a
        out[i] = a[i]
expect(rebound_array_tuple, lambda k, x: k[1, 8](*x), lambda: [np.zeros(8), np.zeros(8), np.zeros(3)])

def rebound_in_loop(out, a, b):
    i = cuda.grid(1)
    n = a.shape[0]
    for r in range(2):
        if i < n:
            out[i] += a[i]
        a = b
expect(rebound_in_loop, lambda k, x: k[1, 8](*x), lambda: [np.zeros(8), np.zeros(8), np.zeros(3)])

def shape_of_other(out, a):
    i = cuda.grid(1)
    m = out.shape
    if i < m[0]:
        out[i] = a[i]
expect(shape_of_other, lambda k, x: k[1, 8](*x), lambda: [np.zeros(8), np.zeros(3)])

def while_modify(out, a):
    i = cuda.grid(1)
    j = i
    while j < a.shape[0]:
        j += 3
        out[i] = a[j]
expect(while_modify, lambda k, x: k[1, 8](*x), lambda: [np.zeros(8), np.zeros(8)])

def loopvar_modified(out, a):
    i = cuda.grid(1)
    if i < 1:
        for k in range(a.shape[0]):
            k += 1
            out[0] += a[k]
expect(loopvar_modified, lambda k, x: k[1, 8](*x), lambda: [np.zeros(1), np.zeros(4)])

def nested_func_modifies(out, a):
    i = cuda.grid(1)
    def bump():
        nonlocal i
        i = i + 1
    if i < a.shape[0]:
        bump()
        out[0] = a[i]
expect(nested_func_modifies, lambda k, x: k[1, 8](*x), lambda: [np.zeros(1), np.zeros(4)])

def aug_in_condition_chain(out, a):
    i = cuda.grid(1)
    if 0 <= i < a.shape[0] and (i := i + 1) > 0:
        out[0] = a[i]
expect(aug_in_condition_chain, lambda k, x: k[1, 8](*x), lambda: [np.zeros(1), np.zeros(4)])

def float_guard(out, a, x):
    i = cuda.grid(1)
    if i < x:
        out[i] = a[i]
expect(float_guard, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(8), 8.5])

def scalar_param_launch(out, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i]
expect(scalar_param_launch, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(8), np.int8(9)], "(n=int8(9))")
expect(scalar_param_launch, lambda k, v: k[1, 16](*v), lambda: [np.zeros(16), np.zeros(16), True], "(n=True; fine)")
expect(scalar_param_launch, lambda k, v: k[1, 16](*v), lambda: [np.zeros(16), np.zeros(8), np.uint64(9)], "(n=uint64(9))")

def stride_loop_shape_other(out, a):
    start = cuda.grid(1); stride = cuda.gridsize(1)
    for i in range(start, out.shape[0], stride):
        out[i] = a[i]
expect(stride_loop_shape_other, lambda k, v: k[2, 4](*v), lambda: [np.zeros(20), np.zeros(19)])

def kept_bounds_bad(out, a):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s + 1]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[0] = sm[0]
expect(kept_bounds_bad, lambda k, v: k[1, 64](*v), lambda: [np.zeros(1, np.float32), np.ones(64, np.float32)])

def min_max_shadow(out, a, n):
    i = cuda.grid(1)
    j = min(i, n)
    if i < out.shape[0]:
        out[i] = a[j]
expect(min_max_shadow, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(5), 5])

def mod_negative(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[(i - 20) % a.shape[0] - 4]
expect(mod_negative, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(3)], "(x % 3 - 4 -> -4..-2, -4 invalid)")

def shift_mask(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[(i * 7) & 15]
expect(shift_mask, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(15)])

def cond_expr_idx(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i + 1 if i < 7 else 0]
expect(cond_expr_idx, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(7)])

def flag_rule(out, a, b):
    i = cuda.grid(1)
    ok = False
    if i < a.shape[0]:
        ok = True
    if i < 2:
        ok = True
    if ok:
        out[i] = a[i]
expect(flag_rule, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(1), np.zeros(1)])

def flag_rule2(out, a):
    i = cuda.grid(1)
    computed = False
    if i < a.shape[0]:
        computed = True
    i += 1
    if computed:
        out[i - 1] = a[i]
expect(flag_rule2, lambda k, v: k[1, 8](*v), lambda: [np.zeros(9), np.zeros(4)])

def bool_def(out, a):
    i = cuda.grid(1)
    ok = i < a.shape[0]
    i = i + 1
    if ok:
        out[i] = a[i]
expect(bool_def, lambda k, v: k[1, 8](*v), lambda: [np.zeros(9), np.zeros(4)])

def early_exit_fallthrough(out, a):
    i = cuda.grid(1)
    if i >= a.shape[0]:
        if i > 100:
            return
    out[i] = a[i]
expect(early_exit_fallthrough, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(4)])

def not_equal_rule(out, a):
    i = cuda.grid(1)
    if i != a.shape[0]:
        if i < 6:
            out[i] = a[i]
expect(not_equal_rule, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(4)])
