"""Launch variants of C kernels (CuPy, PyOpenCL): which checks a launch may leave out.

The C front ends give each kernel its launch predicates (frontend/c/launch.py, as data:
frontend/c/launch_expr.py). `CLaunchVariants(predicates, make)` evaluates all of them at a
launch in one compiled call (`mask(args, nb, g, l)`: bit i set when predicate i holds for these
arguments, hidden byte sizes `nb` -- the pointer parameters', then CUDA C's struct pointer
fields' (backends/cupy/struct_args.py) -- and geometry) and answers the kernel the launch may run: the
variant without the checks of exactly the predicates that hold, made by `make(codes)` on first
use (codes: the failure codes of the checks it leaves out), or None (the checked kernel) when
none holds. Variants for a proper subset are made for at most `PARTIAL_VARIANTS` subsets;
other launches run checked. Anything unexpected -- a scalar that is not an integer of the
parameter's range, a geometry the library would reject, a local size left to the driver for a
predicate that needs it -- holds nothing, so the checks stay.

`PlainLaunch` goes one step further: a launch whose every check is proven (statically, or by
the predicates that hold) and with nothing pending runs the user's own unmodified binary --
no prelude, no hidden argument -- as the numba backend does (backends/numba/plain.py).
"""
from __future__ import annotations

import logging
import threading

import numpy as np

from .. import runtime
from ..memo import BoundedMemo
from .variants import PARTIAL_VARIANTS, VariantTable

_INT64 = (-2 ** 63, 2 ** 63 - 1)

log = logging.getLogger("safekern.launch")


def _scalar(value, size: int, lo: int, hi: int, python_int: bool) -> int:
    """The integer a kernel reads for a scalar parameter of `size` bytes and range [lo, hi]:
    the argument's value when it fits and the library passes at least `size` bytes of it
    (CuPy passes a Python int as 8 bytes, a NumPy integer as its own)."""
    if type(value) is int:
        if not python_int or not _INT64[0] <= value <= _INT64[1]:
            raise TypeError("not an integer the library passes as such")
        v = value
    elif isinstance(value, np.integer):
        if value.dtype.itemsize < size:
            raise TypeError("narrower than the parameter")
        v = int(value)
    else:
        raise TypeError("not an integer")
    if not lo <= v <= hi:
        raise ValueError("out of the parameter's range")
    return v


def struct_bytes(value):
    """The bytes a by-value struct argument is passed as (CuPy's form: a NumPy structured
    scalar or one-element array), or None. (Here, not in the CuPy backend: the launch masks
    read struct members, and this module is shared by both C backends.)"""
    if isinstance(value, np.void) or (isinstance(value, np.ndarray) and value.size == 1):
        return value.tobytes()
    if isinstance(value, np.generic) and value.dtype.fields is not None:
        return value.tobytes()
    return None


def _field(value, offset: int, size: int, lo: int, hi: int, whole: int) -> int:
    """The integer member at byte `offset` of a struct argument of `whole` bytes, as the
    kernel reads it (little-endian, signed where lo < 0)."""
    raw = struct_bytes(value)
    if raw is None or len(raw) != whole:
        raise TypeError("not the struct's bytes")
    v = int.from_bytes(raw[offset:offset + size], "little", signed=lo < 0)
    if not lo <= v <= hi:
        raise ValueError("out of the member's range")
    return v


def _extent(nbytes, size: int) -> int:
    """Elements of a pointer parameter, as the kernel counts them (negative: unchecked)."""
    nb = int(nbytes)
    return -1 if nb < 0 else nb // size


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _dims(value, *, name: str) -> tuple:
    """A 1- to 3-D size as 3 positive Python ints (CUDA grid/block, OpenCL sizes)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        dims = (int(value),)
    elif isinstance(value, (tuple, list)) and 1 <= len(value) <= 3:
        dims = tuple(int(v) for v in value
                     if isinstance(v, (int, np.integer)) and not isinstance(v, bool))
        if len(dims) != len(value):
            raise TypeError(f"{name}: not integers")
    else:
        raise TypeError(f"{name}: not a size")
    if any(d < 1 or d > _INT64[1] for d in dims):
        raise ValueError(f"{name}: out of range")
    return dims + (1,) * (3 - len(dims))


def cuda_geometry(grid, block) -> tuple:
    """(g, l) for a CuPy launch `kernel(grid, block, args)`."""
    return _dims(grid, name="grid"), _dims(block, name="block")


def opencl_geometry(global_size, local_size, global_offset=None, g_times_l=False) -> tuple:
    """(g, l) for a PyOpenCL launch; l is None where the driver picks the local size.
    Variants assume work-item ids from 0: a launch with a global offset raises here."""
    if g_times_l:
        raise ValueError("g_times_l")
    if global_offset is not None and any(int(o) for o in global_offset):
        raise ValueError("a global offset")
    g = _dims(global_size, name="global size")
    l = None if local_size is None else _dims(local_size, name="local size")
    return g, l


def compile_mask(predicates, *, python_int: bool):
    """`mask(args, nb, g, l)` -> int, and per bit the failure codes it proves: predicates
    with the same conditions share one bit."""
    bits: dict = {}
    for p in predicates.preds:
        bits.setdefault(p.conds, []).append(p.code)
    # The mask is a function of the geometry, the hidden sizes and the scalars (their types
    # too: the bytes a library passes) it reads: launches that repeat them look it up.
    key = ["g", "l"]
    for f in predicates.facts:
        if f.kind == "scalar":
            key += [f"type(args[{f.param}])", f"args[{f.param}]"]
        elif f.kind == "field":
            key.append(f"_struct(args[{f.param}])")      # (its bytes)
        elif f.kind == "extent":
            key.append(f"nb[{f.slot}]")
    lines = ["def mask(args, nb, g, l):",
             f"    key = ({', '.join(dict.fromkeys(key))},)",
             "    try:",
             "        return _memo[key]",
             "    except KeyError:",
             "        m = _mask(args, nb, g, l)",
             "    except TypeError:            # (an argument that cannot be a key)",
             "        return _mask(args, nb, g, l)",
             "    return _memo.put(key, m)",
             "def _mask(args, nb, g, l):"]
    for f in predicates.facts:
        expr = f.python()
        if f.kind == "scalar":
            expr = expr[:-1] + f", {python_int})"
        lines += [f"    try: {f.name} = {expr}", f"    except Exception: {f.name} = None"]
    for name, expr, _ in predicates.temps:
        lines += [f"    try: {name} = {expr}", f"    except Exception: {name} = None"]
    lines.append("    m = 0")
    for i, conds in enumerate(bits):
        lines.append(f"    if {' and '.join(conds) or 'True'}: m |= {1 << i}")
    lines.append("    return m")
    source = "\n".join(lines) + "\n"
    namespace = {"_scalar": _scalar, "_field": _field, "_struct": struct_bytes,
                 "_extent": _extent, "_tdiv": _tdiv,
                 "_memo": BoundedMemo(256)}
    exec(compile(source, "<safekern launch predicates>", "exec"), namespace)
    mask = namespace["mask"]
    mask.source = source
    return mask, [frozenset(codes) for codes in bits.values()]


class CLaunchVariants:
    """The launch variants of one C kernel, by which of its predicates hold (module doc)."""

    def __init__(self, predicates, make, *, python_int: bool):
        self.predicates = predicates
        self.mask, self.codes = compile_mask(predicates, python_int=python_int)
        # A variant's key: the failure codes it leaves out (a variant that fails to build
        # leaves the checked kernel to run).
        self._table = VariantTable(self.codes, make,
                                   full_key=frozenset().union(*self.codes),
                                   on_error=_variant_failed)
        self.full = self._table.full
        self._geometry = BoundedMemo(64)   # launch sizes as given -> (g, l)

    def for_launch(self, args, nb, geometry, *launch):
        """The variant this launch may run, or None (the checked kernel). `geometry(*launch)`
        gives (g, l) (cuda_geometry, opencl_geometry; it may raise: then none holds)."""
        return self._table.lookup(self.mask_of(args, nb, geometry, *launch))

    def variant(self, m: int):
        """The variant for mask `m` (mask_of), or None (the checked kernel)."""
        return self._table.lookup(m)

    def proven(self, m: int) -> frozenset:
        """The failure codes the predicates of mask `m` prove."""
        if m == self.full:
            return self._table.full_key
        return frozenset().union(*(c for i, c in enumerate(self.codes) if m >> i & 1))

    def mask_of(self, args, nb, geometry, *launch) -> int:
        """Which predicates hold at this launch (bit i: `codes[i]` proven); 0 where anything
        is unexpected."""
        try:
            try:
                g, l = self._geometry[launch]
            except KeyError:
                g, l = self._geometry.put(launch, geometry(*launch))
            except TypeError:   # (a list: not hashable)
                g, l = geometry(*launch)
            return self.mask(args, nb, g, l)
        except Exception:       # noqa: BLE001 -- an odd launch: the checked kernel
            return 0

    def kernels(self) -> list:
        """The variants made so far."""
        return self._table.kernels()


class PlainLaunch:
    """Whether a launch of one C kernel may run the user's own binary (a plain launch).

    It may when the launch cannot record a failure -- every check of the kernel and of what it
    calls (`codes`: frontend/c/plain.py) is proven by the predicates that hold (`variants`,
    the kernel's CLaunchVariants; no code at all: always) -- and nothing can be pending on the
    device, which the checked kernel's prelude would test: its failure source is not dirty
    (no launch that can fail since the last check, which synchronised the device; as
    backends/numba/plain.py) and no stream capture is in progress (a captured launch is
    replayed later, when a failure may be pending). `make()` builds the user's kernel on first
    use (through the backend's one build path: the module compiled from the unmodified
    source, as with SAFEKERN_CHECKS=0); if it fails, launches stay checked. The backend makes
    none for a module with state (`__device__`/`__constant__` variables, OpenCL program-scope
    variables): the user wrote that state into the checked module.
    """

    def __init__(self, codes, variants, make):
        self.codes = frozenset(codes)
        self._variants = variants
        self._make = make
        self._kernel = None
        self._failed = False
        self._covers: dict = {}            # mask -> its predicates prove every code
        self._lock = threading.Lock()

    def kernel(self, m, source):
        """The user's kernel for a launch whose predicates are mask `m` (CLaunchVariants.
        mask_of; ignored for a kernel with no check), or None: the checked kernel runs."""
        if source.dirty or runtime.capturing:
            return None
        if self.codes:
            covers = self._covers.get(m)
            if covers is None:
                if self._variants is None or not m:
                    return None
                covers = self._covers[m] = self.codes <= self._variants.proven(m)
            if not covers:
                return None
        kernel = self._kernel
        if kernel is None:
            kernel = self._build()
        return kernel

    def _build(self):
        with self._lock:
            if self._kernel is None and not self._failed:
                try:
                    self._kernel = self._make()
                except Exception as err:     # noqa: BLE001 -- the checked kernel runs
                    log.warning("safekern: the kernel's own build failed (%s); its launches "
                                "stay checked", err)
                    self._failed = True
            return self._kernel


def plain_launch(info, state, variants, make, settings):
    """A kernel's PlainLaunch, or None where its launches may never run the user's binary:
    SAFEKERN_PLAIN_LAUNCHES=0, an assert (info.codes None), module state, or checks that no
    launch predicate can prove."""
    codes = getattr(info, "codes", None)
    if codes is None or state or not settings.plain_launches:
        return None
    if codes and (variants is None or not codes <= variants.proven(variants.full)):
        return None
    return PlainLaunch(codes, variants, make)


def _variant_failed(err):
    log.warning("safekern: a launch variant failed to build (%s); the checked kernel runs", err)
    return None


__all__ = ["CLaunchVariants", "PlainLaunch", "plain_launch", "compile_mask", "struct_bytes",
           "cuda_geometry", "opencl_geometry", "PARTIAL_VARIANTS"]
