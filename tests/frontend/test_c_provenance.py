"""One pointer-provenance analysis for both C dialects (safekern/frontend/c/provenance.py).

The same kernel body, written once in OpenCL C and once in CUDA C, gets the same verdict for
each pointer access; only how the root's memory is named differs (the dialects' hooks). No
device needed: libclang only.
"""
from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda, opencl  # noqa: E402

# (name, body, the verdict of the access `p[i]` (or the last access), a word of its reason)
SHAPES = [
    ("parameter", "PTR p = a; p[i] = 1.0f;", "checked", ""),
    ("derived row", "PTR p = a + c * n; p[i] = 1.0f;", "checked", ""),
    ("stepped", "PTR p = a; p += 2; p++; p[i] = 1.0f;", "checked", ""),
    ("cast", "PTR p = (PTR)(a + 1); p[i] = 1.0f;", "checked", ""),
    ("null first", "PTR p = 0; p = a; p[i] = 1.0f;", "checked", ""),
    ("null or a buffer", "PTR p = c ? a : 0; p[i] = 1.0f;", "checked", ""),
    ("solved in a loop", "PTR p = a; PTR q = a; for (int j = 0; j < n; j++) { q = p + 1; p = q; } "
     "p[i] = 1.0f;", "checked", ""),
    ("element of a 2-d array", "float t[4][4]; float *p = &t[1][2]; p[i] = 1.0f; "
     "a[0] = t[0][0];", "checked", ""),
    ("two buffers", "PTR p = c ? a : b; p[i] = 1.0f;", "unchecked", "more than one array"),
    ("assigned two buffers", "PTR p = a; if (c) p = b; p[i] = 1.0f;", "unchecked",
     "more than one array"),
    ("parameter reassigned", "a = b; a[i] = 1.0f;", "unchecked", "reassigned"),
    ("address taken", "PTR p = a; PTRPTR pp = &p; p[i] = 1.0f;", "unchecked", "address"),
    ("loaded from memory", "PTRPTR pp = 0; PTR p = pp[0]; p[i] = 1.0f;", "unchecked",
     "loaded from memory"),
]


def opencl_verdict(body):
    body = body.replace("PTRPTR", "__global float *__private *").replace("PTR",
                                                                          "__global float *")
    src = ("__kernel void k(__global float *a, __global float *b, int c, int n) {\n"
           f"    int i = get_global_id(0);\n    {body}\n}}\n")
    report = opencl.rewrite(src, filename="k.cl").report()
    return [(e.text, e.status, e.reason) for e in report if e.kind == "bounds"]


def cuda_verdict(body):
    body = body.replace("PTRPTR", "float **").replace("PTR", "float *")
    src = ('extern "C" __global__ void k(float *a, float *b, int c, int n) {\n'
           f"    int i = threadIdx.x;\n    {body}\n}}\n")
    report = cuda.rewrite(src, filename="k.cu").report()
    return [(e.text, e.status, e.reason) for e in report if e.kind == "bounds"]


@pytest.mark.parametrize("name, body, status, why", SHAPES, ids=[s[0] for s in SHAPES])
def test_both_dialects_tell_the_same_root(name, body, status, why):
    target = "a[i]" if name == "parameter reassigned" else "p[i]"
    for verdicts in (opencl_verdict(body), cuda_verdict(body)):
        entry = next(v for v in verdicts if v[0] == target)
        assert entry[1] == status, (name, verdicts)
        assert why in entry[2], (name, entry)


def test_only_the_names_of_the_memory_differ():
    """OpenCL: `__sk_nb_a` bytes from `a`; CUDA: `__sk_bytes_0` bytes from `a`."""
    body = "PTR p = a + c; p[i] = 1.0f;"
    cl = opencl.rewrite("__kernel void k(__global float *a, int c) {\n"
                        "    int i = get_global_id(0);\n    "
                        + body.replace("PTR", "__global float *") + "\n}\n",
                        filename="k.cl").source
    cu = cuda.rewrite('extern "C" __global__ void k(float *a, int c) {\n    int i = threadIdx.x;'
                      "\n    " + body.replace("PTR", "float *") + "\n}\n",
                      filename="k.cu").source
    assert "(const __global char *)(a)" in cl and "__sk_nb_a" in cl
    assert "__sk_ptr((p) + (i), a, __sk_bytes_0" in cu


def test_the_address_of_a_variable_is_a_root_in_cuda_only():
    """CUDA sizes it (sizeof the variable); OpenCL reports it unchecked, as it always did."""
    cu = cuda.rewrite('extern "C" __global__ void k(float *out) {\n    float x = 0;\n'
                      "    float *q = &x;\n    q[threadIdx.x] = 1.0f;\n    out[0] = x;\n}\n",
                      filename="k.cu")
    assert [e.status for e in cu.report() if e.text == "q[threadIdx.x]"] == ["checked"]
    assert "(long long)sizeof(x)" in cu.source
    cl = opencl.rewrite("__kernel void k(__global float *out) {\n    float x = 0;\n"
                        "    float *q = &x;\n    q[get_global_id(0)] = 1.0f;\n"
                        "    out[0] = x;\n}\n", filename="k.cl")
    entry, = [e for e in cl.report() if e.text == "q[get_global_id(0)]"]
    assert entry.status == "unchecked" and "address of variable 'x'" in entry.reason
