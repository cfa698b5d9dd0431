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
- kernels without barriers, and helper functions that hold none, simply return;
- kernels with barriers must not leave their work-group waiting. A failing work-item records
  the barrier count at which the group will see the failure in the __local `__sk_lf` (the
  private `__sk_nb` counts barriers passed) and jumps (goto) to the next barrier the group
  reaches: the next barrier statement in program order, the loop that holds it (re-entering
  through the loop header), or -- after the last barrier of a loop body -- the end of the body
  so the loop goes round to its first barrier. After every barrier each work-item tests
  `__sk_lf != 0 && __sk_lf <= __sk_nb` and the whole group returns together. The count keeps
  a work-item that reads the flag late from mistaking a failure of the next interval for one
  of this interval.
- helpers with barriers that can fail follow the same protocol on their caller's counts,
  passed as hidden pointers (`*__sk_lfp`, `*__sk_nbp`): the failing work-item jumps to the
  helper's next barrier, the group leaves the helper together after it (or the failing
  work-item returns, after the helper's last barrier), and the caller, for which the call is a
  barrier point, publishes the flag at its own barrier after the call and the group returns.

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

from ...errors import UnsupportedError
from .control_tree import (Node, branch_entries, build_tree, find_anchor, in_sequence, inside,
                           statement_end)
from .edits import insert_after, insert_before
from .parse import ParsedSource, children, function_body
from .uniformity import UniformConditions

def unsafe_barrier(err: UnsupportedError) -> UnsupportedError:
    """`err`, marked as saying that a function's barriers cannot be kept safe for a failing
    work-item (the front end then builds that function as written, unchecked: opencl.py)."""
    err.unsafe_barrier = True
    return err


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
        # Every statement that holds a barrier is known before the first question about an
        # if's uniformity (skip_reaches_barrier asks where a failing work-item goes next).
        self._barrier_nodes = set()
        for call in barrier_calls:
            node = find_anchor(self.root, self.ps.offsets(call)[0])[0]
            self._barrier_nodes.add(node)
            while node is not None:
                node.has_barrier, node = True, node.parent
        for call in barrier_calls:
            err = self._mark_barrier(call, id(call) in self.collectives)
            if err is not None:
                misplaced.append(err)
        # Where nothing can fail, a barrier may stay wherever the user put it.
        if misplaced and self.failures:
            raise misplaced[0]
        self.has_barriers = bool(barrier_calls)
        self.barrier_mode = bool(self.barriers) and not misplaced
        # The group's failure count and barrier count: a kernel's own variables; a helper
        # that holds barriers and can fail reaches its caller's through hidden pointers (the
        # dialect's helper_barrier_params), so that a failure inside it is seen by the group at
        # the helper's next barrier, and the group leaves the helper together.
        self.lf, self.nb = ("__sk_lf", "__sk_nb") if kernel else ("(*__sk_lfp)", "(*__sk_nbp)")
        self._exit = "return;"

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
                pure_builtins=getattr(self.dialect, "pure_builtins", frozenset()),
                skip_reaches_barrier=self.skip_reaches_barrier)
        return self._uniform.why_not(children(if_node.cursor)[0])

    def _barrier_error(self, offset, name, where):
        lineno = self.ps.place(offset)[1]
        return unsafe_barrier(self.ps.error(
            f"{name}() at line {lineno} is {where}: safekern cannot keep the work-group "
            "together there when a work-item fails a check. Move the barrier to the kernel "
            "body or a loop body, or build with SAFEKERN_CHECKS=0", offset, offset + len(name),
            kernel=self.fn.spelling, cls=UnsupportedError))

    def validate(self, anchors):
        for node, header in anchors:
            if node.is_barrier and not node.barrier_call[1]:
                call = node.barrier_call[0]
                name = self.ps.text(call).split("(")[0].strip()
                raise self._barrier_error(node.start, name,
                                          "in the same statement as a checked access")
            if header and node.has_barrier and (node.is_loop or node.kind == "IF_STMT"):
                first = next(b for b in self.barriers if inside(b, node))
                lineno = self.ps.place(first.start)[1]
                what = "a loop" if node.is_loop else "an if"
                raise unsafe_barrier(self.ps.error(
                    f"checked access in the header of {what} that holds a barrier (line "
                    f"{lineno}): a failing work-item could go elsewhere while its group "
                    "waits at the barrier. Compute the value before it",
                    node.start, node.start + 3, kernel=self.fn.spelling, cls=UnsupportedError))

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
        kind, target = self._next(node)
        if kind == "loop end":
            if not target.cont_label:
                target.cont_label = self._new_label("c")
            return target.cont_label
        return self._entry(target) if target is not None else None

    def _next(self, node: Node):
        """(how, node) of next_target, no label made: ("entry", the later statement holding the
        next barrier), ("loop end", the loop going round to its first barrier) or (None, None)."""
        while node.parent is not None:
            parent = node.parent
            if parent.kind == "COMPOUND_STMT":
                later = parent.kids[parent.kids.index(node) + 1:]
                for sib in later:
                    if sib.has_barrier:
                        return "entry", sib
            elif parent.is_loop and parent.has_barrier:
                return "loop end", parent
            node = parent
        return None, None

    def skip_reaches_barrier(self, offset: int) -> bool:
        """Whether a failing work-item that jumps over the statement at byte `offset` goes
        straight to a barrier statement (where its group leaves together) or out of the
        function, evaluating no condition on its way: a variable it failed to assign there is
        never compared (uniformity.py)."""
        node, header = find_anchor(self.root, offset)
        if header:
            return False
        kind, target = self._next(node)
        if target is None:
            return True
        if kind == "entry":
            while target not in self._barrier_nodes and target.kind == "COMPOUND_STMT":
                target = next(k for k in target.kids if k.has_barrier)
            return target in self._barrier_nodes and not target.is_loop and \
                target.kind != "IF_STMT"
        return False

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

        self._exit = exit_text
        lf, nb = self.lf, self.nb

        def leave(target):
            if not self.barrier_mode or target is None:
                return exit_text
            return f"{{ {lf} = {nb} + 1; goto {target}; }}"

        def test(target):
            return f"if (__SK_UNLIKELY(*__sk_fp)) {leave(target)}"

        def wrap(node):
            if node.kind != "COMPOUND_STMT" and node.role in ("body", "branch") and \
                    not in_sequence(node) and node not in wrapped:
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
                for entry in branch_entries(node):
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
                    sync = f" if (__SK_UNLIKELY(*__sk_fp)) {lf} = {nb} + 1;" + sync
                out.append(insert_after(b.end, f"{sync} {nb}++; if ({lf} != 0 && "
                                        f"{lf} <= {nb}) {self._group_exit(b)}",
                                        2 * b.depth))
                if not collective:
                    out.extend(self.dialect.barrier_call_edits(self.ps, call))
        for node in self._all():
            if node.exit_label:
                wrap(node)
                out.append(insert_after(node.end, f" {node.exit_label}: if ({lf} != 0 && "
                                        f"{lf} <= {nb}) {exit_text}", 2 * node.depth + 1))
        # Labels last: they exist only where something jumps.
        for node in self._all():
            if node.label:
                wrap(node)
                # (a label cannot stand before a declaration: `float m = helper(...)`, a
                # barrier helper's call, takes a null statement after its label)
                empty = "; " if node.kind == "DECL_STMT" else ""
                out.append(insert_before(node.start, f"{node.label}: {empty}", 2 * node.depth))
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
            return self._exit
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


__all__ = ["ControlPlan", "Node", "build_tree", "find_anchor", "statement_end",
           "unsafe_barrier"]
