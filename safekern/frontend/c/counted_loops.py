"""A counted loop of C source and the degree of an index in its counter (loop_versions.py's
analysis; it rewrites nothing).

    loop = CountedLoop(ps, for_cursor, invariant)   # raises NoVersion: not such a loop
    degree(ps, loop, index_cursor, width)           # 0, 1, or None: not affine in the counter

A counted loop is `for (int k = INIT; k < B; k++) BODY` (or <=, ++k, k += s with s
loop-invariant) whose body stores to no memory (nor to a variable other threads see: shared,
static, global), calls nothing, leaves nothing by return or goto, has no loop inside and
changes neither k nor anything B or INIT reads. `outer`: the function's locals from before the
loop that the body assigns (loop_versions.py saves them before the fast copy). `invariant(ps,
cursor)` is the dialect's word for the thread and group ids (CUDA's `threadIdx.x`, OpenCL's
`get_global_id(0)`): values the body may read, and call, that stay the same all loop long.
"""
from __future__ import annotations

from . import parse as C

_INT_TYPES = {"INT": (4, True), "UINT": (4, False), "LONG": (8, True), "ULONG": (8, False),
              "LONGLONG": (8, True), "ULONGLONG": (8, False)}
_STORES = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=")


class NoVersion(Exception):
    """This loop is left as it is."""


def int_type(t):
    """(bytes, signed) of an integer type (its canonical form), or None."""
    return _INT_TYPES.get(t.get_canonical().kind.name)


class CountedLoop:
    """One candidate loop: its parts, and what its body reads and writes."""

    def __init__(self, ps, cursor, invariant):
        self.ps, self.cursor, self.invariant = ps, cursor, invariant
        K = C.kinds()
        kids = C.children(cursor)
        if len(kids) != 4:
            raise NoVersion("a for loop without all of init, condition and increment")
        init, cond, inc, self.body = kids
        # the counter and its start
        if init.kind == K.DECL_STMT:
            decls = C.children(init)
            if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
                raise NoVersion("init")
            self.var = decls[0]
            values = [c for c in C.children(self.var) if c.kind != K.TYPE_REF]
            if len(values) != 1:
                raise NoVersion("init")
            self.start = values[0]
        elif init.kind == K.BINARY_OPERATOR and C.binary_op(ps, init) == "=":
            lhs, self.start = C.children(init)
            lhs = C.strip(lhs)
            if lhs.kind != K.DECL_REF_EXPR or lhs.referenced is None or \
                    lhs.referenced.kind != K.VAR_DECL:
                raise NoVersion("init")
            self.var = lhs.referenced
        else:
            raise NoVersion("init")
        self.type = int_type(self.var.type)
        if self.type is None or not self.type[1]:
            raise NoVersion("a counter that is not a signed integer")
        # k < B, k <= B
        self.op = C.binary_op(ps, cond) if cond.kind == K.BINARY_OPERATOR else ""
        if self.op not in ("<", "<="):
            raise NoVersion("condition")
        left, self.bound = C.children(cond)
        if not self._is_var(left) or self.bound.type.get_canonical().kind != \
                self.var.type.get_canonical().kind:
            raise NoVersion("condition")
        # k++, ++k, k += s (s a constant, or loop-invariant: tested positive before the loop)
        self.step = None
        if inc.kind == K.UNARY_OPERATOR:
            if C.unary_op(ps, inc) not in ("++", "post++") or \
                    not self._is_var(C.children(inc)[0]):
                raise NoVersion("increment")
        elif inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and C.binary_op(ps, inc) == "+=":
            target, self.step = C.children(inc)
            if not self._is_var(target) or int_type(self.step.type) is None:
                raise NoVersion("increment")
        else:
            raise NoVersion("increment")
        self.assigned = set()
        self.declared = set()       # the locals the body declares
        self.outer = {}             # hash -> declaration: locals from before the loop it assigns
        self._scan_body()
        if self.step is not None and degree(ps, self, self.step, None) != 0:
            raise NoVersion("a step that is not loop-invariant")
        for part in (self.start, self.bound):
            self._pure(part)
        if self.var.hash in self.assigned or any(
                h in self.assigned for h in self._reads(self.bound) | self._reads(self.start)):
            raise NoVersion("the body changes the counter or the bound")

    def _is_var(self, c) -> bool:
        c = C.strip(c)
        return c.kind == C.kinds().DECL_REF_EXPR and c.referenced is not None and \
            c.referenced == self.var

    def _scan_body(self):
        """No store to memory, no call, no jump out, no inner loop; the locals assigned."""
        K = C.kinds()
        for c, _ in C.walk(self.body):
            k = c.kind
            if k == K.CALL_EXPR and self.invariant(self.ps, c):
                continue
            if k in (K.CALL_EXPR, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.RETURN_STMT,
                     K.GOTO_STMT, K.INDIRECT_GOTO_STMT, K.LAMBDA_EXPR, K.CXX_THROW_EXPR,
                     K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR) or k.name in ("GCC_ASM_STMT",
                                                                     "MS_ASM_STMT", "ASM_STMT"):
                raise NoVersion(k.name)
            target = None
            if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                    C.binary_op(self.ps, c) in _STORES:
                target = C.children(c)[0]
            elif k == K.UNARY_OPERATOR and C.unary_op(self.ps, c) in ("++", "--", "post++",
                                                                      "post--"):
                target = C.children(c)[0]
            elif k == K.VAR_DECL:
                self.assigned.add(c.hash)
                self.declared.add(c.hash)
                if c.storage_class.name == "STATIC" or _group_shared(self.ps, c):
                    raise NoVersion("a static or shared variable")
            if target is not None:
                t = C.strip(target)
                if t.kind != K.DECL_REF_EXPR or t.referenced is None or \
                        t.referenced.kind != K.VAR_DECL or t.type.kind.name in (
                            "LVALUEREFERENCE", "RVALUEREFERENCE") or \
                        t.referenced.type.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"):
                    raise NoVersion("a store to memory")
                ref = t.referenced
                if ref.storage_class.name in ("STATIC", "EXTERN") or \
                        _group_shared(self.ps, ref) or ref.semantic_parent is None or \
                        ref.semantic_parent.kind not in (K.FUNCTION_DECL,
                                                         K.FUNCTION_TEMPLATE):
                    raise NoVersion("a store to a variable others see")  # (not a local:
                self.assigned.add(t.referenced.hash)   # the fast copy's writes are seen)
                self.outer.setdefault(t.referenced.hash, t.referenced)
        for h in self.declared:
            self.outer.pop(h, None)

    def _pure(self, c):
        K = C.kinds()
        for n, _ in C.walk(c):
            if n.kind == K.CALL_EXPR and self.invariant(self.ps, n):
                continue
            if n.kind in (K.CALL_EXPR, K.COMPOUND_ASSIGNMENT_OPERATOR) or (
                    n.kind == K.BINARY_OPERATOR and C.binary_op(self.ps, n) in _STORES) or (
                    n.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, n) in (
                        "++", "--", "post++", "post--")):
                raise NoVersion("side effects in the loop's header")

    @staticmethod
    def _reads(c) -> set:
        K = C.kinds()
        return {n.referenced.hash for n, _ in C.walk(c)
                if n.kind == K.DECL_REF_EXPR and n.referenced is not None}


def _group_shared(ps, decl) -> bool:
    """A variable of the thread block's / work-group's memory (CUDA's __shared__, OpenCL's
    __local): others may change it while the loop runs."""
    text = ps.text(decl)
    return "__shared__" in text or "__local" in text or text.startswith("local ")


def degree(ps, loop, c, width):
    """The degree of `c` in the counter (0 or 1; module doc), or None: not affine."""
    K = C.kinds()
    if loop.invariant(ps, c):
        return 0
    if c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        kids = C.children(c)
        if len(kids) != 1:
            return None
        d = degree(ps, loop, kids[0], width)
        return d if d != 1 or width_of(c) == width else None
    if c.kind == K.INTEGER_LITERAL:
        return 0
    if c.kind == K.DECL_REF_EXPR:
        ref = c.referenced
        if ref is None:
            return None
        if ref == loop.var:
            return 1 if width_of(c) == width else None
        if ref.kind == K.PARM_DECL or (ref.kind == K.VAR_DECL and
                                      ref.storage_class.name not in ("STATIC", "EXTERN") and
                                      ref.semantic_parent is not None and
                                      ref.semantic_parent.kind in (K.FUNCTION_DECL,
                                                                   K.FUNCTION_TEMPLATE) and
                                      not _group_shared(ps, ref)):
            if ref.hash in loop.assigned or int_type(ref.type) is None:
                return None
            return 0
        return None
    if c.kind == K.BINARY_OPERATOR:
        op = C.binary_op(ps, c)
        kids = C.children(c)
        if len(kids) != 2:
            return None
        a, b = (degree(ps, loop, k, width) for k in kids)
        if a is None or b is None:
            return None
        if op in ("+", "-"):
            d = max(a, b)
        elif op == "*":
            d = a + b
        elif op in ("/", "%", "<<", ">>", "&", "|", "^"):
            d = 0 if a == b == 0 else None
        else:
            return None
        if d is None or d > 1 or (d == 1 and width_of(c) != width):
            return None
        return d
    if c.kind == K.UNARY_OPERATOR and C.unary_op(ps, c) in ("-", "+"):
        d = degree(ps, loop, C.children(c)[0], width)
        return d if d != 1 or width_of(c) == width else None
    return None


def width_of(c):
    t = int_type(c.type)
    return t[0] if t is not None else None


__all__ = ["CountedLoop", "NoVersion", "degree", "int_type", "width_of"]
