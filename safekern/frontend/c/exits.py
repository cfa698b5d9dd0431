"""Where a failing work-item goes: exit checks after statements, barrier-safe jumps.

A failed check only records the failure and sets the private flag `*__sk_fp`; the access itself
touches element 0 instead (see checks.py). This pass decides where the flag is tested and what
a failing work-item does then:

- after each statement that holds a checked access or a call of a checked helper, and at the
  top of loop bodies whose header holds one (so a failing loop condition cannot spin);
- at the top of every branch of an `if` or `switch` whose condition holds one: a branch may
  leave by `continue`, `break` or `goto` before the test after the statement, and a loop that
  goes round that way (`if (text[j] != '\\n') { j++; continue; }`) would spin on the
  stand-in value for ever;
- kernels without barriers and helper functions simply return;
- kernels with barriers must not leave their work-group waiting. A failing work-item records
  the barrier count at which the group will see the failure in the __local `__sk_lf` (the
  private `__sk_nb` counts barriers passed) and jumps (goto) to the next barrier the group
  reaches: the next barrier statement in program order, the loop that holds it (re-entering
  through the loop header), or -- after the last barrier of a loop body -- the end of the body
  so the loop goes round to its first barrier. After every barrier each work-item tests
  `__sk_lf != 0 && __sk_lf <= __sk_nb` and the whole group returns together. The count keeps
  a work-item that reads the flag late from mistaking a failure of the next interval for one
  of this interval.

Barriers must sit in the function body, in loop bodies (possibly nested) or in branches of an
`if` whose condition is uniform across the work-group for a failing work-item too
(uniformity.py; the failing work-item jumps to a label before the `if`, evaluates it like its
group and goes on to the branch's first barrier), never under switch or a non-uniform if; and
neither a loop or if header holding a barrier nor a barrier() statement may hold a checked
access: those kernels are rejected at build time naming the barrier's line. Group
collectives (work_group_reduce_add, ...) and calls of helpers that hold barriers are barrier
points too; every work-item completes them, then a barrier of ours publishes the flag.

    plan = ControlPlan(ps, facts, dialect, barrier_calls=[...], failure_offsets=[...])
    edits = plan.edits(exit_text)
"""
from __future__ import annotations

import bisect

from dataclasses import dataclass, field

from ...errors import UnsupportedError
from .edits import insert_after, insert_before
from .parse import ParsedSource, children, function_body
from .uniformity import UniformConditions

_LOOPS = ("FOR_STMT", "WHILE_STMT", "DO_STMT")
_SUBSTMT = ("IF_STMT", "SWITCH_STMT", "CASE_STMT", "DEFAULT_STMT", "LABEL_STMT") + _LOOPS


@dataclass(eq=False)
class Node:
    cursor: object
    kind: str
    start: int
    end: int                  # just after the statement (its ';' included)
    depth: int
    parent: "Node | None" = None
    role: str = "seq"         # seq (in a compound), body (of a loop), branch (if/switch/case)
    kids: list = field(default_factory=list)
    has_barrier: bool = False
    is_barrier: bool = False
    barrier_call: object = None
    label: str = ""           # label placed before this statement, when jumped to
    cont_label: str = ""      # loops: label at the end of the body
    exit_label: str = ""      # uniform ifs: where the group goes to return (_group_exit)

    @property
    def is_loop(self) -> bool:
        return self.kind in _LOOPS

    def body(self):
        return self.kids[0] if self.is_loop and self.kids else None


def statement_end(ps: ParsedSource, cursor) -> int:
    s, e = ps.offsets(cursor)
    e = _past_macro_call(ps, e)
    toks = ps.tokens_between(s, e)
    if toks and toks[-1][2] in (";", "}"):
        return e
    semicolon = _closing_semicolon(ps, e)
    return semicolon if semicolon is not None else e


def _past_macro_call(ps: ParsedSource, e: int) -> int:
    """libclang ends an expression that ends inside a function-like macro's invocation at the
    macro's name (`x = SCAN(a,\n b);` ends before `SCAN`): the end of that invocation."""
    ranges = ps.macro_ranges()
    i = bisect.bisect_right(ranges, (e, float("inf"), "")) - 1
    if i >= 0 and ranges[i][0] <= e < ranges[i][1]:
        return ranges[i][1]
    return e


def _closing_semicolon(ps: ParsedSource, e: int):
    """The end of the `;` that closes a statement whose expression ends at `e`, looking past
    preprocessor conditionals between them (`x = y\n#ifdef ONE\n + 1\n#endif\n;`): the tokens
    of directive lines, and of a conditional opened after `e`, are skipped; None when another
    token comes first."""
    depth, inactive = 0, False
    tok = ps.next_token(e)
    while tok is not None:
        line = ps.line_col(tok[0])[0]
        if tok[2] == "#" and ps.source_line(line).lstrip().startswith("#"):
            words = [t[2] for t in ps.tokens_between(tok[0], ps._line_starts[line]
                                                     if line < len(ps._line_starts) else
                                                     len(ps.data))]
            word = words[1] if len(words) > 1 else ""
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
            elif word == "endif":
                if depth == 0:
                    inactive = False
                depth = max(depth - 1, 0) if depth else 0
            elif word in ("else", "elif") and depth == 0:
                inactive = True     # the enclosing conditional's branch we are in has ended
            tok = ps.next_token(ps._line_starts[line] if line < len(ps._line_starts)
                                else len(ps.data))
            continue
        if depth == 0 and not inactive:
            return tok[1] if tok[2] == ";" else None
        tok = ps.next_token(tok[1])
    return None


def build_tree(ps: ParsedSource, body) -> Node:
    def build(c, parent, role, depth):
        s, _ = ps.offsets(c)
        node = Node(c, c.kind.name, s, statement_end(ps, c), depth, parent, role)
        ch = children(c)
        if node.kind == "COMPOUND_STMT":
            node.end = ps.offsets(c)[1]
            node.kids = [build(k, node, "seq", depth + 1) for k in ch]
        elif node.is_loop and ch:
            b = ch[0] if node.kind == "DO_STMT" else ch[-1]
            node.kids = [build(b, node, "body", depth + 1)]
        elif node.kind in ("IF_STMT", "SWITCH_STMT") and len(ch) >= 2:
            subs = ch[1:] if node.kind == "IF_STMT" else ch[-1:]
            node.kids = [build(k, node, "branch", depth + 1) for k in subs]
        elif node.kind in ("CASE_STMT", "DEFAULT_STMT", "LABEL_STMT") and ch:
            node.kids = [build(ch[-1], node, "branch", depth + 1)]
        return node

    return build(body, None, "seq", 0)


def find_anchor(node: Node, x: int):
    """The innermost statement holding byte `x`; (node, in_header)."""
    while True:
        for kid in node.kids:
            if kid.start <= x < kid.end:
                break
        else:
            return node, node.kind in _SUBSTMT
        node = kid


class ControlPlan:
    """Exit checks and barrier protocol for one function (analysis + edits, no text yet)."""

    def __init__(self, ps: ParsedSource, fn, dialect, *, kernel: bool, barrier_calls,
                 failure_offsets, collectives=()):
        self.ps = ps
        self.fn = fn
        self.dialect = dialect
        self.kernel = kernel
        self.root = build_tree(ps, function_body(fn))
        self.failures = sorted(set(failure_offsets))
        self.collectives = {id(c) for c in collectives}
        self.barriers: list[Node] = []
        self._labels = 0
        self._uniform = None
        self._barrier_calls = list(barrier_calls)
        misplaced = []
        for call in barrier_calls:
            err = self._mark_barrier(call, id(call) in self.collectives)
            if err is not None:
                misplaced.append(err)
        # Where nothing can fail, a barrier may stay wherever the user put it.
        if misplaced and self.failures:
            raise misplaced[0]
        self.has_barriers = bool(barrier_calls)
        self.barrier_mode = bool(self.barriers) and not misplaced
        if self.barrier_mode and self.failures and not kernel:
            b = self.barriers[0]
            raise ps.error(f"barrier in helper function '{fn.spelling}', which has checked "
                           "accesses: safekern keeps work-groups together at barriers of "
                           "kernels only; move the barrier into the kernel",
                           b.start, b.start + 1, kernel=fn.spelling, cls=UnsupportedError)

    # -- barriers ---------------------------------------------------------------------------
    def _mark_barrier(self, call, collective: bool):
        s, e = self.ps.offsets(call)
        node, in_header = find_anchor(self.root, s)
        name = self.ps.text(call).split("(")[0].strip()
        if in_header or node is self.root:
            return self._barrier_error(s, name, "in a loop header or condition")
        n = node
        while n.parent is not None:
            p = n.parent
            if p.kind == "IF_STMT" and n.role == "branch":
                why = self._nonuniform(p)
                if why:
                    return self._barrier_error(s, name, "inside an if whose condition may "
                                               f"differ between work-items ({why})")
            elif not (p.kind == "COMPOUND_STMT" or (p.is_loop and n.role == "body")):
                where = {"IF_STMT": "an if", "SWITCH_STMT": "a switch",
                         "CASE_STMT": "a case", "DEFAULT_STMT": "a default case",
                         "LABEL_STMT": "a labelled statement"}.get(p.kind, p.kind)
                return self._barrier_error(s, name, f"inside {where}")
            n = p
        node.is_barrier = True
        node.barrier_call = (call, collective)
        if node not in self.barriers:
            self.barriers.append(node)
        n = node
        while n is not None:
            n.has_barrier = True
            n = n.parent
        return None

    def _nonuniform(self, if_node) -> str:
        """Why the work-group may split at this `if` ("" when the whole group, a failing
        work-item included, takes the same branch: uniformity.py)."""
        if self._uniform is None:
            self._uniform = UniformConditions(
                self.ps, self.fn, kernel=self.kernel, failure_offsets=self.failures,
                barrier_offsets=[self.ps.offsets(c)[0] for c in self._barrier_calls],
                pure_builtins=getattr(self.dialect, "pure_builtins", frozenset()))
        return self._uniform.why_not(children(if_node.cursor)[0])

    def _barrier_error(self, offset, name, where):
        lineno, _ = self.ps.line_col(offset)
        return self.ps.error(
            f"{name}() at line {lineno} is {where}: safekern cannot keep the work-group "
            "together there when a work-item fails a check. Move the barrier to the kernel "
            "body or a loop body, or build with SAFEKERN_CHECKS=0", offset, offset + len(name),
            kernel=self.fn.spelling, cls=UnsupportedError)

    def validate(self, anchors):
        for node, header in anchors:
            if node.is_barrier and not node.barrier_call[1]:
                call = node.barrier_call[0]
                name = self.ps.text(call).split("(")[0].strip()
                raise self._barrier_error(node.start, name,
                                          "in the same statement as a checked access")
            if header and node.has_barrier and (node.is_loop or node.kind == "IF_STMT"):
                first = next(b for b in self.barriers if _inside(b, node))
                lineno, _ = self.ps.line_col(first.start)
                what = "a loop" if node.is_loop else "an if"
                raise self.ps.error(
                    f"checked access in the header of {what} that holds a barrier (line "
                    f"{lineno}): a failing work-item could go elsewhere while its group "
                    "waits at the barrier. Compute the value before it",
                    node.start, node.start + 3, kernel=self.fn.spelling, cls=UnsupportedError)

    # -- targets ----------------------------------------------------------------------------
    def _new_label(self, prefix):
        self._labels += 1
        return f"__sk_{prefix}{self._labels}"

    def _entry(self, node: Node) -> str:
        """The label a failing work-item jumps to so it reaches `node`'s first barrier."""
        if node.is_barrier or node.is_loop or node.kind == "IF_STMT":
            # A loop or a uniform if is entered through its header, so the failing work-item
            # goes where its group goes.
            if not node.label:
                node.label = self._new_label("b" if node.is_barrier else
                                             "l" if node.is_loop else "i")
            return node.label
        for kid in node.kids:
            if kid.has_barrier:
                return self._entry(kid)
        raise AssertionError("no barrier below a node marked has_barrier")

    def next_target(self, node: Node):
        """Where to go after `node` when the flag is set: a label, or None (return)."""
        while node.parent is not None:
            parent = node.parent
            if parent.kind == "COMPOUND_STMT":
                later = parent.kids[parent.kids.index(node) + 1:]
                for sib in later:
                    if sib.has_barrier:
                        return self._entry(sib)
            elif parent.is_loop and parent.has_barrier:
                if not parent.cont_label:
                    parent.cont_label = self._new_label("c")
                return parent.cont_label
            node = parent
        return None

    def body_target(self, loop: Node):
        body = loop.body()
        if body.is_barrier:
            return self._entry(body)
        return self._entry(body) if body.has_barrier else self.next_target(loop)

    # -- edits ------------------------------------------------------------------------------
    def edits(self, exit_text: str, before=()) -> list:
        """All control edits; `exit_text` leaves the function ('return;' / 'return 0;').
        `before`: (start, text) of statements to put before the statement that starts there
        (prechecks.py: a kernel without barriers), inside the braces a body gets."""
        anchors = [find_anchor(self.root, x) for x in self.failures]
        self.validate(anchors)
        out = []
        wrapped = set()
        checked_after = set()
        body_checked = set()
        branch_checked = set()

        def leave(target):
            if not self.barrier_mode or target is None:
                return exit_text
            return f"{{ __sk_lf = __sk_nb + 1; goto {target}; }}"

        def test(target):
            return f"if (__SK_UNLIKELY(*__sk_fp)) {leave(target)}"

        def wrap(node):
            if node.kind != "COMPOUND_STMT" and node.role in ("body", "branch") and \
                    not _in_sequence(node) and node not in wrapped:
                wrapped.add(node)
                out.append(insert_before(node.start, "{ ", 2 * node.depth - 1))
                out.append(insert_after(node.end, " }", 2 * node.depth - 1))

        def after(node):
            if node in checked_after or node.kind == "RETURN_STMT":
                return
            checked_after.add(node)
            wrap(node)
            out.append(insert_after(node.end, " " + test(self.next_target(node)),
                                    2 * node.depth))

        def at_start(stmt, target):
            text = test(target) + " "
            if stmt.kind == "COMPOUND_STMT":
                out.append(insert_after(stmt.start + 1, " " + text, 2 * stmt.depth + 1))
            else:
                wrap(stmt)
                out.append(insert_before(stmt.start, text, 2 * stmt.depth))

        def at_body_start(loop):
            if loop not in body_checked:
                body_checked.add(loop)
                at_start(loop.body(), self.body_target(loop))

        def at_branch_starts(node):
            # The failing work-item leaves wherever the condition sends it, before the branch
            # can jump past the test after the statement.
            if node not in branch_checked:
                branch_checked.add(node)
                for entry in _branch_entries(node):
                    at_start(entry, self.next_target(node))

        for start, text in before:
            node = self._statement_at(start)
            wrap(node)
            # after the braces, a label and a test at the statement's start (2 * depth)
            out.append(insert_before(node.start, text, 2 * node.depth + 1))
        fail_inside = set()
        for node, header in anchors:
            if node.is_barrier:
                # A collective (or barrier helper) with a checked access in its statement:
                # every work-item completes it; the flag is published before our own barrier.
                fail_inside.add(node)
                continue
            if header and node.is_loop:
                at_body_start(node)
            elif header and node.kind in ("IF_STMT", "SWITCH_STMT"):
                at_branch_starts(node)
            after(node)
        if self.barrier_mode and self.failures:
            for node in list(self._all()):
                if node.is_loop and node.has_barrier:
                    at_body_start(node)
                    after(node)
                elif node.kind == "IF_STMT" and node.has_barrier:
                    # Entered through its (uniform) condition: the failing work-item goes on
                    # to the branch's first barrier, or past the if when the branch has none.
                    for kid in node.kids:
                        at_start(kid, self._entry(kid) if kid.has_barrier else
                                 self.next_target(node))
                    after(node)
        if self.barrier_mode:
            for b in self.barriers:
                wrap(b)
                call, collective = b.barrier_call
                sync = (" " + self.dialect.group_barrier_text()) if collective else ""
                if b in fail_inside:
                    sync = " if (__SK_UNLIKELY(*__sk_fp)) __sk_lf = __sk_nb + 1;" + sync
                out.append(insert_after(b.end, f"{sync} __sk_nb++; if (__sk_lf != 0 && "
                                        f"__sk_lf <= __sk_nb) {self._group_exit(b)}",
                                        2 * b.depth))
                if not collective:
                    out.extend(self.dialect.barrier_call_edits(self.ps, call))
        for node in self._all():
            if node.exit_label:
                wrap(node)
                out.append(insert_after(node.end, f" {node.exit_label}: if (__sk_lf != 0 && "
                                        "__sk_lf <= __sk_nb) return;", 2 * node.depth + 1))
        # Labels last: they exist only where something jumps.
        for node in self._all():
            if node.label:
                wrap(node)
                out.append(insert_before(node.start, f"{node.label}: ", 2 * node.depth))
            if node.cont_label:
                body = node.body()
                if body.kind == "COMPOUND_STMT":
                    out.append(insert_before(body.end - 1, f" {node.cont_label}: ;",
                                             2 * body.depth + 1))
                else:
                    wrap(body)
                    out.append(insert_after(body.end, f" {node.cont_label}: ;",
                                            2 * body.depth))
        return out

    def _group_exit(self, barrier=None):
        """How the group leaves after `barrier`. Under a uniform if it does not return there:
        it jumps, all together, to the next barrier after the outermost such if (where the
        usual test returns) or, with none, to just after that if, where it returns. PoCL miscompiles a `return` inside or
        just after a conditional region that holds barriers -- results go wrong even when it is
        never taken (PyOpenCL's segmented scan) -- and handles these jumps."""
        top = None
        n = barrier.parent if barrier is not None else None
        while n is not None:
            if n.kind == "IF_STMT" and n.has_barrier:
                top = n
            n = n.parent
        if top is None:
            return "return;"
        target = self.next_target(top)
        if target is None:
            if not top.exit_label:
                top.exit_label = self._new_label("e")
            target = top.exit_label
        return f"goto {target};"

    def _statement_at(self, start: int) -> Node:
        """The innermost statement (not a block) that starts at byte `start`."""
        found = [n for n in self._all() if n.start == start and n.kind != "COMPOUND_STMT"
                 and n is not self.root]
        if not found:
            raise AssertionError(f"no statement starts at byte {start}")
        return max(found, key=lambda n: n.depth)

    def _all(self):
        stack = [self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.kids))


def _in_sequence(node: Node) -> bool:
    """A statement under case/default/label prefixes of a compound statement: what is inserted
    before or after it stays in that compound (braces around it would end the scope of a
    declaration it makes)."""
    parent = node.parent
    while parent is not None and parent.kind in ("CASE_STMT", "DEFAULT_STMT", "LABEL_STMT"):
        parent = parent.parent
    return node.parent is not parent and parent is not None and parent.kind == "COMPOUND_STMT"


def _branch_entries(node: Node) -> list:
    """Where control goes once the condition of an if (its branches) or of a switch (the
    statement after each of its case and default labels; not those of inner switches) is
    evaluated."""
    if node.kind == "IF_STMT":
        return list(node.kids)
    entries = []
    stack = list(node.kids)
    while stack:
        n = stack.pop()
        if n.kind == "SWITCH_STMT":
            continue
        if n.kind in ("CASE_STMT", "DEFAULT_STMT") and n.kids and \
                n.kids[0].kind not in ("CASE_STMT", "DEFAULT_STMT"):
            entries.append(n.kids[0])
        stack.extend(n.kids)
    return sorted(entries, key=lambda n: n.start)


def _inside(node: Node, ancestor: Node) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


__all__ = ["ControlPlan", "Node", "build_tree", "find_anchor", "statement_end"]
