"""Check helpers for real numba-cuda kernels, typed per call by numba.

`_sk_load(a, idx, code, fb, flag)` and `_sk_store(...)` are intrinsics: for an array they emit
inline (lowering.py) a comparison of each integer index component with its axis' extent, the
failure recording on an unlikely branch, and the access (numba's basic indexing for one
element, lowering.element_load/element_store; numba's own getitem/setitem otherwise); for anything else
(tuples, records, user types) they are the plain subscript. So which subscripts are array accesses is
decided by numba's typing, never guessed from syntax. Atomics are intrinsics too: the same
checks, then numba's own atomic. (No overloads: numba compiles each overload apart, per type.)
"""
from __future__ import annotations

import operator

from llvmlite import ir
from numba import cuda
from numba.cuda import cgutils, types

from ... import failures
from ...frontend.python import INDEXED_ATOMICS
from .lowering import (all_in_bounds, array_extent, array_shape, code_value, compare_index,
                       count_skipped, element_index, element_load, element_store, emit_checks,
                       emit_record, flag_array, flag_clear, select_load, selectable)
from .typed_once import intrinsic

# -- failure recording (the cold side) ------------------------------------------------------


# Intrinsics and overloads rather than cuda.jit(device=True) functions: those would compile
# for the current device, and kernels must also compile to PTX where there is no GPU.


@intrinsic
def _sk_skip(typingctx, fb):
    """Thread (0,0,0) of block (0,0,0) counts a launch skipped because a failure was pending.
    Inline, with the thread and block read by inline asm: the kernel's LLVM holds no call for
    it (numba's own tests look for calls to see whether device functions were inlined)."""
    if not isinstance(fb, types.Array):
        return None

    def codegen(context, builder, sig, args):
        count_skipped(context, builder, fb, args[0])
        return context.get_dummy_value()

    return types.none(fb), codegen


assert failures.SKIPPED == 10 and failures.INDEX == 1 and failures.BLOCK == 7

# -- stubs the rewritten code calls -----------------------------------------------------------


@intrinsic
def _sk_extent(typingctx, arr, axis):
    """`arr.shape[axis]` for an array, -1 for anything else (loop versioning compares indices
    with extents; for a tuple indexed in the loop the comparison fails and the checked loop
    runs). An intrinsic, not an overload: an overload is a function numba compiles apart for
    each array type, which costs compile time for nothing."""
    if not isinstance(axis, types.IntegerLiteral):
        return None                    # numba asks again with the literal axis
    k = axis.literal_value
    if isinstance(arr, types.Array) and not 0 <= k < arr.ndim:
        return None

    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        if not isinstance(arr, types.Array):
            return ir.Constant(intp, -1)
        return array_extent(context, builder, arr, args[0], k)

    return types.intp(arr, axis), codegen


@intrinsic
def _sk_within(typingctx, arr, idx):
    """`arr[idx]` is in bounds: every component an integer within its axis (negative ones
    from the end, as numba indexes), as the access's own check compares them; False for
    anything else -- a slice, a tuple, a partial index -- whose access then runs checked
    (frontend/python/body_versioning.py)."""
    full = isinstance(arr, types.Array) and element_index(arr, idx)

    def codegen(context, builder, sig, args):
        if not full:
            return cgutils.false_bit
        shapes = array_shape(context, builder, arr, args[0])
        return all_in_bounds(builder, compare_index(builder, context, arr, idx, shapes,
                                                    args[1]))

    return types.boolean(arr, idx), codegen


@intrinsic
def _sk_buffer(typingctx, address):
    """The failure buffer (int64[16], C order) at a device address passed as a scalar."""
    if not isinstance(address, types.Integer):
        return None
    array_ty = types.Array(types.int64, 1, "C")

    def codegen(context, builder, sig, args):
        from numba.cuda.np.arrayobj import populate_array

        ary = context.make_array(array_ty)(context, builder)
        intp = context.get_value_type(types.intp)
        data = builder.inttoptr(args[0], context.get_value_type(types.int64).as_pointer())
        populate_array(ary, data=data, shape=[ir.Constant(intp, failures.BUFFER_LEN)],
                       strides=[ir.Constant(intp, 8)], itemsize=ir.Constant(intp, 8),
                       meminfo=None)
        return ary._getvalue()

    return array_ty(address), codegen


@intrinsic
def _sk_flag_array(typingctx):
    """The per-thread failure flag: a local int32[1], as cuda.local.array makes one, under a
    name of its own (numba names the user's cuda.local arrays "_cudapy_lmem" in its LLVM, and
    tools and tests find them by that name)."""
    array_ty = types.Array(types.int32, 1, "C")

    def codegen(context, builder, sig, args):
        return flag_array(context, builder)

    return array_ty(), codegen


@intrinsic
def _sk_cold(typingctx):
    """The first statement of a versioned loop's checked copy (frontend/python/cold_loops.py):
    an empty asm that NVVM may not duplicate, so it unrolls neither that loop nor the failure
    records in it -- nor a loop around it: the copy sits in the innermost loop's place (only
    innermost loops are versioned), beside its fast copy. No PTX of its own; LLVM sees it touch
    no memory it can see."""

    def codegen(context, builder, sig, args):
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), "", "", side_effect=True)
        call = builder.call(asm, [], attrs=("nounwind",))
        # (set.add: llvmlite's attribute set checks names against a list without these)
        set.add(call.attributes, "noduplicate")
        set.add(call.attributes, "inaccessiblememonly")
        return context.get_dummy_value()

    return types.none(), codegen


# -- loads and stores: intrinsics, so a view (row = a[i]) can be the result -------------------------
# A numba-cuda device function may not return an array it did not receive, so loads cannot be
# overloads. The intrinsic emits the checks inline, with the failure side marked unlikely, and
# lowers the subscript as numba does (element_load for one element, else numba's getitem/setitem).


def _if_ok(context, builder, ok, emit, result):
    """`emit()`'s value where `ok` holds (the likely side), the null `result` elsewhere."""
    with builder.if_else(ok, likely=True) as (then, otherwise):
        with then:
            good = emit()
            good_block = builder.basic_block
        with otherwise:
            bad = context.get_constant_null(result)
            bad_block = builder.basic_block
    phi = builder.phi(good.type)
    phi.add_incoming(good, good_block)
    phi.add_incoming(bad, bad_block)
    return phi


def _resolve(typingctx, op, argtys):
    fnty = typingctx.resolve_value_type(op)
    try:
        return typingctx.resolve_function_type(fnty, tuple(argtys), {})
    except Exception:
        return None


def _static_tuple_index(container, index):
    literal = getattr(index, "literal_value", None)
    if isinstance(container, types.BaseTuple) and isinstance(literal, int) and \
            -len(container) <= literal < len(container):
        return literal % len(container)
    return None


def _load_typer(typingctx, arr, idx, code, fb, flag, select: bool, exits: bool = False,
                outlined: bool = False):
    if not isinstance(arr, types.Array):
        position = _static_tuple_index(arr, idx)
        if position is not None:           # a heterogeneous tuple needs a constant index
            def tuple_codegen(context, builder, sig, args):
                return builder.extract_value(args[0], position)
            return arr.types[position](arr, idx, code, fb, flag), tuple_codegen
        gsig = _resolve(typingctx, operator.getitem, (arr, idx))
        if gsig is None:
            return None
        if isinstance(arr, types.Record) and isinstance(idx, types.IntegerLiteral):
            # rec[0]: a field by position, which numba lowers as static_getitem only.
            def record_codegen(context, builder, sig, args):
                from numba.cuda.typing.templates import signature

                impl = context.get_function("static_getitem",
                                            signature(gsig.return_type, arr, idx))
                value = impl(builder, (args[0], idx.literal_value))
                return context.cast(builder, value, gsig.return_type, sig.return_type)
            return gsig.return_type(arr, idx, code, fb, flag), record_codegen

        def plain_codegen(context, builder, sig, args):
            impl = context.get_function(operator.getitem, gsig)
            value = impl(builder, (args[0], context.cast(builder, args[1], idx, gsig.args[1])))
            return context.cast(builder, value, gsig.return_type, sig.return_type)
        return gsig.return_type(arr, idx, code, fb, flag), plain_codegen

    gsig = _resolve(typingctx, operator.getitem, (arr, idx))
    if gsig is None:
        return None
    result = gsig.return_type

    def codegen(context, builder, sig, args):
        a, i, c, fbv, flagv = args
        c = code_value(context, builder, c, sig.args[2])
        if select and not isinstance(result, types.Array) and selectable(context, arr, idx):
            value = select_load(context, builder, arr, idx, a, i, c, fbv, flagv, fb, flag,
                                exits, outlined)
            return context.cast(builder, value, arr.dtype, result)
        ok = emit_checks(context, builder, arr, idx, a, i, c, fbv, flagv, fb, flag, exits,
                         outlined)
        getitem = context.get_function(operator.getitem, gsig)
        gi = context.cast(builder, i, idx, gsig.args[1])
        if isinstance(result, types.Array):
            # A view only computes a pointer; nothing is read until it is indexed, and those
            # accesses are checked. So no branch is needed here.
            return getitem(builder, (a, gi))
        # Loads do not test the flag: an in-bounds read is harmless after a failure (its
        # value is never stored: stores and atomics test the flag), and the test would cost
        # a branch per load.
        def load():
            value = element_load(context, builder, arr, gsig.args[1], a, gi)
            return getitem(builder, (a, gi)) if value is None else \
                context.cast(builder, value, arr.dtype, result)
        return _if_ok(context, builder, ok, load, result)

    return result(arr, idx, code, fb, flag), codegen


@intrinsic
def _sk_load(typingctx, arr, idx, code, fb, flag):
    """A checked load: the load on the likely side of a branch (no extra registers)."""
    return _load_typer(typingctx, arr, idx, code, fb, flag, select=False)


@intrinsic
def _sk_loadv(typingctx, arr, idx, code, fb, flag):
    """A checked load in a loop: no branch before the load (see select_load), so loads of
    successive iterations overlap as in the unchecked loop; costs a few registers."""
    return _load_typer(typingctx, arr, idx, code, fb, flag, select=True)


def _setitem(context, builder, ssig, setitem, args) -> None:
    """numba's setitem of `args` (with ssig's types): element_store for one element, else
    numba's own."""
    if not element_store(context, builder, *ssig.args[:3], *args):
        setitem(builder, args)


@intrinsic
def _sk_load_exit(typingctx, arr, idx, code, fb, flag):
    """_sk_load whose failure ends the thread (frontend/python/exit_mode.py)."""
    return _load_typer(typingctx, arr, idx, code, fb, flag, select=False, exits=True)


@intrinsic
def _sk_loadv_exit(typingctx, arr, idx, code, fb, flag):
    """_sk_loadv whose failure ends the thread (frontend/python/exit_mode.py)."""
    return _load_typer(typingctx, arr, idx, code, fb, flag, select=True, exits=True)


def _store_typer(typingctx, arr, idx, value, code, fb, flag, exits: bool = False,
                 outlined: bool = False):
    ssig = _resolve(typingctx, operator.setitem, (arr, idx, value))
    if ssig is None:
        return None
    checked = isinstance(arr, types.Array)

    def codegen(context, builder, sig, args):
        a, i, v, c, fbv, flagv = args
        v = context.cast(builder, v, value, ssig.args[2])
        # numba's typing may widen the index (int32 tuples to intp): lower with its types.
        si = context.cast(builder, i, idx, ssig.args[1])
        setitem = context.get_function(operator.setitem, ssig)
        if not checked:
            setitem(builder, (a, si, v))
            return context.get_dummy_value()
        c = code_value(context, builder, c, sig.args[3])
        ok = emit_checks(context, builder, arr, idx, a, i, c, fbv, flagv, fb, flag, exits,
                         outlined)
        # (the flag: a device function, an assert or a division may have failed before)
        ok = builder.and_(ok, flag_clear(context, builder, flag, flagv))
        with builder.if_then(ok, likely=True):
            _setitem(context, builder, ssig, setitem, (a, si, v))
        return context.get_dummy_value()

    return types.none(arr, idx, value, code, fb, flag), codegen


@intrinsic
def _sk_store(typingctx, arr, idx, value, code, fb, flag):
    return _store_typer(typingctx, arr, idx, value, code, fb, flag)


@intrinsic
def _sk_store_exit(typingctx, arr, idx, value, code, fb, flag):
    """_sk_store whose failure ends the thread (frontend/python/exit_mode.py)."""
    return _store_typer(typingctx, arr, idx, value, code, fb, flag, exits=True)


@intrinsic
def _sk_put(typingctx, arr, idx, value, flag):
    """A store proven in bounds whose value may come from a failed check: done only while
    the thread's flag is clear (no bounds check)."""
    ssig = _resolve(typingctx, operator.setitem, (arr, idx, value))
    if ssig is None:
        return None

    def codegen(context, builder, sig, args):
        a, i, v, flagv = args
        v = context.cast(builder, v, value, ssig.args[2])
        si = context.cast(builder, i, idx, ssig.args[1])
        setitem = context.get_function(operator.setitem, ssig)
        with builder.if_then(flag_clear(context, builder, flag, flagv), likely=True):
            _setitem(context, builder, ssig, setitem, (a, si, v))
        return context.get_dummy_value()

    return types.none(arr, idx, value, flag), codegen


# -- assert, raise, division by zero (frontend/python/safety.py) -------------------------------------


@intrinsic
def _sk_fail(typingctx, code, v0, v1, v2, fb, flag):
    """An assert or raise failed: record it with up to three integer values."""
    for value in (v0, v1, v2):
        if not isinstance(value, (types.Integer, types.Boolean)):
            from numba.core.errors import TypingError

            raise TypingError(f"a kernel's failure message can carry integers only, not "
                              f"{value}")

    def codegen(context, builder, sig, args):
        c, *values, fbv, flagv = args
        as64 = [context.cast(builder, v, t, types.int64) for v, t in zip(
            values, sig.args[1:4])]
        unsigned = sum(1 << k for k, t in enumerate(sig.args[1:4])
                       if isinstance(t, types.Integer) and not t.signed)
        emit_record(context, builder, fb, flag, fbv, flagv,
                    code_value(context, builder, c, sig.args[0]), *as64,
                    unsigned_bits=unsigned)
        return context.get_dummy_value()

    return types.none(code, v0, v1, v2, fb, flag), codegen


def _make_division(op_name, pyop, any_type: bool):
    """`a op b` whose zero divisor is recorded (integer operands; any type when `any_type`) on
    an unlikely branch; that side divides by 1 instead, as the simulator's stand-in does."""
    def typer(typingctx, a, b, code, fb, flag):
        dsig = _resolve(typingctx, pyop, (a, b))
        if dsig is None:
            return None
        checked = any_type or (isinstance(a, types.Integer) and isinstance(b, types.Integer))

        def codegen(context, builder, sig, args):
            av, bv, c, fbv, flagv = args
            impl = context.get_function(pyop, dsig)
            av = context.cast(builder, av, a, dsig.args[0])
            bv = context.cast(builder, bv, b, dsig.args[1])
            if checked and isinstance(dsig.args[1], (types.Integer, types.Float)):
                zero = context.get_constant(dsig.args[1], 0)
                one = context.get_constant(dsig.args[1], 1)
                cmp = builder.fcmp_ordered if isinstance(dsig.args[1], types.Float) \
                    else builder.icmp_signed
                is_zero = cmp("==", bv, zero)
                with builder.if_then(is_zero, likely=False):
                    dividend = context.cast(builder, av, dsig.args[0], types.int64) \
                        if isinstance(dsig.args[0], types.Integer) else \
                        ir.Constant(ir.IntType(64), 0)
                    i64 = ir.IntType(64)
                    emit_record(context, builder, fb, flag, fbv, flagv,
                                code_value(context, builder, c, sig.args[2]),
                                 dividend, ir.Constant(i64, 0), ir.Constant(i64, 0),
                                 unsigned_bits=int(isinstance(dsig.args[0], types.Integer)
                                                   and not dsig.args[0].signed))
                bv = builder.select(is_zero, one, bv)
            value = impl(builder, (av, bv))
            return context.cast(builder, value, dsig.return_type, sig.return_type)

        return dsig.return_type(a, b, code, fb, flag), codegen

    typer.__name__ = f"_sk_div_{op_name}" + ("_any" if any_type else "")
    return intrinsic(typer)


DIVISIONS = {f"_sk_div_{name}" + ("_any" if any_type else ""): _make_division(name, pyop, any_type)
             for name, pyop in (("floordiv", operator.floordiv), ("mod", operator.mod),
                                ("truediv", operator.truediv))
             for any_type in (False, True)}


def _atomic_typer(op, exits: bool = False):
    """A checked `cuda.atomic.<op>(arr, idx, *values)`: the index checks inline (emit_checks),
    then numba's own atomic on the likely side, done only while the thread's flag is clear;
    the other side gives 0. An intrinsic, not an overload numba compiles apart per type."""
    def typer(typingctx, arr, idx, *rest):
        values, (code, fb, flag) = rest[:-3], rest[-3:]
        if not isinstance(arr, types.Array):
            return None
        try:     # what `cuda.atomic.<op>` is in numba's typing: an attribute of the module
            module = typingctx.resolve_getattr(typingctx.resolve_value_type(cuda), "atomic")
            fnty = typingctx.resolve_getattr(module, op)
            asig = typingctx.resolve_function_type(fnty, (arr, idx) + tuple(values), {})
        except Exception:      # noqa: BLE001 - numba's own call then says what is wrong
            return None
        if asig is None:
            return None
        result = asig.return_type

        def codegen(context, builder, sig, args):
            a, i, *vals, c, fbv, flagv = args
            c = code_value(context, builder, c, sig.args[-3])
            ok = emit_checks(context, builder, arr, idx, a, i, c, fbv, flagv, fb, flag, exits)
            ok = builder.and_(ok, flag_clear(context, builder, flag, flagv))
            impl = context.get_function(fnty, asig)
            call_args = [a, context.cast(builder, i, idx, asig.args[1])] + [
                context.cast(builder, v, t, at)
                for v, t, at in zip(vals, sig.args[2:-3], asig.args[2:])]
            return _if_ok(context, builder, ok, lambda: impl(builder, call_args), result)

        return result(arr, idx, *values, code, fb, flag), codegen

    return typer


def _make_atomic(op, exits: bool = False):
    # numba's intrinsic reads the typer's parameters: cas takes two values, the others one.
    checked = _atomic_typer(op, exits)
    if op == "cas":
        def typer(typingctx, arr, idx, old, val, code, fb, flag):
            return checked(typingctx, arr, idx, old, val, code, fb, flag)
    else:
        def typer(typingctx, arr, idx, val, code, fb, flag):
            return checked(typingctx, arr, idx, val, code, fb, flag)
    typer.__name__ = f"_sk_atomic_{op}" + ("_exit" if exits else "")
    return intrinsic(typer)


ATOMICS = {f"_sk_atomic_{op}": _make_atomic(op) for op in INDEXED_ATOMICS}
#: `_sk_atomic_<op>_exit`: the same, a failure ends the thread (frontend/python/exit_mode.py).
ATOMICS_EXIT = {f"_sk_atomic_{op}_exit": _make_atomic(op, exits=True)
                for op in INDEXED_ATOMICS}


def namespace() -> dict:
    """What the rewritten code's names are bound to, for real numba-cuda kernels. The
    `..._exit` helpers are the checks whose failure ends the thread (checked accesses in loops
    that store: frontend/python/exit_mode.py picks them; the others keep the flag)."""
    ns = {"_sk_load": _sk_load, "_sk_loadv": _sk_loadv, "_sk_store": _sk_store,
          "_sk_load_exit": _sk_load_exit, "_sk_loadv_exit": _sk_loadv_exit,
          "_sk_store_exit": _sk_store_exit,
          "_sk_skip": _sk_skip, "_sk_put": _sk_put,
          "_sk_buffer": _sk_buffer, "_sk_extent": _sk_extent, "_sk_within": _sk_within,
          "_sk_cuda": cuda, "_sk_int32": types.int32, "_sk_int64": types.int64, "_sk_slice": slice,
          "_sk_flag_array": _sk_flag_array, "_sk_cold": _sk_cold}
    ns.update(ATOMICS)
    ns.update(ATOMICS_EXIT)
    ns["_sk_fail"] = _sk_fail
    ns.update(DIVISIONS)
    return ns
