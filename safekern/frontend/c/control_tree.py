"""The statement tree of one C function that exits.py plans on: each statement's extent (its
`;` found past macro calls and preprocessor conditionals), its role (in a sequence, a loop's
body, a branch) and its children; the innermost statement holding a byte.

    root = build_tree(ps, function_body(fn))
    node, in_header = find_anchor(root, offset)
"""
from __future__ import annotations

import bisect

from dataclasses import dataclass, field

from .parse import ParsedSource, children

LOOPS = ("FOR_STMT", "WHILE_STMT", "DO_STMT")
SUBSTMT = ("IF_STMT", "SWITCH_STMT", "CASE_STMT", "DEFAULT_STMT", "LABEL_STMT") + LOOPS


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
        return self.kind in LOOPS

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
            return node, node.kind in SUBSTMT
        node = kid


def in_sequence(node: Node) -> bool:
    """A statement under case/default/label prefixes of a compound statement: what is inserted
    before or after it stays in that compound (braces around it would end the scope of a
    declaration it makes)."""
    parent = node.parent
    while parent is not None and parent.kind in ("CASE_STMT", "DEFAULT_STMT", "LABEL_STMT"):
        parent = parent.parent
    return node.parent is not parent and parent is not None and parent.kind == "COMPOUND_STMT"


def branch_entries(node: Node) -> list:
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


def inside(node: Node, ancestor: Node) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


__all__ = ["Node", "build_tree", "find_anchor", "statement_end", "LOOPS", "SUBSTMT",
           "branch_entries", "in_sequence", "inside"]
