"""The C front ends' "safe" verdicts (accesses left unchecked because they are proven in bounds).

OpenCL (checks.py): a constant index into an array of constant size, and a `for` loop's
variable within the bounds of its header. CUDA C (cuda_access.py): a constant index, and an
atomic on the address of a variable. Each KEPT case is a loop whose variable leaves the range
its header seems to give; the differential runs build the same kernel with SAFEKERN_ELIMINATE
on and off on PoCL and compare the failure and the output.
"""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import pytest

from safekern.frontend.c import cuda as cuda_front
from safekern.frontend.c import opencl as cl_front

pytestmark = pytest.mark.timeout(120, method="thread")


def statuses(source, **kw):
    rw = cl_front.rewrite(source, filename="k.cl", **kw)
    return {entry.text: (entry.status, entry.reason) for entry in rw.report()}


def kernel(loop, body):
    return f"""
#define bump(p) (*(p) += 1)
__kernel void k(__global int *out, int n) {{
    int buf[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) buf[t] = t;
    {loop} {{
        if (++guard > 12) break;
        {body}
    }}
    out[get_global_id(0)] = acc;
}}
"""


def test_a_loop_variable_in_its_range_is_safe():
    report = statuses(kernel("for (int v = 2; v < 6; v++)", "acc += buf[v + 2];"))
    assert report["buf[v + 2]"] == ("safe", "loop index in [4, 7]")
    assert report["buf[t]"][0] == "safe"


KEPT = {
    # v wraps from 127 to -128 and goes on: buf[-253]
    "char_wraps": ("for (char v = 125; v < 130; v++)", "acc += buf[v - 125];"),
    "short_wraps": ("for (short v = 32766; v <= 32768; v += 1)", "acc += buf[v - 32766];"),
    # the comparison is unsigned: u < UINT_MAX, the range [0, -2] looked empty
    "unsigned_against_minus_one": ("for (uint u = 0; u < -1; u++)", "acc += buf[u];"),
    "unsigned_char_step_past_the_end": ("for (uchar v = 250; v <= 255; v += 3)",
                                        "acc += buf[v - 250];"),
    "written_through_a_pointer": ("for (int v = 0; v < 8; v++)",
                                  "bump(&v); acc += buf[v];"),
    "written_in_the_body": ("for (int v = 0; v < 8; v++)", "if (acc > 3) v += 2; acc += buf[v];"),
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_loop_variables_that_leave_their_range_stay_checked(case):
    loop, body = KEPT[case]
    report = statuses(kernel(loop, body))
    access = body.split("acc += ")[-1].rstrip(";")
    assert report[access][0] == "checked", report


def test_a_jump_into_the_loop_body_keeps_its_checks():
    src = """
__kernel void k(__global int *out, int n) {
    int buf[8];
    if (n > 100) goto inside;
    for (int v = 0; v < 8; v++) {
    inside:
        buf[v] = n;             /* entered by the goto: v is whatever it was */
    }
    switch (n) {
        for (int w = 0; w < 8; w++) {
    case 7:
            buf[w] = n;         /* entered by `case 7` */
        }
    }
    out[0] = buf[0];
}
"""
    report = statuses(src)
    assert report["buf[v]"][0] == "checked" and report["buf[w]"][0] == "checked", report


def test_the_eliminate_switch_checks_everything():
    source = kernel("for (int v = 2; v < 6; v++)", "acc += buf[v + 2] + buf[3];")
    assert {s for s, _ in statuses(source, eliminate=False).values()} == {"checked"}
    cu = """
extern "C" __global__ void k(int *out) {
    __shared__ int count;
    int buf[4];
    buf[2] = 1;
    atomicAdd(&count, 1);
    out[0] = buf[2];
}
"""
    on = {a.status for a in cuda_front.rewrite(cu, filename="k.cu").accesses}
    off = {a.status for a in cuda_front.rewrite(cu, filename="k.cu", eliminate=False).accesses}
    assert on == {"eliminated", "checked"} and off == {"checked"}


# -- run on PoCL both ways ------------------------------------------------------------------------

def run_both(env, source, items=2):
    from tests.support import fuzz_opencl

    k = fuzz_opencl.ClKernel(seed=0, source=source, name="k", items=items, n=0)
    return fuzz_opencl.run(env, k, True), fuzz_opencl.run(env, k, False)


def test_a_wrapping_loop_variable_is_caught_on_pocl(clenv):
    src = """
__kernel void k(__global int *out, __global const int *data, int n) {
    int buf[8];
    int acc = 0, guard = 0;
    for (int t = 0; t < 8; t++) buf[t] = t;
    for (char v = 125; v < 130; v++) {
        if (++guard > 6) break;
        acc += buf[v - 125];
    }
    out[get_global_id(0)] = acc;
}
"""
    (fail_on, out_on), (fail_off, out_off) = run_both(clenv, src)
    assert fail_on == fail_off == (8, "buf", -253, 0, (0, 0, 0))
    assert out_on.tolist() == out_off.tolist()
