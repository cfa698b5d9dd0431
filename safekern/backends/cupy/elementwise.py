"""Checked drop-in for `cupy.ElementwiseKernel`: the `raw` arguments the user's code indexes
by hand are checked against their extents.

    k = skcp.ElementwiseKernel("raw T x", "T y", "y = x[i + 1]", "shift")
    y = k(x, size=n)          # as cupy.ElementwiseKernel; x[n] raises at the next sync point

CuPy's own ElementwiseKernel does everything it does (parameters, broadcasting, type rules,
`size=`, `reduce_dims`, `preamble`, `loop_prep`, `after_loop`, `options`, its caches): safekern
hands it the user's code with each subscript of a raw argument checked (raw_sites.py), the
device prelude and the checking views in front of the preamble, and one more input, `raw int64
_sk_fb`, the device's failure buffer, which the call passes after the user's inputs. The
elementwise arguments themselves (`T y` above: `y` is element `_ind.get()` of its array) are
in bounds by construction. A failure is raised at the next sync point (`a.get()`,
`stream.synchronize()`, `safekern.sync()`) as a `safekern.BoundsError` naming the kernel, the
line and column in the code string, and the Python file and line that made the kernel.
"""
from __future__ import annotations

from ...frontend.c.cuda_dialect import device_prelude
from .program import _cupy
from .raw_sites import RAW_PRELUDE
from .user_kernel import FB, call, caller, checked, raw_names, report, with_fb

#: attributes about what was compiled: the checked kernel's (the rest are the user's kernel's)
_FROM_CHECKED = ("_cached_codes", "_elementwise_kernel_memo", "_params_type_memo")


def _cupy_class():
    """CuPy's own ElementwiseKernel (also where `cupy.ElementwiseKernel` was replaced by
    this class, as the peer tests do)."""
    _cupy()
    from cupy._core._kernel import ElementwiseKernel as cupy_class

    return cupy_class


class ElementwiseKernel:
    """Checked drop-in for `cupy.ElementwiseKernel` (module doc): same arguments, same call,
    same attributes; `check_report()` lists the raw subscripts it checks."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, **kwargs):
        # CuPy's own object: its validation and errors, its attributes (in_params, nin, ...)
        self._plain = _cupy_class()(in_params, out_params, operation, name, reduce_dims,
                                    preamble, no_return, return_tuple, **kwargs)
        self._args = (in_params, out_params, operation, name, reduce_dims, preamble,
                      no_return, return_tuple, dict(kwargs))
        self._made_at = caller()
        self.__name__ = name
        self.checked_sites: list = []        # failures.FailureSite of each raw subscript
        self._checked = self._build()        # (CuPy compiles at the first call)

    def check_report(self):
        """Each subscript of a raw argument in the code strings (all checked)."""
        return report("ElementwiseKernel", self._plain.name, self._made_at, self.checked_sites)

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_plain", "_checked"):
            raise AttributeError(attr)
        if attr in _FROM_CHECKED:
            return getattr(self._checked, attr)
        return getattr(self._plain, attr)

    def __repr__(self):
        return f"<safekern checked ElementwiseKernel {self._plain.name!r}>"

    # -- building the checked kernel ---------------------------------------------------------
    def _build(self):
        (in_params, out_params, operation, name, reduce_dims, preamble, no_return,
         return_tuple, kwargs) = self._args
        raw = raw_names(in_params) + raw_names(out_params)
        kwargs = dict(kwargs)
        sites = []

        def check(part, code):
            code, more = checked("ElementwiseKernel", name, self._made_at, part, code, raw)
            sites.extend(more)
            return code

        op = check("operation", operation)
        prep = check("loop_prep", kwargs.get("loop_prep", ""))
        if "after_loop" in kwargs:
            kwargs["after_loop"] = check("after_loop", kwargs["after_loop"])
        # The failure buffer as a pointer, and the checked kernels' prelude: a launch while a
        # failure is pending returns at once (counted as skipped).
        kwargs["loop_prep"] = (f"long long* __sk_fb = (long long*)&{FB}[0]; "
                               f"if (__sk_enter(__sk_fb)) return; {prep}")
        self.checked_sites = sites
        return _cupy_class()(
            with_fb(in_params), out_params, op, name, reduce_dims,
            device_prelude(False) + RAW_PRELUDE + (preamble or ""), no_return, return_tuple,
            **kwargs)

    # -- CuPy's interface --------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return call(self._plain, self._checked, args, kwargs)

    @property
    def cached_codes(self):
        """The CUDA C CuPy compiled (the checked code), by input types."""
        return self._checked.cached_codes

    @property
    def cached_code(self):
        return self._checked.cached_code


__all__ = ["ElementwiseKernel"]
