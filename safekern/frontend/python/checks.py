"""The checking rewrite of the Python front end: every indexed load, store and atomic of a
numba kernel becomes a call of a check helper, one failure site per index component.

The generated calls name helpers that the backend binds (real numba: typed overloads; the CUDA
simulator: plain Python). Which subscripts are of arrays is decided there, by numba's typing,
not here: a subscript of a tuple or record passes through the helper unchanged. pipeline.py
runs this pass with the others.
"""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass

from ... import config
from ...errors import UnsupportedError
from ...failures import FailureSite, site_code
from ..located import LocatedVisitor
from . import names, nested, safety
from .as_written import users_text as _users_text
from .call_chain import call_site_code
from .parse import ParsedFunction, hidden_first
from .transformer import Transformer
from .tuples import TupleValues
from .trees import copy_tree, walk

# Atomic functions of numba.cuda.atomic whose second argument is an index.
INDEXED_ATOMICS = ("add", "sub", "and_", "or_", "xor", "inc", "dec", "exch", "max", "min",
                   "nanmax", "nanmin", "cas")
# The number of index components registered for an index whose shape the source does not show
# (`a[idx]` with `idx` a tuple variable): axes up to this many get a code.
MAX_UNKNOWN_AXES = 8


@dataclass
class CheckSite:
    """One check site (an access, an assert, a raise, a division), for check_report()."""

    code: int
    kind: str          # "load", "store", "atomic", "assert", "raise", "zero_division"
    array: str
    lineno: int
    status: str = "checked"          # "checked" | "eliminated" | "hoisted" | "proven at launch"
    reason: str = ""
    col: int = 0                     # 0-based column in the file
    text: str = ""                   # the source text of the access (whitespace collapsed)
    predicate: str = ""              # the launch predicates that prove it (proven at launch)


class _Context:
    """What the rewriter needs to know about the function being rewritten."""

    def __init__(self, parsed: ParsedFunction, resolver):
        self.parsed = parsed
        self.resolver = resolver
        self.kernel_exceptions = True      # assert/raise/division checks (safety.py)
        self.settings = config.get()       # safekern's settings the rewrite is made under
        self.sites: list[CheckSite] = []
        self.failure_sites: list[FailureSite] = []     # what a failure code means: registered
        self.device_calls: dict = {}
        self.call_codes: dict = {}      # generated name (names.DEVICE) -> its call site's code
        self.plain_device_calls: list = []
        self._temps = itertools.count()
        is_cuda = getattr(resolver, "is_cuda_module", None)
        self.tuples = TupleValues(parsed.tree, (lambda e: is_cuda(e, parsed)) if is_cuda
                                  else (lambda e: False))

    def lookup(self, expr):
        """What a name or attribute in the function means (for raised exception classes)."""
        return safety.resolver_lookup(self.resolver, self.parsed)(expr)

    def temp(self) -> str:
        return f"{names.TEMP}{next(self._temps)}"

    def error(self, node, problem, cls=UnsupportedError):
        p = self.parsed
        col = getattr(node, "col_offset", None)
        end = getattr(node, "end_col_offset", None)
        lineno = getattr(node, "lineno", None)
        same_line = getattr(node, "end_lineno", None) == lineno
        return cls(problem, filename=p.filename, lineno=lineno,
                   source_line=p.source_line(lineno or 0),
                   col=p.column(lineno or 0, col),
                   end_col=p.column(lineno, end) if same_line else None,
                   kernel=p.shown_name)

    def register(self, kind: str, subscript_value, index, node) -> int:
        """Register a check site (one code per index component) and return its base code."""
        p = self.parsed
        array = _users_text(subscript_value)
        components = index.elts if isinstance(index, ast.Tuple) else [index]
        known = isinstance(index, ast.Tuple) or _is_scalar_index(index)
        base = site_code(p.filename, node.lineno, node.col_offset, p.shown_name, kind, array)
        line = p.source_line(node.lineno)
        axis = 0
        static_axes = True
        count = len(components) if known else MAX_UNKNOWN_AXES
        for position in range(count):
            comp = components[position] if known else index
            if known and (_is_ellipsis(comp) or _is_none(comp)):
                static_axes = False     # later components' axes depend on the array's ndim
                continue
            col, end = _columns(comp if comp.lineno == node.lineno else node, p)
            self.failure_sites.append(FailureSite(
                code=base + position, kind="bounds", kernel=p.shown_name, filename=p.filename,
                lineno=node.lineno, source_line=line, col=col, end_col=end, array=array,
                axis=axis if (known and static_axes) else None))
            axis += 1
        self.sites.append(CheckSite(base, kind, array, node.lineno,
                                    col=p.column(node.lineno, node.col_offset), text=_text(p, node)))
        return base

    def register_call(self, node: ast.Call, callee) -> int:
        """Register a call of the checked device function `callee` (a frame of a failure's call
        chain: call_chain.py); its code. The caller counts as a kernel here: pipeline.py says
        otherwise for a device function's."""
        p, cp = self.parsed, callee.parsed
        code = call_site_code(p, node, cp.shown_name)
        col, end = _columns(node, p)
        self.failure_sites.append(FailureSite(
            code=code, kind="call", kernel=p.shown_name, filename=p.filename,
            lineno=node.lineno, source_line=p.source_line(node.lineno), col=col, end_col=end,
            array=None, axis=None, callee=cp.shown_name, in_kernel=True,
            callee_file=cp.filename if cp.filename != p.filename else None))
        return code

    def register_unchecked(self, kind: str, subscript_value, node, reason: str) -> None:
        """An access left to numba (in a nested function used as a value): reported as
        unchecked, with the reason, and given no failure code."""
        p = self.parsed
        array = _users_text(subscript_value)
        code = site_code(p.filename, node.lineno, node.col_offset, p.shown_name, kind, array)
        self.sites.append(CheckSite(code, kind, array, node.lineno, "unchecked", reason,
                                    col=p.column(node.lineno, node.col_offset), text=_text(p, node)))

    def register_failure(self, kind: str, node, *, message, exception=None,
                         status="checked", reason="") -> int:
        """Register an assert, raise or division site (see safety.py); its code."""
        p = self.parsed
        code = site_code(p.filename, node.lineno, node.col_offset, p.shown_name, kind)
        if status == "checked":
            col, end = _columns(node, p)
            self.failure_sites.append(FailureSite(
                code=code, kind=kind, kernel=p.shown_name, filename=p.filename, lineno=node.lineno,
                source_line=p.source_line(node.lineno), col=col, end_col=end, array=None,
                axis=None, message=message, exception=exception))
        self.sites.append(CheckSite(code, kind, "", node.lineno, status, reason,
                                    col=p.column(node.lineno, node.col_offset), text=_text(p, node)))
        return code


def _text(parsed, node) -> str:
    """The node's source text as written (whitespace collapsed)."""
    if node.end_lineno == node.lineno:
        text = parsed.source_line(node.lineno)[parsed.column(node.lineno, node.col_offset):
                                               parsed.column(node.lineno, node.end_col_offset)]
    else:
        text = ast.unparse(node)
    return " ".join(text.split())


def _columns(node, parsed):
    """The node's first and end character columns in the file (end None over several lines)."""
    same_line = node.end_lineno == node.lineno
    return (parsed.column(node.lineno, node.col_offset),
            parsed.column(node.lineno, node.end_col_offset) if same_line else None)


def _is_ellipsis(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_scalar_index(node) -> bool:
    """An index expression that is certainly one component (not a tuple variable)."""
    return isinstance(node, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Slice, ast.Compare,
                             ast.Subscript)) or (
        isinstance(node, ast.Call) and not _looks_like_grid(node))


def _looks_like_grid(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in {"grid", "gridsize"}


def _call(name: str, args, like) -> ast.Call:
    return ast.copy_location(ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[]),
                             like)


def _index_expr(index):
    """The index as an ordinary expression (slices become slice(...) calls)."""
    if isinstance(index, ast.Slice):
        # No step: slice(lower, upper), which numba types as a[lower:upper] (slice2: a C
        # array's view stays C); slice(lower, upper, None) would be an 'A' view.
        parts = [index.lower, index.upper] + ([index.step] if index.step is not None else [])
        args = [p if p is not None else ast.Constant(None) for p in parts]
        return ast.copy_location(
            ast.Call(func=ast.Name(names.SLICE, ast.Load()), args=args, keywords=[]), index)
    if isinstance(index, ast.Tuple):
        return ast.copy_location(
            ast.Tuple(elts=[_index_expr(e) for e in index.elts], ctx=ast.Load()), index)
    return index


def _is_pure(node) -> bool:
    """No calls, subscripts or walrus inside: evaluation order does not matter."""
    return not any(isinstance(n, (ast.Call, ast.Subscript, ast.NamedExpr, ast.Await,
                                  ast.Yield, ast.YieldFrom)) for n in walk(node))


class BoundsCheckRewriter(LocatedVisitor, Transformer):
    """Loads, stores and atomic indices -> calls of check helpers (one failure code each)."""

    def __init__(self, ctx: _Context):
        self.ctx = ctx

    # -- expressions -------------------------------------------------------------------
    def visit_Subscript(self, node: ast.Subscript):
        if isinstance(node.ctx, ast.Del):
            raise self.ctx.error(node, "deleting a subscript is not supported in a kernel")
        if _is_static_attribute_index(node) or _is_field_name(node.slice) or \
                self.ctx.tuples.is_tuple(node.value):
            return self.generic_visit(node)
        value = self.visit(node.value)
        index = self.visit(node.slice)
        code = self.ctx.register("load", node.value, node.slice, node)
        return _call(names.LOAD, [value, _index_expr(index), ast.Constant(code),
                                  _fb(), _flag()], node)

    def visit_Call(self, node: ast.Call):
        role = self.ctx.resolver.classify_call(node.func, self.ctx.parsed)
        if role is not None and role[0] == "atomic":
            return self._atomic(node, role[1])
        if role is not None and role[0] == "unsupported":
            raise self.ctx.error(node, role[1])
        node = self.generic_visit(node)
        if role is not None and role[0] == "device":
            # Device functions passed as arguments are bound into a specialisation of the
            # callee (the backend's resolver), so their calls there are checked too.
            bind = getattr(self.ctx.resolver, "bind_function_arguments", None)
            dev = bind(node, role[1], self.ctx.parsed) if bind is not None else role[1]
            name = f"{names.DEVICE}{len(self.ctx.device_calls)}"
            self.ctx.device_calls[name] = dev
            self.ctx.call_codes[name] = self.ctx.register_call(node, dev)
            node.func = ast.copy_location(ast.Name(name, ast.Load()), node.func)
            _pass_hidden(node, dev.parsed.tree.args)
        elif role is not None and role[0] == "self":
            # A recursive call keeps the function's own name: numba resolves recursion by it.
            self.ctx.register_call(node, self.ctx)
            _pass_hidden(node, self.ctx.parsed.tree.args)
        elif role is not None and role[0] == "plain_device":
            self.ctx.plain_device_calls.append((node.lineno, *role[1:]))
        return node

    def _atomic(self, node: ast.Call, op: str):
        if op == "compare_and_swap":
            if len(node.args) != 3 or node.keywords:
                raise self.ctx.error(node, "cuda.atomic.compare_and_swap takes (array, old, val)")
            array, rest = node.args[0], node.args[1:]
            index = ast.copy_location(ast.Constant(0), node.args[0])
            helper_op = "cas"
        else:
            if len(node.args) < 3 or node.keywords:
                raise self.ctx.error(node, f"cuda.atomic.{op} takes positional arguments "
                                           "(array, index, value...)")
            array, index, rest = node.args[0], node.args[1], node.args[2:]
            helper_op = op
        new_array = self.visit(array)
        new_index = self.visit(index)
        rest = [self.visit(a) for a in rest]
        code = self.ctx.register("atomic", array, index, node)
        return _call(f"{names.ATOMIC}{helper_op}",
                     [new_array, _index_expr(new_index), *rest, ast.Constant(code), _fb(),
                      _flag()], node)

    def visit_Assert(self, node: ast.Assert):
        if not self.ctx.kernel_exceptions:
            return self.generic_visit(node)
        return safety.assert_statement(self.ctx, node, self.visit)

    def visit_Raise(self, node: ast.Raise):
        if not self.ctx.kernel_exceptions:
            return self.generic_visit(node)
        return safety.raise_statement(self.ctx, node, self.visit, self.ctx.lookup)

    def visit_BinOp(self, node: ast.BinOp):
        if not (self.ctx.kernel_exceptions and safety.is_division(node.op)):
            return self.generic_visit(node)
        original = copy_tree(node)      # as the user wrote it, for the message
        left, right = self.visit(node.left), self.visit(node.right)
        new = ast.copy_location(ast.BinOp(left, node.op, right), node)
        checked = safety.division(self.ctx, left, node.op, right, original)
        return new if checked is None else checked

    # -- nested functions and lambdas (see nested.py) ------------------------------------------
    def visit_Lambda(self, node):
        return self._nested(node)

    def visit_FunctionDef(self, node):
        return self._nested(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ListComp(self, node):
        if any(isinstance(n, ast.Subscript) for n in walk(node)):
            raise self.ctx.error(node, "subscripts inside a comprehension cannot be checked; "
                                       "write the loop out in the kernel body")
        return node

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Name(self, node):
        renamed = self._closures().rename(node)
        if renamed is not None:
            return ast.copy_location(ast.Name(renamed, node.ctx), node)
        return node

    def _closures(self) -> "nested.Closures":
        found, p = getattr(self, "_closure_plan", None), self.ctx.parsed
        if found is None:
            found = self._closure_plan = nested.Closures(p.tree, p.mentioned[2])
        return found

    def _nested(self, node):
        """A nested function or lambda: checked where numba inlines it, else reported."""
        return nested.rewrite(self, self._closures().verdict(node), node, lambda n: not (
            _is_static_attribute_index(n) or _is_field_name(n.slice)))

    # -- statements ----------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign):
        if not any(_has_subscript_target(t) for t in node.targets):
            return self.generic_visit(node)
        value = self.visit(node.value)
        out = []
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0]
            if not (_is_pure(target.value) and _is_pure(target.slice)):
                tmp = self.ctx.temp()
                out.append(_assign(tmp, value, node))
                value = ast.Name(tmp, ast.Load())
            out.append(self._store(target, value, node))
            return out
        tmp = self.ctx.temp()
        out.append(_assign(tmp, value, node))
        for target in node.targets:
            out += self._assign_target(target, ast.Name(tmp, ast.Load()), node)
        return out

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if isinstance(node.target, ast.Subscript):
            if node.value is None:
                return []
            return self.visit_Assign(ast.copy_location(
                ast.Assign(targets=[node.target], value=node.value), node))
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Subscript):
            divides = isinstance(node.target, ast.Name) and safety.is_division(node.op)
            original = copy_tree(node.value) if divides else None   # (for its message)
            value = self.visit(node.value)
            if divides:
                load = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
                binop = ast.copy_location(ast.BinOp(load, node.op, original), node)
                checked = safety.division(self.ctx, load, node.op, value, binop)
                if checked is not None:        # x //= n -> x = _sk_div_floordiv(x, n, ...)
                    return ast.copy_location(ast.Assign([node.target], checked), node)
            node.value = value
            return node
        target = node.target
        if _is_static_attribute_index(target) or _is_field_name(target.slice):
            return self.generic_visit(node)
        out = []
        array = self.visit(target.value)
        if not _is_pure(target.value):
            tmp = self.ctx.temp()
            out.append(_assign(tmp, array, node))
            array = ast.Name(tmp, ast.Load())
        index = _index_expr(self.visit(target.slice))
        if not _is_pure(target.slice):
            tmp = self.ctx.temp()
            out.append(_assign(tmp, index, node))
            index = ast.Name(tmp, ast.Load())
            stored_at = index
        else:
            # Pure (no call, subscript or walrus): evaluated twice, it is the same value, and
            # the elimination sees the index itself (`w[row, col] += x` is proven like
            # `w[row, col] = w[row, col] + x`), not a temporary.
            stored_at = copy_tree(index)
        code = self.ctx.register("store", target.value, target.slice, target)
        loaded = _call(names.LOAD, [array, index, ast.Constant(code), _fb(), _flag()], target)
        original = ast.copy_location(ast.BinOp(copy_tree(target), node.op, copy_tree(
            node.value)), node) if safety.is_division(node.op) else None
        right = self.visit(node.value)
        value = ast.copy_location(ast.BinOp(left=loaded, op=node.op, right=right), node)
        value = original and safety.division(self.ctx, loaded, node.op, right, original) or value
        out.append(ast.copy_location(ast.Expr(_call(
            names.STORE, [array, stored_at, value, ast.Constant(code), _fb(), _flag()], target)),
            node))
        return out

    def visit_For(self, node: ast.For):
        if _has_subscript_target(node.target):
            raise self.ctx.error(node.target, "a subscript as a for-loop target is not supported")
        return self.generic_visit(node)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None and _has_subscript_target(item.optional_vars):
                raise self.ctx.error(item.optional_vars, "a subscript as a with-target is "
                                                         "not supported")
        return self.generic_visit(node)

    def visit_Delete(self, node):
        for t in node.targets:
            if isinstance(t, ast.Subscript):
                raise self.ctx.error(t, "deleting a subscript is not supported in a kernel")
        return node

    def _store(self, target: ast.Subscript, value, stmt) -> ast.stmt:
        if _is_field_name(target.slice):
            target = ast.copy_location(ast.Subscript(self.visit(target.value), target.slice,
                                                     ast.Store()), target)
            return ast.copy_location(ast.Assign(targets=[target], value=value), stmt)
        array = self.visit(target.value)
        index = _index_expr(self.visit(target.slice))
        code = self.ctx.register("store", target.value, target.slice, target)
        return ast.copy_location(ast.Expr(_call(
            names.STORE, [array, index, value, ast.Constant(code), _fb(), _flag()], target)), stmt)

    def _assign_target(self, target, value, stmt) -> list:
        """Assign `value` to one target; subscripts inside tuple targets become temps."""
        if isinstance(target, ast.Subscript):
            return [self._store(target, value, stmt)]
        if not _has_subscript_target(target):
            return [ast.copy_location(ast.Assign(targets=[target], value=value), stmt)]
        if isinstance(target, ast.Starred):
            raise self.ctx.error(target, "a starred target holding a subscript is not supported")
        stores = []

        def strip(t):
            if isinstance(t, ast.Subscript):
                tmp = self.ctx.temp()
                stores.append((t, tmp))
                return ast.copy_location(ast.Name(tmp, ast.Store()), t)
            if isinstance(t, (ast.Tuple, ast.List)):
                return ast.copy_location(type(t)(elts=[strip(e) for e in t.elts], ctx=ast.Store()), t)
            if isinstance(t, ast.Starred) and _has_subscript_target(t):
                raise self.ctx.error(t, "a starred target holding a subscript is not supported")
            return t

        out = [ast.copy_location(ast.Assign(targets=[strip(target)], value=value), stmt)]
        for sub, tmp in stores:
            out.append(self._store(sub, ast.Name(tmp, ast.Load()), stmt))
        return out


def _pass_hidden(call: ast.Call, callee_args: ast.arguments) -> None:
    """Add the failure buffer and flag to a call of a checked device function, where its
    rewrite put the parameters (first, or last)."""
    if hidden_first(callee_args, device=True):
        call.args = [_fb(), _flag()] + call.args
    elif call.keywords:
        call.keywords += [ast.keyword(names.FB, _fb()), ast.keyword(names.FLAG, _flag())]
    else:
        call.args += [_fb(), _flag()]


def _has_subscript_target(node) -> bool:
    return any(isinstance(n, ast.Subscript) for n in walk(node)) and (
        isinstance(node, ast.Subscript) or isinstance(node, (ast.Tuple, ast.List, ast.Starred)))


def _is_static_attribute_index(node: ast.Subscript) -> bool:
    """`a.shape[0]` / `a.strides[1]` with a constant: a tuple whose length numba types."""
    return (isinstance(node.value, ast.Attribute) and node.value.attr in {"shape", "strides"}
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int))


def _is_field_name(index) -> bool:
    """`rec["x"]`: a record field, never an array index."""
    return isinstance(index, ast.Constant) and isinstance(index.value, str)


def _assign(name, value, like) -> ast.Assign:
    return ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())], value=value), like)


def _fb():
    return ast.Name(names.FB, ast.Load())


def _flag():
    return ast.Name(names.FLAG, ast.Load())


__all__ = ["CheckSite", "BoundsCheckRewriter", "INDEXED_ATOMICS", "hidden_first"]
