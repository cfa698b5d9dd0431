"""What the exit planner asks of each statement, answered for all of them in one walk
(frontend/python/exit_facts.py): the answers are those a walk of the statement at the time of
asking gives (exits.py's own walks before), a compound statement's the join of its own nodes'
and its inner statements', and a statement object met in two places of the body is walked
again whenever asked."""
import ast
import textwrap
from types import SimpleNamespace

from safekern.frontend.python import exit_facts as F, names
from safekern.frontend.python.exit_facts import ExitFacts
from safekern.frontend.python.trees import walk


class _Resolver:
    """What a name called means, as the backend's resolver says it (exits.py asks it)."""

    ROLES = {"syncthreads": ("barrier", None), "sync": ("grid_sync", None),
             "dev_with_barrier": ("device", SimpleNamespace(has_barriers=True)),
             "dev_plain_checked": ("device", SimpleNamespace(has_barriers=False)),
             "plain_helper": ("plain_device", None)}

    def classify_call(self, func, parsed):
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return self.ROLES.get(name)


def _body(src: str) -> list:
    return ast.parse(textwrap.dedent(src)).body[0].body


def _walked(stmt) -> int:
    """The flags by a plain walk of the statement as it is (what exits.py did per question)."""
    facts = 0
    for node in walk(stmt):
        if isinstance(node, ast.Call):
            facts |= ExitFacts([], _Resolver(), None)._call(node)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            facts |= F.UNSAFE
        elif isinstance(node, ast.While):
            facts |= F.UNSAFE
        elif isinstance(node, ast.Attribute) and node.attr == "atomic" and \
                isinstance(node.value, ast.Name) and node.value.id == names.CUDA:
            facts |= F.UNSAFE
    return facts


SOURCE = """
def k(a, out, g, n):
    x = _sk_load(a, 0, 1, _sk_fb, _sk_flag)
    cuda.syncthreads()
    for i in range(n):
        if i > 2:
            out[i] = x
        else:
            y = dev_with_barrier(a)
    while x > 0:
        x = x - 1
    print(x)
    g.sync()
    _sk_cuda.atomic.add(out, 0, 1)
    z = plain_helper(a) + dev_plain_checked(a)
"""


def test_each_statement_answers_as_a_walk_of_it_would():
    body = _body(SOURCE)
    facts = ExitFacts(body, _Resolver(), None)
    every = [s for stmt in body for s in walk(stmt) if isinstance(s, ast.stmt)]
    assert len(every) > len(body)           # (inner statements asked about too)
    for stmt in every:
        assert facts.of(stmt) == _walked(stmt), ast.unparse(stmt)


def test_what_each_kind_of_statement_holds():
    load, barrier, loop, wloop, show, grid, atomic, calls = _body(SOURCE)
    facts = ExitFacts([load, barrier, loop, wloop, show, grid, atomic, calls], _Resolver(),
                      None)
    assert facts.of(load) == F.CHECK
    assert facts.of(barrier) == F.BARRIER | F.PLAIN_BARRIER
    # the loop: a store in one branch, a device function with barriers in the other
    assert facts.of(loop) == F.UNSAFE | F.BARRIER | F.BARRIER_DEVICE
    assert facts.of(loop.body[0].body[0]) == F.UNSAFE
    assert facts.of(wloop) == F.UNSAFE and facts.of(show) == F.PRINT
    assert facts.of(grid) == F.BARRIER | F.GRID and facts.of(atomic) == F.UNSAFE
    assert facts.of(calls) == F.UNSAFE          # a plain device function; the checked one: 0
    assert facts.kinds() == {"block", "grid"}


def test_a_statement_in_two_places_is_walked_when_asked():
    body = _body(SOURCE)
    shared = body[0]                             # the check, in two places
    twice = [shared, body[1], shared]
    facts = ExitFacts(twice, _Resolver(), None)
    assert facts.of(shared) == F.CHECK
    # edited at the first place (a planner's edit), asked at the second: the tree as it is now
    shared.value = ast.Constant(0)
    assert facts.of(shared) == 0
    assert facts.all == F.CHECK | F.BARRIER | F.PLAIN_BARRIER
