"""Compiling without the CUDA toolkit's libraries says which extra to install."""
import os
import subprocess
import sys
import textwrap

import pytest

import safekern
from safekern._toolkit import explain_missing_toolkit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs without the simulator (PTX needs numba's real compiler). cuda-pathfinder is made to find
# no NVRTC or NVVM, as on a machine where `pip install safekern` left out the cu13/cu12 extra.
PROBE = textwrap.dedent('''
    import sys
    try:
        import cuda.pathfinder._dynamic_libs.load_nvidia_dynamic_lib as finder
        from cuda.pathfinder import DynamicLibNotFoundError
        real = finder._load_lib_no_cache
    except (ImportError, AttributeError) as exc:
        print("SKIP: this cuda-pathfinder cannot be made to miss a library:", exc)
        sys.exit(0)

    def hide(libname, *args, **kwargs):
        if libname in ("nvrtc", "nvvm"):
            raise DynamicLibNotFoundError(f'Failure finding "lib{libname}.so": hidden by the test')
        return real(libname, *args, **kwargs)

    finder._load_lib_no_cache = hide
    import safekern
    from tests.numba.numba_kernels import gather
    try:
        gather.compile_ptx("void(float32[::1], float32[::1], int64[::1])")
    except safekern.CompilationError as exc:
        print("MESSAGE:", exc)
        print("CAUSE:", type(exc.__cause__).__name__)
''')


@pytest.mark.timeout(300)
def test_compile_ptx_without_nvrtc_names_the_extra():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    if proc.stdout.startswith("SKIP:"):
        pytest.skip(proc.stdout.strip())
    assert "MESSAGE: compiling to PTX needs the CUDA toolkit's NVRTC and NVVM" in proc.stdout
    assert "pip install 'safekern[cuda13]'" in proc.stdout
    assert "pip install 'safekern[cuda12]'" in proc.stdout
    assert "(in 'gather')" in proc.stdout
    assert "CAUSE: DynamicLibNotFoundError" in proc.stdout


def _error(name, base=Exception):
    return type(name, (base,), {})


@pytest.mark.parametrize("name,base", [("DynamicLibNotFoundError", RuntimeError),
                                       ("NvvmSupportError", ImportError),
                                       ("NvrtcSupportError", ImportError)])
def test_missing_library_errors_become_compilation_errors(name, base):
    original = _error(name, base)("libnvvm.so: not found\nsearched: ...")
    with pytest.raises(safekern.CompilationError) as info:
        with explain_missing_toolkit("launching", "k"):
            raise original
    assert info.value.__cause__ is original
    assert str(info.value).startswith(f"launching needs the CUDA toolkit's NVRTC and NVVM "
                                      f"libraries, which were not found ({name}: libnvvm.so: "
                                      "not found)")


def test_other_errors_pass_through():
    with pytest.raises(KeyError):
        with explain_missing_toolkit("compiling to PTX"):
            raise KeyError("x")
