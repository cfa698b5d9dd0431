"""Checked drop-in for `cupy.ReductionKernel`: the `raw` inputs that `map_expr`,
`reduce_expr` or `post_map_expr` index by hand are checked against their extents.

    k = skcp.ReductionKernel("T x, raw T w", "T y", "x * w[_j % 4]", "a + b",
                             "y = a", "0", "wsum")
    k(x, w, axis=1)           # as cupy.ReductionKernel

CuPy's own ReductionKernel does everything (axes, keepdims, out=, types, reduce_type,
reduce_dims, block sizes, its caches): as for ElementwiseKernel (elementwise.py), safekern hands
it the expressions with each raw subscript checked (raw_sites.py), the device prelude, the
checking views and `#define __sk_fb` in front of the preamble, and one more input, `raw int64
_sk_fb`, passed after the user's inputs. A kernel without raw parameters indexes nothing by
hand (each input is one element, in bounds by construction): it is CuPy's kernel, unchanged --
which also keeps CuPy's rule that reductions needing an axis permutation refuse raw inputs from
applying to kernels that have none. A failing thread exits; the block's barriers let it go
(exited threads count as arrived), the result is not used: the error is raised at the next
sync point. A launch while a failure is pending still runs (reductions have no loop_prep).
"""
from __future__ import annotations

from ...frontend.c.cuda_dialect import device_prelude
from .program import _cupy
from .raw_sites import RAW_PRELUDE
from .user_kernel import FB, call, caller, checked, raw_names, report, with_fb

_FROM_CHECKED = ("_cached_codes",)


def _cupy_class():
    """CuPy's own ReductionKernel (also where `cupy.ReductionKernel` was replaced)."""
    _cupy()
    from cupy._core._reduction import ReductionKernel as cupy_class

    return cupy_class


class ReductionKernel:
    """Checked drop-in for `cupy.ReductionKernel` (module doc): same arguments, same call."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr,
                 identity, name="reduce_kernel", reduce_type=None, reduce_dims=True,
                 preamble="", options=()):
        self._plain = _cupy_class()(in_params, out_params, map_expr, reduce_expr,
                                    post_map_expr, identity, name, reduce_type, reduce_dims,
                                    preamble, options)
        self._made_at = caller()
        self.__name__ = name
        self.checked_sites: list = []        # failures.FailureSite of each raw subscript
        raw = raw_names(in_params) + raw_names(out_params)
        self._checked = None
        if raw:
            exprs = []
            for part, code in (("map_expr", map_expr), ("reduce_expr", reduce_expr),
                               ("post_map_expr", post_map_expr)):
                code, sites = checked("ReductionKernel", name, self._made_at, part, code, raw)
                exprs.append(code)
                self.checked_sites += sites
            prelude = (device_prelude(False) + RAW_PRELUDE +
                       f"#define __sk_fb ((long long*)&{FB}[0])\n")
            self._checked = _cupy_class()(with_fb(in_params), out_params, *exprs, identity,
                                          name, reduce_type, reduce_dims,
                                          prelude + (preamble or ""), options)

    def check_report(self):
        """Each subscript of a raw argument in the code strings (all checked)."""
        return report("ReductionKernel", self._plain.name, self._made_at, self.checked_sites)

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_plain", "_checked"):
            raise AttributeError(attr)
        if attr in _FROM_CHECKED and self._checked is not None:
            return getattr(self._checked, attr)
        return getattr(self._plain, attr)

    def __repr__(self):
        return f"<safekern checked ReductionKernel {self._plain.name!r}>"

    def __call__(self, *args, **kwargs):
        return call(self._plain, self._checked, args, kwargs)


__all__ = ["ReductionKernel"]
