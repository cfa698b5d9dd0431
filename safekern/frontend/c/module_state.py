"""Module state of a CUDA C source: the variables that live as long as the loaded module.

A `__device__`, `__constant__` or `__managed__` variable at namespace scope, and a `static`
local variable of a device function, has one copy per loaded CUDA module: the host fills it
through `RawModule.get_global`, one kernel's writes are seen by the next launch. A launch
variant (backends/c_launch.py) is compiled and loaded as a module of its own, with its own
copy of every such variable, so a backend must not run variants of a source that has any
(docs/cupy.md, "Module state").

`module_state(ps)` lists them (analysis only; nothing is edited). Immutable data is not
state: a variable whose type is `const` (also an array of const elements) is initialised the
same in every module and cannot be written by a kernel. Everything else counts, in the user's
headers too; the parse stand-ins (/__safekern__/...) are not looked at.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import parse as C

_STATE_ATTRS = ("CUDADEVICE_ATTR", "CUDACONSTANT_ATTR")
_STATE_WORDS = ("__device__", "__constant__", "__managed__")


@dataclass(frozen=True)
class StateVariable:
    name: str
    filename: str
    lineno: int
    why: str            # '__constant__ variable', 'static local variable of k', ...


def _const(t) -> bool:
    """The type (or, for an array, its element type) is const-qualified."""
    for _ in range(8):
        if t.is_const_qualified():
            return True
        element = t.get_array_element_type()
        if element.kind.name == "INVALID":
            return False
        t = element
    return False


def _where(ps, c):
    loc = c.location
    name = loc.file.name if loc.file is not None else "?"
    return (ps.filename if name == ps.path else name), loc.line


def _stand_in(ps, c) -> bool:
    """A declaration of the parse's stand-in headers (the user's source is parsed as a file
    of the same virtual directory)."""
    name = ps.file_of(c)
    return name is None or (name.startswith("/__safekern__/") and name != ps.path)


def _attrs(c) -> set:
    return {ch.kind.name for ch in C.kids(c)}


def _namespace_scope(ps, cursor, out):
    K = C.kinds()
    wanted = (K.NAMESPACE, K.LINKAGE_SPEC, K.VAR_DECL, K.UNEXPOSED_DECL)
    for c in C.kids(cursor):
        # (the kind first: the headers' thousands of other declarations need no file read)
        if c.kind not in wanted or _stand_in(ps, c):
            continue
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC):
            _namespace_scope(ps, c, out)
        elif c.kind == K.VAR_DECL:
            attrs = _attrs(c)
            if "CUDASHARED_ATTR" in attrs or _const(c.type):
                continue
            if any(a in attrs for a in _STATE_ATTRS):
                kind = "__constant__" if "CUDACONSTANT_ATTR" in attrs else "__device__"
                out.append(StateVariable(c.spelling, *_where(ps, c), f"{kind} variable"))
        elif c.kind == K.UNEXPOSED_DECL:
            # libclang shows a variable template (`template<class T> __device__ T v;`) only
            # as an unexposed declaration: its tokens tell
            words = {t.spelling for t in c.get_tokens()}
            if any(w in words for w in _STATE_WORDS) and "__global__" not in words and \
                    "(" not in words and "const" not in words and "constexpr" not in words:
                out.append(StateVariable(c.spelling, *_where(ps, c), "variable template"))


def _static_locals(ps, out):
    """`static` variables inside the functions of the user's source (device functions keep
    them in global memory, once per module)."""
    K = C.kinds()
    for top in ps.main_top():           # (headers' function bodies are not walked)
        _static_locals_in(ps, top, K, out)


def _static_locals_in(ps, cursor, K, out):
    for c, _ in C.walk(cursor):
        if c.kind != K.VAR_DECL:
            continue
        if c.storage_class.name != "STATIC" or c.semantic_parent is None or \
                c.semantic_parent.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE,
                                               K.CXX_METHOD):
            continue
        if "CUDASHARED_ATTR" in _attrs(c) or _const(c.type):
            continue
        out.append(StateVariable(c.spelling, *_where(ps, c),
                                 f"static local variable of {c.semantic_parent.spelling}"))


_OPENCL_IMMUTABLE = ("__constant", "constant", "const")


def program_state(ps) -> tuple[StateVariable, ...]:
    """The program-scope state of a parsed OpenCL C program: a variable at program scope, or
    a `static` one in a function (OpenCL 2.0 puts both in `__global` memory, one copy per built
    program), that is not `__constant`/`const`. A plain launch (backends/c_launch.py) runs a
    program of its own, which would not share it."""
    K = C.kinds()
    out: list[StateVariable] = []
    for c in C.kids(ps.tu.cursor):
        if c.kind != K.VAR_DECL or _stand_in(ps, c):
            continue
        words = {t.spelling for t in c.get_tokens()}
        if _const(c.type) or words & set(_OPENCL_IMMUTABLE):
            continue
        out.append(StateVariable(c.spelling, *_where(ps, c), "program-scope variable"))
    for top in ps.main_top():
        _static_locals_in(ps, top, K, out)
    return tuple(out)


def module_state(ps) -> tuple[StateVariable, ...]:
    """The module-scope state of a parsed CUDA source (module doc), in source order."""
    out: list[StateVariable] = []
    _namespace_scope(ps, ps.tu.cursor, out)
    _static_locals(ps, out)
    return tuple(out)


__all__ = ["StateVariable", "module_state", "program_state"]
