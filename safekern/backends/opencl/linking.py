"""Separate compilation of checked programs: `Program.compile()` and `pyopencl.link_program`.

`compile()` rewrites the program as `build()` does (libclang reads the `headers` from a
temporary folder) and compiles the checked text with clCompileProgram; `link_program` of
programs among which one is checked gives a checked Program whose kernels are those of the
compiled inputs, hidden arguments included. A unit that defines helpers for other units (not
static, not kernels) is compiled unchecked, with an UncheckedWarning: its checked helpers would
take hidden arguments that callers in other units do not pass.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import warnings

import pyopencl as cl
import pyopencl._cl as _cl

from ... import config
from ...errors import UncheckedWarning
from ...frontend.c import opencl as frontend
from . import build as backend
from .registry import checked_program_of


def compile_checked(program, options, devices, headers):
    """(BuiltProgram, compiled raw program) of a safekern Program's source."""
    ctx = program.context
    options = backend.normalise_options(options)
    devs = list(devices) if devices is not None else list(ctx.devices)
    folder = header_dir(headers) if headers else None
    try:
        if config.get().checks:
            rewritten, int64 = backend.rewrite_program(
                ctx, program.source_text, filename=program.filename, options=options,
                devices=devs, parse_extra=["-I", folder] if folder else ())
            text = rewritten.source
            exported = exported_helpers(text, program.filename)
            if exported:
                warnings.warn(UncheckedWarning(
                    f"safekern: {program.filename} is compiled unchecked: it defines "
                    f"{', '.join(repr(n) for n in exported)} for other programs to call "
                    "(compile + link_program), and the checked helpers take hidden "
                    "arguments their callers in other programs do not pass"), stacklevel=4)
                rewritten, text = None, frontend.checks_off_source(program.source_text,
                                                                   program.filename)
        else:
            rewritten, int64, text = None, True, frontend.checks_off_source(
                program.source_text, program.filename)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    opts_bytes, _ = backend._driver_options(ctx, options)
    raw = _cl._Program(ctx, text)
    raw.compile(opts_bytes, devices, [(name, _header(ctx, prg)) for name, prg in headers])
    built = backend.BuiltProgram(cl.Program(raw), rewritten, program.source_text,
                                 program.filename, tuple(options), int64, tuple(devs))
    return built, raw


_DEFINITION = re.compile(r"(?m)^(?P<head>[^;{}()#]*?)\b(?P<name>\w+)\s*\((?P<params>[^()]*"
                         r"__sk_fb[^()]*)\)\s*\{")


def exported_helpers(text: str, filename: str) -> list[str]:
    """The functions of the user's text whose checked definition another program could call:
    not kernels and not static (the rewrite gave them hidden parameters)."""
    marker = f'#line 1 "{filename}"'
    user = text[text.find(marker):] if marker in text else text
    out = []
    for m in _DEFINITION.finditer(user):
        head = m.group("head").split()
        if "static" not in head and not {"__kernel", "kernel"} & set(head):
            out.append(m.group("name"))
    return out


def _header(ctx, prg):
    """What clCompileProgram includes for a header Program: its source as the user wrote it
    (a checked program's own raw program holds the rewritten text, prelude and all)."""
    text = getattr(prg, "source_text", None)
    return _cl._Program(ctx, text) if text is not None else prg._get_prg()


def linked(raw, inputs, program_class):
    """A linked raw program as a `program_class` (safekern's Program), when a checked program
    is among `inputs`; else None."""
    checked = [c for c in (checked_program_of(p) for p in inputs) if c is not None]
    if not checked:
        return None
    kernels, report, rewritten = [], [], None
    for c in checked:
        r = c._built.rewritten
        if r is not None:
            kernels += r.kernels
            report += r.entries
            rewritten = r
    first = checked[0]._built
    if rewritten is not None:
        rewritten = type(rewritten)(source="", kernels=kernels, entries=report)
    built = backend.BuiltProgram(cl.Program(raw), rewritten, "", checked[0].filename,
                                 first.options, first.int64_atomics, first.devices)
    prg = program_class(raw)
    prg.filename = checked[0].filename
    prg._set_built(built, raw)
    return prg


def header_dir(headers) -> str:
    """A temporary folder holding the (name, Program) headers' text, for the parse."""
    folder = tempfile.mkdtemp(prefix="safekern-cl-headers-")
    for name, prg in headers:
        text = getattr(prg, "source_text", None) or prg._source
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else text.decode())
    return folder


__all__ = ["compile_checked", "linked", "exported_helpers", "header_dir"]
