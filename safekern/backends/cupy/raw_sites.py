"""The `raw` arguments of a CuPy ElementwiseKernel, checked where the user's code indexes them.

CuPy hands a kernel each `raw T x` argument as a `CArray<T, ndim, ...>` and the user indexes it
by hand: `x[i + 1]` (a linear index: 0 <= i < x.size()), `x[idx]` with `ptrdiff_t idx[ndim]`, or
`x[{r, c}]` (one index per axis: 0 <= idx[d] < x.shape()[d]). CuPy checks none of them.

`find_sites(code, raw_names)` (analysis) finds each subscript of a raw argument in a code
string (the operation, `loop_prep`, `after_loop`): an identifier that names a raw argument,
not a member (`.x`, `->x`, `ns::x`) nor declared there (`float x[2]`), followed by `[`. `insert_checks(code, sites, ...)`
(rewrite) turns `x[` into `__sk_at(x, CODE, __sk_fb)[`: `__sk_at` (RAW_PRELUDE) gives a CArray
a checking view whose `operator[]` checks each index with the prelude's `__sk_ix` and then
indexes the CArray itself, so CuPy's addressing (strides, 32-bit indexing) is unchanged; for
anything else -- a local array of the same name that shadows the argument, a 0-dim CArray
(CuPy ignores its index) -- `__sk_at` is the object itself. Edits stay on their line.

Not checked: the same arrays passed to functions of the `preamble` (they get the CArray).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                     r'[A-Za-z_]\w*|->|::|\S', re.S)


@dataclass(frozen=True)
class Site:
    """One subscript `name[...]` of a raw argument in a code string."""

    name: str
    start: int            # offset of the name
    lineno: int           # 1-based line in the code string
    col: int              # 0-based column of the index (after `[`)
    end_col: int | None   # column of the closing `]` on the same line, else None


def _tokens(code: str):
    """(text, start) of the code's tokens; comments and literals are single tokens that
    never match a name or a bracket."""
    return [(m.group(), m.start()) for m in _TOKENS.finditer(code)
            if not m.group().startswith(("//", "/*"))]


def _line_col(code: str, offset: int) -> tuple[int, int]:
    line_start = code.rfind("\n", 0, offset) + 1
    return code.count("\n", 0, offset) + 1, offset - line_start


_NOT_TYPES = {"return", "case", "sizeof", "else", "do", "throw", "co_return", "co_yield"}


def _declares(previous: str) -> bool:
    """`float x[2]`: the name follows a type, so it declares a local array that shadows the
    argument (indexed unchanged from there on), not a subscript."""
    return (previous[:1].isalpha() or previous[:1] == "_") and previous not in _NOT_TYPES


def find_sites(code: str, raw_names) -> list[Site]:
    names = set(raw_names)
    toks = _tokens(code or "")
    sites = []
    for k, (text, start) in enumerate(toks):
        if text not in names or k + 1 >= len(toks) or toks[k + 1][0] != "[":
            continue
        if k > 0 and (toks[k - 1][0] in (".", "->", "::") or _declares(toks[k - 1][0])):
            continue
        depth, close = 0, None
        for text2, start2 in toks[k + 1:]:
            if text2 in ("[", "(", "{"):
                depth += 1
            elif text2 in ("]", ")", "}"):
                depth -= 1
                if depth == 0:
                    close = start2
                    break
        lineno, col = _line_col(code, toks[k + 1][1] + 1)
        end_col = None
        if close is not None:
            end_line, end = _line_col(code, close)
            end_col = end if end_line == lineno else None
        sites.append(Site(text, start, lineno, col, end_col))
    return sites


def insert_checks(code: str, sites, codes) -> str:
    """`code` with each site's `name` made `__sk_at(name, CODE, __sk_fb)` (codes: per site)."""
    out, pos = [], 0
    for site, code_ in zip(sites, codes):
        out.append(code[pos:site.start])
        out.append(f"__sk_at({site.name}, {code_:#x}ULL, __sk_fb)")
        pos = site.start + len(site.name)
    out.append(code[pos:])
    return "".join(out)


#: After CuPy's carray.cuh and safekern's device prelude (cuda_dialect.device_prelude).
RAW_PRELUDE = r"""
// safekern: checked subscripts of raw CArray arguments (backends/cupy/raw_sites.py)
template <class A, int N> struct __sk_view {
  A& a; unsigned long long code; long long* fb;
  __device__ __forceinline__ auto operator[](ptrdiff_t i) const -> decltype(a[i]) {
    return a[(ptrdiff_t)__sk_ix(i, a.size(), code, 0, fb)];
  }
  template <typename Int>
  __device__ __forceinline__ auto operator[](const Int (&idx)[N]) const -> decltype(a[idx]) {
    for (int d = 0; d < N; ++d) __sk_ix(idx[d], a.shape()[d], code, d, fb);
    return a[idx];
  }
  template <typename Int>
  __device__ __forceinline__ auto operator[](const std::initializer_list<Int> idx_) const
      -> decltype(a[(ptrdiff_t)0]) {
    Int idx[N];
    const Int* p = idx_.begin();
    for (int d = 0; d < N; ++d) { idx[d] = p[d]; __sk_ix(idx[d], a.shape()[d], code, d, fb); }
    return a[idx];
  }
};
template <class T, int N, bool C, bool I>
__device__ __forceinline__ __sk_view<CArray<T, N, C, I>, N> __sk_at(
    CArray<T, N, C, I>& a, unsigned long long code, long long* fb) {
  return __sk_view<CArray<T, N, C, I>, N>{a, code, fb};
}
template <class T, int N, bool C, bool I>
__device__ __forceinline__ __sk_view<const CArray<T, N, C, I>, N> __sk_at(
    const CArray<T, N, C, I>& a, unsigned long long code, long long* fb) {
  return __sk_view<const CArray<T, N, C, I>, N>{a, code, fb};
}
template <class T, bool I>
__device__ __forceinline__ CArray<T, 0, true, I>& __sk_at(
    CArray<T, 0, true, I>& a, unsigned long long, long long*) { return a; }
template <class T, bool I>
__device__ __forceinline__ const CArray<T, 0, true, I>& __sk_at(
    const CArray<T, 0, true, I>& a, unsigned long long, long long*) { return a; }
template <class A>
__device__ __forceinline__ A& __sk_at(A& a, unsigned long long, long long*) { return a; }
"""

__all__ = ["Site", "find_sites", "insert_checks", "RAW_PRELUDE"]
