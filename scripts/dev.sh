#!/usr/bin/env bash
# Set-up and entry points for a fresh machine. Usage:
#   bash scripts/dev.sh demo            # set up, then run the demo (GPU if present, else simulator)
#   bash scripts/dev.sh test [ARGS...]  # set up, then run the test suite (pytest ARGS)
#   bash scripts/dev.sh docs            # set up, then build the documentation site (warnings are errors)
#   bash scripts/dev.sh oldest [ARGS...] # the oldest supported versions: see below
# Set-up: Debian's PoCL OpenCL driver and, for `test`, Debian's redis-server (when root and
# apt-get exist), a virtual environment in
# .venv (SAFEKERN_VENV overrides) with safekern and its CI extras. Re-runs reuse both.
#
# `oldest` checks the oldest versions README.md claims: a new virtual environment in
# .venv-oldest (SAFEKERN_OLDEST_VENV overrides) with Python 3.11 (SAFEKERN_OLDEST_PYTHON
# overrides), safekern installed as a user installs it (`pip install .`, not editable) with the
# pins of .ci/oldest-constraints.txt and the CUDA 12 toolkit wheels; it checks the versions that
# were installed, runs the README's example from outside the repository, then the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${SAFEKERN_VENV:-.venv}"
PY="${PYTHON:-python3}"

install_opencl_driver() {
    # The PoCL inside the pyopencl wheel fails here ("unknown target CPU 'generic'");
    # Debian's pocl-opencl-icd runs kernels on the CPU for real.
    if ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1; then return 0; fi
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian's pocl-opencl-icd" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 >/dev/null
    else
        echo "setup: warning: no PoCL OpenCL driver and cannot install one; OpenCL tests will skip" >&2
    fi
}

install_redis_server() {
    # The kernel cache's remote-tier tests start their own redis-server on 127.0.0.1 (Debian's);
    # without one they skip.
    if command -v redis-server >/dev/null 2>&1; then return 0; fi
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian's redis-server (for the remote cache tests)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
    else
        echo "setup: warning: no redis-server and cannot install one; remote cache tests will skip" >&2
    fi
}

setup_venv() {
    local stamp="$VENV/.safekern-setup"
    local want
    want="$(sha256sum pyproject.toml | cut -c1-16)"
    if [ -x "$VENV/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    echo "setup: creating $VENV and installing safekern[ci]" >&2
    [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
    "$VENV/bin/python" -m pip install -q -e ".[ci]"
    echo "$want" > "$stamp"
}

run_oldest() {
    local venv="${SAFEKERN_OLDEST_VENV:-.venv-oldest}"
    local py="${SAFEKERN_OLDEST_PYTHON:-python3.11}"
    local constraints=.ci/oldest-constraints.txt
    if ! command -v "$py" >/dev/null 2>&1; then
        echo "oldest: $py not found (SAFEKERN_OLDEST_PYTHON names another)" >&2
        return 1
    fi
    local stamp="$venv/.safekern-oldest"
    local want
    want="$(cat pyproject.toml "$constraints" | sha256sum | cut -c1-16)"
    if ! { [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; }; then
        echo "oldest: creating $venv ($("$py" --version)) with $constraints" >&2
        rm -rf "$venv"
        "$py" -m venv "$venv"
        "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
        "$venv/bin/python" -m pip install -q -c "$constraints" ".[cuda12,opencl,test]"
        echo "$want" > "$stamp"
    else
        # The environment is there; this checkout's safekern replaces the one installed before.
        "$venv/bin/python" -m pip install -q --no-deps --force-reinstall .
    fi
    local py_abs here outside
    py_abs="$(cd "$(dirname "$venv/bin/python")" && pwd)/python"
    here="$(pwd)"
    outside="$(mktemp -d)"
    # From outside the checkout, the installed safekern is imported, as a user's program does.
    (cd "$outside" && "$py_abs" - "$here/$constraints" "$here" <<'EOF'
import os, re, sys
from importlib.metadata import version
import safekern
constraints, checkout = sys.argv[1], sys.argv[2]
source = os.path.join(checkout, "safekern") + os.sep
assert not safekern.__file__.startswith(source), f"imported the checkout: {safekern.__file__}"
wrong = []
for line in open(constraints):
    m = re.match(r"^([\w.-]+)==([\w.]+)", line.strip())
    if m and version(m.group(1)) != m.group(2):
        wrong.append(f"{m.group(1)} {version(m.group(1))} (pinned {m.group(2)})")
assert not wrong, "not the pinned versions: " + ", ".join(wrong)
print(f"oldest: Python {sys.version.split()[0]}, " + ", ".join(
    f"{n} {version(n)}" for n in ("numba-cuda", "numba", "numpy", "cuda-bindings",
                                  "nvidia-cuda-nvrtc-cu12", "pyopencl", "libclang")),
      f"; safekern from {safekern.__file__}", file=sys.stderr)
EOF
    )
    # The README's example, as a user runs it: saved as example.py, on the CUDA simulator.
    "$py_abs" - "$outside/example.py" <<'EOF'
import sys
sys.path.insert(0, ".")
from tests.support.doc_blocks import blocks_of
open(sys.argv[1], "w").write(next(b for b in blocks_of("README.md") if b.lang == "python").code)
EOF
    local out rc=0
    out="$(cd "$outside" && NUMBA_ENABLE_CUDASIM=1 SAFEKERN_CACHE="$outside/k.cache" \
           "$py_abs" example.py 2>&1)" || rc=$?
    if [ "$rc" != 1 ] || ! grep -q "^safekern.BoundsError: index 1000000 out of bounds" <<<"$out"; then
        echo "oldest: the README's example did not raise its BoundsError (exit $rc):" >&2
        echo "$out" >&2
        return 1
    fi
    echo "oldest: the README's example raised $(grep "^safekern.BoundsError" <<<"$out")" >&2
    rm -rf "$outside"
    export OCL_ICD_VENDORS="${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
    # test_a_binary_the_driver_rejects_is_a_miss replaces pyopencl's _Program class with a
    # function, which PyOpenCL 2024.1's own isinstance() checks reject: a limit of the test's
    # stand-in, not of safekern (the newest PyOpenCL runs it in the main job).
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
        --deselect "tests/opencl/test_opencl_build.py::test_a_binary_the_driver_rejects_is_a_miss" "$@"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    demo)
        setup_venv
        exec "$VENV/bin/python" -m safekern demo "$@" ;;
    test)
        install_opencl_driver
        install_redis_server
        setup_venv
        # CuPy's test_raw.py and headers for tests/compat/test_cupy_raw_sources.py (not
        # committed here: third-party code), fetched once into the git-ignored .cupy-src/.
        [ -f .cupy-src/test_raw.py ] || "$VENV/bin/python" tools/cupy_suite.py \
            --fetch https://github.com/cupy/cupy.git --tag v14.2.0 \
            || echo "test: warning: CuPy's sources not fetched; test_cupy_raw_sources skips" >&2
        # Use the system's OpenCL ICDs, not a driver bundled in a wheel.
        export OCL_ICD_VENDORS="${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
        exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@" ;;
    docs)
        setup_venv
        rm -rf docs/_build/html
        # -W: a warning (a broken link, a docstring Sphinx cannot read) fails the build.
        "$VENV/bin/python" -m sphinx -W --keep-going -q -b html docs docs/_build/html
        echo "docs: built docs/_build/html/index.html" ;;
    oldest)
        install_opencl_driver
        run_oldest "$@" ;;
    *)
        echo "usage: bash scripts/dev.sh demo | test [pytest args] | docs | oldest [pytest args]" >&2
        exit 2 ;;
esac
