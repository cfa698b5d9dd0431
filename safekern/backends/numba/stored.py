"""The checked rewrite of a numba kernel, kept in the kernel cache, so a warm start skips it too.

Decorating a function with `safekern.jit` parses it and rewrites it (checks, failure exits,
check elimination); for a kernel with shared memory and barriers that takes milliseconds, more
than everything else a warm start does per kernel. `rewrite(fn, make)` looks the rewrite up in
the kernel cache first (through the cache's one build-or-load path, `get_or_build`), by a key
of everything it depends on:

- the function's text (from its `def` to its last line), file, line and indentation, and
  whether it is a kernel or a device function;
- what each name in it means now (keys.describe_value by name): data by value, modules,
  classes and functions by name, checked and numba functions by kind and name (whatever else:
  the rewrite is not stored);
- safekern's front end (the source of safekern/frontend/python/*.py, failures.py and the numba
  backend's name resolution and rewrite call), and safekern's settings other than the cache's
  and logging's.

A hit gives a `StoredRewrite`: the rewritten source, the check sites, the failure sites (the
function's Build registers them, as for a fresh rewrite), the checked device functions it calls
(by the global names that hold them), and its other plain fields. Its `tree` is parsed from the
source (enough to find the names it reads); a build compiles a fresh rewrite (`fresh`), which
must give the same source. A miss rewrites as always and stores the result.
Errors in the user's code are raised by the rewrite as before: only rewrites that succeeded are
stored. Everything stored is JSON; nothing is executed.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import glob
import hashlib
import json
import linecache
import logging
import os

from ... import config
from ..._version import __version__
from ...cache.kernels import get_kernel_cache, get_or_build
from ...failures import FailureSite
from ...frontend import python as pyfront
from ...frontend.python.call_facts import ParamFact
from ...frontend.python.launch import LaunchFact, LaunchPredicate
from .keys import Uncacheable, describe_value, names_used
from .resolver import device_function_of

log = logging.getLogger("safekern.numba")

FORMAT = 4          # 2: launch predicates; 3: specialised device calls; 4: call chains


class _NotStorable(Exception):
    pass


def _describe(value):
    """What the rewrite can see of a value: data by value, code objects by kind and name."""
    try:
        return describe_value(value, by_name=True)
    except Uncacheable as err:
        raise _NotStorable(str(err)) from None


def _names(tree) -> list[str]:
    return sorted(pyfront.names_read(tree))


def _scope(parsed) -> dict:
    out = {}
    for name in _names(parsed.tree):
        if name in parsed.closure:
            out[name] = ("closure", _describe(parsed.closure[name]))
        elif name in parsed.globals:
            out[name] = ("global", _describe(parsed.globals[name]))
        else:
            out[name] = ("builtin",) if hasattr(builtins, name) else ("missing",)
    return out


_front_end = None

#: The numba backend's part of a rewrite: the call that makes it, the names it resolves, the
#: parameters a specialisation binds.
_BACKEND_FILES = ("build.py", "kernel.py", "resolver.py")


def front_end_digest() -> str:
    """The source of what a rewrite runs: safekern's front end, failure codes, name resolution."""
    global _front_end
    if _front_end is None:
        here = os.path.dirname(os.path.abspath(__file__))
        package = os.path.dirname(os.path.dirname(here))
        paths = sorted(glob.glob(os.path.join(package, "frontend", "python", "*.py")))
        paths += [os.path.join(package, "failures.py")]
        paths += [os.path.join(here, name) for name in _BACKEND_FILES]
        h = hashlib.sha256(f"safekern {__version__} rewrite format {FORMAT}\n".encode())
        for path in paths:
            h.update(os.path.basename(path).encode() + b"\0")
            try:
                with open(path, "rb") as f:
                    h.update(f.read())
            except OSError:
                h.update(b"unreadable")
        _front_end = h.hexdigest()
    return _front_end


def _text(parsed) -> str:
    """The function's lines as the parse read them (decorators are not part of its tree)."""
    tree = parsed.tree
    lines = linecache.getlines(parsed.filename)
    end = getattr(tree, "end_lineno", None)
    if not lines or end is None or end > len(lines):
        raise _NotStorable("the function's text is not available")
    return "".join(lines[tree.lineno - 1:end])


def key_fields(build) -> dict:
    """What the rewrite of the function whose Build (build.py) is `build` depends on."""
    parsed = build.parsed
    return {
        "kind": "numba-rewrite",
        "function": build.name,
        "device": bool(build.device),
        # debug=True leaves raise/assert/division to numba (kernel_exceptions in the rewrite).
        "debug": bool(build.options.get("debug")),
        "text": _text(parsed),
        "line": parsed.tree.lineno,
        "filename": parsed.filename,
        "indent": parsed.indent,
        "scope": _scope(parsed),
        # A specialisation's parameters bound to functions (resolver.py): not in its text.
        "params": [a.arg for a in parsed.tree.args.args],
        # A specialisation for its call sites' facts (specialise.py): not in its text either.
        "param_facts": [[f.param, f.axis, f.extent, f.exact] for f in build.param_facts],
        "front_end": front_end_digest(),
        "settings": tuple((k, repr(v)) for k, v in sorted(
            dataclasses.asdict(build.config).items())
            if not k.startswith(("cache", "log"))),
        "env": tuple(config.environ_snapshot().items()),
    }


# -- what is stored ---------------------------------------------------------------------------

def _plain(value):
    """JSON-able form of a plain field value, or _NotStorable."""
    if isinstance(value, (type(None), bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return {"seq": type(value).__name__, "items": [_plain(v) for v in value]}
    raise _NotStorable(f"a rewrite field of type {type(value).__name__}")


def _unplain(value):
    if isinstance(value, dict):
        items = [_unplain(v) for v in value["items"]]
        return tuple(items) if value["seq"] == "tuple" else items
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return value


# Not stored as fields (a build rewrites afresh: the launch variant comes with it).
_NOT_FIELDS = ("parsed", "tree", "device_calls", "failure_sites", "launch_variant")


def pack(build, rewritten) -> dict:
    """The rewrite as plain data (raises _NotStorable for what cannot be)."""
    parsed = build.parsed
    calls = _pack_calls(parsed, rewritten.device_calls)
    fields = {}
    for f in dataclasses.fields(rewritten):
        if f.name in _NOT_FIELDS:
            continue
        value = getattr(rewritten, f.name)
        if f.name == "launch_predicates":
            fields[f.name] = [_pack_predicate(p) for p in value]
        elif f.name == "sites":
            fields[f.name] = [[_plain(v) for v in dataclasses.astuple(s)] for s in value]
        else:
            fields[f.name] = _plain(value)
    data = {"format": FORMAT, "source": rewritten.source, "device_calls": calls,
            "fields": fields,
            "failure_sites": [dataclasses.asdict(s) for s in rewritten.failure_sites],
            "names": _pack_names(rewritten.tree)}
    variant = rewritten.launch_variant
    if variant is not None:
        # The launch variant's source too: a warm start launches it without rewriting.
        data["launch_variant"] = {"source": variant.source, "names": _pack_names(variant.tree),
                                  "device_calls": _pack_calls(parsed, variant.device_calls)}
    return data


def _pack_calls(parsed, device_calls) -> dict:
    """name -> the global name holding the device function, or [that name, param facts] for
    one specialised for its call site's facts (specialise.py)."""
    calls = {}
    used = _names(parsed.tree)          # (the key says what each of these means)
    for name, dev in device_calls.items():
        base = getattr(dev, "specialised_from", None) or dev
        holder = [g for g in used
                  if (parsed.closure.get(g) if g in parsed.closure else parsed.globals.get(g))
                  is base]
        if not holder:
            raise _NotStorable(f"device function {dev!r} is not held by a global name")
        facts = dev.__safekern_build__().param_facts if base is not dev else None
        calls[name] = holder[0] if facts is None else \
            [holder[0], [[f.param, f.axis, f.extent, f.exact] for f in facts]]
    return calls


def _unpack_calls(parsed, data) -> dict:
    calls = {}
    for name, held in data.items():
        holder, facts = (held, None) if isinstance(held, str) else held
        dev = parsed.closure.get(holder) if holder in parsed.closure else \
            parsed.globals.get(holder)
        if dev is None or device_function_of(dev) is not dev:
            raise ValueError(f"{holder!r} is not a checked device function now")
        if facts is not None:
            dev = dev.specialised(tuple(ParamFact(*f) for f in facts))
        calls[name] = dev
    return calls


def _pack_names(tree) -> list:
    loads, bound, chains = names_used(tree)
    return [sorted(loads), sorted(bound), [[root, list(attrs)] for root, attrs in chains]]


def _unpack_names(data) -> tuple:
    loads, bound, chains = data
    return set(loads), set(bound), [(root, tuple(attrs)) for root, attrs in chains]


def _pack_predicate(predicate) -> list:
    return [[[c, f.kind, f.param, f.name, list(f.axis)] for c, f in predicate.terms],
            predicate.const]


def _unpack_predicate(data):
    terms, const = data
    return LaunchPredicate(tuple((c, LaunchFact(kind, param, name, tuple(axis)))
                                 for c, kind, param, name, axis in terms), const)


def unpack(build, data: dict):
    """A StoredRewrite from `pack`'s data; ValueError if the data does not fit this process
    (then the function is rewritten afresh)."""
    if data.get("format") != FORMAT:
        raise ValueError("another rewrite format")
    parsed = build.parsed
    calls = _unpack_calls(parsed, data["device_calls"])
    fields = {name: _unplain(v) for name, v in data["fields"].items()}
    known = {f.name for f in dataclasses.fields(pyfront.RewrittenFunction)}
    if set(fields) | set(_NOT_FIELDS) != known:
        raise ValueError("the rewrite's fields changed")
    fields["sites"] = [pyfront.CheckSite(*s) for s in fields["sites"]]
    fields["launch_predicates"] = tuple(_unpack_predicate(p)
                                        for p in fields["launch_predicates"])
    sites = [FailureSite(**s) for s in data["failure_sites"]]
    stored = StoredRewrite(parsed=parsed, tree=None, device_calls=calls, failure_sites=sites,
                           **fields)
    stored.stored_source = data["source"]
    stored.names_used = _unpack_names(data["names"])
    variant = data.get("launch_variant")
    if variant is not None:
        stored.launch_variant = StoredRewrite(parsed=parsed, tree=None,
                                              device_calls=_unpack_calls(
                                                  parsed, variant.get("device_calls", {})),
                                              failure_sites=sites, **fields)
        stored.launch_variant.stored_source = variant["source"]
        stored.launch_variant.names_used = _unpack_names(variant["names"])
    elif stored.launch_predicates:
        raise ValueError("launch predicates without their variant")
    return stored


class StoredRewrite(pyfront.RewrittenFunction):
    """A rewrite read from the kernel cache: its source as stored; its tree, parsed from that
    source when first asked for, has none of the user's line numbers (a build rewrites
    afresh)."""

    stored_source = ""
    names_used = None          # what keys.globals_fields would find in the tree
    _tree = None

    @property
    def source(self) -> str:
        return self.stored_source

    @property
    def tree(self):
        if self._tree is None:
            self._tree = ast.parse(self.stored_source)
        return self._tree

    @tree.setter
    def tree(self, value):
        self._tree = value


def is_stored(rewritten) -> bool:
    return isinstance(rewritten, StoredRewrite)


# -- the entry point ---------------------------------------------------------------------------

def _fields(build):
    """The rewrite's key fields, or None: no kernel cache, or a rewrite not storable."""
    if get_kernel_cache() is None:
        return None
    try:
        return key_fields(build)
    except _NotStorable as why:
        log.debug("rewrite of %r not cached: %s", build.name, why)
    except Exception:               # noqa: BLE001 - the cache never stops a kernel
        log.debug("rewrite of %r: key failed", build.name, exc_info=True)
    return None


def _load(build, payload: bytes):
    return unpack(build, json.loads(payload.decode("utf-8")))


def rewrite(build, make):
    """`make()` (the front end's rewrite of the function whose Build is `build`), or the same
    from the kernel cache."""
    fields = _fields(build)
    if fields is None:
        return make()
    made = []

    def build_payload():
        rewritten = make()
        made.append(rewritten)
        return json.dumps(pack(build, rewritten), sort_keys=True).encode(), rewritten

    try:
        return get_or_build(fields, build_payload, lambda payload: _load(build, payload),
                            describe=f"numba rewrite {build.name!r}",
                            meta={"kernel": build.name, "backend": "numba-rewrite"})
    except Exception as err:        # noqa: BLE001 - storing failed; the rewrite stands
        if not made:
            raise                   # the rewrite itself failed: the user's error
        log.debug("rewrite of %r not stored: %s", build.name, err)
        return made[-1]


def lookup(build):
    """The kernel cache's rewrite of the function whose Build is `build` (a StoredRewrite), or
    None: no cache, not storable, not stored (nothing is rewritten here: a decoration asks
    first, and leaves a miss's rewrite to the first build, through `rewrite`)."""
    fields = _fields(build)
    payload = None if fields is None else get_kernel_cache().lookup(
        fields, describe=f"numba rewrite {build.name!r}")
    if payload is None:
        return None
    try:
        return _load(build, payload)
    except Exception:               # noqa: BLE001 - a stale record: `rewrite` replaces it
        log.debug("rewrite of %r: cached record unusable", build.name, exc_info=True)
        return None


def fresh(build, stored):
    """The front end's own rewrite for a build, checked against the stored one."""
    rewritten = build.rewrite()
    if rewritten.source != stored.source:
        log.warning("the cached rewrite of %r differs from a fresh one; using the fresh one "
                    "(please report this)", build.name)
    return rewritten


__all__ = ["rewrite", "lookup", "fresh", "is_stored", "key_fields", "front_end_digest", "pack",
           "unpack", "StoredRewrite"]
