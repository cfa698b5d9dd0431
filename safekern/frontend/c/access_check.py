"""The check one access needs, as the C walker found it (both dialects); the dialect's edit
pass (cuda_edits.py, opencl_edits.py) writes it as text.

A walk only analyses: it records on each checked `model.Access` a `Check` made of byte ranges
of the user's text and the memory they are checked against, never C text of the check itself
(that differs per dialect: `__sk_ix`, `__sk_ptr`, `__sk_ixb`, their argument lists).

    how "index"    the index at `index` against `extent`: an int (an array axis of constant
                   size or a vector's components), ("param", i) (a kernel's pointer parameter
                   i, against its element count), or C text (an extent only the compiler
                   knows: CUDA's dynamic shared memory, a template-dependent array);
        "offset"   the pointer at `pointer` (None: the root's base itself) plus the index at
                   `index` (minus it: `negate`) must reach an element inside `root`
                   (`p[i]`, `*(p + i)` on a derived pointer; OpenCL: `vloadN(i, p)`);
        "element"  the pointer at `pointer` must point at an element inside `root`
                   (`*p`, `p->f`, an atomic's address).

A walker (checks.OpenCLWalker, cuda_access.CudaWalker) decides what an access is and whether
it can be checked at all; the check it gets is made here, the same way for both dialects:

    axis_check(index, span, extent, axis, depth)      an array's or a vector's axis
    pointer_check(root, span, depth, index=, pointer=, itself=, expr=, ...)
                                                       p[i], *(p + i), vloadN(i, p): the
                                                       index against a kernel parameter's
                                                       element count, else an offset
    element_check(pointer, root, depth)               *p, p->f, an atomic's address

and every flag the index's type sets (`index_flags`: `unsigned`, `int32`) is set there, so a
new check kind or flag is added in this module and spelled by the two edit passes.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import parse as C


@dataclass(frozen=True)
class Check:
    how: str                       # "index", "offset", "element" (see the module)
    index: tuple | None = None     # (start, end): byte range of the index
    pointer: tuple | None = None   # (start, end): byte range of the pointer expression
    extent: object = None          # "index": int, ("param", i) or C text
    axis: int = 0                  # "index": the array's axis
    root: object = None            # "offset"/"element": model.Root, the memory reached
    elems: int | None = None       # elements touched, where a built-in says (vloadN: N)
    negate: bool = False           # "offset": the index is subtracted (p - k)
    unsigned: bool = False         # the index is a 64-bit unsigned integer
    int32: bool = False            # the index is an `int` (checked by __sk_ix32)
    #: the index (the pointer, "element") goes into its check as an opaque value: its
    #: memory's size is a constant and an int arithmetic that overflows may have made it
    #: (see `opaque_where`)
    opaque: bool = False
    #: CUDA `p[i]` on a derived pointer: where the text starts and the '[' and ']' tokens
    #: ((start, end) each), which the edit replaces
    brackets: tuple | None = None
    depth: int = 0                 # AST depth: orders insertions that meet at one offset
    #: "offset" on a struct pointer field subscripted as itself (`g.nlist[k]`): its extent for
    #: launch predicates, ("field", param, slot, element size, text) -- the launch knows the
    #: field's allocation (launch.py, backends/cupy/struct_args.py)
    field_extent: tuple | None = None

    @property
    def launch_extent(self):
        """What a launch predicate may bound the index by (launch.py): a constant extent,
        ("param", i) or a struct field's ("field", ...); None: this check has none."""
        if self.how == "index" and isinstance(self.extent, (int, tuple)):
            return self.extent
        return self.field_extent


def is_int32(index) -> bool:
    """The index expression (a libclang cursor) is an `int`: both dialects check it with
    `__sk_ix32`, as the long it is sign-extended to (`Check.int32`)."""
    return index.type.get_canonical().kind.name == "INT"


def index_flags(index) -> dict:
    """The flags of a check that the index expression's type sets (a libclang cursor; None:
    none set): `unsigned` for a 64-bit unsigned index (failures.UNSIGNED: its failure reads
    back 2**63 and up as themselves), `int32` for an `int` (__sk_ix32)."""
    if index is None:
        return {}
    kind = index.type.get_canonical().kind.name
    return {"unsigned": kind in ("ULONG", "ULONGLONG"), "int32": is_int32(index)}


def constant_extent(t) -> int | None:
    """The extent of the axis a subscript of type `t` (a libclang type) indexes, where the
    type says it: a constant-size array's or a vector's components; None otherwise."""
    t = t.get_canonical()
    kind = t.kind.name
    if kind == "CONSTANTARRAY":
        return t.get_array_size()
    if kind in ("VECTOR", "EXTVECTOR"):
        return t.element_count
    return None


def opaque_where(ps, value, constant: bool) -> bool:
    """Check.opaque: the memory's size is a `constant` (a private, `__local` or `__shared__`
    array's axis below 2**32, a vector's components, a pointer into such an array or a
    variable) and an `int` arithmetic that overflows may have made the index or pointer
    (cursor `value`; may_wrap). A compiler may narrow the test of such an index to 32 bits
    (`(ulong)(long)i >= 8` is `(uint)i >= 8`), or rewrite one side of a two-sided test from
    the operands, and -- the overflow being undefined in C -- make the address from the
    operands in 64 bits: an address the test never saw (the launch fuzzer's seed 255312649,
    `priv[(get_local_id(0) >> 1) + ((int)u * 2)]`, crashed a checked kernel). A zero
    extension of the index that passed is not enough: knowing the value is in [0, 8), the
    compiler turns it back into the sign extension. Not every constant extent's index: an
    opaque value cannot be folded, and an index the compiler folds (a counter of an unrolled
    loop) lets it keep the array in registers."""
    return ps is not None and value is not None and constant and may_wrap(ps, value)


def axis_check(index, span: tuple, extent, axis: int, depth: int, ps=None) -> Check:
    """The "index" check of one axis of an array (or a vector's components): the index
    (cursor `index` at byte range `span`) against `extent`, an int or C text; `ps` (the
    parsed source) sets `opaque` (opaque_where)."""
    constant = isinstance(extent, int) and 0 < extent <= 0xFFFFFFFF
    return Check("index", index=span, extent=extent, axis=axis, depth=depth,
                 opaque=opaque_where(ps, index, constant), **index_flags(index))


_WRAPPING_OPS = ("+", "-", "*", "<<")
_WRAPPING_STORES = ("+=", "-=", "*=", "<<=")
#: a variable whose value may come from anything (definitions())
_ANY = "any"


def may_wrap(ps, index) -> bool:
    """The value of the index expression (a libclang cursor) may come from a signed `int`
    arithmetic that overflows, which C leaves undefined (opaque_where): it holds an `int`
    `+ - * <<` or negation, or reads a variable that one of its definitions (its
    initializer, an assignment) may have made so -- followed from variable to variable;
    `++`, `+=` and the like of an `int`, or its address taken, count as such. Thread and
    group ids, sizes, constants, parameters, `long` arithmetic of them: no; a `for` loop's
    counter: what its initializer says (its step is bounded by the loop's test)."""
    return _wraps(ps, index, definitions(ps), set())


def _wraps(ps, cursor, defs, seen) -> bool:
    K = C.kinds()
    for c, parents in C.walk(cursor):
        if c.kind == K.BINARY_OPERATOR:
            if c.type.get_canonical().kind.name == "INT" and \
                    C.binary_op(ps, c) in _WRAPPING_OPS:
                return True
        elif c.kind == K.UNARY_OPERATOR:
            if c.type.get_canonical().kind.name == "INT" and C.unary_op(ps, c) == "-":
                return True
        elif c.kind == K.DECL_REF_EXPR:
            d = c.referenced
            if d is None or d.kind not in (K.VAR_DECL, K.PARM_DECL):
                continue
            keys = [d.hash]
            if _reads_contents(c, parents):
                keys.append(("contents", d.hash))
            for key in keys:
                if key in seen:
                    continue
                seen.add(key)
                made = defs.get(key, ())
                if made == _ANY or any(_wraps(ps, e, defs, seen) for e in made):
                    return True
    return False


def _reads_contents(ref, parents) -> bool:
    """The variable `ref` names is read for what it holds -- an element (`a[k]`'s base), a
    member, a struct as a whole --, not only as the address an array decays to."""
    K = C.kinds()
    if ref.type.get_canonical().kind.name == "RECORD":
        return True
    child = ref
    for parent in reversed(parents):
        if parent.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            child = parent
            continue
        if parent.kind == K.MEMBER_REF_EXPR:
            return True
        kids = C.kids(parent)
        return parent.kind == K.ARRAY_SUBSCRIPT_EXPR and bool(kids) and kids[0] is child
    return False


def definitions(ps) -> dict:
    """What each variable of the user's functions is given, by declaration hash (and what
    its elements or members are given, by ("contents", hash)): the expressions of its
    initializer and of its assignments, or _ANY where a `++`, `--`, `+=`, `-=`, `*=` or
    `<<=` of an `int` (not a `for` loop's step), or its address taken, may make anything of
    it. Once per parsed source."""
    known = getattr(ps, "_sk_definitions", None)
    if known is not None:
        return known
    K = C.kinds()
    out: dict = {}
    steps = set()                  # the spans of the `for` loops' steps (`k++`, `k += 2`)

    def add(key, expr):
        if key is not None and out.get(key) != _ANY:
            out.setdefault(key, []).append(expr)

    def anything(key):
        if key is not None:
            out[key] = _ANY

    def target(c):
        """The key of what a store to `c` changes: a variable's own hash, or ("contents",
        its hash) for a member or an element of it."""
        c = C.strip(c)
        inner = False
        while c.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR) and C.kids(c):
            c, inner = C.strip(C.kids(c)[0]), True
        if c.kind != K.DECL_REF_EXPR or c.referenced is None:
            return None
        return ("contents", c.referenced.hash) if inner else c.referenced.hash

    for c, _ in C.walk_main(ps):      # (functions, and those inside `extern "C"`)
        kind = c.kind
        if kind == K.FOR_STMT:
            parts = C.kids(c)
            if len(parts) == 4:
                steps.add(C.span(parts[2]))
        elif kind == K.VAR_DECL:
            last = C.kids(c)[-1:]
            if last and last[0].kind.is_expression():
                add(c.hash, last[0])
                add(("contents", c.hash), last[0])      # (an initializer list's too)
        elif kind == K.BINARY_OPERATOR and C.binary_op(ps, c) == "=":
            lhs, rhs = C.kids(c)
            add(target(lhs), rhs)
        elif kind == K.COMPOUND_ASSIGNMENT_OPERATOR and C.span(c) not in steps:
            lhs, rhs = C.kids(c)
            if c.type.get_canonical().kind.name == "INT" and \
                    C.binary_op(ps, c) in _WRAPPING_STORES:
                anything(target(lhs))
            else:
                add(target(lhs), rhs)
        elif kind == K.UNARY_OPERATOR and C.span(c) not in steps:
            op = C.unary_op(ps, c)
            operand = C.kids(c)[:1]
            if operand and op == "&":   # (written through the address: anything)
                key = target(operand[0])
                anything(key)
                anything(("contents", key) if isinstance(key, int) else key)
            elif operand and op in ("++", "--", "post++", "post--") and \
                    c.type.get_canonical().kind.name == "INT":
                anything(target(operand[0]))
    try:
        ps._sk_definitions = out
    except AttributeError:          # (a parsed source with slots: not kept)
        pass
    return out


def pointer_check(root, span: tuple, depth: int, *, index=None, pointer=None,
                  itself: bool = False, expr=None, elems=None, negate: bool = False,
                  brackets=None, ps=None, value=None) -> Check:
    """The check of a pointer plus an index (`p[i]`, `*(p + i)`, `vloadN(i, p)`): the index
    at `span` (cursor `index`: its type sets the flags) from the pointer at `pointer` (None:
    the root's base itself) into `root`.

    `itself`: the pointer is written as the memory it reaches -- a kernel's pointer
    parameter that the function never moves (provenance.Provenance.is_param_itself), a
    struct's pointer field (`g.nlist`, cursor `expr`): a parameter's index is checked against
    its element count ("index" with extent ("param", i): no pointer arithmetic), a field's
    gets its extent for launch predicates (`field_extent`); anything else is an "offset".
    `ps` (the parsed source) sets `opaque` (opaque_where: the root an array or a variable)
    from the index's cursor (`value` where `index` is not given: its type sets no flag)."""
    flags = index_flags(index)
    flags["opaque"] = opaque_where(ps, index if value is None else value,
                                   root.kind in ("array", "scalar"))
    if itself and root.kind == "param" and elems is None and not negate:
        return Check("index", index=span, extent=("param", root.key[1]), root=root,
                     depth=depth, **flags)
    return Check("offset", index=span, pointer=pointer, root=root, elems=elems,
                 negate=negate, brackets=brackets, depth=depth,
                 field_extent=field_extent(root, expr) if itself else None, **flags)


def field_extent(root, expr):
    """A struct pointer field written as itself (`g.nlist`, cursor `expr`): its extent for
    launch predicates (launch.py), ("field", param, slot, element size, text); else None."""
    if root.kind != "field" or expr is None:
        return None
    size = expr.type.get_canonical().get_pointee().get_size()
    return ("field", root.key[1], root.key[2], size, root.base) if size > 0 else None


def counted_params(checks) -> set:
    """The indexes of the kernel's pointer parameters that some "index" check bounds by
    their element count (`pointer_check` of a parameter written as itself): the kernel
    computes each count once, in its prologue (CUDA's `__sk_n_<i>`, OpenCL's
    `__sk_n_<name>`). `checks`: Check or None each."""
    return {c.extent[1] for c in checks
            if c is not None and c.how == "index" and isinstance(c.extent, tuple)}


def element_check(pointer: tuple, root, depth: int, ps=None, value=None) -> Check:
    """The check of a pointer used as it is (`*p`, `p->f`, an atomic's address): the
    pointer at byte range `pointer` must point at an element inside `root`. `ps` and
    `value` (the pointer's cursor) set `opaque` (opaque_where: the root an array or a
    variable; CUDA's element check reads it)."""
    return Check("element", pointer=pointer, root=root, depth=depth,
                 opaque=opaque_where(ps, value, root.kind in ("array", "scalar")))


__all__ = ["Check", "is_int32", "index_flags", "constant_extent", "axis_check", "may_wrap",
           "opaque_where", "definitions",
           "pointer_check", "field_extent", "counted_params", "element_check"]
