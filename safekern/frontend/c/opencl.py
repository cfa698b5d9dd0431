"""OpenCL C: the dialect for the libclang layer, and the rewrite of a program's source.

    result = rewrite(source, filename="<opencl source>", options=[...], int64_atomics=True)
    result.source        # the checked source for clBuildProgram (prelude + '#line 1' + user text)
    result.kernels       # KernelInfo of each kernel (result.kernel(name)): user parameters
    result.report()      # every access: checked / safe / unchecked with the reason

Every kernel gets hidden parameters after the user's: `__global long *__sk_fb` (the failure
buffer) and `long __sk_nb_<p>` for each pointer parameter p (the size in bytes of the buffer or
__local memory passed for it; the kernel divides by sizeof(*p) itself, so `float4 *` counts
float4s with the device's own type sizes). Helper functions get `__sk_fb`, the failure flag
pointer `__sk_fp`, and `long __sk_o_<p>, long __sk_nb_<p>` (offset within, and size of, the
memory each pointer parameter points into).

Where the parts are: this module (the dialect, its prelude, `rewrite`), opencl_headers.py (what
libclang's parse includes), opencl_rewrite.py (the program's rewrite), opencl_safety.py (the
assert and division helpers), checks.py (one function's accesses) and exits.py (where a failing
work-item goes).
"""
from __future__ import annotations

import re

from ...errors import UnsupportedError
from ...failures import code32
from . import (edits as E, macros, opencl_safety, parse as C, prelude, safety as c_safety,
               writes as c_writes)
from .model import Dialect, Root, Unknown
from .opencl_headers import ASTYPE_HEADER, ASTYPE_NAME, BASE_HEADER
from .kernel_info import KernelInfo
from .opencl_rewrite import ProgramRewriter
from .parse_cache import PARSES
from .parse_error import ParseError
from .rewrite_result import Rewrite


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


class OpenCLDialect(Dialect):
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

    # -- what provenance.py's roots are called ----------------------------------------------
    def param_root(self, param, index: int, *, kernel: bool, moved: bool) -> Root:
        """`p`'s memory: `__sk_nb_p` bytes (a hidden parameter), reached from `p` (from the
        copy `__sk_orig_p` the prologue makes when the function moves `p`); a helper's `p`
        lies `__sk_o_p` bytes into it."""
        name = param.spelling
        t = param.type.get_canonical()
        pointee = t.get_pointee() if t.kind.name == "POINTER" else t.get_array_element_type()
        base = f"__sk_orig_{name}" if moved else name
        return Root("param" if kernel else "helper_param", name, base, f"__sk_nb_{name}",
                    ("param", index), offset="0" if kernel else f"__sk_o_{name}",
                    address_space=self.address_space(pointee.spelling))

    def array_root(self, decl, text: str, scope) -> Root:
        name = decl.spelling
        return Root("array", name, name, f"(long)sizeof({name})", ("var", decl.hash), scope,
                    address_space=self.address_space(decl.type.spelling))

    def scalar_root(self, decl, name: str) -> Unknown:
        # Accesses through the address of a variable (`atomic_inc(&count)` on a __local
        # counter) stay unchecked in OpenCL C, as they were before the provenance analysis was
        # shared with CUDA C (which sizes such roots): checking them is possible, but would
        # change what existing OpenCL programs report and build -- a change of its own.
        return Unknown(f"the address of variable '{name}', which safekern does not size")

    # -- built-ins --------------------------------------------------------------------------
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
        return [E.insert_before(s, "(", 5000), E.insert_after(e, ") | CLK_LOCAL_MEM_FENCE", 5000)]

    def group_barrier_text(self) -> str:
        return "barrier(CLK_LOCAL_MEM_FENCE);"

    def code_literal(self, code: int) -> str:
        return f"{code:#x}L" if self.int64_atomics else f"{code32(code):#x}L"

    def spelling(self) -> c_safety.Spelling:
        """How asserts and divisions are checked (opencl_safety.py)."""
        return opencl_safety.spelling(self.code_literal)

    def prelude(self) -> str:
        return prelude.opencl(int64_atomics=self.int64_atomics,
                              little_endian=self.little_endian) + opencl_safety.PRELUDE

    def kernel_hidden_params(self, pointer_params) -> str:
        return ", ".join(["__global long *__sk_fb"] +
                         [f"long __sk_nb_{p.name}" for p in pointer_params])

    def helper_hidden_params(self, pointer_params) -> str:
        parts = ["__global long *__sk_fb", "__private int *__sk_fp", "ulong __sk_cs"]
        for p in pointer_params:
            parts += [f"long __sk_o_{p.name}", f"long __sk_nb_{p.name}"]
        return ", ".join(parts)

    def helper_barrier_params(self) -> str:
        """A helper with barriers that can fail: its caller's failure and barrier counts
        (exits.py)."""
        return "__local int *__sk_lfp, __private int *__sk_nbp"

    def helper_barrier_arguments(self, *, in_kernel: bool) -> str:
        return "&__sk_lf, &__sk_nb" if in_kernel else "__sk_lfp, __sk_nbp"

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



def rewrite(source: str, *, filename: str = DEFAULT_FILENAME, options=(),
            int64_atomics: bool = True, little_endian: bool = True,
            kernel_asserts: bool = True, eliminate: bool = True,
            launch_predicates: bool = False, assume=frozenset()) -> Rewrite:
    """The checked form of an OpenCL C program (a pure function of its inputs).
    `kernel_asserts=False` compiles SAFEKERN_ASSERT away (SAFEKERN_KERNEL_ASSERTS=0);
    `eliminate=False` checks accesses proven in bounds too (SAFEKERN_ELIMINATE=0).
    `launch_predicates`: each kernel's `launch` holds the predicates launches may prove
    (launch.py); `assume`: the failure codes of checks a launch variant leaves out."""
    dialect = OpenCLDialect(int64_atomics=int64_atomics, little_endian=little_endian)
    # the builds of one program (checked, launch variants, every check kept) share a parse
    ps = PARSES.get(("opencl", source, filename, options),
                    lambda: _parse(source, filename, dialect.parse_args(options),
                                   dialect.headers()))
    # A function whose barriers cannot be kept safe for a failing work-item (a barrier under
    # an `if` that may split the group, ...: exits.py) is built as written, unchecked, and the
    # backend warns (Rewrite.unchecked): valid code is never refused for it.
    unchecked: dict = {}
    while True:
        try:
            return ProgramRewriter(ps, dialect, kernel_asserts, eliminate, launch_predicates,
                                   assume, unchecked).run()
        except UnsupportedError as err:
            if not getattr(err, "unsafe_barrier", False) or not err.kernel or \
                    err.kernel in unchecked:
                raise
            unchecked[err.kernel] = f"not checked: {err.problem}"


_ASTYPE = re.compile(r"\bas_[a-z]+\d*\s*\(")


def _with_astype(args: list, headers: list) -> tuple:
    return [*args, "-include", ASTYPE_NAME], [*headers, (ASTYPE_NAME, ASTYPE_HEADER)]


def _parse(source: str, filename: str, args: list, headers: list):
    """The parse the rewrite reads: the source's, with its macros expanded in function
    bodies (macros.py); ParseError for a source libclang cannot parse."""
    if _ASTYPE.search(source):
        args, headers = _with_astype(args, headers)
    ps = C.parse(source, filename=filename, args=args, headers=headers)
    errors = ps.errors()
    if errors and ASTYPE_NAME not in args and any(
            "undeclared identifier 'as_" in str(e) for e in errors):
        args, headers = _with_astype(args, headers)       # (used in an included file)
        ps = C.parse(source, filename=filename, args=args, headers=headers)
        errors = ps.errors()
    if errors:
        raise ParseError.of(ps, errors)
    return macros.with_expansions(ps, lambda text: C.parse(
        text, filename=filename, args=args, headers=headers))



def checks_off_source(source: str, filename: str = DEFAULT_FILENAME) -> str:
    """SAFEKERN_CHECKS=0: the user's source, unchanged; one that uses SAFEKERN_ASSERT first
    gets definitions that compile it to nothing (its lines stay the user's)."""
    if "SAFEKERN_ASSERT" not in source:
        return source
    return f"{opencl_safety.CHECKS_OFF_PRELUDE}{E.line_directive(1, filename)}\n{source}"


__all__ = ["OpenCLDialect", "rewrite", "Rewrite", "KernelInfo", "ParseError",
           "BASE_HEADER", "DEFAULT_FILENAME", "checks_off_source"]
