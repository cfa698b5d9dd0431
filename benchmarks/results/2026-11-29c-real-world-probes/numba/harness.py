"""Run each kernels/<name>.py under plain numba.cuda.jit and under safekern.jit; compare."""
import importlib.util, sys, os, traceback, warnings, time
import numpy as np
from numba import cuda
import safekern

HERE = os.path.dirname(os.path.abspath(__file__))

def load(path, mode):
    name = os.path.splitext(os.path.basename(path))[0] + "_" + mode
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.jit = mod.kjit = cuda.jit if mode == "plain" else safekern.jit
    mod.MODE = mode
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod

def as_list(out):
    if isinstance(out, dict):
        return list(out.items())
    if isinstance(out, (list, tuple)):
        return list(enumerate(out))
    return [(0, out)]

def compare(a, b, tol):
    diffs = []
    for (k, x), (_, y) in zip(as_list(a), as_list(b)):
        x = np.asarray(x); y = np.asarray(y)
        if x.shape != y.shape or x.dtype != y.dtype:
            diffs.append(f"{k}: shape/dtype {x.shape}{x.dtype} vs {y.shape}{y.dtype}"); continue
        if x.dtype.names:
            x = x.view(np.uint8); y = y.view(np.uint8)
        if tol:
            ok = np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
        if not ok:
            diffs.append(f"{k}: values differ (max |d| = {np.nanmax(np.abs(x.astype(float) - y.astype(float))) if x.dtype.kind in 'iufb' else '?'})")
    return diffs

def main(names):
    for n in names:
        path = os.path.join(HERE, "kernels", n if n.endswith(".py") else n + ".py")
        t0 = time.time()
        print(f"===== {n}")
        try:
            pm = load(path, "plain")
            pout = pm.run(pm)
        except Exception:
            print("PLAIN FAILS:"); traceback.print_exc(); continue
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                sm = load(path, "safe")
                sout = sm.run(sm)
                safekern.sync()
            for x in w:
                if "safekern" in str(type(x.message)) or "Unchecked" in type(x.message).__name__:
                    print("  warning:", type(x.message).__name__, str(x.message).splitlines()[0])
        except Exception:
            print("SAFE RAISED:"); traceback.print_exc(); continue
        d = compare(pout, sout, getattr(pm, "TOL", 0))
        print("SAME" if not d else "DIFFERENT: " + "; ".join(d))
        for bugname in [a for a in dir(sm) if a.startswith("bug")]:
            try:
                getattr(sm, bugname)(sm)
                safekern.sync()
                print(f"  {bugname}: NOT REPORTED")
            except Exception as e:
                msg = str(e).splitlines()
                print(f"  {bugname}: {type(e).__name__}: {msg[0] if msg else ''} | {' / '.join(m.strip() for m in msg[1:3])}")
                if not isinstance(e, safekern.BoundsError if hasattr(safekern,'BoundsError') else IndexError):
                    traceback.print_exc()
            try: safekern.sync()
            except Exception as e: print("   (late)", type(e).__name__, str(e).splitlines()[0])
        print(f"  ({time.time()-t0:.1f}s)")

if __name__ == "__main__":
    main(sys.argv[1:])
