"""config.py is the only module of safekern that reads the environment (docs/how-it-works.md)."""
import ast
import os

import safekern


def _reads_environment(tree) -> list:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb") \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and \
                any(a.name in ("environ", "getenv", "environb") for a in node.names):
            found.append(node.lineno)
    return found


def test_only_config_reads_the_environment():
    package = os.path.dirname(safekern.__file__)
    found = {}
    for folder, _, files in os.walk(package):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, package)
            if name.endswith(".py") and rel != "config.py":
                lines = _reads_environment(ast.parse(open(path).read()))
                if lines:
                    found[rel] = lines
    assert not found, found
