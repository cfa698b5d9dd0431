"""numba's `cuda.jit` replaced by `safekern.jit` in every Python process of a numba suite run
(tools/numba_suite.py): this folder is put first on PYTHONPATH of the safekern children, with
SAFEKERN_SUITE_JIT=1, so the child itself and every process it starts (numba's tests run code
in subprocesses and multiprocessing pools: cache tests, test_print) get the replacement.

The replacement is made when numba.cuda is first imported (nothing is imported before: a
process that never uses numba pays nothing). Every caller gets safekern.jit -- the tests, and
user modules such as the cache tests' modules imported from a temporary folder -- except numba
itself (vectorize, gufuncs, reductions keep numba's jit) and safekern, which builds on numba's.
A sitecustomize further on the path is still run.
"""
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
#: Callers that keep numba's own jit (module name prefixes), but numba's tests.
KEEP_NUMBA = ("numba.", "numba_cuda.", "safekern.")
TESTS = "numba.cuda.tests."


def install_now(numba_cuda=None) -> None:
    """Make `numba.cuda.jit` safekern.jit for every caller outside numba and safekern."""
    if numba_cuda is None:
        import numba.cuda as numba_cuda

    original = numba_cuda.jit
    if getattr(original, "_safekern_compat", False):
        return

    def jit(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__") or ""
        if caller in ("numba", "safekern") or (caller.startswith(KEEP_NUMBA)
                                                and not caller.startswith(TESTS)):
            return original(*args, **kwargs)
        import safekern

        return safekern.jit(*args, **kwargs)

    jit._safekern_compat = True
    jit.__wrapped__ = original
    jit.__doc__ = original.__doc__
    numba_cuda.jit = jit


class _AfterNumbaCuda:
    """A meta-path finder that replaces the jit once numba.cuda has been executed."""

    safekern_suite = True        # (this file may run twice, as two modules: one class each)

    def find_spec(self, name, path=None, target=None):
        if name != "numba.cuda":
            return None
        for finder in sys.meta_path:
            if getattr(finder, "safekern_suite", False) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_then_install(module):
            exec_module(module)
            sys.meta_path[:] = [f for f in sys.meta_path
                                if not getattr(f, "safekern_suite", False)]
            install_now(module)

        loader.exec_module = exec_then_install
        return spec


def install() -> None:
    if "numba.cuda" in sys.modules:
        install_now()
    elif not any(getattr(f, "safekern_suite", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterNumbaCuda())


def _chain() -> None:
    """Run the sitecustomize this one hides, if there is one further on the path."""
    rest = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if os.environ.get("SAFEKERN_SUITE_JIT") == "1":
    install()
_chain()
