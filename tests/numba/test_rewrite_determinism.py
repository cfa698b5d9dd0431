"""The rewrite is the same in every process, whatever PYTHONHASHSEED says.

A str's hash is salted per process. Where the front end ordered something by it -- a linear
form's terms (`Form.of` sorted them by `hash(atom)`), a set of atoms -- the rewritten source
changed from process to process: a versioned loop's hoisted test came out as
`far <= _sk_extent(m, 1) - idx - 1` in one and `far <= -idx + _sk_extent(m, 1) - 1` in the
next (Rodinia's lud_perimeter; lud_diagonal, nw_shared_2 too), so the PTX did (1596 vs 1589
instructions), and so did the binary cache's key (keys.function_fields holds the rewritten
source): a cache filled by one process missed in the next.

tests/numba/determinism_probe.py prints, per kernel, the rewrite, the launch variant, the
variants for subsets of the launch predicates, the check report, the predicates and the
digests of the key material; here it runs under several seeds (chosen so that the old
ordering gave different texts for lud_perimeter and determinism_kernels.window_sum).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

from safekern.frontend.python.launch import LaunchProver
from safekern.frontend.python.linear import Atoms, Fact, Form, order_key

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = ("0", "1", "4", "6")
# lud: lud_perimeter's and lud_diagonal's hoisted tests; nw: nw_shared_2's; the real-world
# fbpic deposit (its variants) only where .realworld is extracted (the probe skips it else).
CASES = ("local", "lud", "nw", "rw_fbpic_deposit")


def _run_seeds(args, seeds=SEEDS, timeout=240):
    """stdout of `python args...` once per seed, the children run side by side."""
    procs = {}
    for seed in seeds:
        env = dict(os.environ, PYTHONHASHSEED=seed, NUMBA_ENABLE_CUDASIM="1",
                   SAFEKERN_CACHE="off")
        procs[seed] = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, start_new_session=True)
    out = {}
    try:
        for seed, proc in procs.items():
            stdout, stderr = proc.communicate(timeout=timeout)
            assert proc.returncode == 0, f"PYTHONHASHSEED={seed}: {stderr[-3000:]}"
            out[seed] = stdout
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return out


def test_rewrites_variants_and_keys_do_not_depend_on_the_hash_seed():
    runs = {seed: json.loads(text) for seed, text in
            _run_seeds(["-m", "tests.numba.determinism_probe", *CASES]).items()}
    first = runs[SEEDS[0]]
    assert {"lud.lud_perimeter", "lud.lud_diagonal", "nw.nw_shared_2",
            "local.window_sum"} <= set(first)
    # What the comparison must see: hoisted tests with several terms, and launch variants.
    perimeter = first["lud.lud_perimeter"]
    assert ">= LUD_BLOCK or (" in perimeter["source"] and "_sk_extent(m, 1)" in perimeter["source"]
    assert any(k.startswith("subset ") for k in perimeter)
    assert " or width <= " in first["local.window_sum"]["source"]
    for seed, run in runs.items():
        assert set(run) == set(first), seed
        for kernel, texts in first.items():
            differ = sorted(field for field in set(texts) | set(run[kernel])
                            if texts.get(field) != run[kernel].get(field))
            assert not differ, f"{kernel}: {differ[:5]} differ between PYTHONHASHSEED=" \
                               f"{SEEDS[0]} and {seed}"


def test_an_atoms_order_key_is_the_same_in_every_process():
    # A choice atom holds facts whose variables are a frozenset: its repr would follow the
    # str hashes; the order key sorts them.
    script = ("from safekern.frontend.python.linear import Fact, Form, order_key\n"
              "f = Form.of({('name', 'i'): 1, ('shape', 'a', 0): -1}, 2)\n"
              "fact = Fact(f, frozenset({'alpha', 'beta', 'gamma', 'delta', 'i', 'a'}), 'x')\n"
              "atom = ('choice', 'if', ((f, (fact,)), (Form(), ())))\n"
              "print(order_key(atom))\n"
              "form = Form.of({atom: 1, ('name', 'i'): 3, ('cuda', 'grid', 1): -1})\n"
              "print([(a[0], c) for a, c in form.terms])\n")
    runs = _run_seeds(["-c", script], seeds=("0", "1", "2", "3", "5", "7"), timeout=60)
    assert len(set(runs.values())) == 1, runs
    assert "'alpha','beta','delta','gamma'" in runs["0"]


def test_form_terms_follow_the_order_key_not_the_insertion_order():
    a, b, c = ("shape", "m", 1), ("name", "idx"), ("cuda", "threadIdx", "x")
    forms = [Form.of(dict(items), -1) for items in
             ([(a, 1), (b, -1), (c, 2)], [(c, 2), (b, -1), (a, 1)], [(b, -1), (a, 1), (c, 2)])]
    assert forms[0] == forms[1] == forms[2]
    assert [t[0] for t in forms[0].terms] == sorted([a, b, c], key=order_key)
    assert forms[0].order_key() == forms[1].order_key()
    # Different forms, different keys (a form inside an atom orders by it).
    assert Form.of({a: 1}, 0).order_key() != Form.of({a: 1}, 1).order_key()
    assert Form.of({a: 1}).order_key() != Form.of({a: 2}).order_key()
    fact = Fact(forms[0], frozenset({"m", "idx"}), "here")
    assert order_key(fact) == order_key(Fact(forms[1], frozenset({"idx", "m"}), "here"))


def test_thread_facts_come_in_the_order_of_the_forms_atoms():
    atoms = Atoms()
    prover = LaunchProver(types.SimpleNamespace(atoms=atoms), {})
    order = [("cuda", "threadIdx", "z"), ("cuda", "blockIdx", "y"), ("cuda", "grid", 1),
             ("cuda", "threadIdx", "x"), ("cuda", "blockIdx", "x"), ("cuda", "threadIdx", "y"),
             ("cuda", "blockIdx", "z"), ("cuda", "grid", 2, 1)]
    for atom in order:
        atoms.add(atom, lower=0, upper=1 << 20, integer=True)
    forms = [Form(((atom, 1),)) for atom in order]
    facts = prover.thread_facts(forms)
    got = [next(a for a, c in f.form.terms if c < 0) for f in facts]
    assert got == order


def test_a_cache_filled_under_one_seed_serves_another(tmp_path):
    """The binary cache's key holds the rewritten source: a process whose seed ordered the
    terms the other way keyed lud_perimeter's launch variant apart (a miss, compiled again),
    and a compile of the kernel found its stored rewrite unlike a fresh one (a warning)."""
    cache = str(tmp_path / "kernels.cache")
    runs = []
    for seed in ("0", "1", "6"):        # one after another: the first fills the cache
        runs.append(json.loads(_run_seeds(["-m", "tests.numba.determinism_probe", "--cache",
                                           cache], seeds=(seed,))[seed]))
    assert [r["stored"] for r in runs] == [False, True, True]
    for run in runs:
        assert run["key"] == run["key_after_compile"] == runs[0]["key"]
        assert run["subset_key"] == runs[0]["subset_key"]
        assert run["warnings"] == []
