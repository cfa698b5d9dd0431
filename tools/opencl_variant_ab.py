"""GPU A/B of OpenCL check designs for bfs_step and hotspot, in plain PyOpenCL (issue 25).

    python tools/opencl_variant_ab.py [--rounds 9] [--target-ms 20] [--cases bfs_step,hotspot]
                                      [--out ab.md] [--quick]   # NVIDIA's platform when there
    python tools/opencl_variant_ab.py --compile-only [--quick]   # builds every text (PoCL here)

The benchmark's device (NVIDIA, else a GPU, else PoCL's CPU: times meaningless), sizes, data
and launches (benchmarks/cases.py, opencl_cases.py). `plain-call`/`safekern`: pyopencl.Program
/ safekern.opencl.Program called as the benchmark calls them (host path included), each
safekern enqueue watched (a proxy of _cl.enqueue_nd_range_kernel in backends/opencl/kernel.py)
for which kernel ran (plain = the user's binary, variant k/n = without k of n checks, checked)
and its global/local sizes. Text rows: one full text each, arguments set once, enqueued (no
host path): `plain`, `current` (exactly the text(s) a watched safekern step ran, with the hidden
arguments it passes: a zeroed failure buffer of its own, each pointer argument's bytes),
`checked` (the unthinned rewrite), and variants: text edits of `current` that must apply (else
the tool stops); unsound ones are measurements. Samples of `steps` steps (the benchmark's
calibration to --target-ms), an event per launch, rows round-robin (order rotated per round);
medians over rounds per launch of kernel (event durations), span ((last end - first start) /
launches: the benchmark's measure; span - kernel = idle gaps) and host (the enqueue loop).
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
PRECHECK = "__sk_fail_bits(__sk_fb, "          # a precheck's record (prechecks.py)
_IX32 = re.compile(r"__sk_ix32\(\(int\)\((\w+)\), (__sk_n_\w+), (0x[0-9a-f]+L), (\d+), "
                   r"__sk_fb, __sk_fp\)")
_STORE = re.compile(r"\]\s*(?:=[^=]|[-+*/%&|^]=|<<=|>>=)|\+\+|--|\b(?:atom\w*|atomic\w*|"
                    r"barrier|work_group_barrier|mem_fence|vstore\w*)\s*\(")


def _stop(what, why):
    raise SystemExit(f"opencl_variant_ab: cannot make variant '{what}': {why} (the rewrite "
                     "changed; update this tool)")


def _sub(text, pattern, repl, what, count=0, literal=False):
    """`text` with `pattern` replaced; it must match (else the rewrite changed: say so)."""
    out, n = (text.replace(pattern, repl), text.count(pattern)) if literal else \
        re.subn(pattern, repl, text, count=count, flags=re.S)
    if n == 0:
        _stop(what, f"{pattern!r} is not in the launched source")
    return out


def _parts(text):
    return text[:text.index(_SPLIT)], text[text.index(_SPLIT):]


def _opening(text, close, pair="{}"):
    """Index of the opening bracket matching the closing one at `close`."""
    depth = 0
    for i in range(close, -1, -1):
        depth += {pair[1]: 1, pair[0]: -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced brackets")


def _is_loop_body(text, brace):
    head = text[:brace].rstrip()
    if not head.endswith(")"):
        return head.endswith("do")
    return re.search(r"\b(for|while)\s*$", head[:_opening(head, len(head) - 1, "()")]) is not None


def _reaches_test(text, at):
    """Whether every path from `at` reaches a flag test (or the kernel's end) through closing
    braces only: of if/else blocks, or of a loop body that starts with a test and whose
    increment stores nothing (the next iteration tests at once, the exit goes on after it)."""
    while True:
        rest = text[at:]
        at += len(rest) - len(rest.lstrip())
        if text.startswith(TEST, at):
            return True
        if at >= len(text) or text[at] != "}":
            return False
        brace = _opening(text, at)
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


def _drop_tests(kernel, drop):
    """`kernel` without the flag tests at p..q for which drop(text, p, q) holds."""
    out, pos = kernel, 0
    while (p := out.find(TEST, pos)) >= 0:
        q = p + len(TEST)
        if drop(out, p, q):
            out = out[:p] + out[q:].lstrip(" ")
        else:
            pos = q
    return out


def drop_redundant_tests(kernel):
    """(b) Drop each test from which every path reaches another test through closing braces
    only (_reaches_test): the same work-items return before the same stores."""
    return _drop_tests(kernel, lambda out, p, q: _reaches_test(out, q))


def _needless(out, p, q):
    """(d) A test that no store, ++/--, atomic or barrier call follows before the next test,
    not at the top or end of a loop body (one test per iteration: no spin)."""
    nxt = out.find(TEST, q)
    before, after = out[:p].rstrip(), out[q:].lstrip()
    return not (_STORE.search(out[q:nxt if nxt >= 0 else len(out)]) or (
        before.endswith("{") and _is_loop_body(out, len(before) - 1)) or (
        after.startswith("}") and _is_loop_body(out, _opening(out, len(out) - len(after)))))


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
    statement before its statement, returning at once; the access is unchecked. Not in loop
    headers, nor where the statement assigns the identifier before the access."""
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
        _stop("precheck", "no __sk_ix32 of an identifier")
    if ", __sk_fp)" not in out:                  # nothing sets the flag: its tests are dead
        out = out.replace(" " + TEST, "").replace(TEST, "")
    return out


def _flag_variants(prelude, inline, kernel):
    """(b)-(e): the variants that edit the flag tests and in-expression index checks."""
    fewer, pre = drop_redundant_tests(kernel), precheck(kernel)
    if fewer == kernel:
        _stop("redundant-tests", "no redundant test")
    gone = kernel.count(TEST) - fewer.count(TEST)
    out = {"redundant-tests": (prelude + fewer, f"(b) sound: {gone} test(s) gone whose every "
                               "path reaches a test through `}`s"),
           "precheck": (prelude + pre, "(c) sound here (no barrier; k, v: private, not "
                        "assigned first): `if ((uint)k >= cap) {record; return;}`, the access "
                        "unchecked"), "precheck+inline": (inline + pre, "(c)+(a) as (c)")}
    stores = _drop_tests(kernel, _needless)
    if stores == fewer:
        _stop("before-stores", "it equals 'redundant-tests'")
    out["before-stores"] = (prelude + stores, f"(d) sound here: {stores.count(TEST)} of "
                            f"{kernel.count(TEST)} tests kept (before stores, one per loop "
                            "iteration): a failed item loads element 0 (in bounds), stores "
                            "nothing more; break/continue/goto would need care")
    out["tests-none"] = (prelude + _sub(kernel, " " + TEST, "", "tests-none", literal=True)
                         .replace(TEST, ""),
                         "(e) UNSOUND design: accesses in bounds, but a failed item goes on "
                         "storing and a loop may spin: the tests' whole cost")
    return out


def bfs_variants(cur):
    """{name: (text, note)}: edits of the launched bfs_step text."""
    prelude, kernel = _parts(cur)
    cold = "#define __SK_COLD __attribute__((noinline))"
    inline = _sub(prelude, cold, "#define __SK_COLD", "fail-inline", literal=True)
    out = {"fail-inline": (inline + kernel, "(a) sound: __SK_COLD empty (__sk_fail_bits "
                           "inlinable: the compiler may thread the flag)")}
    # a launch that prechecks every index (frontend/c/prechecks.py) sets no flag: the
    # flag-test and precheck variants would be `current` itself
    if not (PRECHECK in kernel and TEST not in kernel and not _IX32.search(kernel)):
        out.update(_flag_variants(prelude, inline, kernel))
    out["no-pending"] = (prelude + _sub(kernel, r"if \(__sk_pending\(__sk_fb\)\) return; ", "",
                                        "no-pending", count=1),
                         "(e) UNSOUND: no entry test of a pending failure: its load's cost")
    fail = re.search(r"static __SK_COLD void __sk_fail_bits\(.*?\n}\n", prelude, re.S)
    if fail is None:
        _stop("fail-code-only", "no __sk_fail_bits in the prelude")
    lean = fail.group(0).split("{", 1)[0] + "{ atom_cmpxchg((volatile __global long *)fb, " \
        "0L, code); }\n"
    out["fail-code-only"] = (prelude.replace(fail.group(0), lean) + kernel, "(e) a failure "
                             "records its code only (details lost): the cold path's size")
    return out


class _Spy:
    """PyOpenCL's _cl module, with enqueue_nd_range_kernel recording (kernel, global, local)."""
    def __init__(self, real):
        self.real, self.seen = real, []

    def __getattr__(self, name):          # everything else: PyOpenCL's own
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
            self.kinds, self.launched = self.probe()

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
        self.K._cl = spy = _Spy(self.K._cl)
        try:
            fn()
        finally:
            self.K._cl = spy.real
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


class Row:
    def __init__(self, name, note, launch_fn, sync, fb=None):
        self.name, self.note, self.launch_fn, self.sync, self.fb = name, note, launch_fn, sync, fb
        self.kernel, self.span, self.host, self.kinds = [], [], [], collections.Counter()
        self.geometry, self.same, self.fb_zero, self.seen = set(), None, None, []

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
    import pyopencl.array as cla
    from safekern.failures import BUFFER_LEN

    lang, q = ln.lang, ln.lang.queue
    built = {}

    def call_fn(kernels):
        return lambda: [kernels[name](q, *ln.geometry((name, g, b)), *args)
                        for name, g, b, args in ln.plan]

    rows = [Row("plain-call", "pyopencl.Program called as the benchmark does (host path "
                "included)", call_fn(ln.plain_call), q.finish)]
    for rname, (per_launch, note) in ln.texts().items():
        fb = cla.zeros(q, BUFFER_LEN, np.int64)
        launches = []
        for (text, hidden), p in zip(per_launch, ln.plan):
            if text not in built:
                built[text] = cl.Program(lang.ctx, text).build()
            knl = cl.Kernel(built[text], ln.kname)
            knl.set_args(*p[3], *(ln.hidden(p[3], fb.data) if hidden else ()))
            launches.append((knl, *ln.geometry(p)))
        for i, text in enumerate(dict.fromkeys(t for t, _h in per_launch) if src_dir else ()):
            with open(os.path.join(src_dir, f"{ln.case.name}-{rname}-{i}.cl"), "w") as f:
                f.write(text)
        rows.append(Row(rname, note, lambda launches=launches: [
            cl.enqueue_nd_range_kernel(q, k, g, l) for k, g, l in launches], q.finish, fb))
        rows[-1].geometry = {(g, l) for _k, g, l in launches}
    sk = Row("safekern", "safekern.opencl.Program called as the benchmark does (host path "
             "included; synced by safekern.sync())", None, ln.safekern.sync)

    def watched(call=call_fn(ln.checked_call)):       # (classified after the rounds)
        events = []
        sk.seen += ln.spied(lambda: events.extend(call()))
        return events
    sk.launch_fn = watched                            # sk.seen: (kernel, global, local)
    rows.append(sk)
    rows[0].geometry = {ln.geometry(p) for p in ln.plan}
    return rows


def check_outputs(ln, rows):
    """Each row's output of a step from reset arrays vs plain-call's; plain-call's vs NumPy."""
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
        probe.sample(3)                                 # the benchmark's calibration
        step_ms = probe.span[0] * len(ln.plan) / 1e3
        steps = 1 if quick else max(3, min(500, math.ceil(target_ms / max(step_ms, 1e-3))))
        for r in rows:
            r.sample(1, record=False)                   # warm up
            r.seen.clear()
        for rnd in range(rounds):
            for r in rows[rnd % len(rows):] + rows[:rnd % len(rows)]:
                r.sample(steps)
    for r in rows:
        for knl, g, l in r.seen:
            r.kinds[ln.classify(knl)[0]] += 1
            r.geometry.add((g, l))
    for r in (r for r in rows if r.fb is not None):
        r.fb_zero = not r.fb.get().any()
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


def compile_rows(lang, names, quick):
    """Yield (case, row, note, text) for every distinct text, built on the device."""
    import pyopencl as cl

    for name in names:
        ln = Launch(lang, name, quick)
        for rname, (per_launch, note) in ln.texts().items():
            for text in dict.fromkeys(t for t, _h in per_launch):
                cl.Program(lang.ctx, text).build()
                yield name, rname, note, text


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
    if set(names) - set(CASES):
        ap.error(f"unknown case(s) {sorted(set(names) - set(CASES))} (known: {CASES})")
    lang = opencl_cases.OpenCLLanguage()
    if lang.unavailable():
        raise SystemExit(f"opencl_variant_ab: no OpenCL device: {lang.unavailable()}")
    dev = backends.opencl_device_name(lang.device)
    cmd = " ".join(sys.argv[1:] if argv is None else argv)
    if a.compile_only:
        for name, rname, note, text in compile_rows(lang, names, a.quick):
            _p, kernel = _parts(text) if _SPLIT in text else ("", text)
            print(f"{name:8s} {rname:16s} built; checks {len(re.findall(r'__sk_ix', kernel))}"
                  f", flag tests {kernel.count(TEST)}  -- {note[:70]}", flush=True)
        return 0
    import pyopencl as cl
    t0, src_dir = time.perf_counter(), os.path.splitext(a.out)[0] + "-sources" if a.out else None
    os.makedirs(src_dir or ".", exist_ok=True)
    lines = [f"# OpenCL check variants A/B ({dev}, {lang.device.driver_version}, PyOpenCL "
             f"{cl.VERSION_TEXT}, commit {_git_head()})", "",
             f"`python tools/opencl_variant_ab.py {cmd}`: {a.rounds} rounds round-robin, an "
             "event per launch; medians per launch: kernel = mean event duration, span = (last "
             "end - first start) / launches (the benchmark's), host = enqueue loop; spread = "
             "(max - min) / median kernel.", ""]
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
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
