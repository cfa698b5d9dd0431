"""Division checks whose divisor the facts prove non-zero (analysis; eliminate.py rewrites).

`ty % power_two` with `power_two = 1 << i` for i in range(1, 5) (bits.py bounds the shift to
[2, 16]), `x // n` under `if n > 0`: the divisor is >= 1 or <= -1 where the division runs, so
its zero check cannot fail. The divisor must be exact (index_forms.py): its form is the value
the kernel computes.
"""
from __future__ import annotations

import ast

from . import names

_OPS = {"floordiv": ast.FloorDiv, "mod": ast.Mod, "truediv": ast.Div}


def proven_division(lin, node, facts):
    """(the plain division, the reason) for a division check `_sk_div_<kind>(a, b, ...)` whose
    divisor is proven non-zero by `facts`, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
            node.func.id.startswith(names.DIVIDE) and len(node.args) >= 2):
        return None
    op = _OPS.get(node.func.id[len(names.DIVIDE):].removesuffix("_any"))
    divisor = node.args[1]
    form = lin.form(divisor)
    if op is None or form is None or not lin.exact(divisor, facts):
        return None
    proof = lin.prove(form.plus(-1), facts)                 # divisor >= 1
    if proof is None:
        proof = lin.prove(form.scale(-1).plus(-1), facts)   # divisor <= -1
    if proof is None:
        return None
    used = list(dict.fromkeys(f.origin for f in proof if f.origin))
    reason = "non-zero divisor" + (f", proved by {', '.join(used)}" if used else
                                   " (its bounds)")
    return ast.copy_location(ast.BinOp(node.args[0], op(), divisor), node), reason


__all__ = ["proven_division"]
