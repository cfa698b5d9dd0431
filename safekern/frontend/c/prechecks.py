"""Which checked indexes of an OpenCL kernel are tested by a statement before their statement
(an analysis: opencl_edits.precheck_text writes the statement, exits.ControlPlan places it).

A failed in-expression check (`__sk_ix32(...)`) cannot end the work-item: it sets the flag,
records, reads element 0, and a flag test after the statement returns. A *precheck* instead
tests the index before the statement and returns at once:

    if (__SK_UNLIKELY((ulong)(long)v >= (ulong)n)) { __sk_fail_bits(fb, CODE, v, n, AXIS, 0); return; }
    ... the statement, its access `p[v]` unchecked ...

the same test and the same record (site, index, size, axis, local and group id) as the
expression check. On an H100 it made PyOpenCL's bfs_step 1.268x -> 1.075x of the unchecked
kernel (benchmarks/results/2026-11-27c-device-calls/ocl-ab-call8.md). It is exactly the checked
semantics only where all of this holds, so a check becomes a precheck only there:

- a kernel (a helper cannot end the work-item) with no barrier, work-group or sub-group
  function (collectives, `async_work_group_copy`, `wait_group_events`), nor a call of a helper
  that holds one: a returned work-item would leave its group waiting;
- an "index" check (a pointer parameter, an array axis, a vector) whose index is one private
  scalar variable or parameter of integer type, declared before the statement, never
  address-taken (no call can change it), not `volatile`, `static` or `__local`;
- the statement is one a statement can go before: an expression statement, a declaration,
  a `return` (any statement that is not a compound or control statement), the condition of an
  `if` or `switch`, or the init of a `for` (evaluated once, first) -- not a `for`'s condition
  or increment, a `while`/`do` condition, nor a statement or index written by a macro;
- that part of the statement evaluates the access whenever it runs (not behind `&&`, `||`,
  a `?:`'s branches, a comma, `sizeof`, a GNU statement expression), and assigns the variable
  nowhere (`v++`, `v = ...`): the value tested is the value indexed;
- no other failure point of that part (a check left in the expression, a call of a checking
  helper, a division or assert) comes before it in the source, unless it encloses the access
  (it then fails only after the access was evaluated): the first failure stays the first;
- it is outside every loop that loop_versions.py versions (that loop's checks run before it).

The work-item then returns before the statement runs; before, it ran the statement on element
0 and returned after it: either way the failing launch's outputs are undefined (docs/checks.md).
"""
from __future__ import annotations

from dataclasses import dataclass

from . import parse as C
from .exits import Node, find_anchor

_INTEGER = frozenset(("CHAR_S", "CHAR_U", "SCHAR", "UCHAR", "SHORT", "USHORT", "INT", "UINT",
                      "LONG", "ULONG", "BOOL"))
_QUALIFIERS = frozenset(("static", "volatile", "__local", "local", "__global", "global",
                         "__constant", "constant", "extern"))
_WRITES = frozenset(("++", "--", "post++", "post--"))
#: functions every work-item of a work-group (or sub-group) must reach: with one, a work-item
#: that returns early leaves the others waiting
GROUP_PREFIXES = ("work_group_", "sub_group_", "intel_sub_group_", "async_work_group_")
GROUP_FUNCTIONS = frozenset(("wait_group_events",))


@dataclass(frozen=True)
class Precheck:
    access: object            # model.Access (status CHECKED, check.how == "index")
    node: Node                # the statement the test goes before (ControlPlan's tree node)
    var: str                  # the index variable as written


def holds_group_calls(fn, barrier_functions) -> bool:
    """Whether `fn` calls a barrier or a work-group/sub-group function itself."""
    K = C.kinds()
    for c, _ in C.walk(fn):
        if c.kind == K.CALL_EXPR:
            name = C.called_name(c) or ""
            if name in barrier_functions or name in GROUP_FUNCTIONS or \
                    name.startswith(GROUP_PREFIXES):
                return True
    return False


class PrecheckFinder:
    """The prechecks of one kernel (module doc): the rules, over the function's tree."""

    def __init__(self, ps, fn, root: Node):
        self.ps = ps
        self.fn = fn
        self.root = root
        self.refs = {}            # (start, end) -> (DECL_REF_EXPR, its parents)
        self.writes = {}          # declaration hash -> offsets where it is assigned
        self.address_taken = set()
        self._collect()

    def _collect(self):
        K = C.kinds()
        for c, parents in C.walk(C.function_body(self.fn)):
            if c.kind != K.DECL_REF_EXPR or c.referenced is None:
                continue
            self.refs[self.ps.offsets(c)] = (c, parents)
            key = c.referenced.hash
            child, i = c, len(parents) - 1
            while i >= 0 and parents[i].kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR):
                child, i = parents[i], i - 1
            if i < 0:
                continue
            p = parents[i]
            if p.kind == K.UNARY_OPERATOR:
                op = C.unary_op(self.ps, p)
                if op == "&":
                    self.address_taken.add(key)
                elif op in _WRITES:
                    self.writes.setdefault(key, []).append(self.ps.offsets(c)[0])
            elif p.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                ch = C.children(p)
                op = C.binary_op(self.ps, p)
                if ch and ch[0] == child and (op.endswith("=") and op not in
                                              ("==", "!=", "<=", ">=")):
                    self.writes.setdefault(key, []).append(self.ps.offsets(c)[0])

    # -- the rules --------------------------------------------------------------------------
    def find(self, accesses, failure_ranges, versioned_starts=()) -> list:
        """The prechecks among `accesses` (the kernel's CHECKED ones); `failure_ranges`:
        (start, end) of every other failure point (failing helper calls, divisions, asserts);
        `versioned_starts`: the starts of the loops loop_versions.py versions."""
        loops = [(n.start, n.end) for n in self._nodes() if n.start in set(versioned_starts)
                 and n.is_loop]
        checked = [a for a in accesses if a.check is not None]
        points = [(a.start, a.end, a) for a in checked] + [(s, e, None) for s, e in
                                                            failure_ranges]
        out, chosen = [], set()
        for a in sorted(checked, key=lambda a: (a.check.index or (a.start,))[0]):
            found = self._one(a, loops)
            if found is None:
                continue
            node, region, var = found
            x0 = a.check.index[0]
            blocked = any(s < x0 and region[0] <= s < region[1] and other is not a and
                          id(other) not in chosen and not (s <= a.start and e >= a.end)
                          for s, e, other in points)
            if not blocked:
                chosen.add(id(a))
                out.append(Precheck(a, node, var))
        return out

    def _one(self, a, loops):
        """(node, the region evaluated before it, variable) where `a` may be prechecked."""
        ch = a.check
        if ch.how != "index" or ch.index is None or ch.opaque:
            # (a constant extent's index is tested as an opaque value, in its expression:
            # access_check.Check.opaque)
            return None
        i0, i1 = ch.index
        toks = self.ps.tokens_between(i0, i1)
        if len(toks) != 1 or not (toks[0][2][:1].isalpha() or toks[0][2][:1] == "_") or \
                self.ps.macro_at(i0) or self.ps.macro_containing(i0, i1):
            return None
        ref = self.refs.get((i0, i1))
        if ref is None or any(s <= a.start < e for s, e in loops):
            return None
        cursor, parents = ref
        decl = cursor.referenced
        if not self._private_scalar(decl):
            return None
        node, header = find_anchor(self.root, a.start)
        region = self._region(node, header, a.start)
        if region is None or self.ps.macro_at(node.start):
            return None
        if self.ps.offsets(decl)[0] >= region[0]:
            return None                            # declared in the statement itself
        if any(region[0] <= w < region[1] for w in self.writes.get(decl.hash, ())):
            return None
        if not self._unconditional(cursor, parents, region):
            return None
        return node, region, toks[0][2]

    def _private_scalar(self, decl) -> bool:
        K = C.kinds()
        if decl.kind not in (K.VAR_DECL, K.PARM_DECL):
            return False
        fs, fe = self.ps.offsets(self.fn)
        ds, de = self.ps.offsets(decl)
        if not (fs <= ds < fe) or decl.hash in self.address_taken:
            return False
        t = decl.type
        if t.get_canonical().kind.name not in _INTEGER or t.is_volatile_qualified():
            return False
        name_at = decl.location.offset
        return not any(tok[2] in _QUALIFIERS for tok in self.ps.tokens_between(ds, name_at))

    def _region(self, node: Node, header: bool, x: int):
        """The bytes of `node` evaluated, once, before anything else of it runs (and that
        hold `x`): a plain statement's own; an if's or switch's condition; a for's init."""
        if node is self.root or node.kind == "COMPOUND_STMT":
            return None
        if not header:
            return (node.start, node.end)
        if node.kind in ("IF_STMT", "SWITCH_STMT"):
            kids = C.children(node.cursor)
            cond = self.ps.offsets(kids[0]) if kids else None
            return cond if cond and cond[0] <= x < cond[1] else None
        if node.kind == "FOR_STMT":
            depth, start = 0, None
            for s, e, t in self.ps.tokens_between(node.start, node.end):
                if t == "(":
                    depth += 1
                    if depth == 1:
                        start = e
                elif t == ")":
                    depth -= 1
                elif t == ";" and depth == 1:
                    return (start, s) if start is not None and start <= x < s else None
        return None

    def _unconditional(self, cursor, parents, region) -> bool:
        K = C.kinds()
        chain = list(parents) + [cursor]
        for i in range(len(chain) - 1):
            p, child = chain[i], chain[i + 1]
            s, e = self.ps.offsets(p)
            if s < region[0] or e > region[1]:
                continue
            if p.kind == K.BINARY_OPERATOR:
                op = C.binary_op(self.ps, p)
                if op == "," or (op in ("&&", "||") and C.children(p)[0] != child):
                    return False
            elif p.kind == K.CONDITIONAL_OPERATOR and C.children(p)[0] != child:
                return False
            elif p.kind.name in ("STMT_EXPR", "CXX_UNARY_EXPR", "UNARY_EXPR"):
                return False                       # a statement expression, sizeof, ...
        return True

    def _nodes(self):
        stack = [self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(n.kids)


__all__ = ["Precheck", "PrecheckFinder", "holds_group_calls", "GROUP_PREFIXES"]
