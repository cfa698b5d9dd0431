"""Building checked OpenCL programs: errors at the user's lines, SAFEKERN_CHECKS=0, the cache,
the check report."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(120, method="thread")   # a hang fails, never blocks CI
from safekern.backends.opencl import build as backend  # noqa: E402
from tests.support.settings import set_safekern

GOOD = """__kernel void twice(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    out[i] = 2.0f * a[i];
}
"""


def test_build_error_comes_back_at_the_users_line(clenv):
    src = """__kernel void broken(__global float *x) {
    int i = get_global_id(0);

    x[i] = undefined_name + 1.0f;
}"""
    with pytest.raises(safekern.CompilationError) as info:
        skcl.Program(clenv.ctx, src, filename="broken.cl").build()
    e = info.value
    assert (e.filename, e.lineno) == ("broken.cl", 4)
    assert "undefined_name" in str(e)
    assert "broken.cl:4" in str(e)
    assert "x[i] = undefined_name + 1.0f;" in str(e)


def test_driver_errors_in_checked_source_map_to_user_lines(clenv):
    # libclang accepts this program; the driver rejects it (a kernel must return void... or
    # the option is unknown): whatever the driver says is reported at the user's lines.
    src = """__kernel void opts(__global float *x) {
    x[get_global_id(0)] = FROM_OPTIONS;
}"""
    prg = skcl.Program(clenv.ctx, src, filename="opts.cl").build(
        options=["-D", "FROM_OPTIONS=2.0f"])
    x = cla.zeros(clenv.queue, 4, np.float32)
    prg.opts(clenv.queue, (4,), None, x)
    safekern.sync()
    np.testing.assert_array_equal(x.get(), 2)
    with pytest.raises(safekern.CompilationError) as info:
        skcl.Program(clenv.ctx, src, filename="opts.cl").build(options="-DFROM_OPTIONS=oops")
    assert info.value.lineno == 2 and info.value.filename == "opts.cl"


def test_driver_error_in_the_rewritten_source_is_at_the_users_line(clenv):
    # libclang parses for the SPIR target (__SPIR__ defined), the driver does not: only the
    # driver sees line 4, in the rewritten source, behind safekern's prelude.
    src = """__kernel void only_driver(__global float *x) {
    x[get_global_id(0)] = 1.0f;
#ifndef __SPIR__
    x[0] = not_declared_anywhere;
#endif
}"""
    with pytest.raises(safekern.CompilationError) as info:
        skcl.Program(clenv.ctx, src, filename="drv.cl").build()
    e = info.value
    assert (e.filename, e.lineno) == ("drv.cl", 4), str(e)
    assert "not_declared_anywhere" in str(e) and "x[0] = not_declared_anywhere;" in str(e)


def test_build_errors_map_raw_lines_of_drivers_that_ignore_line_directives():
    from safekern.frontend.c.buildlog import map_build_log

    log, first = map_build_log("<kernel>:62:3: error: use of undeclared identifier 'b'",
                               "k.cl", 60)
    assert (first.lineno, first.col) == (2, 2) and "k.cl:2:3" in log
    log, first = map_build_log('"<kernel>", line 61: error: identifier "b" is undefined',
                               "k.cl", 60)
    assert first.lineno == 1 and '"k.cl", line 1' in log


def test_checks_off_builds_the_source_unchanged(clenv, monkeypatch):
    set_safekern(monkeypatch, CHECKS="0")
    prg = skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    assert prg.checked_source == GOOD
    assert prg.twice.num_args == prg.twice.cl_kernel.num_args == 2
    q = clenv.queue
    out = cla.zeros(q, 16, np.float32)
    prg.twice(q, (16,), None, cla.to_device(q, np.arange(16, dtype=np.float32)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 2 * np.arange(16))
    report = prg.check_report()
    assert not report.checks and len(report) == 0
    assert "SAFEKERN_CHECKS=0" in str(report)


def test_check_report_lists_every_access(clenv):
    src = """#define AT(p, i) p[i]
__kernel void rep(__global float *a, __global float *b, int sel, int n) {
    int i = get_global_id(0);
    float priv[8];
    __local float tmp[16];
    __global float *p = sel ? a : b;
    for (int k = 0; k < 8; k++) priv[k] = a[k];
    p[i] = priv[3] + AT(b, i);
    event_t e = async_work_group_copy(tmp, b, 16, 0);
    wait_group_events(1, &e);
}"""
    prg = skcl.Program(clenv.ctx, src, filename="rep.cl").build()
    report = prg.check_report()
    by_text = {(e.text, e.status): e for e in report}
    assert by_text[("a[k]", "proven at launch")].predicate == "7 < elements(a)"
    assert by_text[("priv[k]", "eliminated")].reason == "loop index in [0, 7]"
    assert by_text[("priv[3]", "eliminated")].reason == "constant index"
    assert "more than one array (a, b)" in by_text[("p[i]", "unchecked")].reason
    # the source's own macro: its use is expanded in place (frontend/c/macros.py)
    (at,) = [e for e in report if e.text == "b[i]"]
    assert at.lineno == 8 and at.status != "unchecked"
    assert any(e.status == "unchecked" and "async_work_group_copy" in e.reason
               for e in report)
    text = str(report)
    assert text.startswith("rep.cl: ") and "unchecked" in text and "rep.cl:8:" in text
    assert report.proven_at_launch and report.eliminated and report.unchecked
    assert report.safe == report.eliminated          # the old name still answers


def test_program_interface(clenv):
    prg = skcl.Program(clenv.ctx, GOOD.encode(), filename="good.cl")
    with pytest.raises(AttributeError, match="not built"):
        prg.twice
    prg.build()
    assert prg.twice is prg.twice
    with pytest.raises(AttributeError, match="nope"):
        prg.nope
    assert prg.get_info(cl.program_info.NUM_KERNELS) == 1
    assert prg.twice.get_info(cl.kernel_info.NUM_ARGS) == 2
    assert prg.twice.get_info(cl.kernel_info.FUNCTION_NAME) == "twice"
    assert isinstance(prg, cl.Program) and isinstance(prg.twice, cl._cl.Kernel)
    # PyOpenCL's other forms are PyOpenCL's own: binaries of a plain program stay plain
    plain = cl.Program(clenv.ctx, GOOD).build()
    binaries = plain.get_info(cl.program_info.BINARIES)
    again = skcl.Program(clenv.ctx, clenv.ctx.devices, binaries).build()
    assert type(again.twice) is cl._cl.Kernel and again.twice.num_args == 2


def test_second_build_comes_from_the_cache(clenv, monkeypatch):
    calls = []
    real = backend._driver_build

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(backend, "_driver_build", counting)
    skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    assert len(calls) == 1
    prg = skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    assert len(calls) == 1, "the second build should come from safekern's cache"
    q = clenv.queue
    out = cla.zeros(q, 8, np.float32)
    prg.twice(q, (8,), None, cla.to_device(q, np.ones(8, np.float32)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 2)
    built = len(calls)          # (and the launch variant the launch built: c_launch.py)
    # Other build options: another key.
    skcl.Program(clenv.ctx, GOOD, filename="good.cl").build(options=["-cl-mad-enable"])
    assert len(calls) == built + 1


def test_a_binary_the_driver_rejects_is_a_miss(clenv, monkeypatch):
    skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    real_program = cl._cl._Program
    refused = []

    def program(*args):
        if len(args) == 3:            # (context, devices, binaries)
            refused.append(True)
            raise ValueError("the driver refused the binary")
        return real_program(*args)

    monkeypatch.setattr(cl._cl, "_Program", program)
    calls = []
    real = backend._driver_build
    monkeypatch.setattr(backend, "_driver_build",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    prg = skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    assert refused and calls == [1]
    q = clenv.queue
    out = cla.zeros(q, 8, np.float32)
    prg.twice(q, (8,), None, cla.to_device(q, np.ones(8, np.float32)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 2)


def test_cache_off_still_builds(clenv, monkeypatch):
    set_safekern(monkeypatch, CACHE="off")
    prg = skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    assert prg.twice.num_args == 2


def test_cache_off_never_asks_for_binaries(clenv, monkeypatch):
    """With nothing to keep them in, the build does not ask the driver for the program's
    binaries: PoCL compiles every kernel of the program to hand them out (a second compile of
    each, 60 ms a kernel)."""
    set_safekern(monkeypatch, CACHE="off")
    asked = []
    get_info = cl.Program.get_info

    def spy(self, param):
        asked.append(param)
        return get_info(self, param)

    monkeypatch.setattr(cl.Program, "get_info", spy)
    prg = skcl.Program(clenv.ctx, GOOD, filename="good.cl").build()
    q = clenv.queue
    out = cla.zeros(q, 8, np.float32)
    prg.twice(q, (8,), None, cla.to_device(q, np.full(8, 3, np.float32)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 6)
    assert cl.program_info.BINARIES not in asked


def test_hidden_size_of_arguments(clenv):
    q = clenv.queue
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, size=40)
    assert backend.hidden_size(buf, "p", "k") == 40
    assert backend.hidden_size(cla.zeros(q, 10, np.float64), "p", "k") == 80
    assert backend.hidden_size(cl.LocalMemory(24), "p", "k") == 24
    assert backend.hidden_size(None, "p", "k") == 0
    with pytest.raises(TypeError, match="pointer parameter 'p'"):
        backend.hidden_size(np.zeros(3), "p", "k")


def test_array_views_at_an_offset(clenv):
    src = "__kernel void inc(__global float *x) { x[get_global_id(0)] += 1.0f; }"
    prg = skcl.Program(clenv.ctx, src, filename="inc.cl").build()
    q = clenv.queue
    align = clenv.device.mem_base_addr_align // 8 // 4     # floats per alignment unit
    x = cla.zeros(q, 4 * align, np.float32)
    view = x[align:2 * align]
    prg.inc(q, (align,), None, view)
    safekern.sync()
    expect = np.zeros(4 * align, np.float32)
    expect[align:2 * align] = 1
    np.testing.assert_array_equal(x.get(), expect)
    prg.inc(q, (align + 1,), None, view)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.index, info.value.size) == (align, align)
