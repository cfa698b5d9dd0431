"""Linear forms over integer-valued atoms, facts about them, and a small prover (arithmetic only).

The elimination pass asks one question: does `0 <= index < extent` hold here? `index_forms.py`
turns index expressions, extents and the comparisons the code made on the way into *linear
forms* -- integer sums of *atoms* (a variable, `a.shape[k]`, `cuda.threadIdx.x`, an opaque term
such as `i * j`) plus a constant -- and *facts* `form >= 0` (or `form > 0`). This module proves
`goal >= 0` from them: it looks for at most two facts whose sum, subtracted from the goal, leaves
a form that is non-negative by the atoms' bounds (threadIdx >= 0, shape >= 0, bounds that other
facts imply).

Soundness rests on two things the callers guarantee (index_forms.py):
- a form's value is the value the kernel computes: forms are built only from expressions that
  cannot wrap around (see `index_forms.Linearizer.exact`);
- an atom marked `integer` only takes integer values. Other atoms (a parameter or a loaded value
  might be a float) give *strict* facts for strict comparisons (`x < y` is `y - x > 0`, not
  `y - x - 1 >= 0`, which is false for x = 10, y = 10.5), and get no bounds from rounding.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ...memo import BoundedMemo
from .choices import cases, definitional_facts, has_choice
from .local_bounds import local_bounds
from .nested_atom import NESTED, NestedAtom

_MAX_FACTS_PER_PROOF = 2


@dataclass(frozen=True)
class Form:
    """sum(coeff * atom) + const; atoms are hashable keys (("name", "i"), ("shape", "a", 0))."""

    terms: tuple = ()            # ((atom, coeff), ...) in one order per set of atoms, no zeros
    const: int = 0

    # The hash the dataclass would compute, kept once computed: forms are dict keys and set
    # members again and again in the provers (proof memos, one fact per form), and a tuple of
    # atom tuples is hashed anew each time. The same value, so every set and dict iterates in
    # the same order as before. Not pickled (a str's hash differs between processes).
    def __hash__(self):
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = self.__dict__["_hash"] = hash((self.terms, self.const))
            return h

    def __eq__(self, other):
        # (The dataclass's `==` builds two tuples per call; forms meet as parts of atoms in
        # every dict lookup of the provers, equal but not the same object.)
        if self is other:
            return True
        if other.__class__ is not Form:
            return NotImplemented
        return self.const == other.const and self.terms == other.terms

    def __getstate__(self):
        state = dict(self.__dict__)
        for cached in ("_hash", "_atoms", "_atom_set"):
            state.pop(cached, None)
        return state

    @staticmethod
    def of(terms: dict, const: int = 0) -> "Form":
        # Ordered by the atoms' order keys, not their hash: a str's hash is salted per process,
        # and versioning.py writes a Form's terms back into the code in this order (the
        # rewrite, and so the cache key, would depend on PYTHONHASHSEED). Equal keys of
        # different atoms could only make two equal forms compare unequal: a lost proof.
        items = [(a, c) for a, c in terms.items() if c]
        if len(items) > 1:
            items.sort(key=_term_key)
        return Form(tuple(items), const)

    def order_key(self) -> str:
        """A text that is the same in every process for equal forms (see `order_key`)."""
        try:
            return self.__dict__["_key"]
        except KeyError:
            k = self.__dict__["_key"] = \
                f"F({','.join(order_key(a) + '*' + str(c) for a, c in self.terms)}{self.const:+d})"
            return k

    def as_dict(self) -> dict:
        return dict(self.terms)

    def __add__(self, other: "Form") -> "Form":
        if not other.terms:
            return Form(self.terms, self.const + other.const)
        d = dict(self.terms)
        for a, c in other.terms:
            d[a] = d.get(a, 0) + c
        return Form.of(d, self.const + other.const)

    def scale(self, k: int) -> "Form":
        if k == 0:
            return Form()
        return Form(tuple((a, c * k) for a, c in self.terms), self.const * k)

    def __sub__(self, other: "Form") -> "Form":
        return self + other.scale(-1)

    def plus(self, k: int) -> "Form":
        return Form(self.terms, self.const + k)

    @property
    def atoms(self) -> tuple:
        """The atoms, in the terms' order (kept once made: the provers ask again and again)."""
        atoms = self.__dict__.get("_atoms")
        if atoms is None:
            atoms = self.__dict__["_atoms"] = tuple(a for a, _ in self.terms)
        return atoms

    @property
    def atom_set(self) -> frozenset:
        """The atoms as a set (kept once made: `_prove` intersects them pair by pair)."""
        atoms = self.__dict__.get("_atom_set")
        if atoms is None:
            atoms = self.__dict__["_atom_set"] = frozenset(self.atoms)
        return atoms

    def coeff(self, atom) -> int:
        return self.as_dict().get(atom, 0)

    def without(self, atom) -> "Form":
        return Form(tuple(t for t in self.terms if t[0] != atom), self.const)


# atom -> its order key, for Form.of: atoms recur in many forms, and a key of an atom that holds
# forms (an opaque term, a choice) is a walk. Bounded: a long-running process rewrites many kernels.
_ORDER_KEYS = BoundedMemo(1 << 16)


def order_key(value) -> str:
    """A text for an atom (or a part of one) that is the same in every process: atoms are
    tuples of str, int, Forms and facts (a choice's conditions), so the structure in words,
    the members of a frozenset (a fact's variables) sorted. Not `repr`: a frozenset's repr
    follows the str hashes."""
    try:
        return _ORDER_KEYS[value]
    except (KeyError, TypeError):
        pass
    key = _order_key(value)
    try:
        _ORDER_KEYS.put(value, key)
    except TypeError:
        pass
    return key


def _order_key(value) -> str:
    if isinstance(value, Form):
        return value.order_key()
    if isinstance(value, tuple):
        return f"({','.join(order_key(v) for v in value)})"
    if isinstance(value, (frozenset, set)):
        return f"{{{','.join(sorted(order_key(v) for v in value))}}}"
    if isinstance(value, Fact):
        return f"Fact({order_key(value.form)},{order_key(value.deps)}," \
               f"{value.origin!r},{value.strict})"
    return repr(value)          # str, int, None, bool (atoms hold nothing else)


def _term_key(term) -> str:
    return order_key(term[0])


@dataclass(frozen=True)
class Fact:
    form: Form
    deps: frozenset              # variables it mentions: invalid once one is assigned
    origin: str = ""             # "the guard at line 12" -- for check_report reasons
    strict: bool = False         # form > 0 (between values that might not be integers)


@dataclass
class _AtomInfo:
    deps: frozenset
    lower: int | None
    upper: int | None
    integer: bool
    node: object                 # an expression that computes the atom (copied where used)
    atom: object = None          # the atom itself, as forms hold it (Atoms.add returns it)


@dataclass
class Atoms:
    """The atoms of one function: per atom its bounds, variables and kind."""

    info: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)     # atom -> choices.Choice (min, max, if)
    # Bumped whenever an atom is added or a bound tightens: what was derived from the atoms
    # before (launch.py's memoised predicates) is valid while it stays the same.
    version: int = 0

    def add(self, atom, deps=(), lower=None, upper=None, integer=False, node=None):
        """The atom as forms hold it (one object per atom: see NestedAtom), registered with
        its variables and bounds, or its bounds tightened."""
        entry = self.info.get(atom)
        if entry is None:
            if type(atom) is tuple and atom and atom[0] in NESTED:
                atom = NestedAtom(atom)
            self.info[atom] = _AtomInfo(frozenset(deps), lower, upper, integer, node, atom)
            self.version += 1
            return atom
        atom = entry.atom
        if entry.node is None and node is not None:
            # (launch.py adds launch dimensions without an expression; the code's own
            # `cuda.blockDim.x` brings one, which versioning's tests are written with.)
            entry.node = node
        if lower is not None:
            new = lower if entry.lower is None else max(lower, entry.lower)
            if new != entry.lower:
                entry.lower = new
                self.version += 1
        if upper is not None:
            new = upper if entry.upper is None else min(upper, entry.upper)
            if new != entry.upper:
                entry.upper = new
                self.version += 1
        return atom

    def __getitem__(self, atom) -> _AtomInfo:
        return self.info[atom]

    def deps_of(self, form: Form) -> frozenset:
        out = set()
        for a in form.atoms:
            out |= self.info[a].deps
        return frozenset(out)

    def integer(self, form: Form) -> bool:
        return all(self.info[a].integer for a in form.atoms)

    def bound(self, atom, local, upper: bool):
        """The atom's own bound, tightened by local (fact-derived) bounds."""
        entry = self.info[atom]
        own = entry.upper if upper else entry.lower
        extra = local.get(atom) if local else None
        if extra is None:
            return own
        extra = extra[1] if upper else extra[0]
        if own is None or extra is None:
            return extra if own is None else own
        return min(own, extra) if upper else max(own, extra)

    def minimum(self, form: Form, local=None):
        """The least value of `form` by the atoms' bounds, or None if unbounded below."""
        total = form.const
        for a, c in form.terms:
            b = self.bound(a, local, upper=c < 0)
            if b is None:
                return None
            total += c * b
        return total

    def maximum(self, form: Form, local=None):
        return self.maximum_of(form.terms, form.const, local)

    def maximum_of(self, terms, const: int = 0, local=None):
        """The largest value of `const + sum(c * atom)` over `terms` ((atom, c) pairs: no Form
        made for it) by the atoms' bounds, or None if unbounded above."""
        total = const
        for a, c in terms:
            if c:
                b = self.bound(a, local, upper=c > 0)
                if b is None:
                    return None
                total += c * b
        return total

    def nonneg(self, form: Form, local=None) -> bool:
        low = self.minimum(form, local)
        return low is not None and low >= 0


_MAX_SCALE = 1 << 20


def scale_for(rest: Form, fact: "Fact") -> int:
    """The positive integer k for which `rest - k * fact` cancels an atom of the fact in `rest`
    (`16 * by` in an index against `by <= gridDim.x - 1` needs the fact 16 times); 1 if none.
    A fact >= 0 (> 0) times k > 0 is >= 0 (> 0: an integer, so >= 1 <= k): as sound as once."""
    for atom, c in fact.form.terms:
        g = rest.coeff(atom)
        if g and c and g % c == 0 and 0 < g // c <= _MAX_SCALE:
            return g // c
    return 1


def combination_rest(goal: Form, combo) -> Form:
    """goal (+1 if a fact is strict) minus each fact of `combo`, each scaled to cancel one of
    its atoms in what is left (scale_for). `goal >= 0` follows when the result is >= 0."""
    rest = goal.plus(1) if any(f.strict for f in combo) else goal
    for f in combo:
        rest = rest - f.form.scale(scale_for(rest, f))
    return rest


class Prover:
    """Proofs of `goal >= 0` for integer-valued goals (an index and an extent are integers)."""

    def __init__(self, atoms: Atoms):
        self.atoms = atoms
        self._bounds_cache: dict = {}
        # (the facts' forms in order, atoms' version) -> local bounds: the bounds read only
        # the forms, and the launch search asks them of new Fact objects (its thread and
        # scaled facts, made per search) over the same forms, goal after goal.
        self._bounds_of_forms: dict = {}
        # (goal, facts, atoms' version, choices) -> proof: the elimination asks the same
        # question again (an access's static proof, then its launch proof end by end; a
        # versioned loop's bounds); the answer holds while no atom or bound changed.
        self._proofs: dict = {}

    def local_bounds(self, facts) -> dict:
        key = tuple(id(f) for f in facts)
        hit = self._bounds_cache.get(key)
        if hit is None or hit[0] != facts:
            forms = (tuple(f.form for f in facts), self.atoms.version)
            bounds = self._bounds_of_forms.get(forms)
            if bounds is None:
                bounds = self._bounds_of_forms[forms] = local_bounds(self.atoms, facts)
            hit = self._bounds_cache[key] = (list(facts), bounds)
        return hit[1]

    def prove(self, goal: Form, facts: list[Fact]):
        """A list of facts whose sum shows goal >= 0 (possibly empty), or None; with choice
        atoms (`min`, `max`, `x if c else y`: choices.py) by cases over their alternatives."""
        key = (goal, tuple(facts), self.atoms.version, len(self.atoms.choices))
        try:
            proof = self._proofs[key]
        except KeyError:
            # (Kept under the version it started with, as launch.py's memo does.)
            proof = self._proofs[key] = self._prove_anew(goal, facts)
        return None if proof is None else list(proof)

    def _prove_anew(self, goal: Form, facts: list[Fact]):
        choices = self.atoms.choices
        if not choices:
            return self._prove(goal, facts)
        facts = list(facts)
        forms = [goal] + [f.form for f in facts]
        if any(has_choice(f, choices) for f in forms):
            facts += [f for f in definitional_facts(forms, choices, self._fact) if f not in facts]
        proof = self._prove(goal, facts)
        if proof is not None:
            return proof
        if has_choice(goal, choices):
            return self._by_cases(goal, facts)
        # A fact ties the goal to a choice (`j = max(i, 0)` assigned, not a single definition):
        # the goal less that fact, by cases.
        for f in facts:
            if has_choice(f.form, choices) and set(goal.atoms) & set(f.form.atoms):
                rest = Prover._rest(goal, (f,))
                if has_choice(rest, choices):
                    proof = self._by_cases(rest, facts)
                    if proof is not None:
                        return [f] + [g for g in proof if g is not f]
        return None

    def _fact(self, form: Form, origin: str) -> Fact:
        return Fact(form, self.atoms.deps_of(form), origin)

    def _by_cases(self, goal: Form, facts: list):
        """Every subgoal of one option of the goal's case split (choices.cases), or None."""
        for option in cases(goal, self.atoms.choices) or []:
            used = []
            for sub, extra in option:
                proof = self._prove(sub, facts + [f for f in extra if f not in facts])
                if proof is None:
                    break
                used += [f for f in proof if f not in used]
            else:
                return used
        return None

    def _prove(self, goal: Form, facts: list[Fact]):
        """A list of facts whose sum shows goal >= 0 (possibly empty), or None.

        With a strict fact in the sum (sum > 0), goal + 1 - sum >= 0 is enough: the goal is an
        integer greater than -1."""
        if self.atoms.nonneg(goal):
            return []
        useful = list({(f.form, f.strict): f for f in facts}.values())     # one fact per form
        local = self.local_bounds(useful)
        if self.atoms.nonneg(goal, local):
            return self._sources(goal, [], useful)
        # Only sums that touch the goal's atoms can help: one fact sharing an atom with the
        # goal, a second sharing one with the goal or the first.
        goal_atoms = goal.atom_set
        sets = [f.form.atom_set for f in useful]
        # (each touching fact's atoms with the goal's, made once, not once per pair)
        reach = [None if goal_atoms.isdisjoint(s) else goal_atoms | s for s in sets]
        for f, touches in zip(useful, reach):
            if touches is not None and self._rest_nonneg(goal, (f,), local):
                return self._sources(self._rest(goal, (f,)), [f], useful)
        for (i, f), (j, g) in itertools.combinations(enumerate(useful), 2):
            first, other = reach[i], sets[j]
            if first is None:
                first, other = reach[j], sets[i]
                if first is None:
                    continue
                f, g = g, f
            if first.isdisjoint(other):
                continue
            if self._rest_nonneg(goal, (f, g), local):
                return self._sources(self._rest(goal, (f, g)), [f, g], useful)
        return None

    def _rest_nonneg(self, goal: Form, combo, local) -> bool:
        """`self.atoms.nonneg(combination_rest(goal, combo), local)`, the sum kept in one dict:
        no Form (sorted terms, hashed atoms) is made for each of the many combinations tried,
        only for the one that proves (the same arithmetic: scale_for's k, then the bounds)."""
        terms = dict(goal.terms)
        const = goal.const + 1 if any(f.strict for f in combo) else goal.const
        for f in combo:
            k = 1
            for atom, c in f.form.terms:
                g = terms.get(atom, 0)
                if g and c and g % c == 0 and 0 < g // c <= _MAX_SCALE:
                    k = g // c
                    break
            const -= k * f.form.const
            for atom, c in f.form.terms:
                terms[atom] = terms.get(atom, 0) - k * c
        bound = self.atoms.bound
        for atom, c in terms.items():
            if c:
                b = bound(atom, local, upper=c < 0)
                if b is None:
                    return False
                const += c * b
        return const >= 0

    @staticmethod
    def _rest(goal: Form, combo) -> Form:
        return combination_rest(goal, combo)

    @staticmethod
    def _sources(rest: Form, combo: list, useful: list) -> list:
        """The facts of the sum, and those that gave the local bounds of the atoms left."""
        left = set(rest.atoms)
        extra = [f for f in useful if f not in combo and left.intersection(f.form.atoms)]
        return combo + extra

    def in_bounds(self, index: Form, extent: Form, facts: list[Fact]):
        """Facts proving 0 <= index < extent, or None."""
        low = self.prove(index, facts)
        if low is None:
            return None
        high = self.prove((extent - index).plus(-1), facts)
        if high is None:
            return None
        return low + [f for f in high if f not in low]


__all__ = ["Form", "Fact", "Atoms", "Prover", "local_bounds", "scale_for", "combination_rest"]
