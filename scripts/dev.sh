#!/usr/bin/env bash
# Set-up and entry points for a fresh machine. Usage:
#   bash scripts/dev.sh demo            # set up, then run the demo (GPU if present, else simulator)
#   bash scripts/dev.sh test [ARGS...]  # set up, then run the test suite (pytest ARGS)
# Set-up: Debian's PoCL OpenCL driver (when root and apt-get exist), a virtual environment in
# .venv (SAFEKERN_VENV overrides) with safekern and its CI extras. Re-runs reuse both.
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

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    demo)
        setup_venv
        exec "$VENV/bin/python" -m safekern demo "$@" ;;
    test)
        install_opencl_driver
        setup_venv
        # Use the system's OpenCL ICDs, not a driver bundled in a wheel.
        export OCL_ICD_VENDORS="${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
        exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@" ;;
    *)
        echo "usage: bash scripts/dev.sh demo | test [pytest args]" >&2
        exit 2 ;;
esac
