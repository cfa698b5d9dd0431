"""The front end's prover made cheap without losing a proof (issue 26 item 3): launch
predicates found by a pre-filtered, memoised search equal the plain search's; a question asked
again is answered from memory while no atom changed; the launch variant's statements are
copied once. Benchmark kernels as a whole: tools/prover_snapshot.py."""
import ast

import pytest

from safekern.frontend.python import launch as launch_mod
from safekern.frontend.python.collapse import collapse_same_branches
from safekern.frontend.python.linear import Atoms
from tests.support.prover_reference import OFFERED, reference_predicate
from tests.support.rewrites import rewrite

# Launch questions with guards, shared tiles, a stencil window and a loop (many facts each).
KERNELS = ["""
    def k(out, a, n):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + a[i + 1]
""", """
    def k(out, a):
        t = cuda.shared.array((TILE, TILE), dtype=float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        x = cuda.blockIdx.x * TILE + tx
        y = cuda.blockIdx.y * TILE + ty
        if x < a.shape[1] and y < a.shape[0]:
            t[ty, tx] = a[y, x]
        cuda.syncthreads()
        if x < out.shape[0] and y < out.shape[1]:
            out[x, y] = t[tx, ty]
""", """
    def k(out, a, r):
        i, j = cuda.grid(2)
        if i >= r and j >= r and i < out.shape[0] - r and j < out.shape[1] - r:
            s = 0.0
            for di in range(-r, r + 1):
                for dj in range(-r, r + 1):
                    s += a[i + di, j + dj]
            out[i, j] = s
"""]


@pytest.fixture
def asked(monkeypatch):
    """Every (prover, goal, facts) launch question, with the answer given."""
    calls = []
    original = launch_mod.LaunchProver.predicate

    def predicate(self, goal, facts):
        found = original(self, goal, facts)
        calls.append((self, goal, list(facts), found))
        return found

    monkeypatch.setattr(launch_mod.LaunchProver, "predicate", predicate)
    return calls


@pytest.mark.parametrize("body", KERNELS)
def test_the_pre_filtered_search_finds_what_the_plain_search_finds(tmp_path, asked, body):
    rewrite(tmp_path, body, launch_predicates=True)
    assert asked
    for prover, goal, facts, found in asked:
        assert found == reference_predicate(prover, goal, facts)


def test_combinations_that_must_be_refused_are_not_tried(tmp_path, asked, monkeypatch):
    tried = []
    combination = launch_mod.LaunchProver._combination

    def counting(self, goal_terms, const, combo, local):
        tried.append(combo)
        return combination(self, goal_terms, const, combo, local)

    monkeypatch.setattr(launch_mod.LaunchProver, "_combination", counting)
    # (`m` is loaded: no bound; a combination leaving it in the rest is refused untried)
    rewrite(tmp_path, """
        def k(out, a, idx):
            i = cuda.grid(1)
            m = idx[0]
            if m <= out.shape[0]:
                if i < m:
                    out[i] = a[i]
    """, launch_predicates=True)
    OFFERED.clear()
    for prover, goal, facts, _ in asked:
        reference_predicate(prover, goal, facts)
    assert 0 < len(tried) < len(OFFERED)      # fewer than every combination


def test_combinations_without_a_launch_atom_are_not_tried(tmp_path, asked, monkeypatch):
    """`_combination` refuses a rest without a launch atom: none is tried (a tiled kernel's
    facts about thread indices alone make many such pairs)."""
    tried = []
    combination = launch_mod.LaunchProver._combination

    def recording(self, goal_terms, const, combo, table):
        tried.append((dict(goal_terms), combo, table))
        return combination(self, goal_terms, const, combo, table)

    monkeypatch.setattr(launch_mod.LaunchProver, "_combination", recording)
    rewrite(tmp_path, KERNELS[1], launch_predicates=True)
    assert tried and asked
    for rest, combo, table in tried:
        atoms = set(rest) | {a for f in combo for a, _ in f.form.terms}
        assert any(table[a][0] is not None for a in atoms)
    for prover, goal, facts, found in asked:        # nothing lost by skipping them
        assert found == reference_predicate(prover, goal, facts)


def test_pairs_skipped_as_hopeless_are_refused(tmp_path, monkeypatch):
    """A pair `_hopeless_pair` skips is one `_combination` refuses (its bound is an upper
    bound of the rest's least value); in a tiled kernel (blockIdx up to 2**31 - 2) it skips
    some."""
    searches = []
    lows = launch_mod._lows

    def recording(goal_terms, useful, table):
        searches.append((goal_terms, useful, table))
        return lows(goal_terms, useful, table)

    monkeypatch.setattr(launch_mod, "_lows", recording)
    rewrite(tmp_path, KERNELS[1], launch_predicates=True)
    skipped = 0
    for goal_terms, useful, table in searches:
        low, most = lows(goal_terms, useful, table)
        for i in range(len(useful)):
            for j in range(i + 1, len(useful)):
                if launch_mod._hopeless_pair(low, most, i, j):
                    skipped += 1
                    prover = table.prover
                    for const in (0, 1, -(2 ** 40), 2 ** 40):
                        assert prover._combination(goal_terms, const, (useful[i], useful[j]),
                                                   table) is None
    assert skipped


def test_a_question_asked_again_is_answered_from_memory(tmp_path, asked, monkeypatch):
    rewrite(tmp_path, KERNELS[2], launch_predicates=True)
    prover, goal, facts, found = asked[-1]
    searches = []
    search = launch_mod.LaunchProver._predicate
    monkeypatch.setattr(launch_mod.LaunchProver, "_predicate",
                        lambda self, g, f: searches.append(g) or search(self, g, f))
    assert prover.predicate(goal, facts) == found
    assert prover.predicate(goal, facts) == found
    assert len(searches) <= 1                # (one: thread facts added atoms the first time)
    prover.atoms.add(("name", "__fresh_atom"), lower=0)     # the atoms changed: asked anew
    assert prover.predicate(goal, facts) == found
    assert len(searches) >= 1 and searches[-1] == goal


def test_atoms_version_moves_only_when_an_atom_or_a_bound_changes():
    atoms = Atoms()
    atoms.add("x", lower=0)
    v = atoms.version
    atoms.add("x", lower=0)                  # the same bound again
    atoms.add("x", lower=-5)                 # looser: kept as it was
    assert atoms.version == v
    atoms.add("x", upper=10)
    assert atoms.version == v + 1
    atoms.add("y")
    assert atoms.version == v + 2


def test_the_launch_variant_collapses_its_own_copy_in_place():
    stmt = ast.parse("if n > 0:\n    x = 1\nelse:\n    x = 1\ny = 2").body
    assert collapse_same_branches(stmt, owned=True)[1] is stmt[1]
    assert collapse_same_branches(stmt)[1] is not stmt[1]     # the default copies
    assert ast.unparse(collapse_same_branches(stmt)[0]) == "x = 1"


def test_a_static_proof_asked_again_is_answered_from_memory(monkeypatch):
    from safekern.frontend.python.linear import Fact, Form, Prover

    atoms = Atoms()
    i, n = atoms.add("i", lower=0, integer=True), atoms.add("n", lower=0, integer=True)
    prover = Prover(atoms)
    fact = Fact(Form.of({n: 1, i: -1}, -1), frozenset({"i", "n"}), "the guard")
    goal = Form.of({n: 1, i: -1}, -1)               # n - i - 1 >= 0: the guard itself
    searches = []
    search = Prover._prove_anew
    monkeypatch.setattr(Prover, "_prove_anew",
                        lambda self, g, f: searches.append(g) or search(self, g, f))
    first = prover.prove(goal, [fact])
    assert first == [fact] and len(searches) == 1
    first.append("the caller's own list")           # (answers are copies)
    assert prover.prove(goal, [fact]) == [fact] and len(searches) == 1
    assert prover.prove(goal, []) is None and len(searches) == 2     # other facts: anew
    atoms.add("i", upper=5)                          # a bound changed: asked anew
    assert prover.prove(goal, [fact]) == [fact] and len(searches) == 3


def test_no_second_elimination_run_without_an_open_check(tmp_path, monkeypatch):
    """aliases.by_assumptions: once equal shapes prove every open check, the bounded-scalars
    stage has none left to prove and runs no elimination (it would change nothing)."""
    from safekern.frontend.python import eliminate

    onlys = []
    init = eliminate._Eliminator.__init__

    def recording(self, *args, **kwargs):
        onlys.append(kwargs.get("only"))
        init(self, *args, **kwargs)

    monkeypatch.setattr(eliminate._Eliminator, "__init__", recording)
    rewritten = rewrite(tmp_path, """
        def k(buf_0, buf_1, timesteps, scale):
            i = cuda.grid(1)
            if i >= len(buf_0):
                return
            for step in range(timesteps):
                if step % 2 == 0:
                    data = buf_0
                    next_data = buf_1
                else:
                    data = buf_1
                    next_data = buf_0
                next_data[i] = data[i] * scale
    """, launch_predicates=True)
    assert [s.status for s in rewritten.sites if s.kind in ("load", "store")] == \
        ["proven at launch"] * 2
    assert len(onlys) == 2 and onlys[0] is None and onlys[1]     # the first run, equal shapes


def test_only_binding_nodes_bind():
    """bindings.BINDING_NODES (the nodes FunctionBindings asks `bindings` about) holds every
    node `bindings` yields a name for: a walk of a module binding names every way skips none."""
    from safekern.frontend.python.bindings import BINDING_NODES, bindings
    from safekern.frontend.python.trees import walk

    module = ast.parse("""
import os.path as p
from math import floor
def f(a, /, b, *c, d=1, **e):
    global g
    x = y, *z = [1, 2, 3]
    w: int = 1
    w += 1
    del w
    for i in range(3):
        pass
    with open(a) as (h, k):
        pass
    try:
        pass
    except ValueError as err:
        pass
    s = [j for j in range(3) if (q := j)]
    l = lambda m: m
    def inner():
        nonlocal s
""")
    bound = set()
    for node in walk(module):
        names = [n for n, _ in bindings(node, lambda call: False)]
        assert not names or isinstance(node, BINDING_NODES)
        bound.update(names)
    assert {"p", "floor", "a", "b", "c", "d", "e", "g", "x", "y", "z", "w", "i", "h", "k",
            "err", "j", "q", "m", "l", "s"} <= bound


def test_same_branches_collapse_inside_every_statement_that_holds_statements():
    source = '''
def k(a, n):
    try:
        if n > 0:
            a[0] = 1
        else:
            a[0] = 1
    except ValueError:
        while n:
            if n > 1:
                n -= 1
            else:
                n -= 1
    def inner(m):
        if m:
            return 1
        else:
            return 1
    if f(n):
        x = 1
    else:
        x = 1
'''
    out = collapse_same_branches(ast.parse(source).body)
    assert ast.unparse(out[0]) == ast.unparse(ast.parse('''
def k(a, n):
    try:
        a[0] = 1
    except ValueError:
        while n:
            n -= 1
    def inner(m):
        return 1
    if f(n):
        x = 1
    else:
        x = 1
''').body[0])                  # (a call in the test: not collapsed)
