"""An `int` index (opencl_edits.index_helper, the prelude's __sk_ix32) is tested as the long
it is sign-extended to, the value its address is made from: the same test as __sk_ix's for
every extent and index, run here on the device itself over the boundary values; an int index
out of bounds, negative included, is reported with its own value through a checked kernel; and
an index whose int arithmetic overflows (undefined in C: the compiler may compute the address
from the operands in 64 bits) is reported, not let through to an address its test never saw
(a segmentation fault on PoCL, the differential fuzzer's seed 6125143)."""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
import safekern.opencl as skcl
from safekern.frontend.c import opencl as opencl_front
from safekern.frontend.c import prelude

pytestmark = pytest.mark.timeout(120, method="thread")

BIG = 2 ** 31
EXTENTS = [0, 1, 2, 5, BIG - 1, BIG, BIG + 1, 2 ** 32, 2 ** 32 + 7, 2 ** 62]
INDEXES = [-BIG, -BIG + 1, -5, -1, 0, 1, 4, 5, 6, BIG - 2, BIG - 1]

PROBE = """
__kernel void probe(__global const int *is, __global const long *ns, int ni,
                    __global int *f32, __global int *f64, __global long *fb) {
    int g = get_global_id(0);
    int i = is[g % ni];
    long n = ns[g / ni];
    int f = 0;
    long r = __sk_ix32(i, n, 1L, 0, fb, &f);
    f32[g] = f ? 1 : (r == i ? 0 : 2);
    f = 0;
    __sk_ix((long)i, n, 1L, 0, fb, &f);
    f64[g] = f;
}
"""


def test_the_int_test_is_the_long_one(clenv):
    import pyopencl as cl

    prg = cl.Program(clenv.ctx, prelude.opencl() + PROBE).build()
    q = clenv.queue
    mf = cl.mem_flags
    count = len(INDEXES) * len(EXTENTS)
    is_ = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                    hostbuf=np.array(INDEXES, np.int32))
    ns = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                   hostbuf=np.array(EXTENTS, np.int64))
    f32, f64 = (cl.Buffer(clenv.ctx, mf.WRITE_ONLY, 4 * count) for _ in range(2))
    fb = cl.Buffer(clenv.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(16, np.int64))
    prg.probe(q, (count,), None, is_, ns, np.int32(len(INDEXES)), f32, f64, fb)
    got32, got64 = np.empty(count, np.int32), np.empty(count, np.int32)
    cl.enqueue_copy(q, got32, f32)
    cl.enqueue_copy(q, got64, f64)
    want = [int(not 0 <= i < n) for n in EXTENTS for i in INDEXES]
    assert got64.tolist() == want
    assert got32.tolist() == want       # (2: an index in bounds that came back changed)


def test_an_int_index_goes_through_the_int_check():
    text = opencl_front.rewrite("__kernel void k(__global float *a, int i, long j, uint u) {\n"
                                "    a[i] = a[j] + a[u];\n}\n", filename="k.cl").source
    body = text[text.rfind("#line 1"):]
    # (private scalars: each is tested before the statement, by its helper's own test)
    assert "if (__SK_UNLIKELY((ulong)(long)((int)(i)) >= (ulong)(__sk_n_a))) {" in body
    assert "if (__SK_UNLIKELY((ulong)((long)(j)) >= (ulong)(__sk_n_a))) {" in body
    assert "if (__SK_UNLIKELY((ulong)((long)(u)) >= (ulong)(__sk_n_a))) {" in body
    text = opencl_front.rewrite("__kernel void k(__global float *a, int i, long j, uint u) {\n"
                                "    a[i + 1] = a[j + 1] + a[u + 1];\n}\n", filename="k.cl").source
    body = text[text.rfind("#line 1"):]
    assert "a[__sk_ix32((int)(i + 1)," in body
    assert "a[__sk_ix((long)(j + 1)," in body and "a[__sk_ix((long)(u + 1)," in body


SOURCE = """
__kernel void shift(__global float *out, __global const float *src, int d) {
    int i = get_global_id(0);
    out[i] = src[i + d];
}
"""


@pytest.mark.parametrize("d, index, thread", [(-3, -3, 0), (5, 16, 11)])
def test_an_int_index_out_of_bounds_is_reported_as_itself(clenv, d, index, thread):
    import pyopencl.array as cla

    prg = skcl.Program(clenv.ctx, SOURCE).build()
    out = cla.zeros(clenv.queue, 12, np.float32)
    src = cla.zeros(clenv.queue, 16, np.float32)
    prg.shift(clenv.queue, (12,), (12,), out, src, np.int32(d))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.index, err.size, err.array, err.thread[0]) == (index, 16, "src", thread), \
        str(err)


#: the start of a kernel with a private array `priv` (10..17)
_PRIV = ("__kernel void k(__global int *out, uint u) {\n"
         "    int priv[8];\n"
         "    for (int t = 0; t < 8; t++) priv[t] = t + 10;\n")

OVERFLOWS = {
    # (source, the line of the access, what a wrapped index stores in out[0..3]): the product
    # wraps to 0 in 32 bits; computed from the operands in 64 bits it is -2**35 (-2**32)
    "a parameter's product": ("__kernel void k(__global int *out, uint u) {\n"
                              "    int i = (int)u * 16;\n    out[i] = 5;\n}\n", 3, [5, 0, 0, 0]),
    "in the subscript": ("__kernel void k(__global int *out, uint u) {\n"
                         "    out[(((int)u) * 4) * 4] = 5;\n}\n", 2, [5, 0, 0, 0]),
    # a constant extent: the compiler may narrow the test to 32 bits (seed 103148349)
    "a private array": (_PRIV +
                        "    int acc = 0;\n"
                        "    if (get_global_id(0) < 100) { acc += priv[(int)u * 2]; }\n"
                        "    out[get_global_id(0)] = acc;\n}\n", 5, [10, 10, 10, 10]),
    # ... and the index a long or a size_t sum made of the overflowing int, or a variable
    # (seed 255312649: `priv[(get_local_id(0) >> 1) + ((int)u * 2)]`, a crash at 1cb5f9c)
    "a private array, a long of it": (_PRIV +
                                      "    out[get_global_id(0)] = priv[(long)((int)u * 2)];\n"
                                      "}\n", 4, [10, 10, 10, 10]),
    "a private array, a size_t sum": (_PRIV +
                                      "    out[get_global_id(0)] = "
                                      "priv[(get_local_id(0) >> 2) + ((int)u * 2)];\n"
                                      "}\n", 4, [10, 10, 10, 10]),
    "a private array, a variable": (_PRIV +
                                    "    int i = (int)u * 2;\n"
                                    "    int acc = priv[i];\n"
                                    "    out[get_global_id(0)] = acc;\n}\n", 5, [10, 10, 10, 10]),
    "a private array, through a pointer": (_PRIV +
                                           "    int *p = priv;\n"
                                           "    out[get_global_id(0)] = p[(long)((int)u * 2)];\n"
                                           "}\n", 5, [10, 10, 10, 10]),
    "a private array, *(a + i)": (_PRIV +
                                  "    out[get_global_id(0)] = *(priv + (long)((int)u * 2));\n"
                                  "}\n", 4, [10, 10, 10, 10]),
    # a pointer into a buffer: `pos < 0 || pos > nb - esz` had its first half rewritten from
    # the operands (`-(int)u < -1` as `(int)u > 1`, false) while the second read the wrapped
    # value: one unsigned compare now (prelude's __sk_ixb)
    "a pointer into a buffer": ("__kernel void k(__global int *out, uint u) {\n"
                                "    __global int *p = out + 1;\n"
                                "    p[(size_t)(-(int)u)] = 5;\n}\n", 3, None),
    "a __local array": ("__kernel void k(__global int *out, uint u) {\n"
                        "    __local int tile[16];\n"
                        "    tile[get_local_id(0)] = 10;\n"
                        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                        "    out[get_global_id(0)] = tile[(long)((int)u * 2)];\n}\n", 5,
                        [10, 10, 10, 10]),
}

#: a reported index: the product from the operands in 64 bits, as a long or (a size_t sum)
#: as the ulong it is, plus the sum's local id term (0..3)
_REPORTED = {-2 ** 35, -2 ** 32, -2 ** 31 + 1, 2 ** 31 + 1} | \
    {2 ** 64 - 2 ** 32 + k for k in range(4)}


@pytest.mark.parametrize("name", sorted(OVERFLOWS))
def test_an_int_index_that_overflows_never_reaches_an_untested_address(clenv, name):
    """An index whose int arithmetic overflows (undefined in C) is either reported as the
    value the compiler computed (-2**35, -2**32: the operands in 64 bits) or used wrapped, in
    bounds, as tested -- never an address its test did not see. Run in a process of its own:
    PoCL died of a segmentation fault when the check tested the wrapped int and the address
    was made from the 64-bit value (the fuzzer's seeds 6125143, 103148349, 255312649: a
    constant extent's test narrowed to 32 bits, its address widened)."""
    import os
    import subprocess
    import sys

    source, line, wrapped = OVERFLOWS[name]
    code = (
        "import sys, numpy as np, pyopencl as cl, safekern, safekern.opencl as skcl\n"
        "plat = [p for p in cl.get_platforms() if p.name == sys.argv[2]][0]\n"
        "ctx = cl.Context(devices=plat.get_devices()[:1]); q = cl.CommandQueue(ctx)\n"
        "prg = skcl.Program(ctx, sys.argv[1], filename='k.cl').build()\n"
        "out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)\n"
        "cl.enqueue_fill_buffer(q, out, np.int32(0), 0, 64 * 4)\n"
        "prg.k(q, (64,), (16,), out, np.uint32(2 ** 31))\n"
        "try:\n    safekern.sync()\nexcept safekern.BoundsError as e:\n"
        "    print('reported', e.index, e.size, e.array, e.lineno)\n"
        "host = np.zeros(64, np.int32); cl.enqueue_copy(q, host, out); q.finish()\n"
        "print('out', host[:4].tolist())\n")
    env = dict(os.environ, SAFEKERN_CACHE="off", SAFEKERN_LAUNCH_PREDICATES="0")
    done = subprocess.run([sys.executable, "-c", code, source, clenv.device.platform.name],
                          capture_output=True, text=True, timeout=100, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    if lines[0].startswith("reported"):
        array = name.split(" array")[0].split()[-1] if " array" in name else "out"
        array = {"private": "priv", "__local": "tile"}.get(array, array)
        size = {"priv": 8, "tile": 16}.get(array, 64)
        _, index, *rest = lines[0].split()
        assert int(index) in _REPORTED and rest == [str(size), array, str(line)], done.stdout
    else:
        assert lines == [f"out {wrapped}"], done.stdout


OPAQUE = """__kernel void k(__global int *out, uint u, int n) {
    int priv[8];
    __local int tile[16];
    for (int t = 0; t < 8; t++) priv[t] = t;
    int lid = get_local_id(0);
    int prod = (int)u * 2;
    int j = 0;
    while (j < n) j++;
    int at = 1;
    __private int *p = &at;
    tile[lid] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[0] = priv[n] + priv[lid] + tile[lid - 1] + priv[prod] + priv[j] + priv[at]
             + priv[(long)lid * 2] + priv[u];
}
"""


@pytest.mark.parametrize("index, opaque", [
    ("t", False),           # a for loop's counter: its step is bounded by its test
    ("n", False),           # a parameter never assigned: the host's value
    ("lid", False),         # a local id, kept in a variable
    ("lid - 1", True),      # an int arithmetic (that it cannot overflow is not proven)
    ("prod", True),         # a variable made by one
    ("j", True),            # a variable stepped by ++ outside a for loop's step
    ("at", True),           # a variable whose address is taken
    ("(long)lid * 2", False),   # long arithmetic: not extended to the address's width
    ("u", False),
])
def test_a_constant_extents_index_is_opaque_where_an_int_arithmetic_may_make_it(index, opaque):
    """Which indexes of private and __local arrays go through `__sk_opq` (access_check
    .Check.opaque, may_wrap): those an overflowing int arithmetic may have made -- not every
    one, since an opaque index cannot be folded (a loop counter's, once unrolled, lets the
    compiler keep the array in registers)."""
    text = opencl_front.rewrite(OPAQUE, filename="k.cl").source
    body = text[text.rfind("#line 1"):]
    forms = (f"__sk_opq32((int)({index}))", f"__sk_opq((long)({index}))")
    assert any(form in body for form in forms) == opaque, body


def test_random_overflowing_indexes_of_constant_extents_never_crash(clenv):
    """Kernels of tests/support/overflow_kernels.py (an overflowing int index of a private or
    __local array, in the subscript, a variable, a pointer, `*(a + i)`), run in a process of
    their own for a time budget: each launch reports its index or wraps it into the array,
    none dies (at 1cb5f9c the first of them crashed PoCL; on NVIDIA's OpenCL an address out of
    its allocation is an error the process ends on)."""
    import os
    import subprocess
    import sys

    from tests.support.budget import Budget

    budget = Budget(10, at_least=6)
    env = dict(os.environ, SAFEKERN_CACHE="off", SAFEKERN_LAUNCH_PREDICATES="0")
    done = subprocess.run([sys.executable, "-m", "tests.support.overflow_kernels",
                           clenv.device.platform.name, str(budget.seconds),
                           str(budget.at_least), "0"],
                          capture_output=True, text=True, timeout=600, env=env)
    seeds = done.stdout.split()
    assert done.returncode == 0 and "done" in seeds, \
        f"seed {seeds[-1] if seeds else '?'} ended the process ({done.returncode}): " \
        f"{done.stderr[-1500:]}"


def test_the_opaque_index_round_trips_and_is_opaque_on_each_platform(clenv):
    """`__sk_opq` gives back its value, boundary values included, and hides it from the
    compiler: on NVIDIA's OpenCL an empty inline PTX asm (chosen by its extension's macro;
    its binary is PTX, where an inline asm leaves its markers), on PoCL's CPU devices a
    volatile round trip -- not an inline asm, on which PoCL 5.0's kernel compiler aborts (an
    LLVM assertion: test_no_inline_asm_reaches_a_cpu_opencl)."""
    import pyopencl as cl

    source = prelude.opencl() + """
__kernel void k(__global const long *a, __global long *b, __global int *c) {
    int g = get_global_id(0);
    b[g] = __sk_opq(a[g]);
    c[g] = __sk_opq32((int)a[g]);
}
"""
    prg = cl.Program(clenv.ctx, source).build()
    values = np.array([0, 1, -1, 2 ** 31, -2 ** 31, 2 ** 62, -2 ** 63], np.int64)
    mf = cl.mem_flags
    a = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=values)
    b = cl.Buffer(clenv.ctx, mf.WRITE_ONLY, values.nbytes)
    c = cl.Buffer(clenv.ctx, mf.WRITE_ONLY, values.size * 4)
    prg.k(clenv.queue, (values.size,), None, a, b, c)
    got_b, got_c = np.empty_like(values), np.empty(values.size, np.int32)
    cl.enqueue_copy(clenv.queue, got_b, b)
    cl.enqueue_copy(clenv.queue, got_c, c)
    assert got_b.tolist() == values.tolist()
    assert got_c.tolist() == values.astype(np.int32).tolist()
    if clenv.kind == "nvidia":
        ptx = prg.get_info(cl.program_info.BINARIES)[0].decode(errors="replace")
        assert ptx.count("begin inline asm") >= 2, ptx[-3000:]


def test_no_inline_asm_reaches_a_cpu_opencl():
    """PoCL 5.0's kernel compiler (LLVM 16, assertions on) aborts its process on an inline asm
    (`CallBase::getArgOperand`: "Out of bounds!"; 2,737 of 5,109 fuzz kernels on the device's
    PoCL at 6be76cc), while this CPU's PoCL 3.1 builds it: so the rule is kept here. What
    PoCL compiles of the prelude (x86-64 or AArch64, no NVIDIA extension macro) has no asm."""
    import re

    text = prelude.opencl()
    assert "cl_nv_pragma_unroll" in text
    # What the preprocessor keeps for a CPU: from the CPU branch to the next #elif/#else/#endif
    cpu = re.search(r"#elif defined\(__x86_64__\) \|\| defined\(__aarch64__\)\n(.*?)\n"
                    r"#(?:elif|else|endif)", text, re.S)
    assert cpu and "__sk_opq" in cpu.group(1)
    asm = re.compile(r"(__asm__|\basm)\s*(volatile\s*)?\(\s*\"")
    assert not asm.search(cpu.group(1))
    outside = re.sub(r"#if defined\(cl_nv_pragma_unroll\)\n.*?\n#(?=elif|else|endif)", "", text,
                     flags=re.S)
    assert not asm.search(outside), \
        "an inline asm outside the NVIDIA branch reaches PoCL"
