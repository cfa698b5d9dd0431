"""Loop versioning for C (CUDA C and OpenCL C): a loop's affine accesses checked once, before
the loop. (A loop that stores is left as it is: a guarded copy of BFS's loop, each iteration's
counter compared with the last one tested, made CuPy's bfs_step 2.0x on an H100 against 1.18x
unversioned -- benchmarks/results/2026-11-27b-device-calls.)

The numba front end's idea (frontend/python/versioning.py) for the C rewrites. A counted loop
(counted_loops.py)

    for (int k = INIT; k < B; k++) BODY          (or <=, ++k, k += s with s loop-invariant)

whose body cannot store to memory, call anything (but the thread and group ids), leave the
function, loop again inside, or change k or anything B reads, runs one of two copies, chosen
once before the loop:

    lo = INIT, hi = B                            -- each evaluated once, with its own checks
    if (the loop is empty || every affine access is in bounds at k = lo and at the last k,
        and every data-dependent access has a non-empty extent)
        FAST                                     -- affine accesses unchecked; the others
                                                    deferred, branch-free (below)
    else
        the loop as the rewrite checks it        -- exactly the checked semantics

An access is *affine* when its index is a*k + b with a, b loop-invariant (integer literals,
parameters and locals the body does not assign, the thread and block ids; only +, -, * reach
k, every operation that involves k of the index's own width): its values over the loop lie
between its values at the two ends, and where those are in [0, n) the index computed in the
index's own type equals the exact one, so no iteration leaves the array. The report lists it
as hoisted. Any other checked index (SpMV's `x[col[j]]`) is *data-dependent*: the loop runs
twice, branch-free. First a scan: the fast copy with each such index through `__sk_dm32`/
`__sk_dm64`, which take its unsigned value u (a 32-bit index in 32 bits), read element
min(u, last) instead -- last: the extent less one, capped at the type's largest non-negative
value, so a negative index is above it -- and keep the largest u seen; the locals the body
assigns are saved before it and restored after it, so all the compiler keeps of it is the
largest index (the reads and arithmetic that feed nothing else are dead). Then, when every
index was at most `last`, the work: the fast copy with each such index only clamped
(`__sk_dc32`/`__sk_dc64`, one instruction) -- the user's loop but for that, with no running
maximum to hold (with the maximum in the loop that does the work, SpMV ran 1.85x on an H100;
its SASS issued 3 loads ahead in 32 registers where the user's issues 21, tools/c_kernel_code.py). A largest u above `last` means
some index was bad: the loop runs as the rewrite checks it, from the restored locals, and fails
at the first bad access exactly as it always did (same site, index, size, thread). That is
sound because the fast copies leave nothing behind: the body writes no memory, calls nothing,
cannot loop for ever (the trip count is fixed before the loop) and reads in bounds (clamped) --
so the checked run that replaces them is the checked semantics from the loop's start, whatever
another thread changed meanwhile (an index another thread makes bad between the scan and the
work is clamped, never read out of bounds, as one it makes bad between the scan and the checked
run is). The checks before the loop also ask for a positive extent (an unknown one, -1, runs
the checked loop).

    versioned = version_loops(ps, body, edits, checks, WORDS[dialect])

reads the edits the rewrite made for one function (`edits`; `checks`: the `IndexCheck`s among
them, each an index between an `open` and a `close` edit) and returns the texts to add around
each loop it versions; a loop with any other edit inside, a macro, a cast or anything it does
not know is left as it is. Edit texts hold no newline: the fast copy is written on the loop's
first line, from its tokens (comments dropped). The dialects differ in words only
(`LoopWords`): the integer types, how a saved local's type is written, what the thread ids
are, and the shape around the loop -- CUDA encloses it in a block (`{ ... if (ok) { FAST }
else LOOP }`; with data-dependent accesses `{ ...; bool again = !ok; if (!again) { SCAN
restore; again = bad; } if (!again) { WORK } else LOOP }`); OpenCL versions loops that are
statements of a block only and adds nothing after them (`...; if (ok) { FAST done = 1; } if
(!done) LOOP`; `SCAN restore; if (!bad) { WORK done = 1; }`), so the exit tests and braces
exits.py adds after the loop stay where they were.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import edits as E
from . import parse as C
from .counted_loops import CountedLoop, NoVersion, degree, int_type, width_of
from .model import Access

#: the report's reason for an affine access of a versioned loop (status HOISTED), numba's words
HOISTED_REASON = ("checked once before the loop at line {line} (bounds at the first and last "
                  "iteration); the loop runs with checks when that fails")
_DEPTH = 10 ** 6     # the versioning texts sit inside every other edit at the loop's ends


@dataclass(frozen=True)
class IndexCheck:
    """One checked index as the rewrite wrote it: `open` before [i0, i1), `close` after it
    (the edits' own objects), against `extent` (C text) with failure code `code` (C text)."""

    access: Access
    extent: str
    code: str
    axis: int
    open: E.Edit
    close: E.Edit


@dataclass(frozen=True)
class LoopWords:
    """How one dialect spells the versioning (module doc)."""

    long: str                   # a 64-bit signed integer type
    suffix: str                 # its literal suffix
    enclose: bool               # CUDA's block around the loop (else OpenCL's statement form)
    invariant: object           # (ps, cursor) -> bool: a thread or group id
    u32: str                    # the unsigned 32- and 64-bit types
    u64: str
    typeof: bool                # a saved local's type as `decltype(x)` (C++), else spelled
    #: (the 32-bit check's opening text, the 64-bit one's): the checked copy of a versioned
    #: loop, which runs only when its test before the loop fails, is written with the 64-bit
    #: check. CUDA only: on an H100 the 32-bit one there, never run, made NVRTC compile the
    #: fast copies of CuPy's spmv_csr slower (1.10x -> 1.15x, c_variant_ab.py's fallback-ix32);
    #: OpenCL's spmv_csr runs 1.00x with it (None: left as written). (__sk_ix32 has tested
    #: the sign-extended long since 2026-11-28, as __sk_ix does: the two are one test now.)
    wide: tuple | None = None


@dataclass
class Versioned:
    """What version_loops adds: the edits, the loops' starts, the accesses now hoisted."""

    edits: list = field(default_factory=list)
    starts: list = field(default_factory=list)
    hoisted: list = field(default_factory=list)    # (Access, the report's reason)
    wide: dict = field(default_factory=dict)       # id(an edit): the edit that replaces it


_CUDA_IDS = re.compile(r"^(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]$")
_OPENCL_IDS = frozenset(("get_global_id", "get_local_id", "get_group_id", "get_global_size",
                         "get_local_size", "get_num_groups", "get_global_offset",
                         "get_work_dim"))


def _cuda_id(ps, c) -> bool:
    text = "".join(t[2] for t in ps.tokens_between(*ps.offsets(c)))
    return bool(_CUDA_IDS.match(text))


def _opencl_id(ps, c) -> bool:
    if c.kind != C.kinds().CALL_EXPR or C.called_name(c) not in _OPENCL_IDS:
        return False
    return all(C.strip(a).kind == C.kinds().INTEGER_LITERAL for a in C.call_args(c))


#: dialect name -> its words
WORDS = {
    "cuda": LoopWords(long="long long", suffix="LL", enclose=True, invariant=_cuda_id,
                      u32="unsigned int", u64="unsigned long long", typeof=True,
                      wide=("__sk_ix32(", "__sk_ix(")),
    "opencl": LoopWords(long="long", suffix="L", enclose=False, invariant=_opencl_id,
                        u32="uint", u64="ulong", typeof=False),
}

_SPACES = ("__private ", "__global ", "__local ", "__constant ", "__generic ")


def _local_type(words, decl) -> str:
    """The type to declare a copy of the local `decl` with."""
    if words.typeof:
        return f"decltype({decl.spelling})"
    t = decl.type.spelling
    for space in _SPACES:
        t = t.replace(space, "")
    if "(" in t or "[" in t:        # (an unnamed struct, an array: nothing to spell it with)
        raise NoVersion("a local of a type without a name")
    return t


def _tokens(ps, start, end, *, inserts=(), replaces=(), rename=None) -> str:
    """The text of [start, end) on one line, from its tokens: `inserts` ((offset, key, text))
    placed as apply_edits would, `replaces` ((start, end, text)) instead of their tokens,
    `rename` (name, text): every identifier token `name` not after '.' or '->'."""
    pieces = []
    toks = ps.tokens_between(start, end)
    events = sorted(inserts, key=lambda e: (e[0], e[1]))
    ei = 0
    skip_to = -1
    prev = ""
    for s, e, spelling in toks:
        while ei < len(events) and events[ei][0] <= s:
            pieces.append(events[ei][2])
            ei += 1
        if s < skip_to:
            continue
        hit = next((r for r in replaces if r[0] == s), None)
        if hit is not None:
            pieces.append(hit[2])
            skip_to = hit[1]
            prev = ")"
            continue
        if rename is not None and spelling == rename[0] and prev not in (".", "->"):
            pieces.append(rename[1])
        else:
            pieces.append(spelling)
        prev = spelling
    pieces += [ev[2] for ev in events[ei:]]
    return " ".join(pieces)


def _edited(ps, start, end, edits) -> str:
    """_tokens of [start, end) with `edits` (those that fall in it): insertions and
    replacements (a struct field's check replaces its brackets)."""
    return _tokens(ps, start, end,
                   inserts=[(e.start, e.key, e.text) for e in edits if e.end == e.start],
                   replaces=[(e.start, e.end, e.text) for e in edits if e.end > e.start])


def _only_constant_macros(ps, cursor, ls, le) -> bool:
    """Every macro used in the loop is a name for an integer literal (`#define TILE 16`): the
    fast copy, written from the loop's tokens, spells it again, and it means the same there
    (no directive comes between); any other macro may hide what the loop does."""
    used = [(s, e) for s, e, _ in ps.macro_ranges() if not (e <= ls or s >= le)]
    if not used:
        return True
    K = C.kinds()
    literals = {ps.offsets(c) for c, _ in C.walk(cursor) if c.kind == K.INTEGER_LITERAL}
    return all(r in literals for r in used)


def _statement_end(ps, cursor) -> int:
    """Just after a statement: its extent, and a ';' after it (libclang's extent of a
    statement ending in an expression stops before its ';'; after a '}' a ';' is an empty
    statement, harmless inside the versioned block)."""
    _, e = ps.offsets(cursor)
    tok = ps.next_token(e)
    return tok[1] if tok is not None and tok[2] == ";" else e


def version_loops(ps, body, edits, checks, words: LoopWords) -> Versioned:
    """Version the counted loops of one function (module doc)."""
    out = Versioned()
    K = C.kinds()
    for c, parents in C.walk(body):
        if c.kind != K.FOR_STMT:
            continue
        if not words.enclose and not (parents and parents[-1].kind == K.COMPOUND_STMT):
            continue
        try:
            _version(ps, c, edits, checks, words, out)
        except NoVersion:
            continue
    return out


def _version(ps, cursor, edits, checks, words, out):
    loop = CountedLoop(ps, cursor, words.invariant)
    ls = ps.offsets(cursor)[0]
    le = _statement_end(ps, cursor)
    if "#" in ps.slice(ls, le) or not _only_constant_macros(ps, cursor, ls, le):
        raise NoVersion("a macro or a directive in the loop")
    bs = ps.offsets(loop.body)[0]
    every = list(edits) + out.edits
    mine = [e for e in every if ls <= e.start < le]
    if any(e.start < ls < e.end or e.start < le < e.end for e in every):
        raise NoVersion("an edit across the loop")
    # the checks of the body
    inside = [ch for ch in checks if bs <= ch.open.start and ch.close.start < le]
    used = {id(e) for ch in inside for e in (ch.open, ch.close)}
    if any(id(e) not in used for e in mine if e.start >= bs):
        raise NoVersion("an edit in the body that is not a bounds check")
    if not inside:
        raise NoVersion("nothing to hoist")
    index_of = {}
    for c, _ in C.walk(loop.body):
        index_of.setdefault(ps.offsets(c), c)
    affine, dependent = [], []
    for ch in inside:
        idx = index_of.get((ch.access.index_start, ch.access.index_end))
        width = width_of(idx) if idx is not None else None
        d = degree(ps, loop, idx, width) if width is not None else None
        (affine if d is not None else dependent).append((idx, ch))
    # (a loop with data-dependent accesses only is versioned too: a launch variant that
    # proves the affine ones leaves those, and they are cheaper without a branch)
    L, sfx = words.long, words.suffix
    v = f"{len(out.starts)}_{ls}"
    lo, hi = f"__sk_lo{v}", f"__sk_hi{v}"
    last = hi if loop.op == "<=" else f"({hi} - 1)"
    header = [e for e in mine if e.start < bs]
    start_s, start_e = ps.offsets(loop.start)
    bound_s, bound_e = ps.offsets(loop.bound)
    init_text = _edited(ps, start_s, start_e, [e for e in header
                                               if start_s <= e.start <= start_e])
    bound_text = _edited(ps, bound_s, bound_e, [e for e in header
                                                if bound_s <= e.start <= bound_e])
    empty = f"{lo} {'>' if loop.op == '<=' else '>='} {hi}"
    # the step is positive and k never passes its type's largest value (the loop's values
    # are those between lo and last, which the tests below cover)
    step = f"1{sfx}" if loop.step is None else \
        f"({L})({_tokens(ps, *ps.offsets(loop.step))})"
    kmax = (1 << (8 * loop.type[0] - 1)) - 1
    tests = [f"{step} > 0", f"{last} <= {kmax}{sfx} - {step}"]
    for idx, ch in affine:
        size, signed = int_type(idx.type)
        top = min((1 << (8 * size - 1)) - 1 if signed else (1 << (8 * size)) - 1, 2 ** 63 - 1)
        name = loop.var.spelling
        toks = ps.tokens_between(ch.access.index_start, ch.access.index_end)
        if [t[2] for t in toks] == [name] and (size, signed) == loop.type:
            # the counter itself: its values run from lo up to last, all of its type
            tests.append(f"__sk_vin({lo}, {last}, ({ch.extent}))")
            continue
        at = [_tokens(ps, ch.access.index_start, ch.access.index_end, rename=(name, f"({x})"))
              for x in (lo, last)]
        tests.append(f"__sk_vok(({L})({at[0]}), ({L})({at[1]}), ({ch.extent}), {top}{sfx})")
    # (the start as the counter holds it: converted to its type first)
    ctype = loop.var.type.get_canonical().spelling
    for space in _SPACES:
        ctype = ctype.replace(space, "")        # OpenCL's canonical types name theirs
    bounds = (f"{L} {lo} = ({L})({ctype})({init_text}); {L} {hi} = ({L})({bound_text});")
    for _, ch in dependent:
        tests.append(f"({ch.extent}) > 0")
    cond = f"{empty} || ({' && '.join(tests)})"
    inserts, clamps, declare, bad = [], [], [], []
    for j, (idx, ch) in enumerate(dependent):
        # (a 32-bit index is compared in 32 bits: its unsigned value against the extent,
        # capped where every value of the type is below it)
        it = int_type(idx.type) if idx is not None else None
        if it is not None and it[0] == 4:
            u, helper, cap = words.u32, "__sk_dm32", (1 << 31) if it[1] else (1 << 32)
            lim = f"(({ch.extent}) < {cap}{sfx} ? ({ch.extent}) : {cap}{sfx}) - 1{sfx}"
        else:
            u, helper, lim = words.u64, "__sk_dm64", f"({ch.extent}) - 1{sfx}"
        last_ok, seen = f"__sk_dl{v}_{j}", f"__sk_dq{v}_{j}"
        declare.append(f"{u} {last_ok} = ({u})({lim}); {u} {seen} = 0; ")
        inserts.append((ch.open.start, ch.open.key, f"{helper}("))
        inserts.append((ch.close.start, ch.close.key, f", {last_ok}, &{seen})"))
        clamps.append((ch.open.start, ch.open.key, f"{helper.replace('dm', 'dc')}("))
        clamps.append((ch.close.start, ch.close.key, f", {last_ok})"))
        bad.append(f"{seen} > {last_ok}")
    bad = " || ".join(bad)
    head = [(start_s, start_e, lo), (bound_s, bound_e, hi)]
    fast = _tokens(ps, ls, le, inserts=inserts, replaces=head)
    # the loop that does the work when an index is data-dependent: clamped reads only (the
    # largest index is found by the copy before it, whose other work is dead)
    work = _tokens(ps, ls, le, inserts=clamps, replaces=head)
    # the locals the body assigns, saved before the fast copy and restored for the checked
    # loop that runs again when an index was bad
    saves, restores = [], []
    for j, decl in enumerate(loop.outer.values()):
        kept = f"__sk_sv{v}_{j}"
        saves.append(f"{_local_type(words, decl)} {kept} = {decl.spelling}; ")
        restores.append(f"{decl.spelling} = {kept}; ")
    restores = "".join(restores)
    prepare = "".join(declare) + "".join(saves)
    if words.enclose:
        if dependent:           # { ...; bool again = !ok; if (!again) { SCAN restore;
            again = f"__sk_vr{v}"   # again = bad; } if (!again) { WORK } else LOOP }
            pre = (f"{{ {bounds} {''.join(declare)}bool {again} = !({cond}); if (!{again}) "
                   f"{{ {''.join(saves)}{fast} {restores}{again} = {bad}; }} "
                   f"if (!{again}) {{ {work} }} else ")
        else:                   # { ...; if (ok) { FAST } else LOOP }
            pre = f"{{ {bounds} if ({cond}) {{ {fast} }} else "
        # (the comment names the block it closes, which may end on a line of its own)
        out.edits.append(E.insert_after(le, f" }} /* {lo} */", _DEPTH))
    else:                       # ...; int done = 0; if (ok) { FAST done = 1; } if (!done) LOOP
        done = f"__sk_vdone{v}"
        finish = f"{restores}if (!({bad})) {{ {work} {done} = 1; }}" if dependent else \
            f"{done} = 1;"
        pre = (f"{bounds} int {done} = 0; if ({cond}) {{ {prepare}{fast} {finish} }} "
               f"if (!{done}) ")
    out.edits.append(E.insert_before(ls, pre, _DEPTH))
    if words.wide is not None:
        narrow, wide = words.wide
        for e in mine:          # the checked copy's, its header's too (lo and hi have theirs)
            if e.text == narrow:
                out.wide[id(e)] = E.Edit(e.start, e.end, wide, e.key)
    out.starts.append(ls)
    line = ps.line_col(ls)[0]
    out.hoisted += [(ch.access, HOISTED_REASON.format(line=line)) for _, ch in affine]


__all__ = ["version_loops", "HOISTED_REASON", "IndexCheck", "LoopWords", "Versioned", "WORDS",
           "PRELUDE", "OPENCL_PRELUDE"]


#: The device helpers of versioned loops (after the prelude's __sk_fail): the tests before the
#: loop (`__sk_vin`: an index that is the counter itself, lo <= last), and the branch-free check of a data-dependent index: the unsigned index clamped to
#: the last element, the largest one seen kept (module doc).
PRELUDE = r"""
#pragma nv_diag_suppress 177
// (unsigned compares, one a bound: as `a >= 0 && a < n` the compiler may rewrite `a >= 0`
// from an overflowing int index's operands while `a < n` reads the wrapped value)
static __device__ __forceinline__ bool __sk_vok(long long a, long long b, long long n,
                                                long long top) {
  typedef unsigned long long U;
  return n < 0 || (top >= 0 && (U)a < (U)n && (U)b < (U)n && (U)a <= (U)top &&
                   (U)b <= (U)top);
}
static __device__ __forceinline__ bool __sk_vin(long long lo, long long last, long long n) {
  typedef unsigned long long U;
  return n < 0 || ((U)lo < (U)n && (U)last < (U)n);
}
static __device__ __forceinline__ unsigned int __sk_dm32(unsigned int u, unsigned int last,
                                                         unsigned int* seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static __device__ __forceinline__ unsigned long long __sk_dm64(unsigned long long u,
                                                               unsigned long long last,
                                                               unsigned long long* seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static __device__ __forceinline__ unsigned int __sk_dc32(unsigned int u, unsigned int last) {
  return u < last ? u : last;
}
static __device__ __forceinline__ unsigned long long __sk_dc64(unsigned long long u,
                                                               unsigned long long last) {
  return u < last ? u : last;
}
#pragma nv_diag_default 177
"""


#: OpenCL C's helpers of versioned loops (after the prelude's __sk_fail_bits): as CUDA's.
OPENCL_PRELUDE = r"""
/* (unsigned compares, one a bound: as `a >= 0 && a < n` the compiler may rewrite `a >= 0`
   from an overflowing int index's operands while `a < n` reads the wrapped value) */
static inline int __sk_vok(long a, long b, long n, long top) {
  return n < 0 || (top >= 0 && (ulong)a < (ulong)n && (ulong)b < (ulong)n &&
                   (ulong)a <= (ulong)top && (ulong)b <= (ulong)top);
}
static inline int __sk_vin(long lo, long last, long n) {
  return n < 0 || ((ulong)lo < (ulong)n && (ulong)last < (ulong)n);
}
static inline uint __sk_dm32(uint u, uint last, __private uint *seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static inline ulong __sk_dm64(ulong u, ulong last, __private ulong *seen) {
  *seen = u > *seen ? u : *seen;
  return u < last ? u : last;
}
static inline uint __sk_dc32(uint u, uint last) {
  return u < last ? u : last;
}
static inline ulong __sk_dc64(ulong u, ulong last) {
  return u < last ? u : last;
}
"""
