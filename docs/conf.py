"""Sphinx configuration of safekern's documentation site (`bash scripts/dev.sh docs`).

The pages are the Markdown files of docs/ (MyST); the home page includes the README's
introduction; api.md is generated from the docstrings. CI builds it with warnings as errors.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)     # document the source tree, not some other installed safekern

import safekern  # noqa: E402

project = "safekern"
author = "the safekern authors"
copyright = "2026, the safekern authors"
release = version = safekern.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinxarg.ext"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Links such as [text](cache.md#numba-cuda-kernels) need heading anchors, as on GitHub.
myst_heading_anchors = 4
# Docstrings write code as `x` (as Markdown does): show it as code, not as a title reference.
default_role = "code"
# Code in docstrings is often an indented block without `::`; straight quotes stay straight.
smartquotes = False

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "alabaster"
html_title = f"safekern {release}"
html_theme_options = {"description": "Memory-safe GPU kernels without making them slow",
                      "fixed_sidebar": True}

# The pages link to the README (for readers on GitHub); on the site its text is the home page.
_README_LINK = re.compile(r"\]\(\.\./README\.md(#[\w-]+)?\)")


def _readme_links_to_home(app, docname, source):
    source[0] = _README_LINK.sub(lambda m: f"](index.md{m.group(1) or ''})", source[0])


def _no_package_docstring(app, what, name, obj, options, lines):
    # api.md lists the package's exceptions with `automodule:: safekern`; the package's own
    # docstring (a summary for help()) would repeat the page's introduction there.
    if what == "module" and name == "safekern":
        lines.clear()


def setup(app):
    app.connect("source-read", _readme_links_to_home)
    app.connect("autodoc-process-docstring", _no_package_docstring)
