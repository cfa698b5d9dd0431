"""Kernel asserts and integer division by zero in C kernels (CUDA C and OpenCL C).

The C counterpart of safety.py (numba kernels). Each becomes a failure of its own kind on the
path a bounds failure takes: the failing thread compare-and-swaps its code into the failure
buffer, records up to three integer values (failures.ARGS) and then leaves as after a failed
access -- CUDA: it exits (PTX `exit`, so the barriers of its block stay safe); OpenCL: its flag
is set and exits.py's exit tests take it out at the end of the statement (a failed
division gives 0 there, so nothing undefined runs).

- `assert(cond)` (CUDA C), `SAFEKERN_ASSERT(cond)` and `SAFEKERN_ASSERT_MSG(cond, "fmt",
  v...)` (both dialects) -> safekern.KernelAssertionError, "assertion failed: `cond`" or the
  message, whose printf conversions (%d %i %u %x %X %o %c, flags 0 and -, a width) show up to
  three integer values that only a failing thread evaluates and records;
- integer `a / b`, `a % b`, `a /= b`, `a %= b` whose divisor is not a non-zero constant ->
  safekern.KernelZeroDivisionError naming the expression, the divisor and the dividend.

Edits keep every line. `SAFEKERN_ASSERT(c)` becomes
`(__SK_LIKELY((c)) ? (void)0 : FAIL(..., CODE, 0, 0, 0))`: the name is replaced, text is
inserted after the condition and before the closing parenthesis, and the message's literal and
first comma are emptied (the values' commas stay). `a / b` becomes `DIV(a, b, CODE, ...)` (the
operator token becomes a comma) and `a /= b` becomes `a /= DVS(b, a, CODE, ...)`, which returns
the divisor (1 after recording a zero). What each dialect calls is its `Spelling`; the
functions are in its prelude (cuda.py, opencl.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...errors import UnsupportedError
from ...failures import FailureSite, site_code
from ...report import ReportEntry, Status
from . import edits as E, parse as C
from .messages import STRING_TOKEN, c_string, collapse, literal, printf_template
from .model import ASSERT, ZERO_DIVISION

ASSERT_MACROS = ("SAFEKERN_ASSERT", "SAFEKERN_ASSERT_MSG")
MAX_VALUES = 3        # failures.ARGS

_INTEGER_KINDS = frozenset("""BOOL CHAR_U UCHAR CHAR16 CHAR32 USHORT UINT ULONG ULONGLONG UINT128
    CHAR_S SCHAR WCHAR SHORT INT LONG LONGLONG INT128 ENUM""".split())
_FLOAT_KINDS = frozenset("FLOAT DOUBLE LONGDOUBLE HALF FLOAT16 BFLOAT16 FLOAT128".split())
_DIVISIONS = {"/": "div", "%": "mod", "/=": "div", "%=": "mod"}
# Integer promotion: what a divisor of these types takes part in the division as.
_PROMOTED = {k: "INT" for k in "BOOL CHAR_U UCHAR CHAR_S SCHAR SHORT USHORT".split()}


@dataclass(frozen=True)
class Spelling:
    """How a dialect writes the checks (the functions its prelude defines).

    `fail` starts the call that records an assert failure, up to and including its code
    argument ('{code}' is replaced); `values` are then appended as `, cast(v)` and the call is
    closed. `divide(kind, type_kind)` names the function for `a / b` (kind "div" or "mod"),
    `divisor(type_kind)` the one for `a /= b`; None: that type is not checked. `tail` closes a
    division call after its code. `native(name)` is what an assert is renamed to where it
    cannot be checked (no failure buffer in scope, written through a macro); None: the
    dialect has no assert of its own, and such a use is an error.
    """

    backend: str
    fail: str
    value_cast: str
    tail: str
    code_literal: Callable[[int], str]
    divide: Callable[[str, str], str | None]
    divisor: Callable[[str], str | None]
    generic: bool = False           # `divide` also takes template-dependent operand types
    assert_names: tuple = ASSERT_MACROS
    native: Callable[[str], str | None] = lambda name: None


@dataclass
class SafetySite:
    """One assert or division of the user's source and what safekern does with it."""

    function: str
    kind: str                  # ASSERT or ZERO_DIVISION (model.py: check_kinds.py's)
    status: Status             # CHECKED, ELIMINATED (no check needed), UNCHECKED
    reason: str
    start: int                 # the construct's bytes
    end: int
    lineno: int
    col: int
    text: str                  # as written, whitespace collapsed
    code: int | None = None
    edits: list = field(default_factory=list)
    failure: FailureSite | None = None   # what its failure code means (checked sites)
    filename: str = ""         # the file a `#line` of the source names, where not its own

    def entry(self) -> ReportEntry:
        return ReportEntry(self.function, self.lineno, self.col, self.text, "", self.status,
                           self.reason, kind=self.kind,
                           code=self.code if self.status == Status.CHECKED else None,
                           filename=self.filename)


@dataclass
class SafetyRewriter:
    """The asserts and divisions of one function: sites, and the edits that check them.

    The front end walks the function and calls `assert_call` / `division` for each candidate
    with the AST depth its own access edits use (so insertions that meet at one offset nest).
    """

    ps: C.ParsedSource
    function: str
    spelling: Spelling
    asserts: bool = True              # SAFEKERN_KERNEL_ASSERTS
    #: where NDEBUG becomes defined (0: by the options), after which C's own `assert` is
    #: compiled away as C does; None: never
    ndebug_from: int | None = None
    sites: list = field(default_factory=list)
    #: byte ranges of asserts compiled away: accesses inside them are not compiled either
    removed: list = field(default_factory=list)

    @property
    def checked(self) -> list:
        return [s for s in self.sites if s.status == Status.CHECKED]

    @property
    def failure_sites(self) -> list:
        """The FailureSite of each checked assert and division (the backend registers them)."""
        return [s.failure for s in self.checked]

    @property
    def edits(self) -> list:
        return [e for site in self.sites for e in site.edits]

    def leave_divisions_unchecked(self, reason: str) -> bool:
        """Undo the checks of this function's divisions (their failure path cannot be made
        safe here); True if there was one."""
        found = False
        for site in self.sites:
            if site.kind == ZERO_DIVISION and site.status == Status.CHECKED:
                site.status, site.reason, site.edits = Status.UNCHECKED, reason, []
                site.failure = None
                found = True
        return found

    def inside_removed(self, offset: int) -> bool:
        return any(s <= offset < e for s, e in self.removed)

    # -- asserts ---------------------------------------------------------------------------
    def is_assert(self, name: str | None) -> bool:
        return name in self.spelling.assert_names

    def assert_call(self, call, name: str, depth: int, *, unusable: str = "") -> bool:
        """Check one assert call. Returns False when its arguments are compiled away (their
        accesses must then not be checked: they do not run)."""
        ps = self.ps
        s, e = ps.offsets(call)
        args = C.call_args(call)
        parts = self._call_tokens(call, name)
        if parts is None or not args:
            if self.spelling.native(name) is None:
                raise ps.error(f"{name} written through a macro: safekern cannot give it a "
                               "failure site; call it directly in the function body", s, e,
                               kernel=self.function, cls=UnsupportedError)
            self._site(ASSERT, Status.UNCHECKED, "written through a macro: compiled as CUDA's "
                       "own assert (a failure traps and ends the CUDA context)", s, e)
            return True
        name_tok, close = parts
        ndebug = name == "assert" and self.ndebug_from is not None and s >= self.ndebug_from
        if not self.asserts or ndebug:
            self.removed.append((s, e))
            site = self._site(ASSERT, Status.UNCHECKED, "compiled away (NDEBUG is defined)"
                              if ndebug else "compiled away (SAFEKERN_KERNEL_ASSERTS=0)", s, e)
            site.edits.append(E.replace(name_tok[0], name_tok[1], "__SK_ASSERT_OFF"))
            return False
        cond = args[0]
        cs, ce = ps.offsets(cond)
        if unusable:
            native = self.spelling.native(name)
            if native is None:
                raise ps.error(f"{name} here cannot reach safekern's failure buffer "
                               f"({unusable})", s, e, kernel=self.function,
                               cls=UnsupportedError)
            site = self._site(ASSERT, Status.UNCHECKED, f"{unusable}: compiled as CUDA's own "
                              "assert (a failure traps)", s, e)
            if native != name:
                site.edits.append(E.replace(name_tok[0], name_tok[1], native))
            return True
        if name == "SAFEKERN_ASSERT_MSG":
            if len(args) < 2:
                raise ps.error("SAFEKERN_ASSERT_MSG(cond, \"message\", values...) needs a "
                               "message", s, e, kernel=self.function, cls=UnsupportedError)
            message, values, removed = self._message(call, args, close)
        else:
            if len(args) != 1:
                raise ps.error(f"{name}(cond) takes one argument; use "
                               "SAFEKERN_ASSERT_MSG(cond, \"message\", values...) for a "
                               "message", s, e, kernel=self.function, cls=UnsupportedError)
            message = "assertion failed: " + literal(collapse(ps.slice(cs, ce)))
            values, removed = [], []
        value = _evaluate(cond)
        if value is not None and value != 0:
            site = self._site(ASSERT, Status.ELIMINATED, "constant true condition", s, e,
                              caret=(cs, ce))
            site.edits.append(E.replace(name_tok[0], name_tok[1], "__SK_ASSERT_OFF"))
            return True
        site = self._site(ASSERT, Status.CHECKED, "", s, e, caret=(cs, ce), message=message)
        code = self.spelling.code_literal(site.code)
        sp = self.spelling
        edits = site.edits
        edits.append(E.replace(name_tok[0], name_tok[1], "(__SK_LIKELY("))
        edits.append(E.insert_after(ce, f")) ? (void)0 : {sp.fail.format(code=code)}", depth))
        for start, end in removed:
            edits.append(E.replace(start, end, ""))
        for v in values:
            vs, ve = ps.offsets(v)
            edits.append(E.insert_before(vs, f"{sp.value_cast}(", depth + 1))
            edits.append(E.insert_after(ve, ")", depth + 1))
        pad = "".join(", 0" for _ in range(MAX_VALUES - len(values)))
        edits.append(E.insert_before(close, f"{pad})", depth))
        return True

    def _call_tokens(self, call, name):
        """((start, end) of the name, offset of the closing ')') when the call is written out
        in the user's text; None when a macro produced it."""
        ps = self.ps
        s, e = ps.offsets(call)
        toks = ps.tokens_between(s, e)
        if len(toks) < 3 or toks[0][2] != name or toks[1][2] != "(" or toks[-1][2] != ")" \
                or toks[-1][1] != e or ps.macro_at(toks[1][0], toks[-1][0]):
            return None
        return (toks[0][0], toks[0][1]), toks[-1][0]

    def _message(self, call, args, close):
        """(template, value cursors, byte ranges to empty) of SAFEKERN_ASSERT_MSG."""
        ps = self.ps
        s, e = ps.offsets(call)
        cond_end = ps.offsets(args[0])[1]
        comma = ps.next_token(cond_end)
        lit_s, lit_e = ps.offsets(args[1])
        after = ps.next_token(lit_e)
        literal = [t for t in ps.tokens_between(comma[1], after[0] if after else lit_e)]
        if comma is None or comma[2] != "," or not literal or \
                not all(STRING_TOKEN.match(t[2]) for t in literal):
            raise ps.error("the message of SAFEKERN_ASSERT_MSG must be a string literal",
                           lit_s, lit_e, kernel=self.function, cls=UnsupportedError)
        text = "".join(c_string(t[2]) for t in literal)
        values = args[2:]
        template, n = printf_template(text)
        if n is None:
            raise ps.error(f"the message of SAFEKERN_ASSERT_MSG has a conversion safekern "
                           f"cannot show ({text!r}): use %d %i %u %x %X %o %c with integer "
                           "values", lit_s, lit_e, kernel=self.function, cls=UnsupportedError)
        if n != len(values) or len(values) > MAX_VALUES:
            raise ps.error(f"SAFEKERN_ASSERT_MSG: the message has {n} conversions and "
                           f"{len(values)} values are given (at most {MAX_VALUES})", s, e,
                           kernel=self.function, cls=UnsupportedError)
        for v in values:
            kind = _type_kind(C.strip(v))
            if kind not in _INTEGER_KINDS and not (self.spelling.generic and
                                                   kind in ("DEPENDENT", "UNEXPOSED")):
                vs, ve = ps.offsets(v)
                raise ps.error(f"the values of SAFEKERN_ASSERT_MSG are recorded as integers; "
                               f"`{ps.slice(vs, ve)}` is not one", vs, ve,
                               kernel=self.function, cls=UnsupportedError)
        removed = [(comma[0], comma[1])] + [(t[0], t[1]) for t in literal]
        return template, values, removed

    # -- divisions -------------------------------------------------------------------------
    def division(self, expr, lhs, rhs, op: str, depth: int, *, unusable: str = "") -> None:
        """Check one `/`, `%`, `/=` or `%=` (an integer one; others are left alone)."""
        ps = self.ps
        compound = op.endswith("=")
        s, e = ps.offsets(expr)
        if compound:
            kinds = {_type_kind(lhs), _type_kind(C.strip(rhs))}
        else:
            kinds = {_type_kind(expr)}
        if kinds & _FLOAT_KINDS or kinds & {"POINTER", "RECORD_OTHER"}:
            return
        dependent = bool(kinds & {"DEPENDENT", "UNEXPOSED", "SK_UNKNOWN"})
        vector = bool(kinds & {"VECTOR", "EXTVECTOR"})
        if not (kinds <= _INTEGER_KINDS or dependent or vector):
            return                       # a class with its own operator, a float vector ...
        if vector:
            if not all(_type_kind_of(_element(t)) in _INTEGER_KINDS
                       for t in (expr.type, lhs.type)):
                return
            self._site(ZERO_DIVISION, Status.UNCHECKED, "a vector division: its components are "
                       "not checked", s, e)
            return
        divisor = _evaluate(rhs)
        if divisor is not None and divisor != 0:
            self._site(ZERO_DIVISION, Status.ELIMINATED, "non-zero constant divisor", s, e)
            return
        if divisor is None and _constant_tree(lhs) and _constant_tree(rhs):
            self._site(ZERO_DIVISION, Status.UNCHECKED, "a constant expression (left to the "
                       "compiler)", s, e)
            return
        if unusable:
            self._site(ZERO_DIVISION, Status.UNCHECKED, unusable, s, e)
            return
        if dependent and (compound or not self.spelling.generic):
            self._site(ZERO_DIVISION, Status.UNCHECKED, "the operand types are template-"
                       "dependent: write `a = a / b` to have it checked", s, e)
            return
        if compound:
            # The divisor keeps its own (promoted) type, so the computation type is unchanged.
            fn = self.spelling.divisor(_PROMOTED.get(_type_kind(C.strip(rhs)),
                                                     _type_kind(C.strip(rhs))))
        else:
            fn = self.spelling.divide(_DIVISIONS[op],
                                      "DEPENDENT" if dependent else _type_kind(expr))
        ls, le = ps.offsets(lhs)
        rs, re_ = ps.offsets(rhs)
        tok = ps.next_token(le)
        if fn is None:
            self._site(ZERO_DIVISION, Status.UNCHECKED, f"a division of type "
                       f"{expr.type.spelling} is not checked", s, e)
            return
        if tok is None or tok[2] != op or tok[1] > rs or le <= ls or re_ <= rs or \
                ps.macro_at(ls, tok[0], re_) or ps.macro_containing(s, e):
            self._site(ZERO_DIVISION, Status.UNCHECKED, "written inside a macro expansion", s, e)
            return
        shown = literal(collapse(ps.slice(s, e)))
        divisor_text = literal(collapse(ps.slice(rs, re_)))
        dividend = "0"
        message = f"division by zero in `{shown}`: `{divisor_text}` is 0"
        if not compound:
            message += " (dividend {0})"
        else:
            target = C.strip(lhs)
            if target.kind == C.kinds().DECL_REF_EXPR and target.referenced is not None and \
                    target.referenced.kind in (C.kinds().VAR_DECL, C.kinds().PARM_DECL):
                dividend = ps.slice(*ps.offsets(target))
                message += " (dividend {0})"
        site = self._site(ZERO_DIVISION, Status.CHECKED, "", s, e, message=message)
        code = self.spelling.code_literal(site.code)
        if compound:
            site.edits += [E.insert_before(rs, f"{fn}(", depth),
                           E.insert_after(re_, f", {dividend}, {code}{self.spelling.tail}",
                                          depth)]
        else:
            site.edits += [E.insert_before(ls, f"{fn}(", depth),
                           E.replace(tok[0], tok[1], ","),
                           E.insert_after(re_, f", {code}{self.spelling.tail}", depth)]

    # -- sites -----------------------------------------------------------------------------
    def _site(self, kind, status, reason, start, end, *, caret=None, message=None):
        ps = self.ps
        where, lineno, col, _ = ps.place(start)    # (places as the compiler names them)
        cs, ce = caret or (start, end)
        filename, caret_line, caret_col, physical = ps.place(cs)
        end_line, end_col = ps.line_col(ce)
        if end_line != physical or ce <= cs:
            end_col = None
        site = SafetySite(self.function, kind, status, reason, start, end, lineno, col,
                          collapse(ps.slice(start, end)),
                          filename="" if where == ps.filename else where)
        if status == Status.CHECKED:
            site.code = site_code(self.spelling.backend, ps.filename, physical, caret_col,
                                  self.function, kind, site.text, ps.source_line(physical))
            site.failure = FailureSite(
                code=site.code, kind=kind, kernel=self.function, filename=filename,
                lineno=caret_line, source_line=ps.source_line(physical), col=caret_col,
                end_col=end_col, array=None, axis=None, message=message)
        self.sites.append(site)
        return site


def ndebug_from(ps, options) -> int | None:
    """Where NDEBUG is defined: 0 when the options define it, else the offset of the first
    `#define NDEBUG` of the source; None when it is not."""
    opts = list(options)
    for i, o in enumerate(opts):
        if o in ("-DNDEBUG", "--define-macro=NDEBUG") or \
                o.startswith(("-DNDEBUG=", "--define-macro=NDEBUG=")):
            return 0
        if o in ("-D", "--define-macro") and i + 1 < len(opts) and \
                opts[i + 1].split("=")[0] == "NDEBUG":
            return 0
    K = C.kinds()
    for c in ps.main_top():
        if c.kind == K.MACRO_DEFINITION and c.spelling == "NDEBUG":
            return ps.offsets(c)[0]
    return None


def division_operands(ps, cursor):
    """(lhs, rhs, op) of a `/ % /= %=` BINARY_OPERATOR or COMPOUND_ASSIGNMENT_OPERATOR, else
    None."""
    K = C.kinds()
    if cursor.kind not in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
        return None
    kids = C.children(cursor)
    if len(kids) != 2:
        return None
    op = C.binary_op(ps, cursor)
    return (kids[0], kids[1], op) if op in _DIVISIONS else None


def scan(rewriter: SafetyRewriter, body, *, depth_base: int = 0,
         unusable_at: Callable[[int], str] = lambda offset: "") -> None:
    """Find every assert and division of a function body (front ends without their own walk:
    OpenCL C). `depth_base + AST depth` is the depth given to the edits, as the access edits
    of checks.py count it; `unusable_at(offset)` says why a site there cannot be checked."""
    K = C.kinds()
    ps = rewriter.ps

    def visit(c, depth):
        if c.kind == K.CXX_UNARY_EXPR:
            return                           # sizeof / alignof / vec_step: not evaluated
        if c.kind == K.CALL_EXPR:
            name = C.called_name(c)
            if rewriter.is_assert(name):
                offset = ps.offsets(c)[0]
                if not rewriter.assert_call(c, name, depth_base + depth,
                                            unusable=unusable_at(offset)):
                    return
        else:
            operands = division_operands(ps, c)
            if operands is not None:
                lhs, rhs, op = operands
                rewriter.division(c, lhs, rhs, op, depth_base + depth,
                                  unusable=unusable_at(ps.offsets(c)[0]))
        for ch in C.kids(c):
            visit(ch, depth + 1)

    visit(body, 0)


# -- types and constants ---------------------------------------------------------------------

def _type_kind_of(t) -> str:
    canon = t.get_canonical()
    kind = canon.kind.name
    if kind == "RECORD":
        return "SK_UNKNOWN" if "__sk_unknown" in canon.spelling else "RECORD_OTHER"
    return kind


def _type_kind(cursor) -> str:
    return _type_kind_of(cursor.type)


def _element(t):
    canon = t.get_canonical()
    return canon.element_type if canon.kind.name in ("VECTOR", "EXTVECTOR") else canon


def _evaluate(expr) -> int | None:
    """The value of a constant integer expression, const variables with constant initialisers
    included (clang's evaluator), else None."""
    fns = C._Eval.fns()
    if not fns:
        return C.evaluate_int(expr)
    ev, kind, as_ll, dispose = fns
    c = C.strip(expr)
    if not _constant_tree(c):
        return None
    result = ev(c)
    if not result:
        return None
    try:
        return int(as_ll(result)) if kind(result) == 1 else None
    finally:
        dispose(result)


_CONSTANT_KINDS = frozenset("""INTEGER_LITERAL CHARACTER_LITERAL CXX_BOOL_LITERAL_EXPR
    PAREN_EXPR UNEXPOSED_EXPR BINARY_OPERATOR CSTYLE_CAST_EXPR CXX_STATIC_CAST_EXPR
    CXX_FUNCTIONAL_CAST_EXPR CONDITIONAL_OPERATOR TYPE_REF TEMPLATE_REF NAMESPACE_REF
    UNARY_OPERATOR""".split())


def _constant_tree(expr, depth: int = 0) -> bool:
    """Only literals, enumerators, template parameters, sizeof/alignof and const variables
    with constant initialisers: a compile-time constant (which a check must not wrap: it may
    stand where C needs a constant, e.g. an array's extent)."""
    K = C.kinds()
    c = expr
    if c.kind == K.CXX_UNARY_EXPR:
        return True
    if c.kind == K.DECL_REF_EXPR:
        ref = c.referenced
        if ref is None:
            return False
        if ref.kind in (K.ENUM_CONSTANT_DECL, K.TEMPLATE_NON_TYPE_PARAMETER):
            return True
        if ref.kind == K.VAR_DECL and ref.type.is_const_qualified() and depth < 8:
            init = [ch for ch in C.kids(ref) if ch.kind.is_expression()]
            return bool(init) and _constant_tree(init[-1], depth + 1)
        return False
    if c.kind.name not in _CONSTANT_KINDS:
        return False
    return all(_constant_tree(ch, depth) for ch in C.children(c))


__all__ = ["SafetyRewriter", "SafetySite", "Spelling", "division_operands", "scan",
           "ndebug_from", "ASSERT_MACROS",
           "MAX_VALUES"]
