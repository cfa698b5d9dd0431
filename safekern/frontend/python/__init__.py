"""The Python front end: numba-cuda kernel source -> a checked `ast` tree.

parse (checks.parse_function) -> checks (BoundsCheckRewriter) -> safety (assert, raise,
division) -> eliminate (bindings, index_forms, linear, versioning, unchecked) -> exits (where a
failing thread goes); races summarises what each thread touches.
"""
