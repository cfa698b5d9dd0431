"""The remote tier's part of `python -m safekern cache`: `info` describes it, `list --remote`
lists its entries (with whether each would be used), `clear --remote` removes them.

The commands wait for Redis longer than a kernel does (at least `CLI_TIMEOUT` seconds per
operation): a person is waiting, not a launch. The secret is never printed.
"""
from __future__ import annotations

from .. import config
from .display import size
from .remote import RemoteTier, client_available

CLI_TIMEOUT = 5.0


def _tier(cfg) -> tuple[RemoteTier | None, str | None]:
    """(the tier to inspect, why kernels do not use it or None); (None, why) when there is
    nothing to inspect."""
    if cfg.cache_remote_problem:
        return None, f"invalid configuration: {cfg.cache_remote_problem}"
    if not client_available():
        return None, "the redis client is not installed (pip install 'safekern[redis]')"
    tier = RemoteTier(cfg.cache_remote, secret=cfg.cache_remote_key,
                      trust=cfg.cache_remote_trust,
                      timeout=max(cfg.cache_remote_timeout, CLI_TIMEOUT))
    if cfg.cache_remote_key is None and not cfg.cache_remote_trust:
        return tier, ("neither SAFEKERN_CACHE_REMOTE_KEY nor SAFEKERN_CACHE_REMOTE_TRUST=1 is "
                      "set")
    return tier, None


def _mode(tier: RemoteTier) -> str:
    if tier.signed:
        return "entries signed and checked with SAFEKERN_CACHE_REMOTE_KEY"
    return "unsigned entries trusted (SAFEKERN_CACHE_REMOTE_TRUST=1)"


def _size(n) -> str:
    return size(n) if isinstance(n, int) else "?"


def info_lines(cfg) -> list[str]:
    """The `remote:` lines of `cache info` (none when no remote tier is configured)."""
    if cfg.cache_remote is None and cfg.cache_remote_problem is None:
        return []
    shown = config.redact_url(cfg.cache_remote) if cfg.cache_remote else "-"
    tier, why_not = _tier(cfg)
    lines = [f"remote:   {shown}"]
    if why_not:
        lines.append(f"          not used by kernels: {why_not}")
    else:
        lines.append(f"          {_mode(tier)}; at most {cfg.cache_remote_timeout * 1000:g} ms "
                     "per kernel")
    if tier is None:
        return lines
    try:
        client = tier.connect()
        try:
            stats = tier.server_stats(client)
        finally:
            client.close()
    except Exception as exc:      # noqa: BLE001 - any failure is what the user needs to see
        lines.append(f"          unreachable: {type(exc).__name__}: {exc}")
        return lines
    bound = f" of maxmemory {_size(stats['maxmemory'])} ({stats['maxmemory_policy']})" \
        if stats["maxmemory"] else " (no maxmemory)"
    lines.append(f"          {stats['entries']} entries, {_size(stats['bytes'])}; the server "
                 f"uses {_size(stats['used_memory'])}{bound}")
    return lines


def list_rows(cfg) -> tuple[list[dict], str | None]:
    """(one row per remote entry, None) or ([], why there is no listing)."""
    if cfg.cache_remote is None and cfg.cache_remote_problem is None:
        return [], "no remote tier is configured (SAFEKERN_CACHE_REMOTE)"
    tier, _ = _tier(cfg)
    if tier is None:
        return [], _tier(cfg)[1]
    try:
        client = tier.connect()
        try:
            entries = tier.describe_entries(client)
        finally:
            client.close()
    except Exception as exc:      # noqa: BLE001
        return [], f"{tier.shown_url} unreachable: {type(exc).__name__}: {exc}"
    rows = []
    for e in entries:
        meta = e["meta"]
        state = e["state"]
        if state == "signed" and not tier.signed:
            state = "signed (not checked: no key)"
        rows.append({"kernel": str(meta.get("kernel", meta.get("describe", "?"))),
                     "backend": str(meta.get("backend", "-")),
                     "device": str(meta.get("device", "-")), "size": e["size"],
                     "state": state, "key": e["name"].rsplit(":", 1)[-1], "meta": meta})
    return rows, None


def clear(cfg) -> tuple[int, str | None]:
    """(entries removed, None) or (0, why nothing was removed)."""
    if cfg.cache_remote is None and cfg.cache_remote_problem is None:
        return 0, "no remote tier is configured (SAFEKERN_CACHE_REMOTE)"
    tier, _ = _tier(cfg)
    if tier is None:
        return 0, _tier(cfg)[1]
    try:
        client = tier.connect()
        try:
            return tier.clear_entries(client), None
        finally:
            client.close()
    except Exception as exc:      # noqa: BLE001
        return 0, f"{tier.shown_url} unreachable: {type(exc).__name__}: {exc}"
