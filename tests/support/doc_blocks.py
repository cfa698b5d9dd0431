"""The code blocks of the documentation, and how tests/compat/test_docs_examples.py runs them.

Rules for a ```python block in README.md or docs/*.md (each block is run by the tests):

- It is a complete program: imports, data, launch geometry. It is saved as `example.py` in an
  empty directory and run there as the main module, the way a reader would run it.
- A block that is meant to raise says so, either with a comment on the line that raises,
  `out = d_out.copy_to_host()   # raises safekern.BoundsError` (the exception must come from
  that line), or with an output block (no language, or `text`) as the next block after it
  (prose may come in between) that starts with the exception,
  `safekern.BoundsError: index 1000000 out of bounds ...` (the message must be exactly that;
  messages name the file by its full path, as Python's traceback does: write it as
  `/home/me/example.py`, DOCS_DIR below). Anything else a block raises fails its test.
- What it needs decides where it runs: `import numba` -- the GPU, else numba's CUDA simulator
  (CI); `import pyopencl` -- PoCL (CI) or any OpenCL platform; `import cupy` -- a GPU only. A
  comment `# needs: gpu` asks for a GPU in any case.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: The directory the pages show example.py in (messages give the file's full path).
DOCS_DIR = "/home/me"
PYTHON_LANGS = {"python", "py", "python3"}
OUTPUT_LANGS = {"", "text", "pytb", "console-output"}
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
_RAISES = re.compile(r"#\s*raises:?\s+(?P<name>[A-Za-z_][\w.]*)")
_NEEDS = re.compile(r"#\s*needs:\s*(?P<what>[\w, -]+)")
_EXCEPTION_LINE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(Error|Exception|Warning|Exit))"
                             r"(: (?P<message>.*))?$")


@dataclass
class Block:
    path: str            # relative to the repository root
    lineno: int          # line of the first code line in the Markdown file
    lang: str
    code: str
    output: "Block | None" = None      # the output block that follows it, if any
    needs: set = field(default_factory=set)

    @property
    def id(self) -> str:
        return f"{self.path}:{self.lineno}"

    def expected_exception(self) -> tuple[str | None, int | None, str | None]:
        """(exception name, 1-based line in the code that must raise it or None, exact message
        or None), or (None, None, None) for a block that must run through."""
        name = line = message = None
        for number, text in enumerate(self.code.splitlines(), 1):
            found = _RAISES.search(text)
            if found and _is_comment(text, found.start()):
                if name is not None:
                    raise ValueError(f"{self.id}: more than one '# raises' line")
                name, line = found.group("name"), number
        if self.output is not None:
            out_lines = self.output.code.rstrip("\n").splitlines()
            if out_lines and out_lines[0].startswith("Traceback"):
                out_lines = _after_traceback(out_lines)
            head = _EXCEPTION_LINE.match(out_lines[0]) if out_lines else None
            if head:
                if name is not None and head.group("name") != name:
                    raise ValueError(f"{self.id}: '# raises {name}' but the output shows "
                                     f"{head.group('name')}")
                name = head.group("name")
                message = "\n".join([head.group("message") or ""] + out_lines[1:])
        return name, line, message


def _is_comment(text: str, pos: int) -> bool:
    # The '#' must start a comment, not sit in a string: good enough to count quotes before it.
    before = text[:pos]
    return before.count('"') % 2 == 0 and before.count("'") % 2 == 0


def _after_traceback(lines: list[str]) -> list[str]:
    for i, text in enumerate(lines):
        if i and not text.startswith(" ") and _EXCEPTION_LINE.match(text):
            return lines[i:]
    return lines


def blocks_of(path: str) -> list[Block]:
    """Every fenced block of one Markdown file (relative to the repository root)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group("indent")), m.group("fence"), m.group("lang").lower()
        body = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        block = Block(path, i + 2, lang, "\n".join(body) + "\n")
        # The next block after a Python block, prose in between or not, is its output when it
        # has no language (or `text`); it only matters when it starts with an exception.
        if found and lang in OUTPUT_LANGS and found[-1].lang in PYTHON_LANGS:
            found[-1].output = block
        found.append(block)
        i = j + 1
    for block in found:
        if block.lang in PYTHON_LANGS:
            block.needs = _needs(block)
    return found


def _needs(block: Block) -> set:
    needs = set()
    for text in block.code.splitlines():
        m = _NEEDS.search(text)
        if m:
            needs |= {w.strip() for w in m.group("what").split(",") if w.strip()}
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return needs            # the test reports the syntax error
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top == "cupy" or name.startswith("safekern.cupy"):
                needs.add("gpu")
            elif top == "pyopencl" or name.startswith("safekern.opencl"):
                needs.add("opencl")
            elif top == "numba":
                needs.add("numba")
    return needs


def documentation_files() -> list[str]:
    docs = sorted(f"docs/{name}" for name in os.listdir(os.path.join(ROOT, "docs"))
                  if name.endswith(".md"))
    return ["README.md"] + docs


def python_blocks() -> list[Block]:
    return [b for path in documentation_files() for b in blocks_of(path)
            if b.lang in PYTHON_LANGS]


# Runs in the child: the block as the main module, and a JSON report of what it raised.
RUNNER = r'''
import json, runpy, sys, traceback
example, expected, report = sys.argv[1], sys.argv[2], sys.argv[3]
result = {"raised": None}
try:
    runpy.run_path(example, run_name="__main__")
except BaseException as exc:
    cls = type(exc)
    matches = False
    if expected:
        module, _, name = expected.rpartition(".")
        try:
            target = getattr(__import__(module, fromlist=[name]), name) if module else \
                getattr(__import__("builtins"), name)
            matches = isinstance(exc, target)
        except (ImportError, AttributeError) as err:
            result["resolve_error"] = repr(err)
    frames = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == example]
    result = dict(result, raised=f"{cls.__module__}.{cls.__qualname__}", matches=matches,
                  message=str(exc), example_lines=frames,
                  traceback="".join(traceback.format_exception(exc)))
with open(report, "w") as f:
    json.dump(result, f)
'''
