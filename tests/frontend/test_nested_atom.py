"""Atoms made of forms (opaque terms, choices) are handed out once per atom, hashed once, and
equal the plain tuples they stand for."""
from __future__ import annotations

import pickle

from safekern.frontend.python.linear import Atoms, Form
from safekern.frontend.python.nested_atom import NestedAtom


def _term():
    i = Form.of({("name", "i"): 1})
    j = Form.of({("name", "j"): 1}, 2)
    return ("term", "Mult", i, j)


def test_atoms_hand_out_one_object_per_nested_atom():
    atoms = Atoms()
    first = atoms.add(_term(), deps=("i", "j"), integer=True)
    again = atoms.add(_term(), lower=0)            # an equal key, made anew
    assert isinstance(first, NestedAtom) and again is first
    assert atoms[_term()].lower == 0               # the plain tuple finds it
    assert Form.of({first: 3}) == Form.of({_term(): 3})


def test_plain_atoms_stay_tuples():
    atoms = Atoms()
    assert type(atoms.add(("name", "i"), integer=True)) is tuple


def test_equal_and_of_equal_hash_to_the_tuple_and_pickled_without_the_hash():
    atom = NestedAtom(_term())
    assert atom == _term() and hash(atom) == hash(_term())
    back = pickle.loads(pickle.dumps(atom))
    assert type(back) is NestedAtom and back == atom and "_hash" not in back.__dict__
