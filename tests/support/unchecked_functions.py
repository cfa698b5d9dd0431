"""OpenCL functions built as written, unchecked, because a failing work-item could not be kept
with its group at their barriers (frontend/c/opencl.py): what a test asks of them.

    why = unchecked_reason(rewrite(src), "k")            # the front end's Rewrite
    prg, why = build_with_unchecked_warning(ctx, src, "cond.cl", "cond")   # a Program, built
"""
from __future__ import annotations

import warnings


def unchecked_reason(rw, name: str) -> str:
    """Why function `name` of the Rewrite `rw` is built as written, unchecked; its report
    entries say it too."""
    found = dict(rw.unchecked_functions)
    assert name in found, rw.unchecked_functions
    why = found[name]
    entries = [e for e in rw.report() if e.function == name]
    assert entries and all(e.status.value == "unchecked" and e.reason == why
                           for e in entries if e.kind == "bounds"), entries
    return why


def build_with_unchecked_warning(ctx, src: str, filename: str, name: str):
    """(safekern.opencl.Program(ctx, src, filename).build(), the reason) where the build warns
    once, with a safekern.UncheckedWarning naming function `name` and the reason."""
    import safekern
    import safekern.opencl as skcl

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prg = skcl.Program(ctx, src, filename=filename).build()
    texts = [str(w.message) for w in caught
             if issubclass(w.category, safekern.UncheckedWarning)]
    head = f"safekern: {filename}: '{name}' runs unchecked ("
    mine = [t for t in texts if t.startswith(head)]
    assert len(mine) == 1, texts
    return prg, mine[0][len(head):-1]


__all__ = ["unchecked_reason", "build_with_unchecked_warning"]
