"""Which `if` conditions every work-item of a work-group evaluates alike -- a failing one included.

exits.py lets a barrier sit under an `if` only when the whole group takes the same branch, and a
work-item that failed a check must take it too: it jumps (goto) to a label before the `if`,
evaluates the condition again and follows the group to its next barrier. So "uniform" here is
stronger than OpenCL's own rule (the group agrees): the failing work-item, which skipped
statements on its way and read stand-in values, must compute the same value. A condition is
uniform when it is built only from

- literals, enumerators, `sizeof`, casts, operators without side effects, `?:`;
- the group-wide queries (`get_group_id`, `get_local_size`, `get_num_groups`, ...) and pure
  built-ins (`min`, `max`, `mad24`, ...) of uniform arguments;
- the kernel's parameters (and their struct fields) that the kernel never assigns nor takes the
  address of; file-scope `const`/`__constant` scalars;
- private variables whose address is never taken and whose every assignment stores a uniform
  value at a place no failing work-item skips: a statement of the function body itself (run once
  by everyone) with no possible failure before its end, or the header (init, condition,
  increment) of a `for` loop holding a barrier -- a failing work-item always goes round such a
  loop through its header (exits.py), so its counter stays in step with the group's;
  or at a place a failing work-item skips only on its way straight to a barrier statement or
  out of the function (its group leaves at that barrier: it compares nothing in between).

Reads of memory (`*p`, `a[i]`, `p->x`), `get_local_id`/`get_global_id`, helper calls and
assignments inside the condition make it non-uniform. Only kernels get parameters as uniform;
PyOpenCL's scan kernels (`if (unit_base < interval_end) { ... local_barrier(); }`) are the case
this exists for.

    u = UniformConditions(ps, fn, kernel=True, barrier_offsets=[...], failure_offsets=[...])
    u.why_not(condition_cursor)    # "" when uniform, else what makes it differ
"""
from __future__ import annotations

from . import parse as C

# Work-item queries whose value is the same for every work-item of a group.
GROUP_QUERIES = frozenset("""get_group_id get_local_size get_enqueued_local_size get_num_groups
    get_global_size get_global_offset get_work_dim""".split())

_SIDE_EFFECT_OPS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
                              ","))


class UniformConditions:
    """The uniformity facts of one function (analysis only, no edits)."""

    def __init__(self, ps, fn, *, kernel: bool, barrier_offsets, failure_offsets,
                 pure_builtins=frozenset(), skip_reaches_barrier=None):
        self.ps = ps
        # (exits.ControlPlan.skip_reaches_barrier: a store a failing work-item skips on its
        # way to a barrier statement or out of the function is not compared by it again)
        self.skip_reaches_barrier = skip_reaches_barrier
        self.fn = fn
        self.kernel = kernel
        self.pure = pure_builtins
        self.barriers = sorted(barrier_offsets)
        self.first_failure = min(failure_offsets, default=None)
        self.body = C.function_body(fn)
        self.params = {self._key(p) for p in fn.get_arguments()} if kernel else set()
        self.assignments: dict = {}     # variable key -> [(value cursor or None, offset)]
        self.address_taken: set = set()
        self._collect()
        self._memo: dict = {}

    # -- facts ------------------------------------------------------------------------------
    @staticmethod
    def _key(decl):
        return decl.hash if decl is not None else None

    def _collect(self):
        K = C.kinds()
        for c, _ in C.walk(self.body):
            if c.kind == K.VAR_DECL:
                init = [ch for ch in C.children(c) if ch.kind.is_expression()]
                self.assignments.setdefault(self._key(c), []).append(
                    (init[-1] if init else None, self.ps.offsets(c)[0]))
            elif c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                op = C.binary_op(self.ps, c)
                ch = C.children(c)
                if op in _SIDE_EFFECT_OPS and op != "," and len(ch) == 2:
                    root = self._lvalue_root(ch[0])
                    if root is not None:
                        # x op= v: the new value is uniform when x and v are (v stands for both)
                        value = ch[1] if op == "=" else _Both(ch[0], ch[1])
                        self.assignments.setdefault(root, []).append(
                            (value, self.ps.offsets(c)[0]))
            elif c.kind == K.UNARY_OPERATOR:
                op = C.unary_op(self.ps, c)
                ch = C.children(c)
                if not ch:
                    continue
                if op == "&":
                    root = self._lvalue_root(ch[0])
                    if root is not None:
                        self.address_taken.add(root)
                elif op in ("++", "--", "post++", "post--"):
                    root = self._lvalue_root(ch[0])
                    if root is not None:
                        self.assignments.setdefault(root, []).append(
                            (ch[0], self.ps.offsets(c)[0]))

    def _lvalue_root(self, cursor):
        """The variable an lvalue stores into directly (x, x.f, x[i] of an array x), else None
        (a store through a pointer goes to memory, which no uniform condition reads)."""
        K = C.kinds()
        c = C.strip(cursor)
        while True:
            if c.kind == K.DECL_REF_EXPR:
                return self._key(c.referenced)
            if c.kind == K.MEMBER_REF_EXPR:
                ch = C.children(c)
                if not ch or self._arrow(c):
                    return None
                c = C.strip(ch[0])
            elif c.kind == K.ARRAY_SUBSCRIPT_EXPR:
                base = C.strip(C.children(c)[0])
                if base.type.get_canonical().kind.name not in ("CONSTANTARRAY", "INCOMPLETEARRAY"):
                    return None
                c = base
            else:
                return None

    def _arrow(self, member) -> bool:
        ch = C.children(member)
        tok = self.ps.next_token(ch[0].extent.end.offset) if ch else None
        return tok is not None and tok[2] == "->"

    # -- the question -----------------------------------------------------------------------
    def why_not(self, cond) -> str:
        """"" when `cond` is uniform across the work-group for failing work-items too, else
        the first thing that makes it differ."""
        return self._expr(cond, frozenset())

    def _expr(self, c, visiting) -> str:
        K = C.kinds()
        if isinstance(c, _Both):
            return self._expr(c.a, visiting) or self._expr(c.b, visiting)
        kind = c.kind
        if kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL,
                    K.CXX_BOOL_LITERAL_EXPR, K.CXX_UNARY_EXPR):
            return ""
        if kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CONDITIONAL_OPERATOR):
            return self._all(C.children(c), visiting)
        if kind == K.BINARY_OPERATOR:
            if C.binary_op(self.ps, c) in _SIDE_EFFECT_OPS:
                return f"'{self.ps.text(c)}' assigns"
            return self._all(C.children(c), visiting)
        if kind == K.UNARY_OPERATOR:
            op = C.unary_op(self.ps, c)
            if op in ("-", "+", "!", "~"):
                return self._all(C.children(c), visiting)
            return f"'{self.ps.text(c)}' " + ("reads memory" if op == "*" else "has side effects")
        if kind == K.CALL_EXPR:
            name = c.spelling
            if name in GROUP_QUERIES or (name in self.pure and not name.startswith("get_")):
                return self._all(C.call_args(c), visiting)
            return f"'{self.ps.text(c)}' differs between work-items" if name.startswith("get_") \
                else f"'{self.ps.text(c)}' calls '{name}'"
        if kind == K.MEMBER_REF_EXPR:
            ch = C.children(c)
            if ch and not self._arrow(c):
                return self._expr(C.strip(ch[0]), visiting)
            return f"'{self.ps.text(c)}' reads memory"
        if kind == K.DECL_REF_EXPR:
            return self._variable(c, visiting)
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            return f"'{self.ps.text(c)}' reads memory"
        return f"'{self.ps.text(c)}' is not known to be uniform"

    def _all(self, cursors, visiting) -> str:
        for ch in cursors:
            if not ch.kind.is_expression():
                continue     # the type of a cast or sizeof
            why = self._expr(ch, visiting)
            if why:
                return why
        return ""

    def _variable(self, ref, visiting) -> str:
        K = C.kinds()
        decl = ref.referenced
        if decl is None:
            return f"'{ref.spelling}' is unknown"
        if decl.kind == K.ENUM_CONSTANT_DECL:
            return ""
        key = self._key(decl)
        if key in visiting:
            return ""    # x += s inside x's own definitions: uniform if the rest is
        if not visiting and key in self._memo:
            return self._memo[key]
        name = ref.spelling
        if key in self.address_taken:
            why = f"the address of '{name}' is taken"
        elif decl.kind == K.PARM_DECL:
            why = "" if key in self.params and key not in self.assignments else \
                f"'{name}' is assigned in the kernel" if key in self.params else \
                f"'{name}' is a helper's parameter"
        elif decl.kind == K.VAR_DECL and decl.semantic_parent is not None and \
                decl.semantic_parent.kind == K.TRANSLATION_UNIT:
            why = "" if decl.type.is_const_qualified() or "__constant" in \
                decl.type.spelling else f"'{name}' is a program-scope variable"
        elif decl.kind == K.VAR_DECL and key in self.assignments:
            why = self._definitions(name, key, visiting | {key})
        else:
            why = f"'{name}' is not known to be uniform"
        if not visiting:     # a value found while assuming a cycle's variables holds only then
            self._memo[key] = why
        return why

    def _definitions(self, name, key, visiting) -> str:
        for value, offset in self.assignments[key]:
            if value is None:
                return f"'{name}' is declared without a value"
            where = self._unskippable(offset)
            if where:
                return f"'{name}' is assigned {where}"
            why = self._expr(value, visiting)
            if why:
                return f"'{name}' takes a non-uniform value ({why})"
        return ""

    def _unskippable(self, offset) -> str:
        """"" when every work-item, a failing one included, runs the store at `offset`."""
        top = self._top_statement(offset)
        if top is not None:
            stmt, header_of = top
            end = stmt.extent.end.offset
            if header_of is None and (self.first_failure is None or self.first_failure >= end):
                return ""
            if header_of is not None and self._holds_barrier(header_of):
                return ""
        if self.skip_reaches_barrier is not None and self.skip_reaches_barrier(offset):
            return ""
        return "where a work-item that fails a check may skip it"

    def _top_statement(self, offset):
        """(statement, loop) for a store in a statement of the body itself (loop None) or in the
        header of a `for` loop at any depth; None otherwise."""
        K = C.kinds()
        for stmt in C.children(self.body):
            s, e = self.ps.offsets(stmt)
            if s <= offset < e:
                break
        else:
            return None
        if stmt.kind not in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.IF_STMT, K.SWITCH_STMT,
                             K.COMPOUND_STMT, K.LABEL_STMT):
            return stmt, None
        for c, _ in C.walk(stmt):
            if c.kind == K.FOR_STMT:
                ch = C.children(c)
                body = ch[-1] if ch else None
                s, _ = self.ps.offsets(c)
                if body is not None and s <= offset < self.ps.offsets(body)[0]:
                    return c, c
        return None

    def _holds_barrier(self, loop) -> bool:
        s, e = self.ps.offsets(loop)
        return any(s <= b < e for b in self.barriers)


class _Both:
    """The value of `x op= v`: uniform when both x and v are."""

    def __init__(self, a, b):
        self.a, self.b = a, b


__all__ = ["UniformConditions", "GROUP_QUERIES"]
