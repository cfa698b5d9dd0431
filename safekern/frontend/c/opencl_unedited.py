"""OpenCL C functions the rewrite leaves as they are written: those a function-like macro writes,
and those whose barriers cannot be kept safe for a failing work-item (opencl.py: `forced`).

A function whose name or parameter list comes out of a macro expansion (Random123's
`DEF_ROTL(32)` writing `rotl32`) cannot get safekern's hidden parameters: the edit would have to
go inside the macro's expansion. Such a function is compiled as the user wrote it, unchecked,
like CUDA C's (cuda_rewrite.py: `rewritable`). Every call of it then passes no hidden arguments;
so a function its body calls (the calls sit in the expansion too, where no hidden argument can be
added) is left as written as well, and so on. A kernel among them is launched with the user's
arguments only (its program's other kernels are checked as usual).

    unedited = unedited_functions(ps, fns, kernel_names)   # name -> why, for the report
    leave_unchecked(facts, why)      # its accesses: unchecked, with the reason (analysis only)
"""
from __future__ import annotations

from ...report import Status
from . import parse as C


def _macro_written(ps, decl) -> str | None:
    """The macro that writes `decl`'s name or parameter list ("" for one that cannot be told),
    else None: the tokens after the name are not `name (` as written in the source."""
    name_at = decl.location.offset
    macro = ps.macro_at(name_at, name_at + 1)
    if macro is not None:
        return macro
    s, e = ps.offsets(decl)
    toks = [t for t in ps.tokens_between(s, e) if t[0] >= name_at]
    if len(toks) < 3 or toks[1][2] != "(" or toks[0][2] != decl.spelling:
        return ps.macro_containing(s, e) or ""
    return None


def unedited_functions(ps, fns, kernel_names, forced=None) -> dict:
    """Name -> why it is left as written, for the functions a macro writes, those in
    `forced` (name -> why: a function whose barriers cannot be kept safe, opencl.py) and those
    their bodies call (transitively); every declaration of a function counts."""
    K = C.kinds()
    defined = {f.spelling: f for f in fns}
    out: dict = dict(forced or {})
    for c in ps.main_top():
        if c.kind != K.FUNCTION_DECL or c.spelling not in defined or c.spelling in out:
            continue
        macro = _macro_written(ps, c)
        if macro is not None:
            by = f"macro '{macro}'" if macro else "a macro"
            how = ("launched as written, with the user's arguments" if c.spelling in
                   kernel_names else "compiled as written")
            out[c.spelling] = (f"'{c.spelling}' is written by {by}: safekern cannot add its "
                               f"hidden parameters, so it is {how}, unchecked")
    todo = [name for name in out if name in defined]
    while todo:
        caller = todo.pop()
        body = C.function_body(defined[caller])
        if body is None:
            continue
        for c, _ in C.walk(body):
            name = C.called_name(c) if c.kind == K.CALL_EXPR else None
            if name in defined and name not in out and name not in kernel_names:
                out[name] = (f"'{name}' is called from '{caller}', which is compiled as "
                             "written, so it keeps its signature: compiled as written, "
                             "unchecked")
                todo.append(name)
    return out


def leave_unchecked(facts, why: str) -> None:
    """The accesses of a function left as written: unchecked, with the reason; it passes no
    hidden arguments."""
    for a in facts.accesses:
        if a.status != Status.ELIMINATED:      # (one proven in bounds needs no check)
            a.status, a.reason = Status.UNCHECKED, why
        a.check = None
    facts.calls[:] = []


__all__ = ["unedited_functions", "leave_unchecked"]
