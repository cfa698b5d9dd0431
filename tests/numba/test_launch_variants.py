"""Launch predicates at run time (issue 13): a launch whose arguments and geometry satisfy every
predicate runs the variant without the checks they prove and computes the same; a launch that
breaks one runs the checked kernel, which reports the failure. On the simulator, and on a GPU
with `pytest -m gpu` (the `cudasim` marker becomes `gpu`)."""
import numpy as np
import pytest
from numba import cuda

import safekern
from safekern import config
from tests.numba import launch_kernels as K
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def ran_variant(kernel) -> bool:
    """A launch ran a launch variant -- or numba's own kernel of the function, which the full
    variant's launches run while nothing is pending (plain.py)."""
    variants = kernel.dispatch.variants
    plain = kernel.dispatch.plain_made
    return bool(variants) and (any(v.build.numba is not None for v in variants.kernels())
                               or (plain is not None and plain.build.numba is not None))


def holds(kernel):
    """`holds(args, config)`: every launch predicate of `kernel` holds."""
    variants = kernel.dispatch.variants or kernel.dispatch.launch_variants()
    return lambda args, config: variants.mask(args, config) == variants.full


def test_a_launch_that_satisfies_the_predicate_runs_the_variant():
    report = K.scale_into.check_report()
    [a] = [e for e in report if e.array == "a"]
    assert a.status == "proven at launch" and a.predicate == "a.shape[0] >= out.shape[0]"
    out = cuda.to_device(np.zeros(100, np.float32))
    K.scale_into[4, 32](out, cuda.to_device(np.arange(100, dtype=np.float32)))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(100, dtype=np.float32))
    assert ran_variant(K.scale_into)


def test_a_launch_that_breaks_the_predicate_is_checked():
    out = cuda.to_device(np.zeros(100, np.float32))
    K.scale_into[4, 32](out, cuda.to_device(np.arange(60, dtype=np.float32)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.axis, err.size) == ("a", 0, 60) and err.index >= 60
    assert err.kernel == "scale_into"


def test_block_dimensions_decide_for_a_shared_tile():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = cuda.to_device(np.zeros((8, 8), np.float32))
    K.transpose_tile[1, (8, 8)](out, cuda.to_device(a))
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a.T)
    # A block wider than the tile breaks blockDim.x <= 8: checked, and it fails.
    big = np.zeros((8, 9), np.float32)
    K.transpose_tile[1, (9, 8)](cuda.to_device(np.zeros((9, 9), np.float32)),
                                cuda.to_device(big))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "tile" and info.value.index == 8 and info.value.size == 8


def test_scalar_arguments_count_only_as_integers():
    x = np.arange(20, dtype=np.float64)
    out = cuda.to_device(np.zeros(10, np.float64))
    K.window_sum[1, 16](out, cuda.to_device(x), 11)       # 20 + 1 >= 11 + 10
    safekern.sync()
    want = np.array([x[i:i + 11].sum() for i in range(10)])
    np.testing.assert_allclose(out.copy_to_host(), want)
    K.window_sum[1, 16](out, cuda.to_device(x), np.int64(12))   # reaches x[20]: checked
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "x" and info.value.index == 20
    # A float n breaks the predicate's integer test: the checked kernel runs (numba's range
    # of a float is a typing error on a GPU; on the simulator it is Python's).
    window = holds(K.window_sum)
    assert not window((out, x, 11.0), (1, 16)) and window((out, x, 11), (1, 16))


def test_predicates_see_every_form_of_launch_configuration():
    tile = holds(K.transpose_tile)
    a, out = np.zeros((8, 8)), np.zeros((8, 8))
    assert tile((out, a), (1, (8, 8))) and tile((out, a), ((1,), (8, 8, 1)))
    assert tile((out, a), (1, 8)) and not tile((out, a), (1, 9))
    assert not tile((out, a), (1, (8, 9)))
    assert not tile((out, object()), (1, (8, 8)))          # no .shape: not provable


def test_a_launch_where_some_predicates_hold_runs_a_variant_for_those():
    # n too large for x: the window's check stays; out and a are fine: their checks go.
    variants = K.two_windows.dispatch.variants or K.two_windows.dispatch.launch_variants()
    texts = [p.text() for p in variants.predicates]
    assert "a.shape[0] >= out.shape[0]" in texts and len(texts) == 2
    out = cuda.to_device(np.zeros(10, np.float64))
    a, x = np.arange(10, dtype=np.float64), np.arange(12, dtype=np.float64)
    K.two_windows[1, 16](out, cuda.to_device(a), cuda.to_device(x), 5)   # x reaches x[13]
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "x" and info.value.index >= 12
    [partial] = variants.kernels()
    assert partial.build.subset == frozenset(
        p for p in variants.predicates if p.text() == "a.shape[0] >= out.shape[0]")
    source = partial.rewritten.source
    # (x's check in the loop's checked copy, which ends the thread: exit_mode.py)
    assert "_sk_load(a," not in source and "_sk_load_exit(a," not in source
    assert "_sk_load_exit(x," in source or "_sk_load(x," in source
    K.two_windows[1, 16](out, cuda.to_device(a), cuda.to_device(x), 3)   # all hold
    safekern.sync()
    want = a + np.array([x[i:i + 3].sum() for i in range(10)])
    np.testing.assert_allclose(out.copy_to_host(), want)
    assert len(variants.kernels()) == 2


def test_the_switch_turns_launch_predicates_off(monkeypatch):
    set_safekern(monkeypatch, LAUNCH_PREDICATES="0")
    try:
        @safekern.jit
        def scale_again(out, a):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i] * 2

        [a] = [e for e in scale_again.check_report() if e.array == "a"]
        assert a.status == "checked" and not scale_again.rewritten.launch_predicates
    finally:
        set_safekern(monkeypatch, LAUNCH_PREDICATES=None)


_WARM = """
import json, sys
import numpy as np
from numba import cuda
import safekern
from safekern.backends.numba import stored
from tests.numba import launch_kernels as K
main = K.scale_into.rewritten           # (a build on the simulator rewrites afresh: look first)
flags = [stored.is_stored(main), main.launch_variant is not None and
         stored.is_stored(main.launch_variant)]
out = cuda.to_device(np.zeros(100, np.float32))
K.scale_into[4, 32](out, cuda.to_device(np.arange(100, dtype=np.float32)))
safekern.sync()
good = bool((out.copy_to_host() == 2 * np.arange(100)).all())
variant = K.scale_into.dispatch.variants
K.scale_into[4, 32](out, cuda.to_device(np.arange(60, dtype=np.float32)))
try:
    safekern.sync()
    err = None
except safekern.BoundsError as e:
    err = [e.array, e.size]
print(json.dumps({"stored": flags[0], "variant_stored": flags[1], "good": good,
                  "variant": bool(variant), "error": err}))
"""


def test_a_warm_start_keeps_the_predicates_and_the_variant(tmp_path):
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "lv.cache"),
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _WARM], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert [r["stored"] for r in runs] == [False, True]
    # The second process launches the stored variant: no front end run for it either.
    assert [r["variant_stored"] for r in runs] == [False, True]
    assert all(r["good"] and r["variant"] for r in runs)
    assert all(r["error"] == ["a", 60] for r in runs)


def test_numba_cache_never_confuses_the_checked_kernel_with_its_variant():
    """numba's cache=True files are named by the user's function whichever build compiles;
    the checked kernel's and its launch variant's index keys carry tags of their own (the
    rewrite's digest: disk_cache.py), so neither ever loads the other's binary."""
    from safekern.backends.numba.build import compile_rewritten
    from safekern.backends.numba.disk_cache import rewrite_tag

    main = K.scale_into.build.compilable_rewrite()
    assert rewrite_tag(main) != rewrite_tag(main.launch_variant)
    names = {compile_rewritten(main, {}).__qualname__,
             compile_rewritten(main.launch_variant, {}).__qualname__}
    assert names == {"scale_into"}


def test_a_name_holding_a_rebound_parameter_s_launch_value_is_proven_by_the_argument():
    """`j = idx` before `idx` is rebound (stumpy's kernel): `table[j]` is proven at launch by
    the argument; an argument past the table runs the checked kernel, which names it."""
    [entry] = [e for e in K.entry_value.check_report() if e.array == "table"]
    assert entry.status == "proven at launch" and "table.shape[0] >= idx + 1" in entry.predicate
    table = cuda.to_device(np.arange(10, dtype=np.float32))
    out = cuda.to_device(np.zeros(40, np.float32))
    K.entry_value[2, 32](4, table, out)
    safekern.sync()
    i = np.arange(40)
    np.testing.assert_array_equal(out.copy_to_host(), 4 + i + i % 3)
    assert ran_variant(K.entry_value)
    K.entry_value[2, 32](10, table, out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.array, err.index, err.size, err.kernel) == ("table", 10, 10, "entry_value")
