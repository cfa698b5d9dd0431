"""One parse for the builds of one kernel: the last few parses of this thread, shared.

A kernel's source is rewritten once per build -- the checked program, the launch variants
(launch predicates, `assume`), the program with every check kept (SAFEKERN_ELIMINATE=0, the
differential fuzzers' reference) -- and each rewrite parsed it again with the same options:
libclang's parse, the macro expansion's second parse, and, most of a rewrite's time, every
pass reading the new translation unit's tree from libclang again (parse.kids memoises a
unit's tree, so a unit the builds share is read once). `PARSES.get(key, parse)` gives each
build the same ParsedSource.

A ParsedSource is read-only to the passes (what it memoises -- tokens, macro ranges, the
tree -- is the same whoever asks first), so a shared one rewrites as a fresh one does. The
key is everything the parse reads besides the source's own header files: the caller's (the
dialect, source, filename, options, include directories) and the working directory (parse
passes `-I cwd`); header files a parse included are checked unchanged (size, mtime) before
its reuse. Per thread: a libclang unit is never read from two threads at once.
"""
from __future__ import annotations

import os
import threading

from ...memo import BoundedMemo

#: the parses a thread keeps: one kernel's builds come one after another (a CuPy module's
#: kernels, a program's kernels share their source); a unit holds the headers' declarations
SIZE = 4


def _stamps(ps) -> tuple:
    """(path, size, mtime) of each real file the parse included (the in-memory stand-in
    headers are part of the key)."""
    out = []
    for inc in ps.tu.get_includes():
        path = inc.include.name if inc.include is not None else ""
        if not path or path.startswith("/__safekern__"):
            continue
        out.append((path, *_stat(path)))
    return tuple(sorted(set(out)))


def _stat(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (None, None)
    return (st.st_size, st.st_mtime_ns)


def _frozen(part):
    """A key part as it hashes: lists of options as tuples; an iterator (which the parse
    would consume) or any other unhashable part is a TypeError (no sharing)."""
    if isinstance(part, list):
        return tuple(part)
    if isinstance(part, (str, bytes, int, bool, tuple, type(None))):
        return part
    raise TypeError(f"not a key: {type(part).__name__}")


class ParseCache:
    """The last `size` parses of each thread, by the caller's key (see the module)."""

    def __init__(self, size: int = SIZE):
        self.size = size
        self._local = threading.local()

    def get(self, key: tuple, parse):
        """The parse `parse()` returns for `key`: this thread's earlier one while its header
        files are unchanged, else a new one (remembered; an exception is not)."""
        try:
            key = (tuple(_frozen(k) for k in key), os.getcwd())
            hash(key)
        except (TypeError, OSError):    # options of another kind, no working directory
            return parse()
        memo = getattr(self._local, "memo", None)
        if memo is None:
            memo = self._local.memo = BoundedMemo(self.size, lru=True)
        hit = memo.recent(key)
        if hit is not None:
            ps, stamps = hit
            if all(_stat(path) == tuple(rest) for path, *rest in stamps):
                return ps
        ps = parse()
        memo.put(key, (ps, _stamps(ps)))
        return ps

    def clear(self) -> None:
        """Forget this thread's parses."""
        memo = getattr(self._local, "memo", None)
        if memo is not None:
            memo.clear()


#: the front ends' one cache (opencl.rewrite, cuda.rewrite)
PARSES = ParseCache()

__all__ = ["ParseCache", "PARSES", "SIZE"]
