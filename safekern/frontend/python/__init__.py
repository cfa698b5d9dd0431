"""The Python front end: numba-cuda kernel source -> a checked `ast` tree (see pipeline.py).

parse -> checks (BoundsCheckRewriter) + safety (assert, raise, division) -> eliminate
(bindings, index_forms, linear, versioning, unchecked) -> exits (where a failing thread goes);
races summarises what each thread touches, for the launch-time race check.
"""
from .checks import INDEXED_ATOMICS, CheckSite, hidden_first
from .cold_loops import mark_cold
from .parse import ParsedFunction, SourceNotFound, names_read, parse_function
from .pipeline import RewrittenFunction, refuse_unsupported, rewrite_function

__all__ = ["parse_function", "rewrite_function", "refuse_unsupported", "mark_cold",
           "ParsedFunction", "RewrittenFunction",
           "SourceNotFound", "CheckSite", "INDEXED_ATOMICS", "hidden_first", "names_read"]
