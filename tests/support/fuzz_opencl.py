"""Random OpenCL C kernels for the differential fuzzer of the C front end's "safe" verdicts.

The OpenCL front end (checks.py) leaves an access unchecked when it proves it in bounds: a
constant index into an array of constant size, or the variable of a `for` loop whose header
bounds it. `generate(seed)` writes kernels around exactly that: private arrays (1-D and 2-D)
indexed by loop variables of every integer type (`char` wraps at 127, `unsigned` compares
with -1 as UINT_MAX), `<` and `<=` against constants inside and outside the type's range, `++`
and `+= S` steps, the variable written in the body (`v += 1`, through a pointer, through a
helper), `continue`/`break`, nested loops reusing or shadowing the name, offsets `v + c`,
`v - c` and constants. Each loop counts its iterations and stops after a few, so a variable
that wraps around cannot make it run forever. Loops that only read (`gather_loop`) gather
through indices loaded from a buffer, some out of range: loop versioning's data-dependent
checks.

`run(env, kernel, eliminate)` builds and runs it on one work-group with
SAFEKERN_ELIMINATE on or off and returns the failure the host sees (line, array, index, axis,
work-item) and the output; with elimination the two must be the same (tests/support/differential.py
does this for numba kernels). Everything the kernels do is defined behaviour in C (unsigned and
narrow signed types wrap; `int` and `long` loops stay far from their limits), so the two builds
may only differ where an access was wrongly called safe.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass

import numpy as np

# type: (least, greatest) -- starts near the limits make the narrow ones wrap
_TYPES = {"char": (-128, 127), "uchar": (0, 255), "short": (-32768, 32767),
          "ushort": (0, 65535), "int": (-2 ** 31, 2 ** 31 - 1), "uint": (0, 2 ** 32 - 1),
          "long": (-2 ** 63, 2 ** 63 - 1), "ulong": (0, 2 ** 64 - 1)}
_WRAPPING = ("char", "uchar", "short", "ushort", "uint")


@dataclass
class ClKernel:
    seed: int
    source: str
    name: str
    items: int            # work-items (one work-group)
    n: int                # the kernel's int parameter

    def regression_file(self, diffs) -> str:
        """The kernel with what differed and its launch (`from_file` reads it back)."""
        head = "".join(f"// {line[:300]}\n" for line in diffs)
        case = {"seed": self.seed, "name": self.name, "items": self.items, "n": self.n}
        return f"{head}{self.source}// FUZZ_CASE {json.dumps(case)}\n"

    @staticmethod
    def from_file(path) -> "ClKernel":
        text = open(path).read()
        case = json.loads(text.rsplit("// FUZZ_CASE ", 1)[1])
        return ClKernel(case["seed"], text, case["name"], case["items"], case["n"])

    def arguments(self, cl, ctx, queue):
        data = np.arange(16, dtype=np.int32) * 7 % 11
        out = np.zeros(self.items, np.int32)
        mf = cl.mem_flags
        return [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out),
                cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data), np.int32(self.n)]


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.loops = 0

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def chance(self, p):
        return self.r.random() < p

    def header(self, var):
        """`for (T v = C0; v < C1; v += S)` with C0, C1 and the type chosen to sometimes wrap."""
        r = self.r
        ctype = r.choice(list(_TYPES) + ["int", "int", "int"])
        lo, hi = _TYPES[ctype]
        size = self.size
        if ctype in _WRAPPING and self.chance(0.5):
            start = r.choice([hi - r.randint(0, 3), lo + r.randint(0, 2)])
            bound = start + r.randint(1, size + 2) if self.chance(0.6) else r.choice([-1, 0])
            if ctype.startswith("u") and self.chance(0.3):
                bound = r.choice([-1, -2, hi + 1])
        else:
            start = r.randint(-2, 3)
            bound = start + r.randint(0, size + 2)
        op = r.choice(["<", "<", "<="])
        inc = r.choice([f"{var}++", f"++{var}", f"{var} += 2", f"{var} += 3"])
        suffix = {"long": "L", "ulong": "UL", "uint": "U"}.get(ctype, "")
        start_text = f"{start}{suffix}" if start >= 0 or not suffix.startswith("U") else str(start)
        return f"for ({ctype} {var} = {start_text}; {var} {op} {bound}; {inc})", start

    def index(self, var, start):
        """v, v + c, v - start (where the array starts), or a constant."""
        r = self.r
        roll = r.random()
        if abs(start) > 100 and roll < 0.7:      # a loop near its type's limit
            roll = 0.4
        if roll < 0.3:
            return var
        if roll < 0.6:
            return f"{var} - {start}" if start >= 0 else f"{var} + {-start}"
        if roll < 0.8:
            return f"{var} {r.choice(['+', '-'])} {r.randint(1, 3)}"
        return str(r.randint(-1, self.size))

    def loop(self, indent, depth, outer_vars):
        r = self.r
        self.loops += 1
        var = r.choice(outer_vars) if outer_vars and self.chance(0.15) else f"v{self.loops}"
        text, start = self.header(var)
        self.emit(indent, text + " {")
        self.emit(indent + 1, "if (++guard > 40) break;")
        for _ in range(r.randint(1, 3)):
            roll = r.random()
            if roll < 0.35:
                self.emit(indent + 1, f"acc += buf[{self.index(var, start)}];")
            elif roll < 0.5:
                self.emit(indent + 1, f"buf[{self.index(var, start)}] = acc + {r.randint(0, 5)};")
            elif roll < 0.6:
                self.emit(indent + 1,
                          f"acc += grid2[{self.index(var, start)}][{r.randint(0, 3)}];")
            elif roll < 0.68:
                self.emit(indent + 1, r.choice([f"{var} += 1;", f"bump(&{var});",
                                                f"if (acc > {r.randint(0, 40)}) {var}++;"]))
            elif roll < 0.76:
                self.emit(indent + 1, f"if (acc % {r.randint(2, 4)} == 0) "
                                      f"{r.choice(['continue', 'break'])};")
            elif roll < 0.9 and depth < 2:
                self.loop(indent + 1, depth + 1, outer_vars + [var])
            else:
                self.emit(indent + 1, f"acc += data[{self.index(var, start)} & 15];")
        self.emit(indent, "}")

    def gather_loop(self, indent):
        """A loop that only reads: versioned (loop_versions.py), its data-dependent indices
        clamped and compared after the loop, the checked loop run again from the locals saved
        before it when one was bad. Indices loaded from `data` (0..10) plus offsets that are
        sometimes out of range, through casts to other integer types, and carried from one
        iteration to the next in a local."""
        r = self.r
        self.loops += 1
        var, carry = f"v{self.loops}", f"c{self.loops}"
        ctype = r.choice(["int", "int", "long", "uint"])
        start = r.randint(0, 3)
        bound = r.choice([str(start + r.randint(0, 9)), "n", "n + 4", "16"])
        self.emit(indent, f"int {carry} = gid % 3;")
        self.emit(indent, f"for ({ctype} {var} = {start}; {var} {r.choice(['<', '<='])} "
                          f"{bound}; {var}{r.choice(['++', ' += 2'])}) {{")
        if self.chance(0.3):
            self.emit(indent + 1, "if (++guard > 40) break;")
        for _ in range(r.randint(1, 3)):
            roll = r.random()
            load = f"data[{var} & 15]"
            off = r.randint(-11, 9) if self.chance(0.3) else r.randint(0, 5)
            cast = r.choice(["", "", "(uint)", "(long)", "(ulong)", "(short)", "(uchar)"])
            if roll < 0.4:
                self.emit(indent + 1, f"acc += data[{cast}({load} + {off})];")
            elif roll < 0.55:
                p = f"p{len(self.lines)}"
                self.emit(indent + 1, f"int {p} = {load} - {off};")
                self.emit(indent + 1, f"acc += data[{cast}{p}] + buf[{var} % {self.size}];")
            elif roll < 0.8:
                self.emit(indent + 1, f"{carry} += {load} - {r.randint(3, 7)};")
                self.emit(indent + 1, f"acc += data[{cast}{carry}];")
            elif roll < 0.9:
                self.emit(indent + 1, f"acc += grid2[{load} & 3][{load} - {off}];")
            else:
                self.emit(indent + 1, f"acc += data[{var} - {start}] * data[data[{load}]];")
        self.emit(indent, "}")
        self.emit(indent, f"acc += {carry};")

    def kernel(self, seed) -> ClKernel:
        r = self.r
        self.size = r.randint(2, 8)
        name = f"k{seed}"
        self.emit(0, "#define bump(p) (*(p) += 1)      /* writes the loop variable */")
        self.emit(0, f"__kernel void {name}(__global int *out, __global const int *data, "
                     "int n) {")
        self.emit(1, "int gid = get_global_id(0);")
        self.emit(1, "int acc = gid, guard = 0;")
        self.emit(1, f"int buf[{self.size}];")
        self.emit(1, "int grid2[4][4];")
        self.emit(1, f"for (int t = 0; t < {self.size}; t++) buf[t] = 3 * t + gid;")
        self.emit(1, "for (int t = 0; t < 16; t++) grid2[t / 4][t % 4] = t;")
        for _ in range(r.randint(1, 4)):
            if self.chance(0.4):
                self.gather_loop(1)
            else:
                self.loop(1, 0, [])
            if self.chance(0.3):
                self.emit(1, f"acc += buf[{r.randint(-1, self.size)}];")
        self.emit(1, "out[gid] = acc;")
        self.emit(0, "}")
        return ClKernel(seed, "\n".join(self.lines) + "\n", name, r.randint(1, 4),
                        r.randint(0, 3))


def generate(seed: int) -> ClKernel:
    return _Gen(seed).kernel(seed)


def run(env, k: ClKernel, eliminate: bool, options=()):
    """(failure or None, output) of `k` built with SAFEKERN_ELIMINATE=eliminate (and the build
    `options`)."""
    import pyopencl as cl

    import safekern
    import safekern.opencl as skcl
    from tests.support.differential import eliminating

    with eliminating(eliminate):
        prg = skcl.Program(env.ctx, k.source, filename=f"fuzz_{k.seed}.cl").build(
            options=list(options))
    args = k.arguments(cl, env.ctx, env.queue)
    getattr(prg, k.name)(env.queue, (k.items,), (k.items,), *args)
    failure = None
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        failure = (err.lineno, err.array, err.index, err.axis, err.thread)
    out = np.zeros(k.items, np.int32)
    cl.enqueue_copy(env.queue, out, args[0])
    env.queue.finish()
    return failure, out


def differences(env, k: ClKernel, options=()) -> list[str]:
    (fail_on, out_on), (fail_off, out_off) = run(env, k, True, options), \
        run(env, k, False, options)
    out = []
    if fail_on != fail_off:
        out.append(f"failure with elimination {fail_on}, with every check {fail_off}")
    if not np.array_equal(out_on, out_off):
        out.append(f"outputs differ: {out_on.tolist()} vs {out_off.tolist()}")
    return out


__all__ = ["generate", "run", "differences", "ClKernel"]
