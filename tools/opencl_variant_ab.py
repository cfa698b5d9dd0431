"""GPU A/B of OpenCL check designs for bfs_step and hotspot, in plain PyOpenCL (issue 25).

    python tools/opencl_variant_ab.py [--rounds 9] [--target-ms 20] [--cases bfs_step,hotspot]
                                      [--out ab.md] [--quick]     # NVIDIA's platform when there
    python tools/opencl_variant_ab.py --compile-only [--quick]     # builds every text (PoCL here)

The device is the benchmark's (benchmarks/backends.opencl_device: NVIDIA's platform, else a
GPU, else the first: PoCL's CPU here, whose times say nothing). Each case runs at the
benchmark's size and data (benchmarks/cases.py, the OpenCL sources and launches of
benchmarks/opencl_cases.py). Rows:
- `plain-call`, `safekern`: the benchmark's own paths, `pyopencl.Program` and
  `safekern.opencl.Program` called as OpenCLLanguage.launch calls them (host path included;
  `safekern` syncs with safekern.sync() after each sample, as the benchmark's checked mode).
  For `safekern`, every launch's enqueue is watched (a proxy of PyOpenCL's
  enqueue_nd_range_kernel in backends/opencl/kernel.py, ~1 us a launch): which kernel ran
  (plain = the user's binary, variant k/n = without k of its n checks, checked) and its
  global/local sizes.
- text rows, each a `pyopencl.Program` of one full text, its arguments set once and launched
  by enqueue_nd_range_kernel (no host path): `plain` (the user's source), `current` (exactly
  the text(s) the `safekern` row's launches run, found by one spied launch, with the hidden
  arguments that launch passes: a zeroed failure buffer of its own and each pointer
  argument's bytes), `checked` (the rewrite no predicate thins: what a launch whose
  predicates fail runs), and variants, each a text edit of `current` that must apply (else
  the tool stops: the rewrite changed). Unsound variants are measurements (notes say why).
Every sample is `steps` steps (the benchmark's calibration: --target-ms of plain-call) with a
profiling event per launch; per launch: `kernel` = mean event duration, `span` = last end -
first start over the launches (the benchmark's measure; span - kernel = idle gaps), `host` =
the enqueue loop's wall time. Rows are interleaved round-robin (order rotated per round);
the table gives medians over rounds, ratios of kernel time to plain and current, whether the
output equals plain-call's bit for bit and the failure buffer stayed zero.
"""
from __future__ import annotations

import argparse
import collections
import math
import os
import re
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import backends, cases, modes, opencl_cases  # noqa: E402

CASES = ("bfs_step", "hotspot")
_SPLIT = '#line 1 "'
TEST = "if (__SK_UNLIKELY(*__sk_fp)) return;"
_IX32 = re.compile(r"__sk_ix32\(\(int\)\((\w+)\), (__sk_n_\w+), (0x[0-9a-f]+L), (\d+), "
                   r"__sk_fb, __sk_fp\)")
_STORE = re.compile(r"\]\s*(?:=[^=]|[-+*/%&|^]=|<<=|>>=)|\+\+|--|\b(?:atom\w*|atomic\w*|"
                    r"barrier|work_group_barrier|mem_fence|vstore\w*)\s*\(")


# -- edits of the launched text -------------------------------------------------------------

def _sub(text, pattern, repl, what, count=0, literal=False):
    """`text` with `pattern` replaced; it must match (else the rewrite changed: say so)."""
    if literal:
        n = text.count(pattern)
        out = text.replace(pattern, repl)
    else:
        out, n = re.subn(pattern, repl, text, count=count, flags=re.S)
    if n == 0:
        raise SystemExit(f"opencl_variant_ab: cannot make variant '{what}': {pattern!r} is "
                         "not in the launched source (the rewrite changed; update this tool)")
    return out


def _parts(text):
    at = text.index(_SPLIT)
    return text[:at], text[at:]


def _open_of(text, close):
    """Index of the '{' matching the '}' at `close`."""
    depth = 0
    for i in range(close, -1, -1):
        depth += {"}": 1, "{": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced braces")


def _is_loop_body(text, brace):
    head = text[:brace].rstrip()
    if not head.endswith(")"):
        return head.endswith("do")
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            return re.search(r"\b(for|while)\s*$", head[:i]) is not None
    return False


def _reaches_test(text, at):
    """Whether every path from `at` reaches a flag test (or the kernel's end) through closing
    braces only: of if/else blocks, or of a loop body that starts with a test (the next
    iteration tests at once; the exit reaches what follows the loop) and whose increment
    stores nothing."""
    while True:
        rest = text[at:]
        at += len(rest) - len(rest.lstrip())
        if text.startswith(TEST, at):
            return True
        if at >= len(text) or text[at] != "}":
            return False
        brace = _open_of(text, at)
        if text[:brace].count("{") == text[:brace].count("}"):
            return True                           # the kernel's own closing brace
        if _is_loop_body(text, brace):
            header = text[:brace].rstrip()
            if not text[brace + 1:].lstrip().startswith(TEST) or header.endswith("do") or \
                    _STORE.search(header[header.rfind(";") + 1:]):
                return False
        at += 1
        if re.match(r"\s*else\b", text[at:]):
            return False


def drop_redundant_tests(kernel):
    """(b) Remove each test from which every path reaches another test through closing braces
    only (_reaches_test): the same work-items return at the same stores."""
    out, pos = kernel, 0
    while (p := out.find(TEST, pos)) >= 0:
        q = p + len(TEST)
        if _reaches_test(out, q):
            out = out[:p] + out[q:].lstrip(" ")
        else:
            pos = q
    return out


def tests_before_stores(kernel):
    """(d) Keep a test only where code up to the next test may store (a store, ++/--, an
    atomic or barrier call), at the top or end of a loop body (a loop goes round at most once
    more after a failure: no spin); drop the rest."""
    out, pos = kernel, 0
    while (p := out.find(TEST, pos)) >= 0:
        q = p + len(TEST)
        nxt = out.find(TEST, q)
        between = out[q:nxt if nxt >= 0 else len(out)]
        before, after = out[:p].rstrip(), out[q:].lstrip()
        head = before.endswith("{") and _is_loop_body(out, len(before) - 1)
        tail = after.startswith("}") and _is_loop_body(out, _open_of(out, len(out) - len(after)))
        if _STORE.search(between) or head or tail:
            pos = q
        else:
            out = out[:p] + out[q:].lstrip(" ")
    return out


def _statement_start(text, at):
    """Start of the statement holding position `at` (after the last `;` outside parentheses,
    `{` or `}` before it)."""
    depth, starts = 0, []
    for i, c in enumerate(text[:at]):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c in "{}" or (c == ";" and depth == 0):
            starts.append(i + 1)
    return starts[-1] if starts else 0


def precheck(kernel):
    """(c) An index that is a plain identifier (a private local or parameter) is checked by a
    statement before its statement, which returns at once; the access itself is unchecked.
    Not in loop headers, nor where the statement assigns the identifier before the access."""
    out, done = kernel, 0
    for m in reversed(list(_IX32.finditer(kernel))):
        var, n, code, axis = m.groups()
        start = _statement_start(out, m.start())
        head = out[start:m.start()]
        if re.match(r"\s*(for|while|do)\b", head) or re.search(
                rf"(\b{var}\s*([-+*/%&|^]?=[^=]|\+\+|--))|((\+\+|--)\s*{var}\b)", head):
            continue
        guard = (f"if (__SK_UNLIKELY((uint){var} >= (uint)({n} < 2147483648L ? {n} : "
                 f"2147483648L))) {{ __sk_fail_bits(__sk_fb, {code}, {var}, {n}, {axis}, 0); "
                 "return; } ")
        out = out[:m.start()] + var + out[m.end():]
        lead = len(out[start:]) - len(out[start:].lstrip())
        out = out[:start + lead] + guard + out[start + lead:]
        done += 1
    if not done:
        raise SystemExit("opencl_variant_ab: cannot make variant 'precheck': no __sk_ix32 of "
                         "an identifier (the rewrite changed; update this tool)")
    if ", __sk_fp)" not in out:                  # nothing sets the flag: its tests are dead
        out = out.replace(" " + TEST, "").replace(TEST, "")
    return out


def bfs_variants(cur):
    """{name: (text, note)}: edits of the launched bfs_step text."""
    prelude, kernel = _parts(cur)
    cold = "#define __SK_COLD __attribute__((noinline))"
    inline = _sub(prelude, cold, "#define __SK_COLD", "fail-inline", literal=True)
    out = {"fail-inline": (inline + kernel,
                           "(a) sound: __SK_COLD empty: __sk_fail_bits/__sk_fail may be "
                           "inlined, the compiler can thread the flag")}
    fewer = drop_redundant_tests(kernel)
    if fewer == kernel:
        raise SystemExit("opencl_variant_ab: cannot make variant 'redundant-tests': no "
                         "redundant test (the rewrite changed; update this tool)")
    out["redundant-tests"] = (prelude + fewer,
                              f"(b) sound: {kernel.count(TEST) - fewer.count(TEST)} test(s) "
                              "whose every path reaches another test through `}` only")
    pre = precheck(kernel)
    out["precheck"] = (prelude + pre,
                       "(c) sound here: `if ((uint)k >= cap) {record; return;}` before the "
                       "statement, access unchecked (k, v private locals the statement does "
                       "not assign first); a kernel with barriers may not return (its group "
                       "would wait at the barrier: the exits pass jumps to it instead)")
    out["precheck+inline"] = (inline + pre, "(c)+(a) sound here, as (c)")
    stores = tests_before_stores(kernel)
    if stores == fewer:
        raise SystemExit("opencl_variant_ab: variant 'before-stores' is 'redundant-tests' "
                         "(the rewrite changed; update this tool)")
    out["before-stores"] = (prelude + stores,
                            f"(d) sound here: {stores.count(TEST)} of {kernel.count(TEST)} "
                            "tests kept, before each store and once per loop iteration; a "
                            "failed item goes on loading element-0 stand-ins (in bounds) but "
                            "stores nothing; general use needs care at break/continue/goto")
    out["tests-none"] = (prelude + _sub(kernel, " " + TEST, "", "tests-none", literal=True)
                         .replace(TEST, ""),
                         "(e) UNSOUND as a design: every access still checked (in bounds), "
                         "but a failed item stores element-0 stand-ins and a loop may spin: "
                         "the flag tests' whole cost")
    out["no-pending"] = (prelude + _sub(kernel, r"if \(__sk_pending\(__sk_fb\)\) return; ", "",
                                        "no-pending", count=1),
                         "(e) UNSOUND: no entry test of a pending failure (a later launch "
                         "would run after a failure): its load's cost")
    fail = re.search(r"static __SK_COLD void __sk_fail_bits\(.*?\n}\n", prelude, re.S)
    if fail is None:
        raise SystemExit("opencl_variant_ab: no __sk_fail_bits in the prelude (update this "
                         "tool)")
    lean = fail.group(0).split("{", 1)[0] + (
        "{\n  atom_cmpxchg((volatile __global long *)fb, 0L, code);\n}\n")
    out["fail-code-only"] = (prelude.replace(fail.group(0), lean) + kernel,
                             "(e) measurement: a failure records its code only (index, size, "
                             "work-item lost): the cold path's size")
    return out


# -- the launch -----------------------------------------------------------------------------

class _Spy:
    """PyOpenCL's _cl module, with enqueue_nd_range_kernel recording (kernel, global, local)."""

    def __init__(self, real):
        self.real, self.seen = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def enqueue_nd_range_kernel(self, queue, knl, g, l, *rest):
        self.seen.append((knl, tuple(g), None if l is None else tuple(l)))
        return self.real.enqueue_nd_range_kernel(queue, knl, g, l, *rest)


class Launch:
    """One case on the device: data, plan, both benchmark kernels, what safekern launches."""

    def __init__(self, lang, name, quick):
        import safekern
        from safekern.backends.opencl import kernel as K

        self.lang, self.K, self.safekern = lang, K, safekern
        self.case = lang.adapt(cases.build(name, quick))
        self.dev = lang.upload(self.case)
        self.plan = self.case.plan(lang.plan_args(self.dev))
        (self.kname,) = {p[0] for p in self.plan}
        self.src = self.case.kernels[self.kname]
        self.plain_call = lang.compile(modes.UNCHECKED, self.case)
        with modes.active(modes.CHECKED):
            self.checked_call = lang.compile(modes.CHECKED, self.case)
            self.sk = self.checked_call[self.kname]
            self.prg = self.sk.program
            kinds, self.launched = self.probe()
        self.kinds = kinds

    def geometry(self, p):
        local = opencl_cases._dims(p[2])
        return tuple(g * b for g, b in zip(opencl_cases._dims(p[1]), local)), local

    def classify(self, knl):
        """(kind, text, hidden arguments?) of a kernel a safekern launch enqueued."""
        from safekern.frontend.c.opencl import checks_off_source

        sk, built = self.sk, self.prg._built
        if knl is sk:
            return "checked", built.rewritten.source, True
        if any(knl is k for k in sk._plain_kernels):
            return "plain", checks_off_source(self.src, self.prg.filename), False
        ptr = knl.program.int_ptr
        for (codes, checks), b in self.prg._variants.items():
            if b.program.int_ptr == ptr and checks:
                return (f"variant {len(codes)}/{len(sk._info.codes)}", b.rewritten.source,
                        True)
        return "other", None, True

    def spied(self, fn):
        spy, real = _Spy(self.K._cl), self.K._cl
        self.K._cl = spy
        try:
            fn()
        finally:
            self.K._cl = real
        return spy.seen

    def probe(self):
        """One step through safekern, watched: per launch (kind, text, hidden?, g, l)."""
        seen = self.spied(lambda: self.lang.launch(self.checked_call, self.plan))
        self.safekern.sync()
        if len(seen) != len(self.plan):
            raise SystemExit(f"opencl_variant_ab: {len(self.plan)} launches, {len(seen)} "
                             "enqueued through safekern's variant path (update this tool)")
        out = [(*self.classify(k), g, l) for k, g, l in seen]
        return collections.Counter(o[0] for o in out), out

    def hidden(self, args, fb):
        from safekern.backends.opencl.build import hidden_size

        return [fb] + [np.int64(hidden_size(args[p.index], p.name, self.kname))
                       for p in self.sk._info.pointer_params]

    def texts(self):
        """{row: ([(text, hidden?) per plan launch], note)} of the text rows, in table order."""
        n = len(self.plan)
        launched = [(t, h) for _k, t, h, _g, _l in self.launched]
        kinds = ", ".join(f"{k} x{c}" for k, c in self.kinds.items())
        checked = self.prg._built.rewritten.source
        out = {"plain": ([(self.src, False)] * n, "the user's source (pyopencl.Program)"),
               "current": (launched, f"what safekern launches today ({kinds})"),
               "checked": ([(checked, True)] * n, "the full rewrite (a launch whose "
                           "predicates fail runs it)")}
        if self.case.name == "bfs_step":
            for k, (text, note) in bfs_variants(launched[0][0]).items():
                out[k] = ([(text, True)] * n, note)
        else:
            lv = self.sk._launch
            every = self.prg._variant(lv.proven(lv.full)).rewritten.source
            out["variant-all"] = ([(every, True)] * n, "the variant without every check "
                                  "the predicates prove (runs when a plain launch may not)")
        return out


# -- timing ---------------------------------------------------------------------------------

class Row:
    def __init__(self, name, note, launch_fn, sync, fb=None):
        self.name, self.note, self.launch_fn, self.sync, self.fb = name, note, launch_fn, sync, fb
        self.kernel, self.span, self.host, self.kinds = [], [], [], collections.Counter()
        self.geometry = set()
        self.same = self.fb_zero = None

    def sample(self, steps, record=True):
        t0 = time.perf_counter()
        events = [e for _ in range(steps) for e in self.launch_fn()]
        host = time.perf_counter() - t0
        self.sync()
        n = len(events)
        if record:
            self.kernel.append(sum(e.profile.end - e.profile.start for e in events) / n / 1e3)
            self.span.append((events[-1].profile.end - events[0].profile.start) / n / 1e3)
            self.host.append(host / n * 1e6)


def rows_of(ln, src_dir):
    import pyopencl as cl
    from safekern.failures import BUFFER_LEN

    lang, q = ln.lang, ln.lang.queue
    built = {}

    def call_fn(kernels):
        return lambda: [kernels[name](q, *ln.geometry((name, g, b)), *args)
                        for name, g, b, args in ln.plan]

    rows = [Row("plain-call", "pyopencl.Program called as the benchmark does (host path "
                "included)", call_fn(ln.plain_call), q.finish)]
    for rname, (per_launch, note) in ln.texts().items():
        fb = cl.Buffer(lang.ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                       hostbuf=np.zeros(BUFFER_LEN, np.int64))
        launches = []
        for i, ((text, hidden), p) in enumerate(zip(per_launch, ln.plan)):
            if text not in built:
                built[text] = cl.Program(lang.ctx, text).build()
            knl = cl.Kernel(built[text], ln.kname)
            knl.set_args(*p[3], *(ln.hidden(p[3], fb) if hidden else ()))
            launches.append((knl, *ln.geometry(p)))
            if src_dir:
                tail = f"-{i}" if len(set(per_launch)) > 1 else ""
                if i == 0 or tail:
                    with open(os.path.join(src_dir, f"{ln.case.name}-{rname}{tail}.cl"),
                              "w") as f:
                        f.write(text)
        rows.append(Row(rname, note, lambda launches=launches: [
            cl.enqueue_nd_range_kernel(q, k, g, l) for k, g, l in launches], q.finish, fb))
        rows[-1].geometry = {(g, l) for _k, g, l in launches}
    sk = Row("safekern", "safekern.opencl.Program called as the benchmark does (host path "
             "included; synced by safekern.sync())", call_fn(ln.checked_call),
             ln.safekern.sync)
    spied = sk.launch_fn

    def watched():
        seen = []
        events = ln.spied(lambda: seen.append(spied()))
        for knl, g, l in events:
            sk.kinds[ln.classify(knl)[0]] += 1
            sk.geometry.add((g, l))
        return seen[0]
    sk.launch_fn = watched
    rows.append(sk)
    rows[0].geometry = {ln.geometry(p) for p in ln.plan}
    return rows


def check_outputs(ln, rows):
    """Each row's output after one step from reset arrays, against plain-call's; plain-call's
    against the NumPy reference. Returns the reference comparison's message (or 'ok')."""
    got = {}
    for r in rows:
        for name in ln.case.reset_names():
            ln.dev[name].set(ln.case.arrays[name])
        try:
            r.sample(1, record=False)
        except Exception as err:      # noqa: BLE001 -- a failure safekern.sync() raised
            r.same = f"RAISED {type(err).__name__}"
            continue
        got[r.name] = {o: ln.dev[o].get() for o in ln.case.outputs}
    base = got["plain-call"]
    for r in rows:
        if r.same is None:
            r.same = all(np.array_equal(got[r.name][o], base[o]) for o in ln.case.outputs)
    return ln.case.compare(base, ln.case.reference()) or "ok"


def measure(lang, name, rounds, target_ms, quick, src_dir):
    ln = Launch(lang, name, quick)
    rows = rows_of(ln, src_dir)
    ref = check_outputs(ln, rows)
    with modes.active(modes.CHECKED):
        probe = Row("probe", "", rows[0].launch_fn, rows[0].sync)
        probe.sample(3)
        step_ms = probe.span[0] * len(ln.plan) / 1e3
        steps = 1 if quick else max(3, min(500, math.ceil(target_ms / max(step_ms, 1e-3))))
        for r in rows:
            r.sample(1, record=False)                   # warm up
        for r in rows:
            r.kinds.clear()
        for rnd in range(rounds):
            order = rows[rnd % len(rows):] + rows[:rnd % len(rows)]
            for r in order:
                r.sample(steps)
    for r in rows:
        if r.fb is not None:
            import pyopencl as cl
            host = np.empty(16, np.int64)
            cl.enqueue_copy(lang.queue, host, r.fb, is_blocking=True)
            r.fb_zero = not host.any()
    by = {r.name: r for r in rows}
    med = lambda r, a="kernel": statistics.median(getattr(r, a))   # noqa: E731
    base, cur, base_span = med(by["plain"]), med(by["current"]), med(by["plain-call"], "span")
    geo = lambda r: "; ".join(f"g={g} l={l}" for g, l in sorted(r.geometry))  # noqa: E731
    lines = [f"### {name} ({ln.case.size}; {len(ln.plan)} launch(es) a step, {steps} steps a "
             f"sample)", "",
             f"plain-call vs NumPy reference: {ref}; plain-call's launches {geo(rows[0])}; "
             f"safekern's launches {geo(by['safekern'])}, kernels run while timed: "
             f"{dict(by['safekern'].kinds)}; at the probe: "
             + ", ".join(f"{k} g={g} l={l}" for k, _t, _h, g, l in ln.launched), "",
             "| variant | kernel us | span us | host us | /plain | /current | span/plain-call "
             "| spread | output | fb | what |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        k = med(r)
        lines.append(f"| {r.name} | {k:.1f} | {med(r, 'span'):.1f} | {med(r, 'host'):.1f} | "
                     f"{k / base:.3f} | {k / cur:.3f} | {med(r, 'span') / base_span:.3f} | "
                     f"{(max(r.kernel) - min(r.kernel)) / k:.3f} | "
                     f"{'same' if r.same is True else r.same or 'DIFFERS'} | "
                     f"{'' if r.fb_zero is None else '0' if r.fb_zero else 'SET'} | {r.note} |")
    lines += ["", "span us per round (the benchmark's measure): " + "; ".join(
        f"{r.name} {[round(s, 1) for s in r.span]}" for r in rows
        if r.name in ("plain-call", "plain", "current", "safekern"))]
    return lines


# -- compile only ---------------------------------------------------------------------------

def compile_rows(lang, names, quick):
    """Yield (case, row, note, text) for every distinct text, built on the device."""
    import pyopencl as cl

    for name in names:
        ln = Launch(lang, name, quick)
        for rname, (per_launch, note) in ln.texts().items():
            for text in dict.fromkeys(t for t, _h in per_launch):
                cl.Program(lang.ctx, text).build()
                yield name, rname, note, text


def _device(lang):
    why = lang.unavailable()
    if why:
        raise SystemExit(f"opencl_variant_ab: no OpenCL device: {why}")
    return backends.opencl_device_name(lang.device)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--target-ms", type=float, default=20.0, help="length of one sample")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", help="write the markdown here (and the texts beside it)")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--quick", action="store_true", help="the CI sizes (PoCL: the path works)")
    a = ap.parse_args(argv)
    names = [n for n in a.cases.split(",") if n]
    for n in names:
        if n not in CASES:
            ap.error(f"unknown case {n!r} (known: {', '.join(CASES)})")
    lang = opencl_cases.OpenCLLanguage()
    dev = _device(lang)
    if a.compile_only:
        for name, rname, note, text in compile_rows(lang, names, a.quick):
            _p, kernel = _parts(text) if _SPLIT in text else ("", text)
            print(f"{name:8s} {rname:16s} built; checks {len(re.findall(r'__sk_ix', kernel))}"
                  f", flag tests {kernel.count(TEST)}  -- {note[:70]}", flush=True)
        return 0
    import pyopencl as cl

    t0 = time.perf_counter()
    src_dir = None
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        src_dir = os.path.splitext(a.out)[0] + "-sources"
        os.makedirs(src_dir, exist_ok=True)
    lines = [f"# OpenCL check variants A/B ({dev}, {lang.device.driver_version}, PyOpenCL "
             f"{cl.VERSION_TEXT}, commit {_git_head()})", "",
             f"`python tools/opencl_variant_ab.py {' '.join(sys.argv[1:] if argv is None else argv)}`"
             f": {a.rounds} rounds, round-robin, a profiling event per launch; medians per "
             "launch. kernel = mean event duration, span = (last end - first start) / "
             "launches (the benchmark's measure), host = enqueue loop; spread = (max - min) / "
             "median of kernel.", ""]
    if backends.opencl_on_cpu(lang.device):
        lines += ["**A CPU device: these times say nothing about a GPU.**", ""]
    for n in names:
        part = measure(lang, n, a.rounds, a.target_ms, a.quick, src_dir)
        print("\n".join(part), flush=True)
        lines += part + [""]
    lines.append(f"total {time.perf_counter() - t0:.0f} s")
    print(lines[-1])
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


def _git_head():
    import subprocess
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
