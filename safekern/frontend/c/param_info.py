"""A parameter of a C function as the rewrite and the launch see it (both dialects).

    params = params_of(fn_cursor, dialect)      # one ParamInfo per PARM_DECL, in order

What counts as a pointer parameter (one that gets a hidden size) is the dialect's
`pointer_param(cursor)`; the rest is read from the type the same way for both dialects.
"""
from __future__ import annotations

from dataclasses import dataclass

from .parse import kids, kinds


@dataclass
class ParamInfo:
    name: str
    index: int
    type: str = ""             # the type as written, e.g. "const float *"
    is_pointer: bool = False   # gets a hidden size argument (the dialect decides)
    pointee: str = ""          # pointee type spelling, e.g. "const __global float"
    address_space: str = ""    # OpenCL: "__global", "__local", ...
    void: bool = False         # a void pointer (no element size)
    moved: bool = False        # assigned, stepped or address-taken in the function
    #: the PARM_DECL while a rewrite runs; None in what a rewrite returns (a libclang cursor
    #: would keep the whole parse alive)
    cursor: object = None

    @classmethod
    def of(cls, cursor, index: int, dialect) -> "ParamInfo":
        info = cls(cursor.spelling, index, cursor.type.spelling,
                   dialect.pointer_param(cursor), cursor=cursor)
        if info.is_pointer:
            t = cursor.type.get_canonical()
            pointee = t.get_pointee() if t.kind.name == "POINTER" else \
                t.get_array_element_type()
            info.pointee = pointee.spelling
            info.address_space = dialect.address_space(pointee.spelling)
            info.void = pointee.get_canonical().kind.name == "VOID"
        return info


def params_of(fn, dialect) -> list[ParamInfo]:
    """The parameters of the function `fn` (a libclang cursor), in order."""
    K = kinds()
    return [ParamInfo.of(p, i, dialect)
            for i, p in enumerate(c for c in kids(fn) if c.kind == K.PARM_DECL)]


__all__ = ["ParamInfo", "params_of"]
