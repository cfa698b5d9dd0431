"""Run without the simulator (no GPU needed): where a checked kernel decorated with numba's
cache=True keeps its binaries -- numba's own on-disk cache, named as numba names the user's
function, keyed apart per build (backends/numba/disk_cache.py). Prints {check: "ok" or what
went wrong} as JSON for tests/numba/test_caching_semantics.py."""
import json
import traceback

from numba import cuda
from numba.cuda import types

from tests.numba import caching_kernels as K

CHECKS = {}
A = types.Array(types.int64, 1, "C")
SIG = (A, A, types.int64)


class Codegen:
    """What numba's index key asks of a code generator."""

    def magic_tuple(self):
        return ("nvptx64-nvidia-cuda", "sm_90", "")


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def key(dispatcher, sig):
    return dispatcher._cache._index_key(sig, Codegen())


def numbas(kernel):
    """Plain numba's cache=True dispatcher of the kernel's function."""
    return cuda.jit(cache=True)(kernel.py_func)


@check
def checked_build_named_as_numba_names_the_function():
    ours, theirs = K.gather.numba_dispatcher()._cache, numbas(K.gather)._cache
    assert ours._impl.filename_base == theirs._impl.filename_base, \
        (ours._impl.filename_base, theirs._impl.filename_base)
    assert ours.cache_path == theirs.cache_path


@check
def numbas_own_build_shares_numbas_key():
    plain = K.add_z.dispatch.plain().numba_dispatcher()
    user = (A, A)
    assert key(plain, user) == key(numbas(K.add_z), user)
    assert plain._cache._impl.filename_base == numbas(K.add_z)._cache._impl.filename_base


@check
def checked_build_keyed_apart_from_numbas():
    full = SIG + (types.int64,)
    ours = key(K.gather.numba_dispatcher(), full)
    assert ours[-1][0] == "safekern", ours
    assert ours != key(numbas(K.gather), full)


@check
def closures_keyed_by_their_values():
    full = SIG + (types.int64,)
    assert key(K.closure3.numba_dispatcher(), full) != key(K.closure5.numba_dispatcher(), full)


@check
def launch_variant_keyed_apart_from_the_checked_kernel():
    from safekern.backends.numba.build import LaunchVariantBuild
    from safekern.backends.numba.kernel import CheckedKernel

    variant = CheckedKernel(K.gather.py_func, None, K.gather.options, parsed=K.gather.parsed,
                            build=LaunchVariantBuild(K.gather.build))
    full = SIG + (types.int64,)
    assert key(variant.numba_dispatcher(), full) != key(K.gather.numba_dispatcher(), full)


@check
def launch_config_specializations_keyed_as_their_build():
    disp = K.gather.numba_dispatcher()
    config = ((1, 1, 1), (32, 1, 1), 0)
    made = disp._get_launch_config_specialization(config)
    assert disp._get_launch_config_specialization(config) is made
    assert made._cache._impl.filename_base == disp._cache._impl.filename_base
    got = made._cache._index_key(SIG + (types.int64,), Codegen())
    assert ("safekern", disp._cache._safekern_tag) in got and ("launch_config", config) in got, \
        got


@check
def stats_before_any_launch():
    stats = K.gather.stats
    assert dict(stats.cache_hits) == {} and dict(stats.cache_misses) == {}, stats
    assert stats.cache_path == numbas(K.gather).stats.cache_path


if __name__ == "__main__":
    out = {}
    for name, fn in CHECKS.items():
        try:
            fn()
            out[name] = "ok"
        except Exception:        # noqa: BLE001 - reported to the test
            out[name] = traceback.format_exc()[-1500:]
    print(json.dumps(out))
