"""The Python front end alone, on a kernel written as a test's string: its RewrittenFunction.

    rw = rewrite(tmp_path, KERNEL_SOURCE, launch_predicates=True)

The module gets `cuda`, `float32` and `TILE = 16`; nothing is compiled or launched.
"""
from __future__ import annotations

import textwrap

from safekern.backends.numba.resolver import resolver
from safekern.frontend import python as pyfront
from tests.support.checks import load_kernel_module

PRELUDE = """
from numba import cuda, float32
TILE = 16
"""


def rewrite(tmp_path, body, name="k", *, launch_predicates=False, device=False):
    module = load_kernel_module(tmp_path, PRELUDE + textwrap.dedent(body),
                                f"elim_{abs(hash(body))}")
    parsed = pyfront.parse_function(getattr(module, name))
    return pyfront.rewrite_function(parsed, device=device, resolver=resolver(),
                                    launch_predicates=launch_predicates)


__all__ = ["rewrite", "PRELUDE"]
