"""parse._source finds a function's definition as inspect.getsourcelines does, without tokenizing:
the same first line and the same tree, for the layouts that make a block's end hard to see."""
from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from safekern.frontend.python import parse
from tests.support.checks import load_kernel_module

MODULE = '''
import functools


def ident(f):
    return f


def plain(a):
    return a + 1


@functools.lru_cache(
    maxsize=None)
@ident
def decorated(a):
    return a


def doc_at_column_zero(a):
    """A docstring whose lines
start at column zero,
    and a bracket that does:"""
    b = (a,
1)
    return b
# a comment after the block, at column zero


def outer():
    def nested(x):
        y = x \\
            + 1
        # a trailing comment inside the block
        return y
    return nested


def one_liner(a): return a


async def coroutine(a):
    return a


def last(a):
    s = """
def not_a_function():
    pass
"""
    return s
'''


def _functions(module):
    return [module.plain, module.decorated,
            module.doc_at_column_zero, module.outer(), module.one_liner, module.coroutine,
            module.last]


def _tree(lines):
    return ast.dump(ast.parse(textwrap.dedent("".join(lines))))


def test_the_same_lines_and_tree_as_inspect(tmp_path):
    module = load_kernel_module(tmp_path, MODULE, "source_lines_layouts")
    for fn in _functions(module):
        want, first = inspect.getsourcelines(fn)
        lines, start, parsed, dedented = parse._source(fn, fn.__name__)
        assert start == first, fn.__name__
        assert _tree(lines) == _tree(want), fn.__name__
        if parsed is not None:
            assert ast.dump(parsed) == _tree(want), fn.__name__
            assert dedented == textwrap.dedent("".join(lines)), fn.__name__
            # (the parse has the file's line numbers)
            def_line = next(k for k, line in enumerate(want)
                            if line.lstrip().startswith(("def ", "async def ")))
            assert parsed.body[0].lineno == first + def_line, fn.__name__


@pytest.mark.parametrize("name", ["plain", "decorated", "one_liner", "coroutine", "outer"])
def test_plain_layouts_take_the_fast_way(tmp_path, name):
    module = load_kernel_module(tmp_path, MODULE, "source_lines_fast")
    fn = module.outer() if name == "outer" else getattr(module, name)
    assert parse._source(fn, fn.__name__)[2] is not None


@pytest.mark.parametrize("name", ["doc_at_column_zero", "last"])
def test_code_at_column_zero_inside_the_block_takes_inspects_way(tmp_path, name):
    # (a line at the def's indentation inside a string or brackets cuts the block short: the
    # cut does not parse, and inspect's tokenizer finds the end)
    module = load_kernel_module(tmp_path, MODULE, "source_lines_slow")
    assert parse._source(getattr(module, name), name)[2] is None


def test_a_cut_that_does_not_parse_falls_back_to_inspect():
    lines = ["def f(a,\n", "b):\n", "    return a\n"]
    assert parse._def_block(lines, 0) is None
