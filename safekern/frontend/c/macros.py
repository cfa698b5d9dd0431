"""Macro expansions in function bodies, written out so the rewrite can check what they hold.

    text = expand_in_bodies(ps)    # the source with each use of the source's own macros inside
                                   # a function body replaced by its expansion, or None

An access or a helper call written inside a macro (`PCL_REDUCE(a[i], a[j])`,
`GET_RANDOM_NUM(gen_bits(&k, &c))`, `#define local_barrier() barrier(...)`) has no place in the
user's text that an edit can change: the rewrite used to leave such accesses unchecked and
refuse such calls. Expanding the use in place -- the expansion's tokens on the use's first line,
then as many newlines as the use spanned -- gives them one, and keeps every line where it was
(the `#line` the rewrite emits and the reports stay the user's).

Only macros the source defines itself are expanded (their definitions are what the compiler
will see too); names from headers, the driver or `-D` options are left for the compiler, in
expansions as elsewhere. Expansion follows C's rules: arguments are fully expanded unless they
meet `#` or `##`, the result is rescanned, and a macro is not expanded inside its own
expansion. A use whose arguments hold a preprocessor directive is left as written. The caller
parses the result and falls back to the unexpanded source if that fails.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ...errors import CompilationError
from . import parse as C

_UNDEF = re.compile(rb"^[ \t]*#[ \t]*undef[ \t]+(\w+)", re.M)
_DIRECTIVE = re.compile(rb"(^|\n)[ \t]*#")
# a line splice: libclang's spelling of a token after one keeps it (`\` newline `}`), which
# an expansion written on one line must not (it would add a line, shifting every later one)
_SPLICE = re.compile(r"\\\r?\n")


@dataclass
class MacroDef:
    name: str
    offset: int
    params: list | None          # None: object-like
    body: list                   # token spellings


class _Expander:
    def __init__(self, defs: dict):
        self.defs = defs          # name -> MacroDef active at the use

    def expand(self, toks: list) -> list:
        """toks: [(spelling, hide set, line or None)] -> the fully expanded list."""
        out, toks, i = [], list(toks), 0
        while i < len(toks):
            s, hide = toks[i][0], toks[i][1]
            d = self.defs.get(s)
            if d is None or s in hide:
                out.append(toks[i])
                i += 1
                continue
            if d.params is None:
                toks = self._subst(d, None, hide | {s}) + toks[i + 1:]
                i = 0
                continue
            if i + 1 >= len(toks) or toks[i + 1][0] != "(":
                out.append(toks[i])
                i += 1
                continue
            args, j = _collect_args(toks, i + 1)
            if args is None:
                out.append(toks[i])
                i += 1
                continue
            toks = self._subst(d, args, hide | {s}) + toks[j + 1:]
            i = 0
        return out

    def _subst(self, d: MacroDef, args, hide) -> list:
        params = d.params or []
        named = {}
        if args is not None:
            if params and params[-1] == "...":
                fixed = len(params) - 1
                rest = args[fixed:]
                va = []
                for k, a in enumerate(rest):
                    va += ([(",", frozenset(), None)] if k else []) + a
                named = {p: args[k] if k < len(args) else [] for k, p in enumerate(params[:-1])}
                named["__VA_ARGS__"] = va
            else:
                if args == [[]] and not params:
                    args = []
                named = {p: args[k] if k < len(args) else [] for k, p in enumerate(params)}
        body = d.body
        out: list = []
        k = 0
        while k < len(body):
            t = body[k]
            if t == "#" and d.params is not None and k + 1 < len(body) and body[k + 1] in named:
                out.append((_stringize(named[body[k + 1]]), hide, None))
                k += 2
                continue
            if t in named:
                pasted = (k > 0 and body[k - 1] == "##") or (k + 1 < len(body)
                                                             and body[k + 1] == "##")
                arg = named[t] if pasted else self.expand(named[t])
                out += ([(t[0], t[1] | hide, t[2]) for t in arg] if arg
                        else [("", hide, None)] if pasted else [])
                k += 1
                continue
            out.append((t, hide, None))
            k += 1
        # token pasting
        merged: list = []
        k = 0
        while k < len(out):
            if out[k][0] == "##" and merged and k + 1 < len(out):
                left = merged.pop()
                merged.append((left[0] + out[k + 1][0], hide, None))
                k += 2
                continue
            merged.append(out[k])
            k += 1
        return [t for t in merged if t[0] != ""]


def _collect_args(toks, open_at):
    """The arguments of a call whose '(' is toks[open_at], and the index of its ')'."""
    depth, args, cur = 0, [], []
    for j in range(open_at, len(toks)):
        s = toks[j][0]
        if s == "(":
            depth += 1
            if depth == 1:
                continue
        elif s == ")":
            depth -= 1
            if depth == 0:
                args.append(cur)
                return args, j
        elif s == "," and depth == 1:
            args.append(cur)
            cur = []
            continue
        cur.append(toks[j])
    return None, None


def _layout(toks, first: int, last: int) -> str:
    """The expansion's text from line `first` to line `last`: a token written in an argument
    goes on its own line where the order allows (so a check in it names that line)."""
    out, line, prev = [], first, ""
    for spelling, _, at in toks:
        if at is not None and line < at <= last:
            out.append("\n" * (at - line))
            line = at
        elif out and not out[-1].endswith("\n") and _spaced(prev, spelling):
            out.append(" ")
        out.append(spelling)
        prev = spelling
    out.append("\n" * (last - line))
    return "".join(out)


_TIGHT_AFTER = frozenset({"(", "[", ".", "->", "!", "~"})
_TIGHT_BEFORE = frozenset({")", "]", ",", ";", "(", "[", ".", "->"})


def _spaced(prev: str, nxt: str) -> bool:
    """Whether two tokens of an expansion are written apart (never where that could merge
    them; tight around brackets so a report shows `b[i]`, not `b [ i ]`)."""
    return not (prev in _TIGHT_AFTER or nxt in _TIGHT_BEFORE)


def _stringize(arg) -> str:
    text = " ".join(t[0] for t in arg)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _definitions(ps) -> dict:
    """name -> [MacroDef] in source order, of the macros the main file defines."""
    ci = C._cindex()
    out: dict = {}
    for c in ps.main_top():
        if c.kind != ci.CursorKind.MACRO_DEFINITION:
            continue
        toks = list(c.get_tokens())
        if not toks:
            continue
        name_tok = toks[0]
        params = None
        k = 1
        if (len(toks) > 1 and toks[1].spelling == "(" and
                toks[1].extent.start.offset == name_tok.extent.end.offset):
            params, k = [], 2
            while k < len(toks) and toks[k].spelling != ")":
                if toks[k].spelling != ",":
                    params.append(toks[k].spelling)
                k += 1
            k += 1
        out.setdefault(c.spelling, []).append(
            MacroDef(c.spelling, c.extent.start.offset, params,
                     [_SPLICE.sub("", t.spelling) for t in toks[k:]]))
    return out


def _active(defs: dict, undefs: list, at: int) -> dict:
    """The definitions in force at offset `at`."""
    out = {}
    for name, ds in defs.items():
        offs = [d.offset for d in ds]
        i = bisect.bisect_left(offs, at) - 1
        if i < 0:
            continue
        d = ds[i]
        if any(n == name and d.offset < o < at for o, n in undefs):
            continue
        out[name] = d
    return out


def _main_cursors(ps):
    """Every cursor under the main file's top-level declarations (not the headers')."""
    for top in ps.main_top():
        for c, _ in C.walk(top):
            yield c


def _body_ranges(ps) -> list:
    K = C.kinds()
    out = []
    for c in _main_cursors(ps):
        if c.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD) and \
                c.is_definition() and ps.in_main_file(c):
            body = C.function_body(c)
            if body is not None:
                out.append(ps.offsets(body))
    return sorted(out)


_WORK_KINDS = ("ARRAY_SUBSCRIPT_EXPR", "CALL_EXPR", "MEMBER_REF_EXPR", "UNARY_OPERATOR",
               "BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR")
_DIVIDES = frozenset({"/", "%", "/=", "%="})


def _work_offsets(ps) -> list:
    """Sorted start offsets of what the rewrite may edit in the main file: subscripts, calls,
    member accesses, unary operators (`*p`), divisions."""
    K = C.kinds()
    kinds = {getattr(K, k) for k in _WORK_KINDS}
    binary = {K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR}
    out = []
    for c in _main_cursors(ps):
        if c.kind not in kinds or not ps.in_main_file(c):
            continue
        if c.kind in binary:
            kids = list(C.kids(c))
            op = ps.next_token(kids[0].extent.end.offset) if kids else None
            if op is None or op[2] not in _DIVIDES:
                continue
        elif c.kind == K.UNARY_OPERATOR:        # `*p` only (not -x, !x, &x, ++i)
            if [t.spelling for t in c.get_tokens()][:1] != ["*"]:
                continue
        elif c.kind == K.MEMBER_REF_EXPR:       # `p->f` only (not threadIdx.x)
            if "->" not in [t.spelling for t in c.get_tokens()]:
                continue
        out.append(c.extent.start.offset)
    return sorted(out)


def _holds_work(work: list, s: int, e: int) -> bool:
    i = bisect.bisect_left(work, s)
    return i < len(work) and work[i] < e


def expand_in_bodies(ps) -> str | None:
    """The source with the uses of its own macros inside function bodies expanded (see the
    module), or None when there are none."""
    defs = _definitions(ps)
    if not defs:
        return None
    data = ps.source.encode("utf-8")
    undefs = [(m.start(), m.group(1).decode()) for m in _UNDEF.finditer(data)]
    bodies = starts = work = None      # read at the first use that needs them (a walk each)
    edits, last_end = [], -1
    for s, e, name in ps.macro_ranges():
        if name not in defs or s < last_end:
            continue            # not the source's own macro, or inside a use already taken
        if bodies is None:
            bodies = _body_ranges(ps)
            starts = [b[0] for b in bodies]
        i = bisect.bisect_right(starts, s) - 1
        if i < 0 or not (bodies[i][0] < s and e < bodies[i][1]):
            continue            # (a body a macro wrote maps to the use itself: left alone)
        if work is None:
            work = _work_offsets(ps)
        if not _holds_work(work, s, e):
            continue            # nothing the rewrite edits: a constant, arithmetic
        if _DIRECTIVE.search(data[s:e]):
            continue
        active = _active(defs, undefs, s)
        if name not in active:
            continue
        first = ps.line_col(s)[0]
        toks = [(t[2], frozenset(), ps.line_col(t[0])[0]) for t in ps.tokens_between(s, e)]
        out = _Expander(active).expand(toks)
        text = _layout(out, first, first + data[s:e].count(b"\n"))
        # apart from the text around the use where tokens could merge (`-X` with X `-1`)
        if s > 0 and not data[s - 1:s].isspace() and data[s - 1:s] not in b"([,;{":
            text = " " + text
        if e < len(data) and not data[e:e + 1].isspace() and data[e:e + 1] not in b")],;}":
            text += " "
        edits.append((s, e, text))
        last_end = e
    if not edits:
        return None
    pieces, at = [], 0
    for s, e, text in edits:
        pieces += [data[at:s], text.encode("utf-8")]
        at = e
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8")


def with_expansions(ps, reparse):
    """`ps`, or the parse (`reparse(text)`) of its source with its macros expanded in function
    bodies, when there are any and that parses without errors."""
    text = expand_in_bodies(ps)
    if text is None:
        return ps
    try:
        expanded = reparse(text)
    except CompilationError:     # the front end's own parse refused it
        return ps
    if any(d.in_main for d in expanded.errors()):
        return ps
    expanded.user_text = ps.source
    return expanded


__all__ = ["expand_in_bodies", "with_expansions", "MacroDef"]
