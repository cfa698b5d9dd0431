"""`python -m safekern cache info|list|verify|clear`: look at and manage the kernel cache file,
and the remote tier when SAFEKERN_CACHE_REMOTE sets one (`info` shows it, `list --remote` lists
it, `clear --remote` empties it too; cli_remote.py).

`main(argv)` takes the arguments after `cache` and returns the exit status: 0 on success; 1 when
`list` cannot read the file (not a cache, refused), `verify` finds a problem or `clear` cannot
clear; 2 on a usage error; 141 (as for a process killed by SIGPIPE) when the reader of the output
went away, as in `python -m safekern cache list | head -2`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from .. import config
from .format import FORMAT_VERSION
from .kernels import CacheUnavailable, resolve_path
from .display import size, when
from .store import Cache
from .trust import CacheWarning, trust_problem


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m safekern cache",
        description="Inspect or empty safekern's kernel cache file (by default the file that "
                    "SAFEKERN_CACHE selects).")
    sub = parser.add_subparsers(dest="command", metavar="{info,list,verify,clear}")
    sub.required = True
    helps = {"info": "path, size, bound and number of entries",
             "list": "one line per cached kernel: kernel, backend, device, size, last used",
             "verify": "check every record's checksum; exit status 1 if any is damaged",
             "clear": "remove every entry"}
    for name, text in helps.items():
        cmd = sub.add_parser(name, help=text, description=text)
        cmd.add_argument("--path", help="the cache file (default: from SAFEKERN_CACHE)")
        if name == "list":
            cmd.add_argument("--json", action="store_true", help="print JSON instead of a table")
        if name in ("list", "clear"):
            cmd.add_argument("--remote", action="store_true", help={
                "list": "list the remote tier's entries (SAFEKERN_CACHE_REMOTE) instead, with "
                        "whether each would be used",
                "clear": "also remove every safekern entry from the remote tier "
                         "(SAFEKERN_CACHE_REMOTE), which every node using it shares"}[name])
    return parser


def main(argv=None) -> int:
    """`python -m safekern cache ARGS`: run one command on the cache file (`--path`, or the one
    SAFEKERN_CACHE selects) and return the exit status (see the module's docstring)."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    cfg = config.get()
    if args.path is None and not cfg.cache_enabled:
        print("the kernel cache is off (SAFEKERN_CACHE=off)")
        return 0 if args.command in ("info", "list") else 1
    try:
        path = resolve_path(args.path if args.path is not None else cfg.cache)
    except CacheUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        with warnings.catch_warnings():
            # Problems are printed as part of the output; no second copy as a warning.
            warnings.simplefilter("ignore", CacheWarning)
            status = _COMMANDS[args.command](path, cfg, args)
        sys.stdout.flush()     # a closed pipe shows here rather than at interpreter exit
        return status
    except BrokenPipeError:
        # The reader stopped reading (`| head`): not an error of ours, and no traceback. Point
        # stdout at /dev/null so that the interpreter's own flush at exit is silent too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


def _open_for_reading(path: str) -> Cache:
    return Cache(path, readonly=True)


def _why_not_creatable(path: str, cfg) -> str | None:
    """Why the cache file `path`, which does not exist, will not be created by a kernel's
    compile, or None when it will be."""
    if cfg.cache_readonly:
        return "SAFEKERN_CACHE_READONLY is set, so nothing creates it"
    # The store creates the missing directories (makedirs) and then the file: the nearest
    # existing ancestor decides.
    parent = os.path.dirname(path)
    while not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return f"{parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        # access(2) also says no for a read-only file system, even to root.
        return f"{parent} is not writable"
    return None


def _info(path, cfg, args) -> int:
    status = _info_local(path, cfg, args)
    from .cli_remote import info_lines

    for line in info_lines(cfg):
        print(line)
    return status


def _info_local(path, cfg, args) -> int:
    print(f"path:     {path}")
    if not os.path.exists(path):
        why = _why_not_creatable(path, cfg)
        if why:
            print(f"status:   no file, and none will be created: {why}; kernels run uncached "
                  "(set SAFEKERN_CACHE to a file in a writable directory)")
        else:
            print("status:   no file yet (it is created when the first kernel is compiled)")
        return 0
    trust = trust_problem(os.stat(path), cfg.cache_readonly)
    cache = _open_for_reading(path)
    stats = cache.stats()
    if trust or stats["problem"]:
        print(f"status:   not used: {trust or stats['problem']}")
        return 0
    mode = "read-only (SAFEKERN_CACHE_READONLY=1)" if cfg.cache_readonly else "read-write"
    print(f"status:   {mode}")
    print(f"format:   version {FORMAT_VERSION}, generation {stats['generation'] or '-'}")
    print(f"size:     {size(stats['size'])} of a {size(cfg.cache_max_bytes)} bound")
    extra = []
    if stats["dead"]:
        extra.append(f"{stats['dead']} superseded or deletion records")
    if stats["damaged"]:
        extra.append(f"{stats['damaged']} damaged records")
    if stats["torn_tail"]:
        extra.append(f"{stats['torn_tail']} bytes of an interrupted write at the end")
    print(f"entries:  {stats['entries']}" + (f" ({'; '.join(extra)})" if extra else ""))
    return 0


def _print_table(table) -> None:
    """`table`'s rows in columns of at most 40 characters; a longer cell ends in `...` (a
    kernel's qualified name cut short said nothing of it; `--json` has every cell whole)."""
    widths = [min(40, max(len(row[i]) for row in table)) for i in range(len(table[0]))]
    for row in table:
        print("  ".join((cell if len(cell) <= w else cell[:w - 3] + "...").ljust(w)
                        for cell, w in zip(row, widths)).rstrip())


def _list(path, cfg, args) -> int:
    if args.remote:
        return _list_remote(cfg, args)
    entries = []
    if os.path.exists(path):
        cache = _open_for_reading(path)
        problem = trust_problem(os.stat(path), cfg.cache_readonly) or cache.problem
        if problem:
            # An unusable file is not an empty cache: say why, as info and verify do.
            where = "" if problem.startswith(path) else f"{path}: "
            print(f"error: not used: {where}{problem}", file=sys.stderr)
            return 1
        entries = cache.entries()
    entries.sort(key=lambda e: e.last_used, reverse=True)
    rows = []
    for e in entries:
        meta = e.meta
        rows.append({"kernel": str(meta.get("kernel", meta.get("describe", "?"))),
                     "backend": str(meta.get("backend", "-")),
                     "device": str(meta.get("device", "-")),
                     "size": e.payload_size, "last_used": e.last_used, "created": e.created,
                     "key": e.digest, "describe": meta.get("describe"), "meta": meta})
    if args.json:
        print(json.dumps(rows, indent=2, sort_keys=True, default=str))
        return 0
    if not rows:
        print(f"no cached kernels in {path}" + ("" if os.path.exists(path) else " (no file yet)"))
        return 0
    table = [("KERNEL", "BACKEND", "DEVICE", "SIZE", "LAST USED", "KEY")]
    table += [(r["kernel"], r["backend"], r["device"], size(r["size"]), when(r["last_used"]),
               r["key"][:12]) for r in rows]
    _print_table(table)
    return 0


def _list_remote(cfg, args) -> int:
    from .cli_remote import list_rows

    rows, error = list_rows(cfg)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(rows, indent=2, sort_keys=True, default=str))
        return 0
    if not rows:
        print(f"no cached kernels in {config.redact_url(cfg.cache_remote)}")
        return 0
    table = [("KERNEL", "BACKEND", "DEVICE", "SIZE", "STATE", "KEY")]
    table += [(r["kernel"], r["backend"], r["device"], size(r["size"]), r["state"],
               r["key"][:12]) for r in rows]
    _print_table(table)
    return 0


def _verify(path, cfg, args) -> int:
    report = _open_for_reading(path).verify()
    if not report.exists:
        print(f"{path}: no file")
        return 0
    if report.header_problem:
        print(f"{path}: {report.header_problem}")
        return 1
    print(f"{path}: {report.records} records checked, {report.live} live entries, "
          f"{report.dead} superseded or deletion records, {size(report.size)}")
    for offset, problem in report.problems:
        print(f"  damaged record at offset {offset}: {problem}")
    if report.torn_tail:
        print(f"  note: {report.torn_tail} bytes at the end are an interrupted (or ongoing) "
              "write; the next write removes them")
    print("OK" if report.ok else "PROBLEMS FOUND (damaged records are ignored; "
          "`python -m safekern cache clear` starts afresh)")
    return 0 if report.ok else 1


def _clear(path, cfg, args) -> int:
    status = _clear_local(path, cfg, args)
    if args.remote:
        from .cli_remote import clear

        removed, error = clear(cfg)
        if error:
            print(f"error: not clearing the remote tier: {error}", file=sys.stderr)
            return 1
        print(f"cleared {config.redact_url(cfg.cache_remote)} ({removed} entries)")
    return status


def _clear_local(path, cfg, args) -> int:
    if cfg.cache_readonly:
        print(f"error: not clearing {path}: SAFEKERN_CACHE_READONLY is set", file=sys.stderr)
        return 1
    if not os.path.exists(path):
        print(f"nothing to clear: {path} does not exist")
        return 0
    cache = Cache(path, lock_timeout=cfg.cache_lock_timeout)
    before = cache.stats()
    if not cache.clear():
        print(f"error: cannot clear {path}: {cache.problem or cache.write_problem}",
              file=sys.stderr)
        return 1
    print(f"cleared {path} ({before['entries']} entries, {size(before['size'])})")
    return 0


_COMMANDS = {"info": _info, "list": _list, "verify": _verify, "clear": _clear}
