#!/usr/bin/env bash
# One GPU session of the cupy-state work (run from the repository root; logs under $1;
# steps in $2). The peer step needs .cupy_peer/ (python -m tests.support.cupy_peer fetch, here,
# before staging; the run carries it).
out=${1:-/tmp}
steps=${2:-tests,planted,peer,overhead}   # any of these, comma-separated
has() { [[ ",$steps," == *",$1,"* ]]; }
py() { timeout "$1" python3 "${@:2}"; }
has tests && { py 150 -m pytest -q -p no:cacheprovider -m "gpu or nvrtc" tests/cupy/test_const_state_gpu.py tests/cupy/test_elementwise_gpu.py tests/cupy/test_const_state.py tests/cupy/test_elementwise.py -rfE > "$out/gpu_tests.log" 2>&1; echo "gpu tests rc=$?"; tail -25 "$out/gpu_tests.log"; }
# the planted bug: module state not seen -> variants run; these tests must fail
has planted && { py 60 -c "import safekern.frontend.c.cuda_rewrite as r; r.module_state = lambda ps: (); import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-m', 'gpu', 'tests/cupy/test_const_state_gpu.py']))" > "$out/planted.log" 2>&1; echo "planted rc=$? (must be 1)"; grep -E "passed|failed" "$out/planted.log" | tail -8; }
has peer && { py 300 -m tests.support.cupy_peer run > "$out/peer.md" 2>&1; echo "peer rc=$?"; grep -v "| passed | passed |" "$out/peer.md" | tail -30; }
# overhead: CuPy's kernel vs safekern's, 2**24 elements, median of 200 launches (CUDA events)
has overhead && py 120 - <<'PY' 2>&1 | tee "$out/overhead.txt"
import cupy as cp, numpy as np, safekern, safekern.cupy as skcp
def med(f, reps=200):
    f(); cp.cuda.Device().synchronize(); ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event(); a.record(); f(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
    return float(np.median(ts))
n = 1 << 24
x = cp.arange(n + 1, dtype=cp.float32); w = cp.ones(4, cp.float32)
y = cp.empty(n, cp.float32)
cases = [("elementwise y = x[i + 1] (raw x)", ("raw T x", "T y", "y = x[i + 1]", "shift"), lambda k: k(x, y), "ElementwiseKernel"),
         ("elementwise z = x * x (no raw)", ("T x", "T z", "z = x * x", "sq"), lambda k: k(y, y), "ElementwiseKernel"),
         ("reduction sum x * w[_j % 4] (raw w)", ("T x, raw T w", "T y", "x * w[_j % 4]", "a + b", "y = a", "0", "wsum"), lambda k: k(y, w), "ReductionKernel")]
for label, args, call, cls in cases:
    kp, ks = getattr(cp, cls)(*args), getattr(skcp, cls)(*args)
    tp, tk = med(lambda: call(kp)), med(lambda: call(ks))
    safekern.sync()
    print(f"{label}: CuPy {tp:.1f} us, safekern {tk:.1f} us ({100 * (tk / tp - 1):+.1f}%)")
PY
