"""What the C front end reads from libclang once: each node's children per translation unit
(parse.kids, shared by every pass and walk), and the parse of a kernel's source, shared by
its builds (parse_cache.PARSES: the checked program, the launch variants, every check kept).
Structural, not timed: the calls into libclang are counted."""
from __future__ import annotations

import collections

import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda, opencl, parse as C  # noqa: E402
from safekern.frontend.c.parse_cache import PARSES  # noqa: E402

OPENCL = """
#define AT(p, i) p[i]
float helper(__global const float *a, int i) { return a[i] * 2.0f; }
__kernel void k(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    __local float tile[64];
    tile[get_local_id(0)] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < n; ++j)
        out[i] += AT(a, i + j) + helper(a, j) + tile[j % 64] / n;
}
"""

CUDA = """
#define AT(p, i) p[i]
struct Pair { float *data; int n; __device__ float get(int i) { return data[i]; } };
__device__ float twice(const float *a, int i) { return 2.0f * a[i]; }
extern "C" __global__ void k(const float *a, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < n; ++j)
        out[i] += AT(a, i + j) + twice(a, j) / n;
}
"""


@pytest.fixture
def visits(monkeypatch):
    """Counts libclang's child visits per cursor (its bytes: the node), whoever asks --
    parse.kids or a pass that calls Cursor.get_children itself."""
    lib = C._cindex().conf.lib
    real = lib.clang_visitChildren
    counts: collections.Counter = collections.Counter()

    def counting(cursor, callback, data):
        counts[bytes(cursor)] += 1
        return real(cursor, callback, data)

    monkeypatch.setattr(lib, "clang_visitChildren", counting)
    PARSES.clear()
    yield counts
    PARSES.clear()


@pytest.fixture
def parses(monkeypatch):
    """Counts libclang parses (parse.parse, which both dialects' parses go through)."""
    real = C.parse
    calls = []

    def counting(source, **kw):
        calls.append(source)
        return real(source, **kw)

    monkeypatch.setattr(C, "parse", counting)
    PARSES.clear()
    yield calls
    PARSES.clear()


def _opencl_builds(source=OPENCL, **kw):
    """The builds of one OpenCL program: checked, every check kept, launch predicates,
    the launch variant."""
    out = [opencl.rewrite(source, **kw), opencl.rewrite(source, eliminate=False, **kw)]
    launch = opencl.rewrite(source, launch_predicates=True, **kw)
    out += [launch, opencl.rewrite(source, assume=frozenset(
        s.code for s in launch.failure_sites), **kw)]
    return out


def test_a_rewrite_reads_each_node_children_from_libclang_once(visits):
    for rw_of in (lambda: opencl.rewrite(OPENCL, launch_predicates=True),
                  lambda: cuda.rewrite(CUDA, launch_predicates=True)):
        visits.clear()
        rw = rw_of()
        assert any(a.status.name == "CHECKED" for a in rw.accesses)
        assert len(visits) > 50                 # the passes walked the tree ...
        assert max(visits.values()) == 1        # ... each node's children read once


def test_the_builds_of_one_program_read_the_tree_once(visits):
    _opencl_builds()
    assert max(visits.values()) == 1


def test_the_builds_of_one_kernel_parse_once(parses):
    _opencl_builds()
    # the source, then its macro uses expanded in the body (macros.py): one parse each
    assert len(parses) == 2 and "AT(a" not in parses[1]
    cuda.rewrite(CUDA)
    cuda.rewrite(CUDA, eliminate=False)
    cuda.rewrite(CUDA, launch_predicates=True)
    assert len(parses) == 4
    opencl.rewrite(OPENCL.replace("2.0f", "3.0f"))      # another source: its own parse
    assert len(parses) == 6


def test_a_shared_parse_rewrites_as_a_fresh_one():
    PARSES.clear()
    shared = _opencl_builds()
    fresh = []
    for build in range(4):
        PARSES.clear()
        fresh.append(_opencl_builds()[build])
    PARSES.clear()
    for a, b in zip(shared, fresh):
        assert a.source == b.source
        assert [(x.start, x.end, x.status, x.reason) for x in a.accesses] == \
            [(x.start, x.end, x.status, x.reason) for x in b.accesses]
    assert len({rw.source for rw in shared}) > 1         # the builds do differ


def test_a_changed_header_file_is_parsed_again(parses, tmp_path):
    header = tmp_path / "scale.h"
    header.write_text("#define SCALE 2\n")
    source = ('#include "scale.h"\n'
              "__kernel void k(__global float *a) { a[get_global_id(0)] *= SCALE; }\n")
    options = ["-I", str(tmp_path)]
    opencl.rewrite(source, options=options)
    opencl.rewrite(source, options=options, eliminate=False)
    assert len(parses) == 1
    header.write_text("#define SCALE 3.0f\n")           # another size: another file
    opencl.rewrite(source, options=options)
    assert len(parses) == 2
