"""The checked compile's front end made cheaper without changing one answer (issue 26 item 3,
compile time): the static prover's shortcuts compute what the plain arithmetic computes, on many
random questions, and a Form's remembered hash is the dataclass's own (so every set and dict of
forms iterates as before) and never travels in a pickle. Whole benchmark kernels:
tools/prover_snapshot.py (benchmarks/results/2026-11-27-compile-5-cpu.md)."""
import pickle
import random

import pytest

from safekern.frontend.python import linear, local_bounds
from safekern.frontend.python.linear import Atoms, Fact, Form, Prover, combination_rest

ATOMS = [("name", "i"), ("name", "j"), ("shape", "a", 0), ("cuda", "threadIdx", "x"),
         ("name", "n"), ("term", "x")]


def _atoms(rng) -> Atoms:
    """Atoms with random bounds, some unbounded on a side, one not an integer."""
    atoms = Atoms()
    for k, atom in enumerate(ATOMS):
        lower = rng.choice([None, 0, -3, 1])
        upper = rng.choice([None, 15, 1023, 7])
        atoms.add(atom, lower=lower, upper=upper, integer=k != len(ATOMS) - 1)
    return atoms


def _form(rng, most=3) -> Form:
    terms = {a: rng.choice([-16, -2, -1, 1, 2, 4, 16])
             for a in rng.sample(ATOMS, rng.randint(0, most))}
    return Form.of(terms, rng.randint(-20, 20))


def _fact(rng) -> Fact:
    return Fact(_form(rng), frozenset(), "a guard", strict=rng.random() < 0.3)


def _local(rng, atoms) -> dict:
    return {a: (rng.choice([None, 0, 2]), rng.choice([None, 5, 64]))
            for a in rng.sample(ATOMS, rng.randint(0, 3))}


@pytest.mark.parametrize("seed", range(4))
def test_rest_nonneg_is_the_forms_arithmetic(seed):
    """Prover._rest_nonneg (a dict per combination) says what nonneg(combination_rest(...))
    says: the same scale per fact, strict facts' +1, bounds by sign, unbounded atoms."""
    rng = random.Random(seed)
    answers = set()
    for _ in range(3000):
        atoms = _atoms(rng)
        prover = Prover(atoms)
        goal = _form(rng, 4)
        combo = tuple(_fact(rng) for _ in range(rng.randint(1, 2)))
        local = _local(rng, atoms)
        expected = atoms.nonneg(combination_rest(goal, combo), local)
        assert prover._rest_nonneg(goal, combo, local) == expected, (goal, combo, local)
        answers.add(expected)
    assert answers == {True, False}            # both answers were exercised


@pytest.mark.parametrize("seed", range(4))
def test_maximum_without_is_the_forms_arithmetic(seed):
    """local_bounds' top of a fact less one atom equals atoms.maximum(form.without(atom))."""
    rng = random.Random(seed)
    found = set()
    for _ in range(3000):
        atoms = _atoms(rng)
        form = _form(rng, 4)
        skip = rng.choice(ATOMS)
        bounds = _local(rng, atoms)
        expected = atoms.maximum(form.without(skip), bounds)
        assert local_bounds._maximum_without(atoms, form, skip, bounds) == expected
        found.add(expected is None)
    assert found == {True, False}


def test_local_bounds_unchanged_on_a_tile():
    """The propagation's result on a tiled index (k == 16*t + tx, 0 <= t <= 3, tx <= 15), as
    the forms' arithmetic gave it (tx's own bounds stay tighter than the local ones)."""
    atoms = Atoms()
    k, t, tx = ("name", "k"), ("name", "t"), ("cuda", "threadIdx", "x")
    atoms.add(k, integer=True)
    atoms.add(t, integer=True)
    atoms.add(tx, lower=0, upper=15, integer=True)
    facts = [Fact(Form.of({k: 1, t: -16, tx: -1}), frozenset()),
             Fact(Form.of({k: -1, t: 16, tx: 1}), frozenset()),
             Fact(Form.of({t: 1}), frozenset()),
             Fact(Form.of({t: -1}, 3), frozenset())]
    assert linear.local_bounds(atoms, facts) == {k: (0, 63), t: (0, 3), tx: (-48, 63)}


def test_form_hash_is_the_dataclass_hash_and_is_not_pickled():
    form = Form.of({("name", "i"): 2, ("shape", "a", 0): -1}, 5)
    assert hash(form) == hash((form.terms, form.const))
    assert hash(form) == hash(form)                        # remembered: the same value
    copy = pickle.loads(pickle.dumps(form))
    assert "_hash" not in copy.__dict__                    # another process hashes anew
    assert copy == form and hash(copy) == hash(form)
    assert {form: 1}[Form(form.terms, form.const)] == 1    # equal forms, one key
    assert Form(form.terms, 6) != form
