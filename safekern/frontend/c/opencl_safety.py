"""OpenCL C's side of the assert and division checks (safety.py): the prelude functions the
rewritten program calls, how the rewrite spells their calls, what libclang's parse declares,
and what SAFEKERN_CHECKS=0 builds.

OpenCL C has no templates and no assert: a division is checked by a function per promoted
integer type (`__sk_div_int`, `__sk_mod_ulong`, `__sk_dvs_uint`, ...), and SAFEKERN_ASSERT /
SAFEKERN_ASSERT_MSG are declared for the parse only -- the checked build replaces every use.
"""
from __future__ import annotations

from . import safety as c_safety

# The integer types a division takes part in after promotion (libclang's canonical kinds).
_DIVISION_TYPES = {"INT": "int", "UINT": "uint", "LONG": "long", "ULONG": "ulong"}


def _safety_prelude() -> str:
    """Asserts and divisions (safety.py): a failure records its values and sets the flag;
    a zero divisor gives 0 (a / b) or 1 (a /= b), so no undefined division runs."""
    out = ["#define __SK_LIKELY(x) __builtin_expect((x) != 0, 1)",
           "#define __SK_ASSERT_OFF(...) ((void)0)",
           "static __SK_COLD void __sk_afail(__global long *fb, __private int *fp, long code,",
           "                                 long v0, long v1, long v2) {",
           "  *fp = 1; __sk_fail(fb, code, v0, v1, v2);",
           "}"]
    for t in _DIVISION_TYPES.values():
        for kind, op in (("div", "/"), ("mod", "%")):
            out += [f"static inline {t} __sk_{kind}_{t}({t} a, {t} b, long code, "
                    "__global long *fb, __private int *fp) {",
                    "  if (__SK_UNLIKELY(b == 0)) {",
                    "    *fp = 1; __sk_fail(fb, code, (long)a, 0, 0); return 0;",
                    f"  }}\n  return a {op} b;", "}"]
        out += [f"static inline {t} __sk_dvs_{t}({t} b, long a, long code, "
                "__global long *fb, __private int *fp) {",
                "  if (__SK_UNLIKELY(b == 0)) { *fp = 1; __sk_fail(fb, code, a, 0, 0); "
                "return 1; }", "  return b;", "}"]
    return "\n".join(out) + "\n"


PRELUDE = _safety_prelude()

# SAFEKERN_ASSERT for libclang's parse: functions, so that accesses in their arguments are
# the user's own text (a function-like macro would make them a macro's expansion), and names
# defined as themselves, so that `#ifndef SAFEKERN_ASSERT` fallbacks stay out of the parse.
PARSE_DECLARATIONS = [
    "#define SAFEKERN_ASSERT SAFEKERN_ASSERT",
    "#define SAFEKERN_ASSERT_MSG SAFEKERN_ASSERT_MSG",
    "void SAFEKERN_ASSERT(bool);",
    "void __attribute__((overloadable)) SAFEKERN_ASSERT_MSG(bool, __constant char *);",
    "void __attribute__((overloadable)) SAFEKERN_ASSERT_MSG(bool, __constant char *, long);",
    "void __attribute__((overloadable)) SAFEKERN_ASSERT_MSG(bool, __constant char *, long, "
    "long);",
    "void __attribute__((overloadable)) SAFEKERN_ASSERT_MSG(bool, __constant char *, long, "
    "long, long);",
    # more values than safekern records: parsed, so that its own error names the limit
    *[f"void __attribute__((overloadable)) SAFEKERN_ASSERT_MSG(bool, __constant char *"
      f"{', long' * n});" for n in range(4, 9)],
]

#: What SAFEKERN_CHECKS=0 builds before the user's source: the asserts compile to nothing.
CHECKS_OFF_PRELUDE = ("#ifndef SAFEKERN_ASSERT\n#define SAFEKERN_ASSERT(...) ((void)0)\n#endif\n"
                      "#ifndef SAFEKERN_ASSERT_MSG\n#define SAFEKERN_ASSERT_MSG(...) ((void)0)\n"
                      "#endif\n")


def spelling(code_literal) -> c_safety.Spelling:
    """How asserts and divisions are checked: `__sk_afail` and the typed division functions of
    PRELUDE; `code_literal` writes a failure code as the device's atomics need it."""
    return c_safety.Spelling(
        backend="opencl", fail="__sk_afail(__sk_fb, __sk_fp, {code}", value_cast="(long)",
        tail=", __sk_fb, __sk_fp)", code_literal=code_literal,
        divide=lambda kind, t: f"__sk_{kind}_{_DIVISION_TYPES[t]}"
        if t in _DIVISION_TYPES else None,
        divisor=lambda t: f"__sk_dvs_{_DIVISION_TYPES[t]}" if t in _DIVISION_TYPES else None)


__all__ = ["PRELUDE", "PARSE_DECLARATIONS", "CHECKS_OFF_PRELUDE", "spelling"]
