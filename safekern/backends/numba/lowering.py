"""The LLVM IR the typed check helpers emit (intrinsics.py): which index components are
compared with which axis (`plan`), the comparisons, the cold failure record (a flag per thread,
the first failure on the device by a compare-and-swap), and a scalar load with no branch before
it (`select_load`).
"""
from __future__ import annotations

from llvmlite import ir
from numba.cuda import cgutils, types

from ... import failures


def components(index_ty):
    return list(index_ty.types) if isinstance(index_ty, types.BaseTuple) else [index_ty]


def element_index(array_ty, index_ty) -> bool:
    """`index_ty` names one element of an array of `array_ty`: an integer per axis."""
    comps = components(index_ty)
    return len(comps) == array_ty.ndim and all(isinstance(c, types.Integer) for c in comps)


def plan(array_ty, index_ty):
    """(checks, scalar, fallback_index): checks = [(position, axis, component type)]."""
    comps = components(index_ty)
    tupled = isinstance(index_ty, types.BaseTuple)
    ndim = array_ty.ndim
    consuming = [c for c in comps if not isinstance(c, (types.NoneType, types.EllipsisType))]
    checks, axis, scalar = [], 0, True
    for pos, comp in enumerate(comps):
        if isinstance(comp, types.EllipsisType):
            axis = ndim - (len(consuming) - _consumed_before(comps, pos))
            scalar = False
            continue
        if isinstance(comp, types.NoneType):
            scalar = False
            continue
        if isinstance(comp, types.Integer) and axis < ndim:
            checks.append((pos, axis, comp))
        elif not isinstance(comp, types.Integer):
            scalar = False
        axis += 1
    if len(consuming) < ndim:
        scalar = False
    zero_parts = []
    for pos, comp in enumerate(comps):
        if isinstance(comp, types.Integer):
            zero_parts.append("0")
        else:
            zero_parts.append(f"idx[{pos}]" if tupled else "idx")
    fallback = f"({', '.join(zero_parts)},)" if tupled else zero_parts[0]
    return checks, scalar, fallback, tupled


def _consumed_before(comps, pos):
    return sum(1 for c in comps[:pos]
               if not isinstance(c, (types.NoneType, types.EllipsisType)))


def special_register(builder, name):
    """%tid.x and friends, read where the failure is recorded. A volatile read: LLVM cannot
    share it with reads on the fast path, so the cold path keeps no thread or block index
    alive in registers across the kernel (which would cost occupancy)."""
    fnty = ir.FunctionType(ir.IntType(32), [])
    asm = ir.InlineAsm(fnty, f"mov.u32 $0, %{name};", "=r", side_effect=True)
    return builder.zext(builder.call(asm, []), ir.IntType(64))


_IDS = ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")


def count_skipped(context, builder, fb_ty, fb) -> None:
    """Thread (0,0,0) of block (0,0,0) adds 1 to the failure buffer's count of launches
    skipped because a failure was pending (failures.SKIPPED)."""
    i64 = ir.IntType(64)
    first = ir.Constant(ir.IntType(1), 1)
    for reg in _IDS:
        zero = builder.icmp_unsigned("==", special_register(builder, reg), ir.Constant(i64, 0))
        first = builder.and_(first, zero)
    with builder.if_then(first, likely=False):
        data = array_data(context, builder, fb_ty, fb)
        slot = builder.gep(data, [ir.Constant(i64, failures.SKIPPED)])
        builder.atomic_rmw("add", slot, ir.Constant(i64, 1), "monotonic")


def array_data(context, builder, arr_ty, arr):
    """The data pointer of the array value `arr`: one extractvalue. Not numba's struct proxy
    (`context.make_array(arr_ty)(context, builder, arr).data`): that stores the value in an
    alloca of the entry block and loads the field back (the same value once LLVM promotes the
    alloca), and first looks for an `__array__` conversion, whose failure refreshes every
    registry of the target: about half a millisecond of Python per proxy, several per check,
    for IR that the optimiser folds away again."""
    return builder.extract_value(arr, _position(context, arr_ty, "data"))


def array_shape(context, builder, arr_ty, arr) -> list:
    """The extents of the array value `arr` (one extractvalue each; see array_data)."""
    return [array_extent(context, builder, arr_ty, arr, k) for k in range(arr_ty.ndim)]


def array_extent(context, builder, arr_ty, arr, axis: int):
    return builder.extract_value(arr, [_position(context, arr_ty, "shape"), axis])


def array_strides(context, builder, arr_ty, arr) -> list:
    pos = _position(context, arr_ty, "strides")
    return [builder.extract_value(arr, [pos, k]) for k in range(arr_ty.ndim)]


def _position(context, arr_ty, field: str) -> int:
    return context.data_model_manager[arr_ty].get_field_position(field)


def code_value(context, builder, code, code_ty):
    """A check helper's code argument as emit_record and emit_records take it: an i64, or in a
    device function that takes the call chain (`(CODE, _sk_cs)`: frontend/python/call_chain.py)
    the pair (code, chain) of i64, XORed by emit_record on the failure path only."""
    if isinstance(code_ty, types.BaseTuple):
        return tuple(context.cast(builder, builder.extract_value(code, k), code_ty[k],
                                  types.int64) for k in range(2))
    return context.cast(builder, code, code_ty, types.int64)


def code_plus(builder, code, position: int):
    """`code` (code_value's) for index component `position`: its code plus the position."""
    i64 = ir.IntType(64)
    if isinstance(code, tuple):
        return (builder.add(code[0], ir.Constant(i64, position)), code[1])
    return builder.add(code, ir.Constant(i64, position))


def emit_record(context, builder, fb_ty, flag_ty, fb, flag, code, index, size, axis,
                unsigned_bits: int = 0, set_flag: bool = True, outlined: bool = False):
    """The cold path: set the thread's flag; the first failure on the device (a 64-bit
    compare-and-swap on slot 0) writes its index, size, axis, thread and block. `code` is
    code_value's (a pair: the code XOR the call chain, computed here on the cold path);
    `index`, `size` and `axis` are i64 values; bit k of `unsigned_bits` (a constant) says the
    k-th of index, size, axis came from an unsigned type, so that the host reads a uint64
    >= 2**63 back as itself, not as a negative number (failures.UNSIGNED). Without
    `set_flag`, the thread ends after it (emit_records' `exits`): no flag to set.

    The record is one inline PTX block (record_asm) that LLVM sees as writing only memory it
    cannot see: the failure buffer is safekern's own, which the kernel never reads after its
    prelude. Written as LLVM stores and a compare-and-swap, the record was a store through a
    pointer that may alias every array of the kernel, on a path that joins the kernel again,
    so that a load repeated after a check was loaded again: Perlin noise read its
    permutation table at `p[x_int]` twice for each of its two uses, eight gathers for numba's
    six, and as a kernel bound by its L1 traffic ran 1.45x plain numba on an H100
    (benchmarks/results/2026-11-27d-device-calls)."""
    if isinstance(code, tuple):
        code = builder.xor(*code)
    data = array_data(context, builder, fb_ty, fb)
    i64 = ir.IntType(64)
    operands = [builder.ptrtoint(data, i64), code, index, size, axis]
    if outlined:
        # (a call of the module's one record function: see record_function)
        call = builder.call(record_function(builder.module),
                            operands + [ir.Constant(i64, int(unsigned_bits))],
                            attrs=("nounwind",))
    else:
        fnty = ir.FunctionType(ir.VoidType(), [i64] * len(operands))
        clobber = "" if set_flag else ",~{memory}"
        asm = ir.InlineAsm(fnty, record_asm(unsigned_bits), ",".join(["l"] * len(operands)) +
                           clobber, side_effect=True)
        call = builder.call(asm, operands, attrs=("nounwind",))
    if set_flag:
        # Memory LLVM cannot see (llvmlite's call attributes do not list it): alias analysis
        # keeps every value the kernel loaded across the record, which still may not be
        # deleted, moved or merged (it writes). The thread that ends after it needs nothing
        # kept: a memory clobber there.
        set.add(call.attributes, "inaccessiblememonly")
        flag_data = array_data(context, builder, flag_ty, flag)
        builder.store(ir.Constant(flag_data.type.pointee, 1), flag_data)


RECORD = "_sk_record"


def record_function(module):
    """The module's record function (made once a module): `_sk_record(buffer address, code,
    index, size, axis, unsigned bits)`, the record's asm as its body, internal and noinline.
    A check in a checked copy that runs only where a test before it failed (a versioned loop's
    or body's: cold_records.py) records through it: each such record is a call of a few
    instructions, not the record's twenty-odd -- fbpic's gather held 72 records, all in the
    checked copies of its device function, inlined twice (ptxas on its PTX 0.36 -> 0.22 s,
    110 -> 94 registers, the records turned into calls by hand)."""
    fn = module.globals.get(RECORD)
    if fn is None:
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(ir.VoidType(), [i64] * 6)
        fn = ir.Function(module, fnty, RECORD)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        fn.attributes.add("nounwind")
        body = ir.IRBuilder(fn.append_basic_block("entry"))
        asm = ir.InlineAsm(fnty, record_asm(None), ",".join(["l"] * 6), side_effect=True)
        body.call(asm, list(fn.args), attrs=("nounwind",))
        body.ret_void()
    return fn


def record_asm(unsigned_bits) -> str:
    """The PTX of the failure record (emit_record): a compare-and-swap of the code into slot
    0 of the failure buffer; where it found 0 (the device's first failure), the index, size,
    axis, the unsigned bits (a constant; None: operand 5) and the thread and block indices into
    their slots. Operands: the buffer's generic address, the code, index, size, axis."""
    a, code, index, size, axis = (f"${k}" for k in range(5))
    slot = lambda k: 8 * k                                          # noqa: E731
    lines = ["{", ".reg .pred %skfirst;", ".reg .b64 %skold;", ".reg .b32 %skid;",
             ".reg .b64 %skid64;", ".reg .b64 %skbuf;", f"cvta.to.global.u64 %skbuf, {a};",
             f"atom.global.cas.b64 %skold, [%skbuf+{slot(failures.CODE)}], 0, {code};",
             "setp.eq.u64 %skfirst, %skold, 0;"]
    for k, operand in ((failures.INDEX, index), (failures.SIZE, size), (failures.AXIS, axis)):
        lines.append(f"@%skfirst st.global.u64 [%skbuf+{slot(k)}], {operand};")
    if unsigned_bits is None or unsigned_bits:
        bits = "$5" if unsigned_bits is None else int(unsigned_bits)
        lines.append(f"@%skfirst st.global.u64 [%skbuf+{slot(failures.UNSIGNED)}], {bits};")
    for k, reg in enumerate(_IDS):
        lines += [f"mov.u32 %skid, %{reg};", "cvt.u64.u32 %skid64, %skid;",
                  f"@%skfirst st.global.u64 [%skbuf+{slot(failures.THREAD + k)}], %skid64;"]
    lines.append("}")
    return "\n\t".join(lines)


def compare_index(builder, context, arr_ty, idx_ty, shapes, idx):
    """[(position, axis, index as int64, size, unsigned, bad)] for each integer index
    component."""
    checks, _, _, tupled = plan(arr_ty, idx_ty)
    out = []
    for pos, axis, comp in checks:
        value = builder.extract_value(idx, pos) if tupled else idx
        value = context.cast(builder, value, comp, types.int64)
        size = shapes[axis]
        if comp.signed:
            # -size <= value < size, as one unsigned comparison of value + size with 2*size
            bad = builder.icmp_unsigned(">=", builder.add(value, size), builder.add(size, size))
        else:
            bad = builder.icmp_unsigned(">=", value, size)
        out.append((pos, axis, value, size, not comp.signed, bad))
    return out


def all_in_bounds(builder, compared):
    """-> i1: no component of compare_index's result is out of bounds."""
    ok = cgutils.true_bit
    for *_, bad in compared:
        ok = builder.and_(ok, builder.not_(bad))
    return ok


def end_thread(builder) -> None:
    """PTX `exit`: the thread ends here (its stores so far stay done), and LLVM knows that
    nothing after it runs."""
    fnty = ir.FunctionType(ir.VoidType(), [])
    builder.call(ir.InlineAsm(fnty, "exit;", "~{memory}", side_effect=True), [])
    builder.unreachable()


def emit_records(context, builder, compared, code, fb, flag, fb_ty, flag_ty,
                 exits: bool = False, outlined: bool = False):
    """The cold side: each failing component records itself, in its own branch. (One record
    per access, the failing component's values joined through phis, made rw_fbpic_gather
    1.21x -> 1.47x on an H100: the joined values stay live across the checks;
    benchmarks/results/2026-11-27b-device-calls.) With `exits` (a check whose failure ends the
    thread: frontend/python/exit_mode.py) the record ends the thread instead of
    setting its flag and joining the code again: the fast path then keeps nothing alive for
    it, and is the only way on. -> i1 ok (no component failed; true with `exits`, where
    nothing failed on the way on)"""
    ok = cgutils.true_bit
    i64 = ir.IntType(64)
    for pos, axis, value, size, unsigned, bad in compared:
        if exits:
            cold = builder.append_basic_block("sk_record")
            passed = builder.append_basic_block("sk_in_bounds")
            builder.cbranch(bad, cold, passed).set_weights([1, 99])
            builder.position_at_end(cold)
            emit_record(context, builder, fb_ty, flag_ty, fb, flag,
                        code_plus(builder, code, pos), value, size,
                        ir.Constant(i64, axis), unsigned_bits=int(unsigned), set_flag=False,
                        outlined=outlined)
            end_thread(builder)
            builder.position_at_end(passed)
            continue
        with builder.if_then(bad, likely=False):
            emit_record(context, builder, fb_ty, flag_ty, fb, flag,
                        code_plus(builder, code, pos), value, size,
                        ir.Constant(i64, axis), unsigned_bits=int(unsigned), outlined=outlined)
        ok = builder.and_(ok, builder.not_(bad))
    return ok


def emit_checks(context, builder, arr_ty, idx_ty, arr, idx, code, fb, flag, fb_ty, flag_ty,
                exits: bool = False, outlined: bool = False):
    """Compare each integer index component with its axis; record failures (cold). -> i1 ok"""
    shapes = array_shape(context, builder, arr_ty, arr)
    compared = compare_index(builder, context, arr_ty, idx_ty, shapes, idx)
    return emit_records(context, builder, compared, code, fb, flag, fb_ty, flag_ty, exits,
                        outlined)


def select_load(context, builder, arr_ty, idx_ty, arr, idx, code, fb, flag, fb_ty, flag_ty,
                exits: bool = False, outlined: bool = False):
    """A scalar load without a branch before it: the address is the element's when every
    component is in bounds, else a slot of the failure buffer (always readable); the failure
    is recorded after the load. So loads of later iterations are not held behind a branch
    and stay in flight together, as in the unchecked loop."""
    shapes = array_shape(context, builder, arr_ty, arr)
    compared = compare_index(builder, context, arr_ty, idx_ty, shapes, idx)
    ok = all_in_bounds(builder, compared)
    strides = array_strides(context, builder, arr_ty, arr)
    comps = components(idx_ty)
    tupled = isinstance(idx_ty, types.BaseTuple)
    inds = []
    for pos, comp in enumerate(comps):
        value = builder.extract_value(idx, pos) if tupled else idx
        value = context.cast(builder, value, comp, types.intp)
        if comp.signed:
            value = builder.select(builder.icmp_signed("<", value, ir.Constant(value.type, 0)),
                                   builder.add(value, shapes[pos]), value)
        inds.append(value)
    ptr = cgutils.get_item_pointer2(context, builder, array_data(context, builder, arr_ty, arr),
                                    shapes, strides, arr_ty.layout,
                                    inds, wraparound=False)
    spare = array_data(context, builder, fb_ty, fb)
    spare = builder.gep(spare, [ir.Constant(ir.IntType(64), failures.BUFFER_LEN - 2)])
    ptr = builder.select(ok, ptr, builder.bitcast(spare, ptr.type))
    from numba.cuda.np.arrayobj import load_item

    value = load_item(context, builder, arr_ty, ptr)
    emit_records(context, builder, compared, code, fb, flag, fb_ty, flag_ty, exits, outlined)
    return value


def element_pointer(context, builder, arr_ty, idx_ty, arr, idx):
    """The address numba's basic indexing gives one element (`arr[i, j]`: every component an
    integer, negative ones wrapped), the array's fields read by extractvalue (numba's getitem
    and setitem build the struct proxy, see array_data, at every access). None where numba
    must index (other indices; NUMBA_BOUNDSCHECK on: numba's own check then)."""
    comps = components(idx_ty)
    if not isinstance(arr_ty, types.Array) or context.enable_boundscheck or \
            not element_index(arr_ty, idx_ty):
        return None
    from numba.cuda.np.arrayobj import fix_integer_index

    shapes = array_shape(context, builder, arr_ty, arr)
    tupled = isinstance(idx_ty, types.BaseTuple)
    inds = [fix_integer_index(context, builder, comp,
                              builder.extract_value(idx, k) if tupled else idx, shapes[k])
            for k, comp in enumerate(comps)]
    return cgutils.get_item_pointer2(context, builder, array_data(context, builder, arr_ty, arr),
                                     shapes, array_strides(context, builder, arr_ty, arr),
                                     arr_ty.layout, inds, wraparound=False)


def element_store(context, builder, arr_ty, idx_ty, val_ty, arr, idx, val) -> bool:
    """numba's setitem of one element (a scalar value cast to the element type, store_item)
    at element_pointer; False (nothing emitted) where numba's setitem must lower it."""
    if isinstance(val_ty, types.Buffer):
        return False
    ptr = element_pointer(context, builder, arr_ty, idx_ty, arr, idx)
    if ptr is None:
        return False
    from numba.cuda.np.arrayobj import store_item

    store_item(context, builder, arr_ty, context.cast(builder, val, val_ty, arr_ty.dtype), ptr)
    return True


def element_load(context, builder, arr_ty, idx_ty, arr, idx):
    """numba's getitem of one element (load_item at element_pointer); None where numba's
    getitem must lower it."""
    ptr = element_pointer(context, builder, arr_ty, idx_ty, arr, idx)
    if ptr is None:
        return None
    from numba.cuda.np.arrayobj import load_item

    return load_item(context, builder, arr_ty, ptr)


def selectable(context, arr_ty, idx_ty) -> bool:
    """A full integer index of an array whose element fits the failure buffer's spare slots."""
    if not element_index(arr_ty, idx_ty):
        return False
    try:
        size = context.get_abi_sizeof(context.get_data_type(arr_ty.dtype))
    except Exception:
        return False
    return size <= 16


def flag_array(context, builder):
    """The value of a new per-thread flag array (_sk_flag_array), not cleared: a local int32[1]
    named `_sk_flag` in the LLVM."""
    from numba.cuda.cudadrv import nvvm
    from numba.cuda.cudaimpl import _generic_array

    return _generic_array(context, builder, shape=(1,), dtype=types.int32,
                          symbol_name="_sk_flag", addrspace=nvvm.ADDRSPACE_LOCAL,
                          can_dynsized=False, alignment=None)


def flag_clear(context, builder, flag_ty, flag):
    value = builder.load(array_data(context, builder, flag_ty, flag))
    return builder.icmp_signed("==", value, ir.Constant(value.type, 0))


__all__ = ["components", "element_index", "plan", "all_in_bounds", "array_data", "array_shape",
           "array_extent", "special_register", "count_skipped", "record_function", "RECORD",
           "code_value", "code_plus", "emit_record", "emit_records", "end_thread", "emit_checks", "compare_index",
           "select_load", "element_pointer", "element_load", "element_store", "selectable",
           "flag_array", "flag_clear"]
