"""Launch predicates: checks the host can prove at a launch, from what only the launch knows.

A static proof (eliminate.py) knows the code but not the launch. At a launch the host knows
every array argument's shape, the scalar arguments, the block and grid dimensions. For a check
the static prover cannot discharge, this module looks for a *launch predicate*: a linear
condition over those launch facts alone that, together with the facts holding at the access,
proves the access in bounds:

    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i]            # a[i] needs a.shape[0] >= out.shape[0]
    tile[ty, tx]                 # 16 x 16 shared tile: blockDim.y <= 16 and blockDim.x <= 16
    for k in range(n): x[i + k]  # x.shape[0] >= n + (the largest i) ...

The backend evaluates the predicates of a kernel at each launch (a few integer compares) and
launches a variant compiled without the checks the holding ones prove (the checked kernel when
none holds); so nothing that can fail goes unchecked.

Soundness. The prover (linear.py) shows `goal >= 0` as `goal = rest + sum(facts)`, facts >= 0
where the access is. Here `rest` splits into a part over *launch atoms* -- shapes of array
parameters and scalar parameters the kernel never rebinds, blockDim, gridDim, gridsize: values
fixed for the whole launch -- and a part over other atoms whose least value m (by their bounds)
is known. `launch part + m >= 0`, checked by the host with the real values, then implies
`goal >= 0`. The facts that tie thread indices to the launch (threadIdx.x < blockDim.x,
blockIdx.x < gridDim.x, grid(1) < gridsize(1)) are true in every launch. Scalar arguments count
only when the launch passes an integer (the backend tests that as part of the predicate).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from .choices import cases, has_choice
from .linear import Fact, Form, combination_rest

_AXES = ("x", "y", "z")
# A kernel launches its variant only when *every* predicate holds, so one that (almost) never
# holds costs all the others: such a predicate is not made, and its check stays.
_HOPELESS = 2 ** 31          # needs an axis, a scalar or a grid beyond this: not made
_WORST_CASE = 1024           # a part over other atoms worse than a block's extent: not made
_MAX_OPTIONS = 4             # options of a choice's case split tried for launch predicates


@dataclass(frozen=True)
class LaunchFact:
    """One value the host knows at a launch."""

    kind: str              # "shape" | "scalar" | "pyint" | "block" | "grid" | "gridsize"
    param: int | None      # the parameter's position (shape, scalar)
    name: str              # the parameter's name ("" for launch dimensions)
    axis: tuple            # (k,) for shape/block/grid; (ndim, k) for gridsize; () for scalar

    def text(self) -> str:
        if self.kind == "shape":
            return f"{self.name}.shape[{self.axis[0]}]"
        if self.kind in ("scalar", "pyint"):
            return self.name
        if self.kind in ("block", "grid"):
            return f"{'blockDim' if self.kind == 'block' else 'gridDim'}.{_AXES[self.axis[0]]}"
        ndim, k = self.axis
        return "cuda.gridsize(1)" if ndim == 1 else f"cuda.gridsize({ndim})[{k}]"

    def python(self) -> str:
        """The value as a Python expression over `args`, `grid`, `block` (3-tuples of ints)."""
        if self.kind == "shape":
            return f"args[{self.param}].shape[{self.axis[0]}]"
        if self.kind == "scalar":
            return f"_int(args[{self.param}])"
        if self.kind == "pyint":             # a Python int only (aliases.py)
            return f"_pyint(args[{self.param}])"
        if self.kind == "block":
            return f"block[{self.axis[0]}]"
        if self.kind == "grid":
            return f"grid[{self.axis[0]}]"
        ndim, k = self.axis
        return f"(block[{k}] * grid[{k}])"


@dataclass(frozen=True)
class LaunchPredicate:
    """sum(coeff * fact) + const >= 0."""

    terms: tuple           # ((coeff, LaunchFact), ...)
    const: int

    def text(self) -> str:
        """`a.shape[0] >= out.shape[0]`, `blockDim.y <= 16`."""
        def side(parts, const):
            words = [(f"{c} * " if c != 1 else "") + f.text() for c, f in parts]
            if const or not words:
                words.append(str(const))
            return " + ".join(words)

        pos = [(c, f) for c, f in self.terms if c > 0]
        neg = [(-c, f) for c, f in self.terms if c < 0]
        const = self.const
        if not neg:                                    # x - 16 >= 0 reads x >= 16
            return f"{side(pos, 0)} >= {-const}"
        if not pos:                                    # 16 - x >= 0 reads x <= 16
            return f"{side(neg, 0)} <= {const}"
        return f"{side(pos, const if const > 0 else 0)} >= {side(neg, -const if const < 0 else 0)}"

    def python(self) -> str:
        parts = [f"{c} * {f.python()}" if c != 1 else f.python() for c, f in self.terms]
        return f"({' + '.join(parts)} + {self.const} >= 0)"


def launch_fact(atom, launch_params: dict, entry_aliases=None) -> LaunchFact | None:
    """The launch fact an atom of index_forms.py stands for, or None (`entry_aliases`: names
    holding a rebound parameter's launch value, bindings.py)."""
    kind = atom[0]
    if kind == "shape" and atom[1] in launch_params:
        return LaunchFact("shape", launch_params[atom[1]], atom[1], (atom[2],))
    if kind == "name" and atom[1] in launch_params:
        return LaunchFact("scalar", launch_params[atom[1]], atom[1], ())
    if kind == "name" and entry_aliases and atom[1] in entry_aliases:
        param, position = entry_aliases[atom[1]]
        return LaunchFact("scalar", position, param, ())
    if kind == "cuda" and atom[1] in ("blockDim", "gridDim") and atom[2] in _AXES:
        return LaunchFact("block" if atom[1] == "blockDim" else "grid", None, "",
                          (_AXES.index(atom[2]),))
    if kind == "cuda" and atom[1] == "gridsize":
        ndim, k = (1, 0) if len(atom) == 3 else (atom[2], atom[3])
        return LaunchFact("gridsize", None, "", (ndim, k))
    return None


class _AtomTable(dict):
    """atom -> (its LaunchFact, least value, largest value), the bounds under one search's
    local bounds, each made on first use: a search asks for the same atoms' bounds in every
    one of its (many) combinations."""

    def __init__(self, prover, local):
        super().__init__()
        self.prover, self.local = prover, local

    def __missing__(self, atom):
        fact = self.prover._launch_fact(atom)
        if fact is not None:
            entry = self[atom] = (fact, None, None)
            return entry
        bound = self.prover.atoms.bound
        entry = self[atom] = (None, bound(atom, self.local, False), bound(atom, self.local, True))
        return entry


class LaunchProver:
    """Launch predicates for goals the static prover could not show (see module doc)."""

    def __init__(self, lin, launch_params: dict, entry_aliases=None):
        self.lin = lin
        self.atoms = lin.atoms
        self.launch_params, self.entry_aliases = launch_params, entry_aliases
        self._launch_facts: dict = {}     # atom -> its LaunchFact or None (launch_fact, memoised)
        # (goal, facts, atoms' version) -> predicate: the same question is asked again (the
        # launch variant's proof, a loop's two passes); the answer holds while no atom changed.
        self._answers: dict = {}

    def _launch_fact(self, atom):
        if atom not in self._launch_facts:
            self._launch_facts[atom] = launch_fact(atom, self.launch_params, self.entry_aliases)
        return self._launch_facts[atom]

    def _combination(self, goal_terms: dict, const: int, combo, table):
        """(key, constant, purity, {LaunchFact: coefficient}) of the predicate for goal - combo
        (`const`: the goal's, plus 1 for a strict fact), or None: no launch atom left in it,
        another atom unbounded the way its sign needs, or a predicate not worth making. One
        pass over the rest's terms, no Form made for it; `table`: _AtomTable of the search.
        `key`: the predicate's terms as a set (equal for equal terms); the predicate itself is
        made (`_made`) only for the combinations a search keeps, not for each one tried."""
        rest = dict(goal_terms)
        for f in combo:
            const -= f.form.const
            for atom, c in f.form.terms:
                rest[atom] = rest.get(atom, 0) - c
        launch, atoms, low, other = {}, {}, 0, False
        for atom, c in rest.items():
            if not c:
                continue
            fact, lower, upper = table[atom]
            if fact is None:
                b = upper if c < 0 else lower
                if b is None:
                    return None
                low += c * b
                other = True
            elif fact in launch:
                # (launch_fact gives each launch fact one atom; were there two, their sum
                # would be a term of its own: no predicate, the check stays)
                return None
            else:
                launch[fact], atoms[fact] = c, atom
        if not launch:
            return None                   # nothing the launch knows helps
        if const + low < -_HOPELESS or low < -_WORST_CASE:
            # (Other atoms' worst case taken from the hardware's caps -- blockIdx up to
            # 2**31 - 2 -- asks for arrays no launch has.)
            return None
        top = self.atoms.maximum_of((atoms[f], c) for f, c in launch.items())
        if top is not None and top + const + low < 0:
            return None                   # no launch satisfies it (gridsize(1) <= 0)
        if max(launch.values()) < 0 and any(f.kind == "shape" for f in launch):
            # Only upper bounds on shapes (`out.shape[0] <= 0`): true where the guarded code
            # cannot run at all -- sound, never useful.
            return None
        return frozenset(launch.items()), const + low, purity(other, low), launch

    def _unbounded(self, goal_terms: dict, fact, table) -> frozenset:
        """The atoms of `fact` that leave goal - fact (- another fact without them) with an
        atom unbounded the way its sign needs: a combination with them is refused."""
        out = []
        for a, c in fact.form.terms:
            if a not in goal_terms:
                launch, lower, upper = table[a]
                if launch is None and (upper if c > 0 else lower) is None:
                    out.append(a)
        return frozenset(out)

    def _dimension(self, kind, axis):
        return self.atoms.add(("cuda", kind, axis), lower=1,
                              upper=1024 if kind == "blockDim" else 2 ** 31 - 1, integer=True)

    def thread_facts(self, forms) -> list:
        """Facts true in every launch that tie the thread atoms of `forms` to the launch:
        threadIdx.k <= blockDim.k - 1, blockIdx.k <= gridDim.k - 1, grid(n)[k] <= gridsize - 1."""
        out = []
        # (In the forms' order, not a set's: the facts' order decides which of equally good
        # predicates `_predicate` keeps, and a set of atoms iterates by the salted str hash.)
        for atom in dict.fromkeys(a for form in forms for a in form.atoms):
            if atom[0] != "cuda":
                continue
            if atom[1] in ("threadIdx", "blockIdx") and atom[2] in _AXES:
                dim = self._dimension("blockDim" if atom[1] == "threadIdx" else "gridDim",
                                      atom[2])
                form = Form.of({dim: 1, atom: -1}, -1)
            elif atom[1] == "grid":
                size = ("cuda", "gridsize") + atom[2:]
                self.atoms.add(size, lower=1, upper=2 ** 41, integer=True)
                form = Form.of({size: 1, atom: -1}, -1)
            else:
                continue
            out.append(Fact(form, frozenset(), "the launch's dimensions"))
        return out

    def predicate(self, goal: Form, facts: list) -> LaunchPredicate | None:
        """A launch predicate implying goal >= 0 where `facts` hold, or None. Of several, the
        one most likely to hold: over launch facts alone (no other atom's worst case in it),
        then over shapes and scalars rather than launch dimensions (grids are rounded up past
        the data: `a.shape[0] >= out.shape[0]`, not `a.shape[0] >= gridsize`), then the
        fewest terms."""
        key = (goal, tuple(facts), self.atoms.version)
        try:
            return self._answers[key]
        except KeyError:
            pass
        found = self._predicate(goal, facts)
        # (Made under the version it started with: thread_facts may add launch dimensions,
        # which a second ask adds again unchanged.)
        self._answers[key] = found
        return found

    def _predicate(self, goal: Form, facts: list) -> LaunchPredicate | None:
        facts = list(facts) + self.thread_facts([goal] + [f.form for f in facts])
        facts += _scaled(goal, facts)
        useful = list({(f.form, f.strict): f for f in facts}.values())
        table = _AtomTable(self, self.lin.prover.local_bounds(useful))
        best, best_rank = None, None
        weakest: dict = {}            # terms -> (predicate, pure) with the largest constant
        goal_terms = dict(goal.terms)
        # A combination leaving an atom of a fact that nothing cancels unbounded is refused by
        # `_combination` anyway: those are not tried (most pairs, with many facts). So is one
        # without a launch atom in the goal or its facts: none can be left in the rest.
        bad = [self._unbounded(goal_terms, f, table) for f in useful]
        own = [{a for a, _ in f.form.terms} for f in useful]
        in_goal = any(table[a][0] is not None for a in goal_terms)
        launched = [in_goal or any(table[a][0] is not None for a in atoms) for atoms in own]
        low, most = _lows(goal_terms, useful, table)
        combos = itertools.chain(
            [()] if in_goal else [],
            ((f,) for f, b, knows in zip(useful, bad, launched) if knows and not b),
            _pairs(useful, launched, bad, own, low, most))
        for combo in combos:
            found = self._combination(goal_terms, goal.const + 1 if any(f.strict for f in combo)
                                      else goal.const, combo, table)
            if found is None:
                continue
            seen = weakest.get(found[0])
            if seen is None or found[1] > seen[1] or (found[1] == seen[1] and found[2] < seen[2]):
                weakest[found[0]] = found     # the same bound, weaker (or as weak, purer)
        made = [(_made(launch, const), level) for _, const, level, launch in weakest.values()]
        for predicate, level in self._undominated(made, table):
            rank = predicate_rank(predicate, level)
            if best is None or rank < best_rank:
                best, best_rank = predicate, rank
        return best

    def _undominated(self, found: list, table) -> list:
        """`found` ([(predicate, level)]) without the predicates another one of them, ranked no
        worse but for its constant, holds wherever they hold: of lud's `m.shape[1] >= 16 *
        gridDim.x + offset + 16` (blockIdx.x <= gridDim.x - 1, times 16) and `m.shape[1] >=
        17 * gridDim.x + offset + 15` (times 17, less blockIdx.x >= 0), the smaller constant
        is the one that fails at every launch whose grid covers the matrix; the first holds
        wherever the second does (their difference, gridDim.x - 1, is never negative)."""
        if len(found) < 2:
            return found
        atom_of = {entry[0]: atom for atom, entry in table.items() if entry[0] is not None}
        forms = [Form.of({atom_of[f]: c for c, f in p.terms}, p.const)
                 if all(f in atom_of for _, f in p.terms) else None for p, _ in found]
        ranks = [predicate_rank(p, level)[:4] for p, level in found]
        kept = []
        for i, entry in enumerate(found):
            if forms[i] is None or not any(
                    j != i and forms[j] is not None and ranks[j] <= ranks[i] and
                    forms[j] != forms[i] and self._implies(forms[i], forms[j])
                    for j in range(len(found))):
                kept.append(entry)
        return kept

    def _implies(self, stronger: Form, weaker: Form) -> bool:
        """`stronger >= 0` implies `weaker >= 0` at every launch: stronger - weaker is
        never positive by the launch atoms' bounds."""
        terms = dict(stronger.terms)        # (stronger - weaker, no Form: asked of every pair)
        for atom, c in weaker.terms:
            terms[atom] = terms.get(atom, 0) - c
        top = self.atoms.maximum_of(terms.items(), stronger.const - weaker.const)
        return top is not None and top <= 0

    def predicates(self, goal: Form, facts: list):
        """Launch predicates that together imply goal >= 0 where `facts` hold, or None: one
        (`predicate`), or with a choice in the goal (`min(max(i, 0), n - 1)`: choices.py) one per
        case the static prover does not show, for every case of one option of the split (the
        option that needs the fewest)."""
        found = self.predicate(goal, facts)
        if found is not None:
            return [found]
        choices = self.atoms.choices
        if has_choice(goal, choices):
            return self._by_cases(goal, facts)
        # A fact ties the goal to a choice (`tx <= valid_xmax`, valid_xmax = `a if c else b`:
        # Rodinia's pathfinder): goal = rest + that fact's form (>= 0), and rest by cases, as
        # the static prover does (linear.py).
        for f in facts if choices else ():
            if has_choice(f.form, choices) and set(goal.atoms) & set(f.form.atoms):
                rest = combination_rest(goal, (f,))
                found = self._by_cases(rest, facts) if has_choice(rest, choices) else None
                if found is not None:
                    return found
        return None

    def _by_cases(self, goal: Form, facts: list):
        """Predicates for each case of one option of the goal's case split, or None."""
        best = None
        for option in (cases(goal, self.atoms.choices) or [])[:_MAX_OPTIONS]:
            out = []
            for sub, extra in option:
                known = list(facts) + [f for f in extra if f not in facts]
                if self.lin.prove(sub, known) is not None:
                    continue
                found = self.predicate(sub, known)
                if found is None:
                    break
                if found not in out:
                    out.append(found)
            else:
                if best is None or len(out) < len(best):     # the option needing fewest
                    best = out
        return best


def _made(launch: dict, const: int) -> LaunchPredicate:
    """The predicate `sum(c * fact) + const >= 0` of `_combination`'s {fact: c}, its terms in
    one order (each launch fact has its own kind, parameter and axis)."""
    return LaunchPredicate(tuple(sorted(((c, f) for f, c in launch.items()),
                                        key=lambda t: (t[1].kind, t[1].param or 0, t[1].axis))),
                           const)


def _lows(goal_terms: dict, useful: list, table) -> tuple:
    """([least value of goal - fact's other atoms], [largest value of -fact's other atoms]) per
    fact (None: an atom without the bound), for `_hopeless_pair`. "Other": not a launch atom."""
    low, most = [], []
    for f in useful:
        rest = dict(goal_terms)
        for atom, c in f.form.terms:
            rest[atom] = rest.get(atom, 0) - c
        total = 0
        for atom, c in rest.items():
            fact, lower, upper = table[atom]
            if fact is None and c:
                b = upper if c < 0 else lower
                if b is None:
                    total = None
                    break
                total += c * b
        low.append(total)
        total = 0
        for atom, c in f.form.terms:
            fact, lower, upper = table[atom]
            if fact is None:
                if lower is None or upper is None:
                    total = None
                    break
                total += max(-c * lower, -c * upper)
        most.append(total)
    return low, most


def _pairs(useful, launched, bad, own, low, most):
    """The pairs of facts `_predicate` tries, in combinations' order: one knows a launch atom,
    neither leaves unbounded what the other does not cancel, not hopeless (_hopeless_pair)."""
    n = len(useful)
    for i in range(n):
        bi, oi, ki = bad[i], own[i], launched[i]
        for j in range(i + 1, n):
            if (ki or launched[j]) and not (bi and bi - own[j] or bad[j] and bad[j] - oi) and \
                    not _hopeless_pair(low, most, i, j):
                yield useful[i], useful[j]


def _hopeless_pair(low: list, most: list, i: int, j: int) -> bool:
    """Is the least value of the other atoms of goal - fact i - fact j surely below
    -_WORST_CASE (so that `_combination` refuses the pair)? Per atom a with coefficient x in
    goal - fact i and y in -fact j, bounded both ways, its least value in the pair's rest,
    min over its bounds b of (x + y) * b, is at most min_b x * b + max_b y * b: so the rest's
    least value is at most low[i] + most[j] (and low[j] + most[i])."""
    for a, b in ((i, j), (j, i)):
        if low[a] is not None and most[b] is not None and low[a] + most[b] < -_WORST_CASE:
            return True
    return False


def purity(other: bool, low: int) -> int:
    """How much a predicate leans on atoms other than the launch's: 0 none; 1 only on their
    least values, which ask nothing of the launch (`low` >= 0: nonnegative terms dropped, as
    `d = kernel.shape[0] // 2` from `i < data.shape[0] - d`); 2 on a worst case the launch
    must make up for (a thread index's largest value, say)."""
    return 0 if not other else 1 if low >= 0 else 2


def predicate_rank(predicate: LaunchPredicate, level: int) -> tuple:
    """Of a goal's predicates, the least is made (the one most likely to hold at launches):
    none leaning on a worst case; then the fewest launch dimensions -- grids are rounded up
    past the data, so `out.shape[0] >= data.shape[0]` (xarray-spatial's convolution behind
    its halo guard, purity 1) holds where `out.shape[0] >= gridsize` fails; then the purest
    (`buf.shape[0] >= 2` before `timesteps <= 0`, which drops the loop variable: a bound that
    holds only where the loop never runs), the fewest terms, the smallest constant."""
    grid = sum(f.kind in ("block", "grid", "gridsize") for _, f in predicate.terms)
    return (level == 2, grid, level, len(predicate.terms), abs(predicate.const))


def _scaled(goal: Form, facts: list, most: int = 8) -> list:
    """Facts multiplied by the integer that cancels one of the goal's terms with them: for
    `j[16 * by, ...]`, 16 * (gridDim.y - 1 - by) >= 0 (a fact times a positive integer
    still holds)."""
    out = []
    for atom, c in goal.terms:
        for f in facts:
            k = f.form.coeff(atom)
            if k and (c > 0) == (k > 0) and c % k == 0 and c // k > 1:
                out.append(Fact(f.form.scale(c // k), f.deps, f.origin, f.strict))
                if len(out) >= most:
                    return out
    return out


def worth_a_variant(launch_codes: dict) -> dict:
    """The checks (code -> predicates) launch variants may leave out. A predicate that holds
    for no launch the kernel is written for would only make every launch take a partial
    variant, a second compile of nearly the same kernel: of the bounds on one launch dimension (`blockDim.y <= 16` for a
    16 x 16 tile, `blockDim.y <= 15` for a neighbour `tile[ty + 1, tx]` under a guard no rule
    reads), only those at least the largest power of two under the loosest are kept -- blocks
    are sized in powers of two; a tile padded to 33 columns gives `<= 33` and `<= 32`, both
    kept -- and the checks that needed a stricter one stay checked."""
    loosest: dict = {}
    for predicates in launch_codes.values():
        for p in predicates:
            dim = _single_dimension_bound(p)
            if dim is not None:
                loosest[dim] = max(loosest.get(dim, p.const), p.const)
    floor = {dim: 1 << (c.bit_length() - 1) if c > 0 else c for dim, c in loosest.items()}
    return {code: predicates for code, predicates in launch_codes.items()
            if all(_single_dimension_bound(p) is None or
                   p.const >= floor[_single_dimension_bound(p)] for p in predicates)}


def _single_dimension_bound(p: LaunchPredicate):
    """(kind, axis) for `blockDim.k <= c` / `gridDim.k <= c` (upper bounds), else None."""
    if len(p.terms) == 1 and p.terms[0][0] == -1 and \
            p.terms[0][1].kind in ("block", "grid"):
        return p.terms[0][1].kind, p.terms[0][1].axis
    return None


__all__ = ["LaunchFact", "LaunchPredicate", "LaunchProver", "launch_fact", "predicate_rank", "purity",
           "worth_a_variant"]
