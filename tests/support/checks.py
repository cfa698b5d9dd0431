"""The one way tests expect a kernel failure, and load a module of kernels from source.

    err = assert_bounds_error(array="a", axis=0, index=7, size=7, kernel="k", lineno=12)
    check_bounds_error(err, array="a", index=7)     # an error caught another way (a sync point)
    module = load_kernel_module(tmp_path, source, "user_kernels")   # (fixture: kernel_module)
"""
from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

_UNSET = object()


def assert_bounds_error(*, sync=None, out_of_bounds=True, **expected):
    """Synchronise (`safekern.sync()` unless `sync` is given), expect a safekern.BoundsError,
    check each given attribute (array, axis, index, size, kernel, filename, lineno, thread,
    block, source_line, skipped_launches, ...) and return it. `index=None` asks only that
    the index is outside [0, size)."""
    import safekern

    with pytest.raises(safekern.BoundsError) as info:
        (sync or safekern.sync)()
    return check_bounds_error(info.value, out_of_bounds=out_of_bounds, **expected)


def check_bounds_error(err, *, out_of_bounds=True, **expected):
    """`err` is a safekern.BoundsError (an IndexError and a KernelError) with each given
    attribute (as assert_bounds_error); `err`."""
    import safekern

    assert isinstance(err, safekern.BoundsError), repr(err)
    assert isinstance(err, IndexError) and isinstance(err, safekern.KernelError)
    for name, want in expected.items():
        if name == "index" and want is None:
            assert not 0 <= err.index < err.size, str(err)
            continue
        assert getattr(err, name) == want, f"{name}: {getattr(err, name)!r} != {want!r}\n{err}"
    if out_of_bounds:
        assert len(err.thread) == 3 and len(err.block) == 3
    return err


def load_kernel_module(directory, source: str, name: str = "user_kernels", *,
                       register: bool = False, filename: str | None = None):
    """`source` (dedented) written to `directory/name.py` and imported as module `name` --
    its kernels are decorated as a user's would be, with a file of their own for file:line.
    `register`: also put it in sys.modules (pickling and the kernel cache find it by name);
    `filename`: another file name than `name`.py."""
    path = directory / (filename or f"{name}.py")
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


__all__ = ["assert_bounds_error", "check_bounds_error", "load_kernel_module"]
