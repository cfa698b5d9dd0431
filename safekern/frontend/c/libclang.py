"""The libclang bindings (`clang.cindex`) as the C front ends use them: loaded once, made
safe to finalise in any order, `Cursor.kind` a table lookup, and a source's tokens read
through libclang's token calls directly. parse.py is the front ends' face of it."""
from __future__ import annotations

import ctypes

from ...errors import CompilationError

_CI = None


def cindex():
    global _CI
    if _CI is not None:         # (asked for at every cursor helper call: once is enough)
        return _CI
    try:
        import clang.cindex as ci
    except ImportError as err:  # pragma: no cover - the clang extra is not installed
        raise CompilationError(
            "checking C kernels needs libclang: pip install 'safekern[clang]' (libclang>=16)"
        ) from err
    _guard_disposal(ci)
    _fast_kind(ci)
    _CI = ci
    return ci


def _fast_kind(ci) -> None:
    """`Cursor.kind` read once per Cursor object (once per process): the bindings' property
    goes through `CursorKind.from_id`'s checks at every read, and the passes read a cursor's
    kind at every node of every walk (tree.py shares the Cursor objects). The kind is kept
    in the object's own attributes, where later reads find it first (a descriptor without
    `__set__`, as functools.cached_property); a cursor's kind never changes. The same
    CursorKind objects; an id the bindings do not know still goes to from_id (its
    ValueError)."""
    if getattr(ci.Cursor, "_safekern_fast_kind", False):
        return
    ci.Cursor.kind = _Kind(ci.CursorKind._kinds, ci.CursorKind.from_id,
                           ci.Cursor.kind.__doc__)
    ci.Cursor._safekern_fast_kind = True


class _Kind:
    """Cursor.kind, kept per object (see _fast_kind)."""

    def __init__(self, table, from_id, doc):
        self.table, self.from_id, self.__doc__ = table, from_id, doc

    def __get__(self, cursor, owner=None):
        if cursor is None:
            return self
        k = cursor._kind_id
        found = self.table[k] if 0 <= k < len(self.table) else None
        if found is None:
            found = self.from_id(k)
        cursor.__dict__["kind"] = found
        return found


def _guard_disposal(ci) -> None:
    """Make the bindings' finalizers safe in any order (once per process): tokens and
    diagnostics may be collected after their translation unit.

    A TokenGroup's finalizer disposes its tokens through its translation unit. When the two are
    garbage in one cycle, the collector may finalize the unit first, and disposing the tokens
    then reads freed memory: a segmentation fault during a later parse (seen on the H200 with
    Python 3.12). A unit now remembers that it is disposed, and tokens whose unit is gone are
    left alone (their memory is a small leak, not a crash)."""
    if getattr(ci.TokenGroup, "_safekern_guarded", False):
        return
    dispose_unit = ci.TranslationUnit.__del__
    dispose_tokens = ci.TokenGroup.__del__

    def unit_del(self):
        if not self.__dict__.get("_safekern_disposed", False):
            self.__dict__["_safekern_disposed"] = True
            dispose_unit(self)

    def tokens_del(self):
        unit = self.__dict__.get("_tu")
        if unit is not None and unit.__dict__.get("_safekern_disposed", False):
            return
        dispose_tokens(self)

    ci.TranslationUnit.__del__ = unit_del
    ci.TokenGroup.__del__ = tokens_del
    # A Diagnostic keeps no reference to its unit, so it can outlive it (in a cycle, a
    # traceback, a list freed later); clang_disposeDiagnostic then reads the diagnostic's
    # vtable in the freed unit. For the diagnostics a unit owns (all safekern asks for) the
    # call does nothing else: skip it.
    ci.Diagnostic.__del__ = lambda self: None
    dispose_index = ci.Index.__del__

    def index_del(self):
        try:
            dispose_index(self)
        except AttributeError:      # at interpreter exit the library handle is already gone
            pass

    ci.Index.__del__ = index_del
    ci.TokenGroup._safekern_guarded = True



def tokens(ci, tu, extent) -> list:
    """(start, end, spelling) of the tokens of `extent` but comments: what the bindings'
    TranslationUnit.get_tokens gives, without a Token object, a SourceRange and two
    SourceLocations per token (each a Python layer over the same libclang calls; a
    source's tokens are read at its first rewrite). The tokens are disposed of here."""
    lib = ci.conf.lib
    memory = ctypes.POINTER(ci.Token)()
    count = ctypes.c_uint()
    lib.clang_tokenize(tu, extent, ctypes.byref(memory), ctypes.byref(count))
    n = int(count.value)
    if n < 1:
        return []
    comment = ci.TokenKind.COMMENT.value
    kind, token_extent, spelling = (lib.clang_getTokenKind, lib.clang_getTokenExtent,
                                    lib.clang_getTokenSpelling)
    range_start, range_end = lib.clang_getRangeStart, lib.clang_getRangeEnd
    location = lib.clang_getInstantiationLocation
    offset = ctypes.c_uint()
    at = ctypes.byref(offset)
    out = []
    try:
        for i in range(n):
            tok = memory[i]
            if kind(tok) == comment:
                continue
            rng = token_extent(tu, tok)
            location(range_start(rng), None, None, None, at)
            s = offset.value
            location(range_end(rng), None, None, None, at)
            out.append((s, offset.value, spelling(tu, tok)))
    finally:
        lib.clang_disposeTokens(tu, memory, count)
    return out


__all__ = ["cindex", "tokens"]
