"""CUDA C: the hidden parameters a rewritten function's declarations get, and a kernel's
prologue (the module's rewrite, cuda_rewrite.py, collects them).

A kernel's hidden parameters come after the user's (the launch appends their values); after a
parameter with a default value each gets one too, as C++ requires (a launch passes every
argument, so they are never used). A device function's come first, so calls that leave
defaulted arguments out still line up; one that needs no hidden state (needs_hidden) keeps its
signature.
"""
from __future__ import annotations

from ...errors import UnsupportedError
from . import edits as E, parse as C


def param_list(mod, decl):
    """(open paren offset, close paren offset, has params, void-only range or None)."""
    ps = mod.ps
    name_at = decl.location.offset
    tok = ps.next_token(name_at)
    # Skip the name and explicit template arguments up to the parameter list's '('.
    depth = 0
    while tok is not None:
        if tok[2] == "<":
            depth += 1
        elif tok[2] == ">":
            depth -= 1
        elif tok[2] == "(" and depth <= 0:
            break
        tok = ps.next_token(tok[1])
    if tok is None:
        raise ps.error("cannot find the parameter list of this function", name_at,
                       cls=UnsupportedError)
    open_at = tok[0]
    params = mod._params(decl)
    if params:
        end = params[-1].extent.end.offset
        close = ps.next_token(end)
        while close is not None and close[2] != ")":
            close = ps.next_token(close[1])
        return open_at, close[0], True, None
    nxt = ps.next_token(tok[1])
    if nxt is not None and nxt[2] == "void":
        after = ps.next_token(nxt[1])
        return open_at, after[0], False, (nxt[0], nxt[1])
    return open_at, nxt[0], False, None


def has_default(mod, decl) -> bool:
    return any("=" in [t.spelling for t in p.get_tokens()] for p in mod._params(decl))


def signature_edits(mod, fn) -> list:
    """The hidden parameters of `fn`'s declarations, and a kernel's prologue."""
    edits: list = []
    if not fn.rewritable or not (fn.kernel or fn.needs_hidden):
        return edits
    for decl in fn.decls:
        open_at, close_at, has_params, void_range = param_list(mod, decl)
        idx = fn.pointer_indexes
        if fn.kernel:
            hidden = [f"long long __sk_bytes_{i}" for i in idx] + [
                f"long long {f.hidden}" for f in fn.field_params] + ["long long* __sk_fb"]
            if has_default(mod, decl):
                # after a parameter with a default value, each must have one (the launch
                # passes them all: the defaults are never used)
                hidden = [h + (" = -1" if "bytes" in h else " = nullptr") for h in hidden]
            text = ", ".join(hidden)
            if void_range:
                edits.append(E.replace(void_range[0], void_range[1], text))
            else:
                edits.append(E.insert_before(close_at, (", " if has_params else "") + text, 0))
        else:
            hidden = ["long long* __sk_fb", "unsigned long long __sk_cs"]   # call_chains.py
            for i in idx:
                hidden += [f"const volatile void* __sk_base_{i}", f"long long __sk_bytes_{i}"]
            text = ", ".join(hidden)
            if void_range:
                edits.append(E.replace(void_range[0], void_range[1], text))
            else:
                edits.append(E.insert_after(open_at + 1, text + (", " if has_params else ""), 0))
    if fn.kernel and fn.cursor.is_definition():
        body = C.function_body(fn.cursor)
        pre = ["if (__sk_enter_sync(__sk_fb)) return;" if fn.barriers
               else "if (__sk_enter(__sk_fb)) return;"]
        for i in sorted(fn.orig_params):
            name = fn.params[i].spelling
            pre.append(f"const volatile void* const __sk_orig_{i} = {name};")
        for i in sorted(fn.count_params):
            name = fn.params[i].spelling
            pre.append(f"const long long __sk_n_{i} = __sk_count(__sk_bytes_{i}, "
                       f"(long long)sizeof(*{name}));")
        edits.append(E.insert_after(body.extent.start.offset + 1, " ".join(pre), 0))
    return edits


__all__ = ["signature_edits", "param_list", "has_default"]
