"""copy_tree makes what copy.deepcopy makes of a syntax tree, walk walks what ast.walk walks
(the front end's whole-tree operations: trees.py)."""
import ast
import copy
import inspect

from safekern.frontend.python import eliminate
from safekern.frontend.python.trees import copy_tree, walk


def test_a_copy_equals_deepcopy_with_positions_and_is_independent():
    tree = ast.parse(inspect.getsource(eliminate))
    made, deep = copy_tree(tree), copy.deepcopy(tree)
    assert ast.dump(made, include_attributes=True) == ast.dump(deep, include_attributes=True)
    assert all(a is not b for a, b in zip(ast.walk(made), ast.walk(tree)))
    made.body[0].value.value = "changed"
    assert tree.body[0].value.value != "changed"


def test_shared_nodes_and_lists_stay_shared_and_a_pass_s_attributes_are_copied():
    name = ast.Name("i", ast.Load())
    name.marked = {"code": 3}              # something a pass set on a node
    body = [ast.Expr(name)]
    tree = ast.Module([ast.If(ast.Constant(True), body, body), ast.Expr(name)], [])
    made = copy_tree(tree)
    first, second = made.body[0], made.body[1]
    assert first.body is first.orelse and first.body is not body       # one list, copied once
    assert first.body[0].value is second.value and second.value is not name
    assert second.value.marked == {"code": 3} and second.value.marked is not name.marked
    assert copy_tree([tree])[0] is not tree


def _but_contexts(nodes):
    return [n for n in nodes if not isinstance(n, ast.expr_context)]


def test_walk_yields_ast_walk_s_nodes_in_its_order():
    """ast.walk's nodes, in its order, less the expression contexts (childless markers a
    pass reads as a name's `.ctx`, never looks for)."""
    tree = ast.parse(inspect.getsource(eliminate))
    assert [id(n) for n in walk(tree)] == [id(n) for n in _but_contexts(ast.walk(tree))]
    assert not any(isinstance(n, ast.expr_context) for n in walk(tree))
    call = ast.Call(ast.Name("f", ast.Load()), [], [])
    del call.keywords                       # a missing field is skipped, as ast.walk does
    assert [type(n) for n in walk(call)] == [type(n) for n in _but_contexts(ast.walk(call))]


EVERY_KIND = '''
import os.path as p, sys
from . import x as y
global g
def f(a: int, /, b=1, *c, d: "t" = 2, **e) -> None:
    nonlocal h
    try:
        pass
    except ValueError as err:
        raise
    v: int = 1
    w = f"{a!r:>{b}}"
    z = [i async for i in c if i] + {k: k for k in d} and (lambda q: q)
    match a:
        case {"k": 1, **rest}: pass
        case Point(x=0, y=yy) | [1, *others] as m: pass
class C(Base, metaclass=M):
    x = -1 if not a else ~b
'''


def test_walk_skips_only_fields_that_never_hold_a_node():
    """Names, strings and numbers the grammar puts in a node (a Name's id, a Constant's value,
    an import's names) are not looked at: the walk still finds every node."""
    tree = ast.parse(EVERY_KIND)
    assert [id(n) for n in walk(tree)] == [id(n) for n in _but_contexts(ast.walk(tree))]


def _passes(base):
    class Rewrite(base):
        """Drops `pass`, doubles expression statements, renames names, counts calls."""
        calls = 0

        def visit_Pass(self, node):
            return None

        def visit_Expr(self, node):
            self.generic_visit(node)
            return [node, ast.Expr(ast.Constant(1))]

        def visit_Name(self, node):
            return ast.Name(node.id + "_x", node.ctx)

        def visit_Call(self, node):
            type(self).calls += 1
            return self.generic_visit(node)
    return Rewrite


def test_transformer_and_visitor_do_what_ast_s_do():
    from safekern.frontend.python.transformer import Transformer
    from safekern.frontend.python.visitor import Visitor

    source = inspect.getsource(eliminate) + EVERY_KIND
    ours, theirs = ast.parse(source), ast.parse(source)
    mine, stdlib = _passes(Transformer), _passes(ast.NodeTransformer)
    mine().visit(ours)
    stdlib().visit(theirs)
    assert ast.dump(ours) == ast.dump(theirs) and mine.calls == stdlib.calls > 0

    class Names(Visitor):
        def __init__(self):
            self.seen = []

        def visit_Name(self, node):
            self.seen.append(node.id)

    class StdNames(ast.NodeVisitor):
        visit_Name = Names.visit_Name
        __init__ = Names.__init__

    a, b = Names(), StdNames()
    a.visit(ast.parse(source))
    b.visit(ast.parse(source))
    assert a.seen == b.seen and a.seen


def test_fix_missing_locations_gives_what_ast_s_gives():
    import random

    from safekern.frontend.python.trees import fix_missing_locations

    rng = random.Random(1)
    for _ in range(5):
        tree = ast.parse(inspect.getsource(eliminate) + EVERY_KIND)
        for n in ast.walk(tree):            # positions missing or None, here and there
            for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if a in n._attributes and rng.random() < 0.2:
                    if rng.random() < 0.5:
                        delattr(n, a)
                    else:
                        setattr(n, a, None)
        ours, theirs = copy_tree(tree), copy_tree(tree)
        assert fix_missing_locations(ours) is ours
        ast.fix_missing_locations(theirs)
        assert ast.dump(ours, include_attributes=True) == \
            ast.dump(theirs, include_attributes=True)


def test_a_visitor_sends_constants_where_ast_s_does():
    """Constants go to visit_Constant, else (ast.NodeVisitor's deprecated hook) to a pass's
    visit_Num / visit_Str, else to generic_visit -- without ast's hunt for those per constant."""
    import warnings

    from safekern.frontend.python.transformer import Transformer
    from safekern.frontend.python.visitor import Visitor

    source = "x = 1 + f('s', None)"

    class Plain(Visitor):
        def __init__(self):
            self.names = []

        def visit_Name(self, node):
            self.names.append(node.id)

    plain = Plain()
    plain.visit(ast.parse(source))
    assert plain.names == ["x", "f"]

    class Numbers(Visitor):
        def __init__(self):
            self.seen = []

        def visit_Num(self, node):
            self.seen.append(node.value)

    numbers = Numbers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        numbers.visit(ast.parse(source))
    assert numbers.seen == [1]

    class Doubled(Transformer):
        def visit_Constant(self, node):
            return ast.Constant(node.value * 2) if type(node.value) is int else node

    assert ast.unparse(Doubled().visit(ast.parse(source))) == "x = 2 + f('s', None)"
