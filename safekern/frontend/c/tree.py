"""A translation unit's tree, read from libclang once: each cursor's children (`kids`,
`children`), its extent's offsets (`span`), the walks from a cursor (`walk`) and of the
user's own code (`walk_main`) -- shared by every pass of every rewrite that reads the unit
(parse_cache.py shares the unit among a kernel's builds). parse.py re-exports them."""
from __future__ import annotations

from .libclang import cindex

#: the attribute of a libclang TranslationUnit that holds its children memo (kids())
_TREE = "_safekern_children"


def kids(cursor) -> tuple:
    """The children of `cursor`, shared: read from libclang once per cursor of its
    translation unit, whichever pass or walk asks first (a tuple: never changed).

    Every pass of a rewrite walks the same function bodies (provenance, ranges, writes,
    the access walk, the launch facts, the macro scan...), and each walk read every node's
    children from libclang again -- a ctypes visit per node per pass, most of a rewrite's
    time. The memo lives on the translation unit (keyed by the cursor's bytes: libclang's
    kind and data, equal for the same node however it was reached), so it lasts as long as
    the unit and every ParsedSource of it shares it; the same Cursor objects come back, so
    what the bindings cache on a cursor (extent, type, spelling) is read once too. (The
    unit holds its cursors and they hold it: Python's collector frees the unit, as it does
    any cycle, once no rewrite or parse_cache.PARSES holds it.)"""
    found = cursor.__dict__.get("_safekern_kids")     # this Cursor object asked before
    if found is not None:
        return found
    memo = cursor._tu.__dict__.get(_TREE)
    if memo is None:
        memo = cursor._tu.__dict__[_TREE] = {}
    key = bytes(cursor)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _visit_children(cursor)
    cursor._safekern_kids = found
    return found


def _visit_children(cursor) -> tuple:
    """libclang's children of `cursor` (Cursor.get_children without its per-child null
    cursor assertion, a ctypes call per child: libclang visits no null cursor)."""
    ci = cindex()
    out: list = []
    tu = cursor._tu

    def visitor(child, parent, _):
        child._tu = tu          # as the bindings do: the cursor keeps its unit alive
        out.append(child)
        return 1                # CXChildVisit_Continue

    ci.conf.lib.clang_visitChildren(cursor, ci.callbacks["cursor_visit"](visitor), None)
    return tuple(out)


def children(cursor) -> list:
    """The children of `cursor` (a list of the caller's own; see kids())."""
    return list(kids(cursor))


def span(cursor) -> tuple[int, int]:
    """(start, end) byte offsets of `cursor`'s extent, read once per Cursor object (as the
    bindings keep its extent; but each `.start.offset` is a libclang call again). The
    cursors of kids() are shared, so each node's is read once per unit."""
    known = cursor.__dict__.get("_safekern_span")
    if known is None:
        ext = cursor.extent
        known = cursor._safekern_span = (ext.start.offset, ext.end.offset)
    return known


def walk(cursor, parents=()):
    """Pre-order walk yielding (cursor, parents) with parents outermost first.

    A walk from a cursor with no parents given is kept on the Cursor object (as its
    children are, kids()): a function body is walked by a dozen passes of each rewrite
    (provenance, ranges, writes, the launch facts, safety, prechecks...), and a kept walk
    is a list's iteration."""
    if parents:
        return _walk(cursor, parents)
    found = cursor.__dict__.get("_safekern_walk")
    if found is None:
        found = cursor._safekern_walk = tuple(_walk(cursor, ()))
    return iter(found)


def _walk(cursor, parents):
    """walk() itself (a stack, not recursive generators: those pass each node up through
    every level above it)."""
    yield cursor, parents
    stack = [(iter(kids(cursor)), parents + (cursor,))]
    while stack:
        it, inner = stack[-1]
        ch = next(it, None)
        if ch is None:
            stack.pop()
            continue
        yield ch, inner
        stack.append((iter(kids(ch)), inner + (ch,)))


def walk_main(ps):
    """walk(ps.tu.cursor) without the top-level declarations outside the main file and what
    they hold: the headers' (CUDA's stand-ins, cupy's own headers), most of a unit's tree,
    where nothing of the user's code is -- a top-level declaration the user wrote starts
    in the main file (a macro's expansion starts where it is used)."""
    root = ps.tu.cursor
    yield root, ()
    for top in ps.main_top():
        yield from walk(top, (root,))


__all__ = ["kids", "children", "span", "walk", "walk_main"]
