"""OpenCL C: the dialect for the libclang layer, and the rewrite of a program's source.

    result = rewrite(source, filename="<opencl source>", options=[...], int64_atomics=True)
    result.text          # the checked source for clBuildProgram (prelude + '#line 1' + user text)
    result.kernels       # name -> KernelInfo: user parameters, hidden arguments appended
    result.report        # every access: checked / safe / unchecked with the reason

Every kernel gets hidden parameters after the user's: `__global long *__sk_fb` (the failure
buffer) and `long __sk_nb_<p>` for each pointer parameter p (the size in bytes of the buffer or
__local memory passed for it; the kernel divides by sizeof(*p) itself, so `float4 *` counts
float4s with the device's own type sizes). Helper functions get `__sk_fb`, the failure flag
pointer `__sk_fp`, and `long __sk_o_<p>, long __sk_nb_<p>` (offset within, and size of, the
memory each pointer parameter points into).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ...errors import CompilationError, UnsupportedError
from ...failures import TABLE, code32
from . import safety as c_safety, writes as c_writes, opencl_safety
from . import parse as C
from .exits import ControlPlan, find_anchor
from .checks import ReportEntry, access_edits, analyse_function, call_edits, param_infos

DEFAULT_FILENAME = "<opencl source>"

_ADDRESS_SPACES = ("__global", "__local", "__constant", "__private", "__generic")

_PURE_PREFIXES = ("get_", "convert_", "as_", "native_", "half_")
_PURE = frozenset("""min max clamp abs abs_diff mad mad24 mul24 mad_hi mul_hi select
    fmin fmax fabs floor ceil rint round trunc sqrt rsqrt exp log pow sin cos tan
    upsample rotate popcount clz ctz hadd rhadd sign step smoothstep mix""".split())


class _PureBuiltins:
    def __contains__(self, name) -> bool:
        return bool(name) and (name in _PURE or name.startswith(_PURE_PREFIXES))


def _vector_width(suffix: str) -> int | None:
    return int(suffix) if suffix in ("2", "3", "4", "8", "16") else None


class OpenCLDialect(C.Dialect):
    """OpenCL C: address spaces, barriers, built-ins that touch memory, the prelude."""

    name = "opencl"
    barrier_functions = frozenset({"barrier", "work_group_barrier"})
    pure_builtins = _PureBuiltins()

    def __init__(self, *, int64_atomics: bool = True, little_endian: bool = True):
        self.int64_atomics = int64_atomics
        self.little_endian = little_endian

    # -- parsing ----------------------------------------------------------------------------
    def parse_args(self, options) -> list:
        std = "CL1.2"
        args = []
        opts = list(options or ())
        i = 0
        while i < len(opts):
            o = opts[i]
            if o.startswith("-cl-std="):
                std = o.split("=", 1)[1]
            elif o in ("-D", "-I") and i + 1 < len(opts):
                args += [o, opts[i + 1]]
                i += 1
            elif o.startswith(("-D", "-I")):
                args.append(o)
            i += 1
        if std.upper() in ("CL1.0", "CL1.1"):
            std = "CL1.2"
        return ["-x", "cl", f"-cl-std={std}", "--target=spir64-unknown-unknown",
                "-cl-no-stdinc", "-Xclang", "-fdeclare-opencl-builtins", "-Xclang",
                "-cl-ext=+all", "-include", "safekern-opencl-base.h",
                "-Wno-unused-value", *args]

    def headers(self) -> list:
        return [("safekern-opencl-base.h", BASE_HEADER)]

    def is_kernel(self, fn) -> bool:
        ps_tokens = [t.spelling for t in fn.get_tokens()]
        name_at = ps_tokens.index(fn.spelling) if fn.spelling in ps_tokens else len(ps_tokens)
        return any(t in ("__kernel", "kernel") for t in ps_tokens[:name_at])

    def address_space(self, type_spelling: str) -> str:
        for word in re.findall(r"\b__\w+\b", type_spelling):
            if word in _ADDRESS_SPACES:
                return word
        return ""

    def pointer_builtin(self, name: str):
        """(pointer arg, elements touched, offset arg or None), 'skip', or None (unchecked)."""
        if not name:
            return None
        if name.startswith(("atomic_", "atom_")):
            if name in ("atomic_work_item_fence",):
                return "skip"
            return (0, 1, None)
        m = re.fullmatch(r"vload(a?)_half(\d*)", name) or re.fullmatch(r"vload()()(\d+)", name)
        if m:
            n = m.group(m.lastindex) or "1"
            w = _vector_width(n) if n != "1" else 1
            if name.startswith("vloada_half") and w == 3:
                w = 4
            return (1, w, 0) if w else None
        m = re.fullmatch(r"vstore(a?)_half(\d*)(_rt[enpz])?", name) or \
            re.fullmatch(r"vstore(\d+)", name)
        if m:
            digits = re.search(r"(\d+)", name.replace("vstore_half", "vstorehalf"))
            n = digits.group(1) if digits else "1"
            w = _vector_width(n) if n != "1" else 1
            if name.startswith("vstorea_half") and w == 3:
                w = 4
            return (2, w, 1) if w else None
        if name in ("fract", "modf", "sincos", "frexp", "lgamma_r"):
            return (1, 1, None)
        if name == "remquo":
            return (2, 1, None)
        if name in ("prefetch", "printf", "wait_group_events", "get_image_dim") or \
                name in c_safety.ASSERT_MACROS:
            return "skip"
        return None

    def memory_access(self, name: str, args):
        """How a built-in touches memory through its pointer arguments (writes.py):
        [(argument, READ/WRITE)], [] for none, None for a function safekern does not know."""
        if name in self.barrier_functions or name in self.pure_builtins:
            return []
        if name.startswith("async_work_group"):
            return [(args[0], c_writes.WRITE)] if args else []
        spec = self.pointer_builtin(name)
        if spec == "skip":
            return []
        if spec is None:
            return None
        arg = spec[0]
        how = c_writes.READ if name.startswith("vload") else c_writes.WRITE
        return [(args[arg], how)] if arg < len(args) else []

    # -- code generation ----------------------------------------------------------------------
    def barrier_call_edits(self, ps, call) -> list:
        """Make the barrier also fence __local memory: the group reads `__sk_lf` after it."""
        args = C.call_args(call)
        if not args:
            return []
        s, e = ps.offsets(args[0])
        if ps.macro_at(s, e) or e <= s:
            return []
        return [C.insert_before(s, "(", 5000), C.insert_after(e, ") | CLK_LOCAL_MEM_FENCE", 5000)]

    def group_barrier_text(self) -> str:
        return "barrier(CLK_LOCAL_MEM_FENCE);"

    def code_literal(self, code: int) -> str:
        return f"{code:#x}L" if self.int64_atomics else f"{code32(code):#x}L"

    def spelling(self) -> c_safety.Spelling:
        """How asserts and divisions are checked (opencl_safety.py)."""
        return opencl_safety.spelling(self.code_literal)

    def prelude(self) -> str:
        word = 0 if self.little_endian else 1
        if self.int64_atomics:
            cas = ("atom_cmpxchg((volatile __global long *)fb, 0L, code) == 0L")
            inc = "atom_inc((volatile __global long *)(fb + 10))"
            ext = "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
        else:
            cas = (f"atomic_cmpxchg((volatile __global int *)fb + {word}, 0, (int)code) == 0")
            inc = f"atomic_inc((volatile __global int *)(fb + 10) + {word})"
            ext = ""
        return PRELUDE_TEMPLATE.format(ext=ext, cas=cas, inc=inc) + opencl_safety.PRELUDE

    def kernel_hidden_params(self, pointer_params) -> str:
        return ", ".join(["__global long *__sk_fb"] +
                         [f"long __sk_nb_{p.name}" for p in pointer_params])

    def helper_hidden_params(self, pointer_params) -> str:
        parts = ["__global long *__sk_fb", "__private int *__sk_fp"]
        for p in pointer_params:
            parts += [f"long __sk_o_{p.name}", f"long __sk_nb_{p.name}"]
        return ", ".join(parts)

    def kernel_prologue(self, *, barriers: bool, flag: bool) -> str:
        if barriers:
            text = ("__local int __sk_lf; int __sk_nb = 0; if (__sk_first_item()) __sk_lf = "
                    "__sk_pending(__sk_fb) ? -1 : 0; barrier(CLK_LOCAL_MEM_FENCE); "
                    "if (__sk_lf < 0) return;")
        else:
            text = "if (__sk_pending(__sk_fb)) return;"
        if flag:
            text += " int __sk_f = 0; __private int *__sk_fp = &__sk_f;"
        return text


PRELUDE_TEMPLATE = """\
/* safekern: bounds-check helpers; the user's source follows */
{ext}#ifdef __has_builtin
#if __has_builtin(__builtin_expect)
#define __SK_UNLIKELY(x) __builtin_expect((x) != 0, 0)
#endif
#endif
#ifndef __SK_UNLIKELY
#define __SK_UNLIKELY(x) (x)
#endif
#ifdef __has_attribute
#if __has_attribute(noinline)
#define __SK_COLD __attribute__((noinline))
#endif
#endif
#ifndef __SK_COLD
#define __SK_COLD
#endif
static int __sk_first_item(void) {{
  return get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0;
}}
static int __sk_pending(__global long *fb) {{
  if (*(volatile __global long *)fb == 0) return 0;
  if (__sk_first_item() && get_group_id(0) == 0 && get_group_id(1) == 0 &&
      get_group_id(2) == 0) {inc};
  return 1;
}}
static __SK_COLD void __sk_fail(__global long *fb, long code, long index, long size,
                                long axis) {{
  if ({cas}) {{
    fb[1] = index; fb[2] = size; fb[3] = axis;
    fb[4] = get_local_id(0); fb[5] = get_local_id(1); fb[6] = get_local_id(2);
    fb[7] = get_group_id(0); fb[8] = get_group_id(1); fb[9] = get_group_id(2);
  }}
}}
static inline long __sk_ix(long i, long n, long code, int axis, __global long *fb,
                           __private int *fp) {{
  if (__SK_UNLIKELY((ulong)i >= (ulong)n)) {{
    *fp = 1; __sk_fail(fb, code, i, n, axis); return 0;
  }}
  return i;
}}
static inline long __sk_ixb(long i, long off, long esz, long nb, long code,
                            __global long *fb, __private int *fp) {{
  long pos = off + i * esz;
  if (__SK_UNLIKELY(pos < 0 || pos > nb - esz)) {{
    *fp = 1;
    __sk_fail(fb, code, pos >= 0 ? pos / esz : -((esz - 1 - pos) / esz), nb / esz, 0);
    return -(off / esz);
  }}
  return i;
}}
"""


def _base_header() -> str:
    """Types and macros of OpenCL C for libclang's parse (the wheel ships no headers).

    Built-in functions come from clang's -fdeclare-opencl-builtins; this header gives them the
    typedefs and feature macros they depend on. Only the parse sees it: the driver compiles
    with its own headers.
    """
    lines = ["#ifndef SAFEKERN_OPENCL_BASE_H", "#define SAFEKERN_OPENCL_BASE_H",
             "#if __OPENCL_C_VERSION__ >= 200",
             *[f"#define __opencl_c_{f} 1" for f in (
                 "generic_address_space", "work_group_collective_functions",
                 "atomic_order_acq_rel", "atomic_order_seq_cst", "atomic_scope_device",
                 "atomic_scope_all_devices", "device_enqueue", "pipes", "read_write_images",
                 "program_scope_global_variables", "images", "3d_image_writes", "subgroups",
                 "fp64", "int64")],
             "#define cl_khr_subgroups 1", "#define __opencl_subgroup_builtins 1",
             "#else", "#define __opencl_c_named_address_space_builtins 1", "#endif",
             "typedef unsigned char uchar;", "typedef unsigned short ushort;",
             "typedef unsigned int uint;", "typedef unsigned long ulong;",
             "typedef __SIZE_TYPE__ size_t;", "typedef __PTRDIFF_TYPE__ ptrdiff_t;",
             "typedef __INTPTR_TYPE__ intptr_t;", "typedef __UINTPTR_TYPE__ uintptr_t;"]
    for t in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
              "double", "half"):
        for n in (2, 3, 4, 8, 16):
            lines.append(f"typedef {t} {t}{n} __attribute__((ext_vector_type({n})));")
    lines += [
        "typedef uint cl_mem_fence_flags;",
        "#define CLK_LOCAL_MEM_FENCE 0x01", "#define CLK_GLOBAL_MEM_FENCE 0x02",
        "#define CLK_IMAGE_MEM_FENCE 0x04",
        "#if __OPENCL_C_VERSION__ >= 200",
        "typedef enum memory_scope { memory_scope_work_item = __OPENCL_MEMORY_SCOPE_WORK_ITEM,"
        " memory_scope_work_group = __OPENCL_MEMORY_SCOPE_WORK_GROUP, memory_scope_device = "
        "__OPENCL_MEMORY_SCOPE_DEVICE, memory_scope_all_svm_devices = "
        "__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES, memory_scope_all_devices = "
        "__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES, memory_scope_sub_group = "
        "__OPENCL_MEMORY_SCOPE_SUB_GROUP } memory_scope;",
        "typedef enum memory_order { memory_order_relaxed = __ATOMIC_RELAXED, "
        "memory_order_acquire = __ATOMIC_ACQUIRE, memory_order_release = __ATOMIC_RELEASE, "
        "memory_order_acq_rel = __ATOMIC_ACQ_REL, memory_order_seq_cst = __ATOMIC_SEQ_CST } "
        "memory_order;",
        "#define ATOMIC_VAR_INIT(x) (x)", "#define ATOMIC_FLAG_INIT 0",
        "#define CLK_ENQUEUE_FLAGS_NO_WAIT 0", "#define CLK_ENQUEUE_FLAGS_WAIT_KERNEL 1",
        "#define CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP 2",
        "#define CLK_SUCCESS 0", "#define CLK_PROFILING_COMMAND_EXEC_TIME 0x1",
        "#endif",
        "#define CLK_ADDRESS_NONE 0", "#define CLK_ADDRESS_CLAMP_TO_EDGE 2",
        "#define CLK_ADDRESS_CLAMP 4", "#define CLK_ADDRESS_REPEAT 6",
        "#define CLK_ADDRESS_MIRRORED_REPEAT 8", "#define CLK_NORMALIZED_COORDS_FALSE 0",
        "#define CLK_NORMALIZED_COORDS_TRUE 1", "#define CLK_FILTER_NEAREST 0x10",
        "#define CLK_FILTER_LINEAR 0x20",
        "#define CHAR_BIT 8", "#define SCHAR_MAX 127", "#define SCHAR_MIN (-127-1)",
        "#define CHAR_MAX SCHAR_MAX", "#define CHAR_MIN SCHAR_MIN", "#define UCHAR_MAX 255",
        "#define SHRT_MAX 32767", "#define SHRT_MIN (-32767-1)", "#define USHRT_MAX 65535",
        "#define INT_MAX 2147483647", "#define INT_MIN (-2147483647-1)",
        "#define UINT_MAX 0xffffffffU", "#define LONG_MAX 0x7fffffffffffffffL",
        "#define LONG_MIN (-0x7fffffffffffffffL-1)", "#define ULONG_MAX 0xffffffffffffffffUL",
        "#define FLT_DIG 6", "#define FLT_MANT_DIG 24", "#define FLT_MAX_10_EXP +38",
        "#define FLT_MAX_EXP +128", "#define FLT_MIN_10_EXP -37", "#define FLT_MIN_EXP -125",
        "#define FLT_RADIX 2", "#define FLT_MAX 0x1.fffffep127f", "#define FLT_MIN 0x1.0p-126f",
        "#define FLT_EPSILON 0x1.0p-23f", "#define MAXFLOAT FLT_MAX",
        "#define HUGE_VALF (__builtin_huge_valf())", "#define HUGE_VAL (__builtin_huge_val())",
        "#define INFINITY (__builtin_inff())", "#define NAN (__builtin_nanf(\"\"))",
        "#define FP_ILOGB0 INT_MIN", "#define FP_ILOGBNAN INT_MAX",
        "#define DBL_DIG 15", "#define DBL_MANT_DIG 53", "#define DBL_MAX_10_EXP +308",
        "#define DBL_MAX_EXP +1024", "#define DBL_MIN_10_EXP -307", "#define DBL_MIN_EXP -1021",
        "#define DBL_RADIX 2", "#define DBL_MAX 0x1.fffffffffffffp1023",
        "#define DBL_MIN 0x1.0p-1022", "#define DBL_EPSILON 0x1.0p-52",
        "#define HALF_DIG 3", "#define HALF_MANT_DIG 11", "#define HALF_MAX ((0x1.ffcp15h))",
        "#define HALF_MIN ((0x1.0p-14h))", "#define HALF_EPSILON ((0x1.0p-10h))",
    ]
    for name, value in (("E", "2.718281828459045"), ("LOG2E", "1.4426950408889634"),
                        ("LOG10E", "0.4342944819032518"), ("LN2", "0.6931471805599453"),
                        ("LN10", "2.302585092994046"), ("PI", "3.141592653589793"),
                        ("PI_2", "1.5707963267948966"), ("PI_4", "0.7853981633974483"),
                        ("1_PI", "0.3183098861837907"), ("2_PI", "0.6366197723675814"),
                        ("2_SQRTPI", "1.1283791670955126"), ("SQRT2", "1.4142135623730951"),
                        ("SQRT1_2", "0.7071067811865476")):
        lines.append(f"#define M_{name} {value}")
        lines.append(f"#define M_{name}_F {value}f")
        lines.append(f"#define M_{name}_H (({value}h))")
    lines += opencl_safety.PARSE_DECLARATIONS
    lines.append("#endif")
    return "\n".join(lines) + "\n"


BASE_HEADER = _base_header()


# -- the rewrite ------------------------------------------------------------------------------

@dataclass
class KernelInfo:
    name: str
    n_user_args: int
    params: list                      # ParamInfo of every user parameter
    pointer_params: list              # those that get a hidden size argument, in order
    barriers: bool = False
    written: tuple = ()               # pointer parameters the kernel stores through
    writes_unknown: str = ""          # why any pointer parameter may be written
    lineno: int = 0                   # the line of the kernel's name

    @property
    def n_args(self) -> int:
        return self.n_user_args + 1 + len(self.pointer_params)


@dataclass
class Rewritten:
    text: str
    kernels: dict
    report: list = field(default_factory=list)
    sites: list = field(default_factory=list)


class ParseFailed(CompilationError):
    """libclang could not parse the source; `diagnostics` holds its errors."""

    def __init__(self, problem, diagnostics=(), **kw):
        super().__init__(problem, **kw)
        self.diagnostics = list(diagnostics)


def rewrite(source: str, *, filename: str = DEFAULT_FILENAME, options=(),
            int64_atomics: bool = True, little_endian: bool = True,
            kernel_asserts: bool = True, eliminate: bool = True) -> Rewritten:
    """The checked form of an OpenCL C program (a pure function of its inputs).
    `kernel_asserts=False` compiles SAFEKERN_ASSERT away (SAFEKERN_KERNEL_ASSERTS=0);
    `eliminate=False` checks accesses proven in bounds too (SAFEKERN_ELIMINATE=0)."""
    dialect = OpenCLDialect(int64_atomics=int64_atomics, little_endian=little_endian)
    ps = C.parse(source, filename=filename, args=dialect.parse_args(options),
                 headers=dialect.headers())
    errors = ps.errors()
    if errors:
        first = next((d for d in errors if d.in_main), errors[0])
        raise ParseFailed(first.message, errors, filename=filename, lineno=first.lineno,
                          source_line=ps.source_line(first.lineno) if first.lineno else None,
                          col=first.col)
    return _Rewriter(ps, dialect, kernel_asserts, eliminate).run()


class _Rewriter:
    def __init__(self, ps: C.ParsedSource, dialect: OpenCLDialect, kernel_asserts=True,
                 eliminate=True):
        self.ps = ps
        self.dialect = dialect
        self.kernel_asserts = kernel_asserts
        self.eliminate = eliminate
        self.fns = C.functions(ps)
        self.kernel_names = {f.spelling for f in self.fns if dialect.is_kernel(f)}
        self.helpers = {f.spelling: param_infos(f, dialect) for f in self.fns
                        if f.spelling not in self.kernel_names}

    def run(self) -> Rewritten:
        ps = self.ps
        facts = {f.spelling: analyse_function(ps, f, self.dialect,
                                              is_kernel=f.spelling in self.kernel_names,
                                              helpers=self.helpers, eliminate=self.eliminate)
                 for f in self.fns}
        self._reject_kernel_calls()
        barrier_helpers = self._closure(facts, lambda fa: bool(fa.barriers))
        safety = {f.spelling: self._safety(f, facts[f.spelling], barrier_helpers)
                  for f in self.fns}
        failing = self._closure(facts, lambda fa: bool(fa.checked or
                                                       safety[fa.name].checked))
        writes = self._writes(facts)
        edits, kernels, sites, report = [], {}, [], []
        for f in self.fns:
            fa = facts[f.spelling]
            codes = {}
            for a in fa.checked:
                site = a.site(ps, "opencl")
                sites.append(site)
                codes[id(a)] = self.dialect.code_literal(site.code)
            edits += access_edits(ps, fa, codes)
            edits += call_edits(ps, fa)
            failure_offsets = [a.start for a in fa.checked] + \
                [self.ps.offsets(c.cursor)[0] for c in fa.calls if c.callee in failing]
            collectives = self._collective_calls(f, barrier_helpers)
            barrier_calls = [c for c, _ in fa.barriers] + collectives
            is_kernel = f.spelling in self.kernel_names
            checks = safety[f.spelling]
            plan, control = self._control(f, is_kernel, barrier_calls, collectives,
                                          failure_offsets, checks)
            failure_offsets += [s.start for s in checks.checked]
            edits += control + checks.edits
            sites += [TABLE.lookup(s.code) for s in checks.checked]
            report.extend(sorted(self._report(fa) + [s.entry() for s in checks.sites],
                                 key=lambda r: (r.lineno, r.col)))
            edits += self._signature_edits(f, fa, is_kernel)
            # Any barrier: the group decides together whether a failure is pending.
            edits += self._prologue_edits(f, fa, is_kernel, plan.has_barriers,
                                          bool(failure_offsets))
            if is_kernel:
                # Plain data only: libclang cursors would keep the whole parse alive.
                params = [replace(p, cursor=None, base=None) for p in fa.params]
                stores = writes[f.spelling]
                kernels[f.spelling] = KernelInfo(
                    f.spelling, len(params), params, [p for p in params if p.is_pointer],
                    plan.barrier_mode,
                    tuple(p.name for p in params if p.is_pointer and p.index in stores.params),
                    stores.unknown, ps.line_col(f.location.offset)[0])
        text = C.apply_edits(ps, edits, prelude=self.dialect.prelude())
        return Rewritten(text, kernels, report, sites)

    def _writes(self, facts) -> dict:
        """Name -> c_writes.Writes: the pointer parameters each function stores through,
        its helpers' stores included."""
        out = {}
        for f in self.fns:
            fa = facts[f.spelling]
            out[f.spelling] = c_writes.scan(
                self.ps, C.function_body(f), resolve=fa.param_of,
                callee_of=lambda call: C.called_name(call) if C.called_name(call) in
                self.helpers else None,
                access_of=self.dialect.memory_access)
        return c_writes.solve(out)

    def _safety(self, fn, fa, barrier_helpers) -> c_safety.SafetyRewriter:
        """The asserts and divisions of one function (safety.py). A failing work-item must
        not leave a loop that holds a barrier through its header, so a site in such a header
        stays unchecked. Accesses and helper calls inside asserts compiled away are dropped:
        they are not compiled."""
        checks = c_safety.SafetyRewriter(self.ps, fn.spelling, self.dialect.spelling(),
                                         asserts=self.kernel_asserts)
        collectives = self._collective_calls(fn, barrier_helpers)
        probe = ControlPlan(self.ps, fn, self.dialect, kernel=fn.spelling in self.kernel_names,
                            barrier_calls=[c for c, _ in fa.barriers] + collectives,
                            failure_offsets=[], collectives=collectives)

        def unusable_at(offset):
            node, header = find_anchor(probe.root, offset)
            if header and node.is_loop and node.has_barrier:
                return ("in the header of a loop that holds a barrier: a failing work-item "
                        "could leave the loop while its group waits")
            return ""

        c_safety.scan(checks, C.function_body(fn), depth_base=1000, unusable_at=unusable_at)
        if checks.removed:
            fa.accesses[:] = [a for a in fa.accesses if not checks.inside_removed(a.start)]
            fa.calls[:] = [c for c in fa.calls
                           if not checks.inside_removed(self.ps.offsets(c.cursor)[0])]
        return checks

    def _control(self, fn, is_kernel, barrier_calls, collectives, failure_offsets, checks):
        """(ControlPlan, its edits): where a failing work-item goes. Where the function's
        barriers make a failure path impossible only because of its divisions, those stay
        unchecked (a kernel that built before keeps building); asserts are the user's request
        and the plan's error stands."""
        exit_text = self._exit_text(fn, is_kernel)
        while True:
            offsets = failure_offsets + [s.start for s in checks.checked]
            try:
                plan = ControlPlan(self.ps, fn, self.dialect, kernel=is_kernel,
                                   barrier_calls=barrier_calls, failure_offsets=offsets,
                                   collectives=collectives)
                if not is_kernel:
                    plan.barrier_mode = False
                return plan, plan.edits(exit_text)
            except UnsupportedError as err:
                if not checks.leave_divisions_unchecked(
                        "not checked: a failing work-item could not leave this function "
                        f"safely ({err.problem.split(':')[0]})"):
                    raise

    def _closure(self, facts, direct) -> set:
        """Helpers for which `direct` holds, or which call one that does."""
        out = {name for name, fa in facts.items() if name in self.helpers and direct(fa)}
        changed = True
        while changed:
            changed = False
            for name, fa in facts.items():
                if name in self.helpers and name not in out and \
                        any(c.callee in out for c in fa.calls):
                    out.add(name)
                    changed = True
        return out

    def _collective_calls(self, fn, barrier_helpers) -> list:
        K = C.kinds()
        out = []
        for c, _ in C.walk(C.function_body(fn)):
            if c.kind == K.CALL_EXPR:
                name = C.called_name(c)
                if name in barrier_helpers or (
                        name and name.startswith("work_group_")
                        and name not in self.dialect.barrier_functions):
                    out.append(c)
        return out

    def _reject_kernel_calls(self):
        K = C.kinds()
        for f in self.fns:
            for c, _ in C.walk(f):
                if c.kind == K.CALL_EXPR and C.called_name(c) in self.kernel_names:
                    s, e = self.ps.offsets(c)
                    raise self.ps.error(
                        f"kernel '{C.called_name(c)}' is called as a function: safekern "
                        "checks kernels launched from the host only; move its body into a "
                        "helper function", s, e, kernel=f.spelling, cls=UnsupportedError)

    def _exit_text(self, fn, is_kernel) -> str:
        if is_kernel:
            return "return;"
        rt = fn.result_type
        canon = rt.get_canonical()
        if canon.kind.name == "VOID":
            return "return;"
        if canon.kind.name in ("RECORD", "ELABORATED"):
            return f"{{ {rt.spelling} __sk_r = {{0}}; return __sk_r; }}"
        return f"return ({rt.spelling})0;"

    def _signature_edits(self, fn, fa, is_kernel) -> list:
        ptrs = [p for p in fa.params if p.is_pointer]
        hidden = (self.dialect.kernel_hidden_params(ptrs) if is_kernel
                  else self.dialect.helper_hidden_params(ptrs))
        K = C.kinds()
        edits = []
        decls = [c for c in self.ps.tu.cursor.get_children()
                 if c.kind == K.FUNCTION_DECL and c.spelling == fn.spelling
                 and self.ps.in_main_file(c)]
        for d in decls:
            open_paren, close_paren = self._param_parens(d)
            inner = self.ps.slice(open_paren + 1, close_paren).strip()
            if inner in ("", "void"):
                edits.append(C.replace(open_paren + 1, close_paren, hidden))
            else:
                edits.append(C.insert_before(close_paren, ", " + hidden, 0))
        return edits

    def _param_parens(self, decl):
        s, e = self.ps.offsets(decl)
        name_at = decl.location.offset
        toks = [t for t in self.ps.tokens_between(s, e) if t[0] >= name_at]
        if self.ps.macro_at(name_at) or len(toks) < 3 or toks[1][2] != "(":
            raise self.ps.error(f"the parameter list of '{decl.spelling}' is written through "
                                "a macro: safekern cannot add its hidden parameters",
                                name_at, kernel=decl.spelling, cls=UnsupportedError)
        depth = 0
        for s0, _, spelling in toks[1:]:
            if spelling == "(":
                depth += 1
            elif spelling == ")":
                depth -= 1
                if depth == 0:
                    return toks[1][0], s0
        raise self.ps.error(f"cannot find the parameter list of '{decl.spelling}'", name_at)

    def _prologue_edits(self, fn, fa, is_kernel, barriers, flag) -> list:
        body = C.function_body(fn)
        start = self.ps.offsets(body)[0]
        parts = []
        if is_kernel:
            parts.append(self.dialect.kernel_prologue(barriers=barriers, flag=flag))
            used = {a.base.name for a in fa.checked if a.base is not None and
                    a.base.kind == "param" and a.pointer_start < 0 and
                    not a.extra.get("wrap_pointer") and not a.extra.get("offset_arg")}
            for p in fa.params:
                if p.is_pointer and p.name in used and not p.void:
                    parts.append(f"const long __sk_n_{p.name} = __sk_nb_{p.name} / "
                                 f"(long)sizeof(*{p.name});")
        for p in fa.moved:
            parts.append(f"{p.pointee} *__sk_orig_{p.name} = {p.name};")
        if not parts:
            return []
        return [C.insert_after(start + 1, " " + " ".join(parts), -1)]

    def _report(self, fa) -> list:
        out = []
        for a in fa.accesses:
            lineno, col, _ = a.location(self.ps)
            text = " ".join(self.ps.slice(a.start, a.end).split())
            out.append(ReportEntry(fa.name, lineno, col, text, a.array, a.status, a.reason))
        return sorted(out, key=lambda r: (r.lineno, r.col))


def checks_off_source(source: str, filename: str = DEFAULT_FILENAME) -> str:
    """SAFEKERN_CHECKS=0: the user's source, unchanged; one that uses SAFEKERN_ASSERT first
    gets definitions that compile it to nothing (its lines stay the user's)."""
    if "SAFEKERN_ASSERT" not in source:
        return source
    return f"{opencl_safety.CHECKS_OFF_PRELUDE}{C.line_directive(1, filename)}\n{source}"


__all__ = ["OpenCLDialect", "rewrite", "Rewritten", "KernelInfo", "ReportEntry", "ParseFailed",
           "BASE_HEADER", "DEFAULT_FILENAME", "checks_off_source"]
