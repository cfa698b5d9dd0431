"""Issue 25 item 4 on a GPU: a CSR graph passed by value as a NumPy structured scalar; a read
one past the last edge through `g.nlist[j]` is a BoundsError naming the field, line, index and
extent; the same read inside a device helper names the helper's line and the caller's; memory
the launch cannot size (pinned host memory) runs unchecked with the reason, never failing.

    python -m pytest tests/cupy/test_struct_fields_gpu.py -m gpu -v
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from safekern.backends.cupy import struct_args  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]
NODES, DEGREE = 128, 8          # nlist: 1024 ints = 4096 bytes, a whole pool block


@pytest.fixture
def graph():
    """(nindex, nlist, the structured scalar) in allocations of their own: a fresh pool's
    blocks are the arrays rounded up to 512 bytes, and nlist's 4096 bytes need no rounding."""
    pool = cp.cuda.MemoryPool()
    with cp.cuda.using_allocator(pool.malloc):
        nindex = cp.arange(NODES + 1, dtype=cp.int32) * DEGREE
        nlist = (cp.arange(NODES * DEGREE, dtype=cp.int32) * 7) % NODES
        g = np.zeros((), K.GRAPH_FIELDS)
        g["nodes"], g["edges"] = NODES, nlist.size
        g["nindex"], g["nlist"] = nindex.data.ptr, nlist.data.ptr
        yield nindex, nlist, g[()]
        cp.cuda.Device().synchronize()


def _launch(name, g):
    mod = skcp.RawModule(code=K.CSR_GRAPH, filename="csr.cu")
    out = cp.zeros(NODES, cp.int32)
    mod.get_function(name)((1,), (NODES,), (out, g))
    return mod, out


def test_the_allocation_of_a_field_is_found(graph):
    nindex, nlist, g = graph
    base, size = struct_args.allocation(nlist.data.ptr)
    assert base <= nlist.data.ptr and base + size - nlist.data.ptr == nlist.nbytes


def test_a_struct_field_read_past_its_end_is_reported(graph):
    _, nlist, g = graph
    _launch("degree_sum", g)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.kernel, err.filename, err.lineno, err.array, err.index, err.size) == (
        "degree_sum", "csr.cu", K.line(K.CSR_GRAPH, "field"), "g.nlist", nlist.size,
        nlist.size)
    assert err.thread == (NODES - 1, 0, 0) and err.block == (0, 0, 0)


def test_a_helper_failure_names_the_helper_and_the_caller(graph):
    _, nlist, g = graph
    _launch("degree_read", g)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.kernel, err.lineno, err.index, err.size) == (
        "atomicRead", K.line(K.CSR_GRAPH, "helper"), nlist.size, nlist.size)
    assert [(f.kernel, f.lineno) for f in err.call_chain] == [
        ("degree_read", K.line(K.CSR_GRAPH, "caller"))]
    assert f"called from 'degree_read' at csr.cu:{K.line(K.CSR_GRAPH, 'caller')}" in str(err)


def test_a_correct_graph_kernel_runs_as_written(graph):
    nindex, nlist, g = graph
    _, out = _launch("degree_ok", g)
    safekern.sync()
    expect = 2 * cp.asnumpy(nlist).reshape(NODES, DEGREE).sum(axis=1)
    assert (cp.asnumpy(out) == expect).all()


def test_host_memory_fields_run_unchecked_with_the_reason(graph):
    nindex, nlist, _ = graph
    pinned = cp.cuda.alloc_pinned_memory(nlist.nbytes)
    host = np.frombuffer(pinned, np.int32, nlist.size)
    host[:] = cp.asnumpy(nlist)
    g = np.zeros((), K.GRAPH_FIELDS)
    g["nodes"], g["edges"] = NODES, nlist.size
    g["nindex"], g["nlist"] = nindex.data.ptr, host.ctypes.data
    # (the correct kernel: a read past pinned host memory could fault)
    mod, out = _launch("degree_ok", g[()])
    safekern.sync()
    expect = 2 * host.reshape(NODES, DEGREE).sum(axis=1)
    assert (cp.asnumpy(out) == expect).all()
    notes = [e for e in mod.check_report().unchecked if e.array == "g.nlist"]
    assert notes and "not device memory" in notes[0].reason
