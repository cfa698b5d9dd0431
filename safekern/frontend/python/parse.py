"""Parse a numba kernel's Python source: the function's tree with the file's own lines.

`parse_function(pyfunc)` -> ParsedFunction (tree without decorators, absolute line numbers,
the columns dedent removed, globals, closure); lambdas too. SourceNotFound when there is no
source to check (built by exec, typed at a prompt): the kernel then runs unchecked, said so.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import linecache
import textwrap
from dataclasses import dataclass

from ...errors import CompilationError
from ..located import char_column
from .trees import walk

_BUILTINS = vars(builtins)

@dataclass
class ParsedFunction:
    pyfunc: object
    tree: ast.FunctionDef          # decorators removed; line numbers absolute in `filename`
    filename: str
    indent: int                    # columns removed by dedent (add back for file columns)
    globals: dict
    closure: dict

    @property
    def name(self) -> str:
        """The name of the rewritten def (`lambda_` for a lambda: _lambda_as_def)."""
        return self.tree.name

    @property
    def shown_name(self) -> str:
        """The function's name as Python gives it, for messages and reports: `<lambda>` for
        a lambda (issue 29: a failure in one said "in kernel 'lambda_'")."""
        name = getattr(self.pyfunc, "__name__", None)
        return name if isinstance(name, str) else self.tree.name

    @functools.cached_property
    def mentioned(self) -> tuple:
        """(every name its tree mentions (names_read), sorted; the parameters' names of its
        tree and of the functions and lambdas in it; whether it holds such a nested function):
        one walk of the parse, which every rewrite, check pass and scope snapshot asks about
        (the tree is never edited: the passes edit copies)."""
        names, params, name, arg = set(), set(), ast.Name, ast.arg
        nests = False
        for node in walk(self.tree):
            t = type(node)
            if t is name:
                names.add(node.id)
            elif t is arg:
                params.add(node.arg)
            elif t is ast.Lambda or t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                nests = nests or node is not self.tree
        return tuple(sorted(names)), frozenset(params), nests

    def hidden_first(self, device: bool) -> bool:
        """Its rewrite takes the hidden parameters first (see hidden_first)."""
        return hidden_first(self.tree.args, device)

    def lookup(self, name: str, default=None, *, builtin: bool = True):
        """What `name` means in the function, as Python looks it up: its closure, then its
        module's globals, then (with `builtin`) the builtins; `default` if none has it."""
        for scope in (self.closure, self.globals, _BUILTINS) if builtin else \
                (self.closure, self.globals):
            if name in scope:
                return scope[name]
        return default

    def source_line(self, lineno: int) -> str:
        return linecache.getline(self.filename, lineno)

    def column(self, lineno: int, offset: int | None) -> int | None:
        """The character column in the file's line `lineno` of a node's col_offset or
        end_col_offset (UTF-8 bytes of the dedented line; issue 29: `Σ_T` moved carets)."""
        return char_column(self.source_line(lineno), self.indent, offset)


def hidden_first(arguments: ast.arguments, device: bool) -> bool:
    """Do the hidden parameters come before the user's? For *args (which takes every argument
    after the named ones), and in device functions with defaults (a call omitting an argument
    must not shift them into a user's parameter; the simulator's device functions take no
    keywords)."""
    return arguments.vararg is not None or (device and bool(arguments.defaults))


def names_read(*nodes) -> set:
    """Every name a tree (or several) mentions: `x` in `a[x + 1]`, stored names too."""
    return {n.id for node in nodes for n in walk(node) if isinstance(n, ast.Name)}


class SourceNotFound(CompilationError):
    """`inspect` cannot find the function's source (built by exec, or typed at a prompt): the
    backend runs it unchecked, with an UncheckedWarning."""

    def __init__(self, problem: str, *, reason: str = "", **kw):
        super().__init__(problem, **kw)
        self.reason = reason


def parse_function(pyfunc) -> ParsedFunction:
    """The function's own source as an AST whose line numbers are those of its file."""
    name = getattr(pyfunc, "__name__", repr(pyfunc))
    try:
        lines, first, module, dedented = _source(pyfunc, name)
        filename = inspect.getsourcefile(pyfunc) or inspect.getfile(pyfunc)
    except (OSError, TypeError) as err:
        raise SourceNotFound(
            f"safekern needs the source of kernel {name!r} to check it, and cannot find it "
            f"({err}); define the kernel in a file, or set SAFEKERN_CHECKS=0",
            reason=str(err)) from None
    text = "".join(lines)
    if dedented is None:
        dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != text else 0
    try:
        if module is None:
            module = ast.parse(_at_line(dedented, first), filename=filename)
    except SyntaxError as err:
        if name == "<lambda>":         # its line alone is no statement: numba's, unchecked
            raise SourceNotFound(f"the line of lambda kernel at {filename}:{first} is not a "
                                 "statement of its own", reason="a lambda inside a longer "
                                 "statement") from None
        raise CompilationError(f"cannot parse kernel {name!r}: {err.msg}", filename=filename,
                               lineno=err.lineno or first) from None
    fn = module.body[0]
    if name == "<lambda>":
        fn = _lambda_as_def(module, pyfunc, filename)
    if not isinstance(fn, ast.FunctionDef):
        raise CompilationError(f"{name!r} is not a plain function definition",
                               filename=filename, lineno=first)
    fn.decorator_list = []
    closure = {}
    code = getattr(pyfunc, "__code__", None)
    if code is not None and pyfunc.__closure__:
        for var, cell in zip(code.co_freevars, pyfunc.__closure__):
            try:
                closure[var] = cell.cell_contents
            except ValueError:
                pass
    return ParsedFunction(pyfunc, fn, filename, indent, pyfunc.__globals__, closure)


def _source(pyfunc, name: str):
    """(lines, first line number, the lines' dedented parse at the file's line numbers and
    their dedented text, or None and None) of the function's definition, as
    `inspect.getsourcelines` finds them (`findsource`: the file's lines and
    where the definition starts) but without tokenizing the block to find its end (Python's
    tokenizer: half of a small kernel's parse). A `def`'s block ends before the first line
    that is code at most as indented as its first line; the lines up to its last code line
    parse as one function definition exactly when that is its whole block (a line at that
    indentation inside a string or brackets leaves the cut unparsable). Where not -- a lambda,
    tabs, a cut that does not parse -- inspect's own block."""
    obj = inspect.unwrap(pyfunc)
    lines, lnum = inspect.findsource(obj)
    if name != "<lambda>":
        found = _def_block(lines, lnum)
        if found is not None:
            return found[0], lnum + 1, found[1], found[2]
    return inspect.getblock(lines[lnum:]), lnum + 1, None, None


def _def_block(lines: list, lnum: int):
    """(lines, module, dedented text) of the definition starting at `lines[lnum]` (see
    `_source`), or None."""
    head = lines[lnum]
    code = head.lstrip()
    if not code.startswith(("def ", "async ", "@")) or "\t" in head[:len(head) - len(code)]:
        return None
    indent, end = len(head) - len(code), lnum + 1
    decorators = code[0] == "@"     # (until the `def` line, at the same indentation)
    for k in range(lnum + 1, len(lines)):
        line = lines[k]
        code = line.lstrip()
        if not code or code[0] == "#":
            continue                # (blank lines and comments end no block)
        if decorators and len(line) - len(code) == indent and code.startswith(
                ("@", "def ", "async ")):
            decorators, end = code[0] == "@", k + 1
            continue
        if len(line) - len(code) <= indent or "\t" in line[:len(line) - len(code)]:
            break
        end = k + 1
    block = lines[lnum:end]
    try:
        dedented = textwrap.dedent("".join(block))
        module = ast.parse(_at_line(dedented, lnum + 1))
    except SyntaxError:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0],
                                               (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return block, module, dedented


def _at_line(source: str, first: int) -> str:
    """`source` behind blank lines, so that its parse has the line numbers of the file, where
    it starts at line `first` (what ast.increment_lineno would give, without its walk of
    the tree: a sixth of a small kernel's parse)."""
    return "\n" * (first - 1) + source


def _lambda_as_def(module, pyfunc, filename) -> ast.FunctionDef:
    """A lambda (numba compiles those too) as the function `def lambda_(args): return body`,
    found in its source line by line and parameters; SourceNotFound (numba's own, unchecked)
    when that line holds no such lambda or several."""
    code = pyfunc.__code__
    params = list(code.co_varnames[:code.co_argcount])
    found = [node for node in walk(module) if isinstance(node, ast.Lambda)
             and node.lineno == code.co_firstlineno
             and [a.arg for a in node.args.args] == params]
    if len(found) != 1:
        why = "no lambda" if not found else f"{len(found)} lambdas"
        raise SourceNotFound(
            f"safekern cannot tell which lambda of {filename}:{code.co_firstlineno} is the "
            f"kernel ({why} with parameters {params} there)",
            reason=f"{why} with these parameters on its line")
    node = found[0]
    body = ast.Return(value=node.body)
    ast.copy_location(body, node.body)
    fn = ast.FunctionDef(name="lambda_", args=node.args, body=[body], decorator_list=[],
                         returns=None, type_comment=None, type_params=[])
    return ast.fix_missing_locations(ast.copy_location(fn, node))


__all__ = ["ParsedFunction", "SourceNotFound", "parse_function"]
