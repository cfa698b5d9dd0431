"""The front end's work shared between the forms of a kernel (issue 26 item 3: compile time):
what is shared is what a rewrite of each form on its own would make, and it is made once."""
import itertools

import pytest

from safekern.frontend.python import eliminate
from tests.numba import call_facts_kernels, launch_kernels

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def _kernels_with_predicates(least: int) -> list:
    out = []
    for module in (launch_kernels, call_facts_kernels):
        for name in sorted(vars(module)):
            k = getattr(module, name)
            if hasattr(k, "build") and hasattr(k.build, "rewritten") and \
                    not k.build.device and len(k.build.rewritten.launch_predicates) >= least:
                out.append(k)
    return out


def _calls(rewritten) -> dict:
    return {n: (d.parsed.name, getattr(d.build, "param_facts", ())) for n, d in
            rewritten.device_calls.items()}


def test_a_subset_variant_is_the_rewrite_for_that_subset_without_a_second_elimination(
        monkeypatch):
    kernels = _kernels_with_predicates(2)
    assert len(kernels) >= 2, [k.build.name for k in kernels]
    compared = 0
    for kernel in kernels:
        build = kernel.build
        predicates = build.rewritten.launch_predicates
        for size in range(1, len(predicates)):
            for subset in map(frozenset, itertools.combinations(predicates, size)):
                fresh = build.rewrite(subset).launch_variant
                runs = []
                real = eliminate.eliminate_checks
                monkeypatch.setattr(eliminate, "eliminate_checks",
                                    lambda *a, **kw: runs.append(1) or real(*a, **kw))
                shared = build.final_rewrite().variant_for_subset(subset)
                monkeypatch.setattr(eliminate, "eliminate_checks", real)
                assert not runs
                assert shared.source == fresh.source, (build.name, subset)
                assert _calls(shared) == _calls(fresh)
                assert shared.sites == fresh.sites
                compared += 1
    assert compared >= 3


def test_the_subset_variant_built_for_a_launch_comes_from_the_kernel_s_own_rewrite():
    kernel = launch_kernels.two_windows
    variants = kernel.dispatch.variants or kernel.dispatch.launch_variants()
    [p] = [p for p in variants.predicates if p.text() == "a.shape[0] >= out.shape[0]"]
    form = kernel.dispatch._variant(frozenset([p]))
    made = form.build.final_rewrite()
    assert made.source == kernel.build.rewrite(frozenset([p])).launch_variant.source
    assert "_sk_load(a," not in made.source and "_sk_load_exit(a," not in made.source
    assert "_sk_load_exit(x," in made.source or "_sk_load(x," in made.source
