"""`BoundedMemo`: the one bounded memo of safekern (launch configurations, argument layouts,
parsed sources, cache misses, ...).

    memo = BoundedMemo(512)                 # a dict: memo.get(key) costs what a dict's does
    value = memo.get(key)
    if value is None:
        value = memo.put(key, make(key))    # forgets when full

Full, `put` forgets everything (the cheapest: the memos on launch paths hold a working set far
smaller than their size, so a clear is rare and a miss costs one computation) or, with
`lru=True`, the least recently used entry; `recent(key)` is `get` that counts as a use there.
"""
from __future__ import annotations


class BoundedMemo(dict):
    """A dict of at most `size` entries (see the module doc)."""

    __slots__ = ("size", "lru")

    def __init__(self, size: int, *, lru: bool = False):
        super().__init__()
        self.size = size
        self.lru = lru

    def put(self, key, value):
        """Remember `value` for `key` (forgetting as the module doc says when full); `value`."""
        if self.lru:
            self.pop(key, None)            # (re)inserted last: the most recently used
            while len(self) >= self.size:
                try:
                    del self[next(iter(self))]
                except (KeyError, StopIteration, RuntimeError):   # another thread took it
                    break
        elif len(self) >= self.size and key not in self:
            self.clear()
        self[key] = value
        return value

    def recent(self, key, default=None):
        """`get` that counts as a use of `key` (an LRU memo keeps it longest)."""
        value = self.pop(key, _MISSING)
        if value is _MISSING:
            return default
        self[key] = value
        return value

    def __repr__(self) -> str:
        return f"BoundedMemo({self.size}{', lru=True' if self.lru else ''}, {len(self)} entries)"


_MISSING = object()

__all__ = ["BoundedMemo"]
