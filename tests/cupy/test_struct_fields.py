"""Issue 25 item 4 without a GPU: pointers inside by-value struct arguments are checked against
extents the launch finds (backends/cupy/struct_args.py), arrays inside structs against their
static size, and a failure inside a device function names the call sites it came through
(call_chains.py). The stand-in `cupy` of test_cuda_c_launch.py records the launch and plays
the device by writing the failure buffer; NVRTC compiles the rewritten source for real.
"""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern import call_chains, failures
from safekern.backends.cupy import struct_args
from safekern.frontend.c import cuda as frontend
from safekern.report import Status
from tests.cupy import cuda_c_kernels as K
from tests.cupy.test_cuda_c_launch import FakeArray, FakeCupy, fake_cupy  # noqa: F401

pytestmark = pytest.mark.nvrtc


def _graph(cp, nindex, nlist, nodes):
    dt = np.dtype(K.GRAPH_FIELDS)
    g = np.zeros((), dt)
    g["nodes"], g["edges"] = nodes, nlist.size
    g["nindex"], g["nlist"] = nindex.data.ptr, nlist.data.ptr
    return g[()]            # a numpy.void, as a CuPy user passes it


def _allocations(*arrays):
    """A stand-in for the driver's lookup: each array is an allocation of its own."""
    def lookup(address):
        for a in arrays:
            base = a.data.ptr
            if base <= address < base + a.nbytes:
                return base, a.nbytes
        return f"no allocation holds {address:#x}"
    return lookup


def test_struct_pointer_fields_are_checked_against_hidden_extents():
    rw = frontend.rewrite(K.CSR_GRAPH, filename="csr.cu")
    by_line = {}
    for a in rw.accesses:
        by_line.setdefault(a.extra["lineno"], []).append(a)
    field, = [a for a in by_line[K.line(K.CSR_GRAPH, "field")]]
    assert (field.array, field.status) == ("g.nlist", Status.CHECKED)
    info = next(k for k in rw.kernels if k.name == "degree_sum")
    assert [(f.param, f.offset, f.name, f.struct_size) for f in info.fields] == [
        (1, 8, "g.nindex", 24), (1, 16, "g.nlist", 24)]
    # the kernel takes the extents after the pointer parameters' sizes, before the buffer
    assert ("long long __sk_bytes_0, long long __sk_fbytes_1_8, long long __sk_fbytes_1_16, "
            "long long* __sk_fb)") in rw.source
    # the helper gets g.nlist's extent from its caller
    assert not [a for a in by_line.get(K.line(K.CSR_GRAPH, "caller"), [])
                if a.status == Status.UNCHECKED]
    assert "(const volatile void*)(g.nlist), (long long)(__sk_fbytes_1_16)" in rw.source


def test_a_struct_the_kernel_changes_stays_unchecked_with_the_reason():
    code = r"""
struct G { int n; int* a; };
extern "C" __global__ void k(int* out, G g) {
    g.a += 1;
    out[threadIdx.x] = g.a[threadIdx.x];
}
"""
    rw = frontend.rewrite(code, filename="moved.cu")
    a, = [a for a in rw.accesses if a.array == "g.a"]
    assert a.status == Status.UNCHECKED and "may change" in a.reason
    assert not rw.kernels[0].fields


def test_arrays_inside_structs_get_their_static_extent():
    code = r"""
struct S { float a[16]; int n; };
extern "C" __global__ void k(float* out, S s) {
    int i = threadIdx.x;
    const float* p = s.a;
    out[i] = s.a[i] + p[i + 1];
}
"""
    rw = frontend.rewrite(code, filename="arr.cu")
    accesses = {a.array: a for a in rw.accesses}
    assert accesses["s.a"].status == Status.CHECKED and accesses["s.a"].extent == 16
    assert accesses["p (in s.a)"].status == Status.CHECKED
    assert "s.a, (long long)sizeof(s.a)" in rw.source
    assert not rw.kernels[0].fields          # nothing for the launch to find


def test_the_launch_passes_each_fields_extent(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    cp = fake_cupy
    nindex = FakeArray(np.array([0, 2, 5], np.int32))
    nlist = FakeArray(np.arange(5, dtype=np.int32))
    out = cp.zeros(2, np.int32)
    monkeypatch.setattr(struct_args, "allocation", _allocations(nindex, nlist))
    k = skcp.RawKernel(K.CSR_GRAPH, "degree_sum", filename="csr.cu")
    k((1,), (32,), (out, _graph(cp, nindex, nlist, 2)))
    (name, args), = FakeCupy.launches
    assert [int(v) for v in args[2:5]] == [8, 12, 20]      # out, g.nindex, g.nlist bytes
    # a field pointing into an allocation reaches to its end
    inner = FakeArray(np.zeros(0, np.int32))
    inner.a = nlist.a[2:]
    k((1,), (32,), (out, _graph(cp, nindex, inner, 2)))
    assert int(FakeCupy.launches[-1][1][4]) == 12
    # what the launch cannot size runs unchecked, and the report says why
    elsewhere = FakeArray(np.zeros(4, np.int32))
    k((1,), (32,), (out, _graph(cp, nindex, elsewhere, 2)))
    assert int(FakeCupy.launches[-1][1][4]) == -1
    notes = [e for e in k.check_report().unchecked if e.array == "g.nlist"]
    assert notes and "no allocation holds" in notes[0].reason
    packed = np.zeros((), [("nodes", "<i4"), ("nindex", "<u8")])[()]
    k((1,), (32,), (out, packed))
    assert [int(v) for v in FakeCupy.launches[-1][1][3:5]] == [-1, -1]
    # a failure of the field's check names the field
    rw = k._program.rewrite("sm_90")
    access = next(a for a in rw.accesses if a.array == "g.nlist")
    from safekern.backends.cupy.api import failure_source

    buf = failure_source(0).buffer.a
    buf[failures.CODE] = access.extra["code"]
    buf[failures.INDEX], buf[failures.SIZE] = 5, 5
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.lineno, info.value.index, info.value.size) == (
        "g.nlist", K.line(K.CSR_GRAPH, "field"), 5, 5)


def test_field_extent_of_host_and_null_addresses():
    field = frontend.rewrite(K.CSR_GRAPH, filename="csr.cu").kernels[0].fields[1]
    g = np.zeros((), K.GRAPH_FIELDS)
    assert struct_args.field_extent(g[()], field, lambda a: (0, 0)) == (0, "")  # null
    g["nlist"] = 0x7000
    assert struct_args.field_extent(g[()], field, lambda a: "host memory") == (
        -1, "host memory")
    assert struct_args.field_extent(g[()], field, lambda a: (0x6000, 0x1800))[0] == 0x800
    assert struct_args.field_extent(np.zeros(1, K.GRAPH_FIELDS), field,
                                    lambda a: (0, 0))[0] == 0      # a one-element array
    assert struct_args.field_extent(7, field)[0] == -1


def test_a_failure_in_a_device_function_names_its_callers(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    nindex = FakeArray(np.array([0, 2], np.int32))
    nlist = FakeArray(np.arange(2, dtype=np.int32))
    k = skcp.RawKernel(K.CSR_GRAPH, "degree_read", filename="csr.cu")
    k((1,), (32,), (cp.zeros(1, np.int32), _graph(cp, nindex, nlist, 1)))
    rw = k._program.rewrite("sm_90")
    helper = next(a for a in rw.accesses if a.function == "atomicRead")
    call = next(s for s in rw.failure_sites if s.kind == "call" and s.kernel == "degree_read")
    assert call.lineno == K.line(K.CSR_GRAPH, "caller") and call.in_kernel
    from safekern.backends.cupy.api import failure_source

    # the device side: the helper's check records its code XOR the chain the kernel passes
    assert f"({helper.extra['code']:#x}ULL ^ __sk_cs)" in rw.source
    assert f"atomicRead(__sk_fb, {call_chains.frame_id(call.code):#x}ULL, " in rw.source
    buf = failure_source(0).buffer.a
    buf[failures.CODE] = helper.extra["code"] ^ call_chains.frame_id(call.code)
    buf[failures.INDEX], buf[failures.SIZE] = 2, 2
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.kernel, err.lineno, err.index, err.size) == (
        "atomicRead", K.line(K.CSR_GRAPH, "helper"), 2, 2)
    assert [(f.kernel, f.lineno) for f in err.call_chain] == [
        ("degree_read", K.line(K.CSR_GRAPH, "caller"))]
    assert err.called_from == ("degree_read",)
    text = str(err)
    assert f"called from 'degree_read' at csr.cu:{K.line(K.CSR_GRAPH, 'caller')}" in text
    assert "atomicRead(g.nlist, j)" in text


def test_call_chains_through_two_device_functions():
    code = r"""
__device__ int get(const int* p, int i) {
    return p[i];
}
__device__ int pair(const int* p, int i) {
    return get(p, i) + get(p, i + 1);   // @inner
}
extern "C" __global__ void k(int* out, const int* a) {
    out[threadIdx.x] = pair(a, threadIdx.x);   // @outer
}
"""
    rw = frontend.rewrite(code, filename="two.cu")
    failures.TABLE.register_all(rw.failure_sites)
    access = next(a for a in rw.accesses if a.function == "get")
    calls = [s for s in rw.failure_sites if s.kind == "call"]
    inner = [s for s in calls if s.kernel == "pair"][1]       # get(p, i + 1)
    outer = next(s for s in calls if s.kernel == "k")
    # a device function passes its own chain shifted, and its call site's id
    assert (f"get(__sk_fb, (((__sk_cs << 20) | {call_chains.frame_id(inner.code):#x}ULL) & "
            f"{call_chains.MASK:#x}ULL), ") in rw.source
    chain = (call_chains.frame_id(outer.code) << call_chains.FRAME_BITS) | \
        call_chains.frame_id(inner.code)
    site, frames = call_chains.resolve(access.extra["code"] ^ chain, failures.TABLE)
    assert site.code == access.extra["code"]
    assert [(f.kernel, f.lineno, f.col) for f in frames] == [
        ("pair", inner.lineno, inner.col), ("k", K.line(code, "outer"), outer.col)]
    assert inner.col > 20                 # the second call on that line
    # a value that is no chain of these sites resolves to nothing
    assert call_chains.resolve(access.extra["code"] ^ (chain << 1), failures.TABLE) is None
