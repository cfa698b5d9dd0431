"""One block per LLVM function where every check whose failure ends the thread records it.

A check in exit mode (frontend/python/exit_mode.py: its failure ends the thread) branched to
a block of its own -- the failure record (an inline PTX sequence of some thirty instructions,
or a call of the record function) and `exit` -- for every index component of every such
access. NVVM kept them apart and unrolled them with their loops, and ptxas scheduled each:
the records were most of what ptxas spent on the checked kernels the benchmark launches
beyond plain numba's code (SpMV, BFS, the pair counters: benchmarks/results/
2026-11-29e-device-calls). Here those branches go to one block per function, per kind of
record, whose phis take the failing site's code, index, size and axis: the record and the
`exit` are emitted once. The phis' values are computed on the way to the branch (a hot path
keeps nothing alive for them: they are the check's own operands), and the block ends the
thread, so no path joins the code again.
"""
from __future__ import annotations

from llvmlite import ir

#: The attribute of an LLVM function that holds its exit blocks, by kind of record.
_BLOCKS = "_sk_exit_blocks"


class ExitBlock:
    """The shared failure block of one function and kind of record: its phis, filled as
    sites branch to it."""

    def __init__(self, function, record, with_chain: bool):
        i64 = ir.IntType(64)
        self.block = function.append_basic_block("sk_exit_record")
        builder = ir.IRBuilder(self.block)
        self.phis = [builder.phi(i64, name=n) for n in
                     ("sk_fb", "sk_code", "sk_chain", "sk_index", "sk_size", "sk_axis")
                     if with_chain or n != "sk_chain"]
        if with_chain:
            fb, code, chain, index, size, axis = self.phis
            code = builder.xor(code, chain)     # (the call chain: lowering.code_value)
        else:
            fb, code, index, size, axis = self.phis
        record(builder, fb, code, index, size, axis)

    def branch(self, builder, bad, passed, values) -> None:
        """`if bad: goto this block with values (fb as i64, code[, chain], index, size, axis)
        else: goto passed`, from where `builder` is."""
        here = builder.block
        builder.cbranch(bad, self.block, passed).set_weights([1, 99])
        for phi, value in zip(self.phis, values):
            phi.add_incoming(value, here)


def exit_block(builder, key, record, with_chain: bool) -> ExitBlock:
    """The function's ExitBlock for `key` (the kind of record: the unsigned operands' bits,
    inline or outlined, with or without a call chain), made on first use. `record(builder,
    fb, code, index, size, axis)` emits the record and the thread's end into it."""
    function = builder.function
    blocks = getattr(function, _BLOCKS, None)
    if blocks is None:
        blocks = {}
        setattr(function, _BLOCKS, blocks)
    key = (key, with_chain)
    found = blocks.get(key)
    if found is None:
        found = blocks[key] = ExitBlock(function, record, with_chain)
    return found


__all__ = ["ExitBlock", "exit_block"]
