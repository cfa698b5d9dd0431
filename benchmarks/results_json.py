"""How result files are written: compact JSON (no indentation), one line and a newline.

Results are committed under benchmarks/results/ and travel with the working tree to the GPU
machine, whose copies are limited to 64 MiB with the `.gpu` kit (libclang's and numpy's wheels
are 41 MB of it): indented, the JSON files were 15 MB of the tree's 24, compact 11. The
`.md` reports beside them are the readable form."""
from __future__ import annotations

import json


def text(obj, **kwargs) -> str:
    """`obj` as compact JSON text, with a final newline (json.dumps's keyword arguments, such as
    `default=str`, pass through)."""
    return json.dumps(obj, separators=(",", ":"), **kwargs) + "\n"


__all__ = ["text"]
