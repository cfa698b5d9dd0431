"""Which pointer parameters a C kernel writes through (CUDA C and OpenCL C).

The launch-time overlap check (safekern/backends/overlap.py) warns when two buffer arguments of a
launch share memory and the kernel writes one of them; this module says which ones it writes.

A function writes through a pointer parameter when it assigns to (or increments) an element
reached from it -- `p[i] = v`, `*q += v`, `p->x++`, `p[i].f = v`, a non-const method called on
`p[i]`, a class's `operator=` -- where the pointer is the parameter or derived from it (the
front end's own provenance: `row = a + r * n; row[j] = v` writes `a`); passes it to a built-in
that stores (atomics, `vstore*`, `__stcg`, the out-parameters of `fract`, `modf`, ...); or
passes it to a function of the source that writes its parameter (solved to a fixed point over
the call graph). A store whose pointer the front end cannot tie to one parameter, and a
pointer handed to a function the source does not define, make the answer unknown: every
pointer parameter may then be written, and the function says why.

    writes = scan(ps, body, resolve=..., callee_of=..., access_of=..., operator_of=...)
    solved = solve({name: writes, ...})         # name -> Writes with callees folded in
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import parse as C

READ, WRITE = "read", "write"
_ASSIGNMENTS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="))
_STEPS = frozenset(("++", "--", "post++", "post--"))


@dataclass
class Writes:
    """What one function writes through its parameters."""

    params: set = field(default_factory=set)    # indexes of pointer parameters written
    unknown: str = ""                           # why any pointer parameter may be written
    calls: list = field(default_factory=list)   # (callee key, {argument index: resolved})


def scan(ps, body, *, resolve: Callable, callee_of: Callable, access_of: Callable,
         operator_of: Callable = lambda call: None) -> Writes:
    """The stores of one function body.

    resolve(pointer expression) -> parameter index, None (memory that is not a parameter's:
    a local or shared array, a null pointer) or a str (why it cannot be told);
    callee_of(call) -> the key of a function of the source that `solve` knows, else None;
    access_of(name, args) -> [(argument, READ or WRITE)] for a built-in that touches memory
    through pointers, [] for one that touches none, None for a function safekern does not
    know; operator_of(call) -> (operator, operands) for an overloaded operator call (C++).
    """
    K = C.kinds()
    out = Writes()
    given = resolve

    def resolve(expr):
        e = C.strip(expr)
        if e.kind == K.UNARY_OPERATOR and C.unary_op(ps, e) == "&":
            inner = C.strip(C.children(e)[0])
            if inner.kind == K.DECL_REF_EXPR and inner.referenced is not None and \
                    inner.referenced.kind == K.VAR_DECL:
                return None              # the address of a variable: not a parameter's memory
        return given(expr)

    def store(target):
        pointer = _pointer_of(ps, target, operator_of)
        if pointer is None:
            return
        _note(out, resolve(pointer), f"`{ps.text(target)}`")

    for c, _ in C.walk(body):
        if c.kind == K.CXX_UNARY_EXPR:
            continue
        if c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            if C.binary_op(ps, c) in _ASSIGNMENTS:
                store(C.children(c)[0])
        elif c.kind == K.UNARY_OPERATOR:
            if C.unary_op(ps, c) in _STEPS:
                store(C.children(c)[0])
        elif c.kind == K.CALL_EXPR:
            _call(ps, c, out, store, resolve, callee_of, access_of, operator_of)
    return out


def _note(out: Writes, resolved, what: str) -> None:
    if isinstance(resolved, str):
        out.unknown = out.unknown or f"a store through {what}: {resolved}"
    elif resolved is not None:
        out.params.add(resolved)


def _call(ps, c, out, store, resolve, callee_of, access_of, operator_of):
    K = C.kinds()
    op = operator_of(c)
    if op is not None:
        name, operands = op
        if name in _ASSIGNMENTS | {"++", "--"} and operands:
            store(operands[0])
        return
    kids = C.children(c)
    callee = C.strip(kids[0]) if kids else None
    if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
        method = callee.referenced
        obj = C.children(callee)
        if obj and not (method is not None and method.is_const_method()):
            store(obj[0])           # a method that may change the element it is called on
        return
    key = callee_of(c)
    args = C.call_args(c)
    if key is not None:
        out.calls.append((key, {i: resolve(a) for i, a in enumerate(args)
                                if _is_pointer(a)}))
        return
    name = C.called_name(c) or ""
    accesses = access_of(name, args)
    if accesses is None:
        for a in args:
            if _is_pointer(a):
                _note(out, resolve(a), f"a pointer passed to '{name or 'a function'}', which "
                                       "safekern does not know")
        return
    for a, how in accesses:
        if how == WRITE:
            _note(out, resolve(a), f"'{name}'")


def _pointer_of(ps, target, operator_of):
    """The pointer expression an assignment target is reached through, or None (a variable,
    a member of a local struct)."""
    K = C.kinds()
    t = C.strip(target)
    while True:
        if t.kind == K.ARRAY_SUBSCRIPT_EXPR:
            a, b = C.children(t)
            base = a if _is_pointer(a) or _is_array(C.strip(a)) else b
            if _is_array(C.strip(base)):
                inner = C.strip(base)
                if inner.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.MEMBER_REF_EXPR):
                    t = inner            # a[i][j] of a row array: keep going down
                    continue
            return base
        if t.kind == K.UNARY_OPERATOR and C.unary_op(ps, t) == "*":
            return C.children(t)[0]
        if t.kind == K.MEMBER_REF_EXPR:
            kids = C.children(t)
            if not kids:
                return None
            tok = ps.next_token(kids[0].extent.end.offset)
            if tok is not None and tok[2] == "->":
                return kids[0]
            t = C.strip(kids[0])         # p[i].x: the element p[i]
            continue
        op = operator_of(t) if t.kind == K.CALL_EXPR else None
        if op is not None and op[0] in ("[]", "*") and op[1]:
            return op[1][0]
        return None


def _kind(c) -> str:
    return c.type.get_canonical().kind.name


def _is_pointer(c) -> bool:
    return _kind(c) == "POINTER"


def _is_array(c) -> bool:
    return _kind(c) in ("CONSTANTARRAY", "INCOMPLETEARRAY", "DEPENDENTSIZEDARRAY")


def solve(functions: dict) -> dict:
    """Fold each function's calls into its Writes (a fixed point over the call graph): an
    argument passed for a parameter the callee writes -- any pointer argument, where what the
    callee writes is unknown -- is written by the caller."""
    changed = True
    while changed:
        changed = False
        for w in functions.values():
            for key, args in w.calls:
                callee = functions.get(key)
                if callee is None:
                    continue
                for i, resolved in args.items():
                    if i not in callee.params and not callee.unknown:
                        continue
                    if isinstance(resolved, str):
                        if not w.unknown:
                            w.unknown = ("a pointer passed to a function that writes through "
                                         f"it: {resolved}")
                            changed = True
                    elif resolved is not None and resolved not in w.params:
                        w.params.add(resolved)
                        changed = True
    return functions


__all__ = ["Writes", "scan", "solve", "READ", "WRITE"]
