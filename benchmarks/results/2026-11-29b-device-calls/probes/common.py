"""The probes' helpers (exec'd by numba_user_kernels_*.py): `check` records a probe's outcome,
`both` runs a kernel plain and checked on copies of the same arrays and compares the bytes."""
results = []
def check(name, fn):
    try:
        ok = fn()
        results.append((name, "ok" if ok else "WRONG"))
    except Exception as e:
        import traceback
        results.append((name, f"EXC {type(e).__name__}: {str(e)[:400]}"))

def both(kern_src_fn, launch, *arrays):
    outs = []
    for jit in (cuda.jit, safekern.jit):
        k = kern_src_fn(jit)
        arrs = [a.copy() for a in arrays]
        d = [cuda.to_device(a) for a in arrs]
        launch(k, *d)
        cuda.synchronize()
        outs.append([x.copy_to_host() for x in d])
    return all((a.tobytes() == b.tobytes()) for a, b in zip(*outs))
