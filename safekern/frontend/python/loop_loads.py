"""Checked loads in innermost loops as `_sk_loadv` (a pass of eliminate.py's output)."""
from __future__ import annotations

import ast

from . import names
from .transformer import Transformer
from .trees import walk


class LoopLoads(Transformer):
    """Checked loads in innermost `for` loops (not the checked copies of versioned loops)
    become `_sk_loadv`: the load does not wait behind its check's branch, so the loads of
    successive iterations (CSR SpMV's x[indices[k]]) stay in flight together.

    Loads of a straight run keep their branch, gathers too: the branch-free form holds each
    load's address, the failure-buffer fallback and its compares live until the load, a few
    registers per load. fbpic's field gather (eighteen 2-D complex loads per call) went from
    112 to 144 registers with them, which halves its occupancy at 256 threads a block: 1.47x ->
    1.61x plain numba on an H100 (issue 26, 2026-11-27). Perlin noise's eight permutation-table
    gathers, branch-free, held 48 registers against numba's 32, half its occupancy at 512
    threads a block: 1.285x plain numba on an H200, 1.126x with their branches (40 registers;
    benchmarks/results/2026-11-28f-device-calls/README.md)."""

    def __init__(self, checked_copies: set):
        self.depth_inner = 0
        self.checked_copies = checked_copies       # id()s of the versioner's checked loops

    def visit_For(self, node):
        innermost = not any(isinstance(n, (ast.For, ast.While)) for s in node.body
                            for n in walk(s))
        if innermost and id(node) not in self.checked_copies:
            self.depth_inner += 1
            self.generic_visit(node)
            self.depth_inner -= 1
            return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if _is_load(node) and self.depth_inner:
            node.func = ast.copy_location(ast.Name(names.LOADV, ast.Load()), node.func)
        return node


def _is_load(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in (names.LOAD, names.LOADV)


__all__ = ["LoopLoads"]
