"""Which OpenCL programs safekern built: the bottom of the PyOpenCL backend's modules.

    checked_program_of(obj)   # the safekern Program behind a Program, pyopencl.Program or raw
                              # program of a checked build (handle or binaries), or None
    on_checked_build          # callbacks run at each checked build (api.py: install the hooks)
"""
from __future__ import annotations

import hashlib
import weakref

import pyopencl._cl as _cl

_RAW = _cl._Program       # (kept: tests replace pyopencl._cl._Program with a function)

#: int_ptr of a checked raw program -> the safekern Program that owns it
by_handle: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()
#: sha256 of a binary read from a checked program -> that program
by_binary: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()
#: run at each checked build (once each matters: they are idempotent)
on_checked_build: list = []


def checked_program_of(program):
    """The safekern Program behind `program`, or None."""
    is_checked = getattr(type(program), "_is_checked", None)
    if is_checked is not None:
        return program if program._is_checked() else None
    raw = getattr(program, "_prg", program)
    if not isinstance(raw, _RAW):
        return None
    owner = by_handle.get(raw.int_ptr)
    return owner if owner is not None and owner._prg == raw else None


def binary_key(binary) -> bytes:
    return hashlib.sha256(bytes(binary)).digest()


def program_of_binaries(binaries):
    """The checked program one of `binaries` was read from, or None."""
    for binary in binaries:
        owner = by_binary.get(binary_key(binary))
        if owner is not None:
            return owner
    return None


__all__ = ["checked_program_of", "by_handle", "by_binary", "on_checked_build",
           "binary_key", "program_of_binaries"]
