"""Why a checked numba kernel must stay on numba's own launch path (keys.py re-exports these):
what numba does there that a stored binary launched directly would skip."""
from __future__ import annotations


class NotLaunchable(Exception):
    """This kernel needs numba's own launch path (debug, NRT, cooperative, extensions, ...)."""


#: numba's switches that print its compilation's stages (NUMBA_DUMP_IR, ...).
_NUMBA_DUMPS = ("DEBUG", "DUMP_BYTECODE", "DUMP_CFG", "DUMP_IR", "DUMP_SSA", "DUMP_ANNOTATION",
                "DUMP_LLVM", "DUMP_FUNC_OPT", "DUMP_OPTIMIZED", "DUMP_ASSEMBLY", "DEBUG_TYPEINFER",
                "DEBUG_FRONTEND")


def launch_obstacle(options: dict) -> str | None:
    """Why a kernel with these options must stay on numba's launch path, or None."""
    from numba.cuda.core import config as numba_config

    debug = options.get("debug")
    if debug or (debug is None and getattr(numba_config, "CUDA_DEBUGINFO_DEFAULT", 0)):
        return "debug=True (numba reports device exceptions after the launch)"
    if options.get("extensions"):
        return "extensions= (numba's argument hooks)"
    dumps = [flag for flag in _NUMBA_DUMPS if getattr(numba_config, flag, False)]
    if dumps:
        # What they print comes from numba's compilation, which a cached binary skips.
        return f"numba's {', '.join(dumps)} (numba compiles to print them)"
    if getattr(numba_config, "CUDA_ENABLE_NRT", False):
        return "NRT is enabled (NUMBA_CUDA_ENABLE_NRT)"
    for item in options.get("link") or ():
        if getattr(item, "setup_callback", None) or getattr(item, "teardown_callback", None) \
                or getattr(item, "nrt", False):
            return "linked code with setup/teardown callbacks or NRT"
    return None


__all__ = ["NotLaunchable", "launch_obstacle"]
