"""`python -m safekern demo` runs the demonstration; `python -m safekern cache
info|list|verify|clear` looks at and empties the kernel cache."""
from __future__ import annotations

import sys

USAGE = """usage: python -m safekern <command> [arguments]

commands:
  demo                          run the demonstration (see `python -m safekern demo --help`)
  cache info|list|verify|clear  the kernel cache file (see `python -m safekern cache --help`)"""


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "cache":
        from .cache.cli import main as cache_main

        return cache_main(rest)
    if command == "demo":
        from . import demo

        return demo.main(rest) or 0
    print(f"python -m safekern: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
