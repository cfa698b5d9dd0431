"""A checked kernel a few registers over an occupancy step, linked again capped at the step.

Registers are allocated 8 a thread at a time (256 a warp) from an SM's 65536, so each multiple of
8 a kernel crosses can cost the SM a block of resident warps. A check adds a compare and the
cold failure record's operands; where that lifts a kernel just over a step, a latency-bound
kernel loses a quarter of its warps and pays it in full: xarray-spatial's Perlin noise (six
permutation-table gathers a thread, 22x22 blocks) is 32 registers as numba compiles it and 40
checked, 4 blocks an SM -> 3, 1.45x plain numba on an H100 whatever the checks' code shape
(benchmarks/results/2026-11-27d-device-calls). `tools/launched_checks.py --registers` shows
which kernels lose warps this way.

So the launched binary of a checked kernel using R registers, R at most SLACK above the step S
below it, is linked again from the same PTX with ptxas capped at S (numba's own
`max_registers`, which only the link step reads): kept when ptxas spills at most SPILL bytes
more a thread, else the first binary stays. Kernels the user gave `max_registers` are left as
they are. Costs one more ptxas run for the kernels near a step, nothing for the others.
"""
from __future__ import annotations

import logging
import os

log = logging.getLogger("safekern")

STEP = 8          # registers a thread are allocated this many at a time (256 a warp)
SLACK = 8         # at most this many registers over the step below: the checks' share
SPILL = 16        # bytes a thread the capped binary may spill more than the first


def fit(kernel) -> None:
    """Link `kernel` (numba's `_Kernel`, compiled, in the current context) again capped at the
    register step below its count, where that spills at most SPILL bytes more (see module)."""
    if os.environ.get("SAFEKERN_AB_OCC", "1") == "0":
        return
    lib = getattr(kernel, "_codelibrary", None)        # (none on the simulator)
    if lib is None or getattr(lib, "_max_registers", None) is not None:
        return
    first = lib.get_cufunc()
    regs, local = first.attrs.regs, first.attrs.local
    step = (regs - 1) // STEP * STEP
    if step < 16 or regs - step > SLACK:
        return
    from numba.cuda.cudadrv import devices, driver

    spill = int(os.environ.get("SAFEKERN_AB_SPILL", SPILL))
    cc = lib._ensure_cc(None)
    linker = driver._Linker(max_registers=step, cc=cc, lto=lib._lto)
    lib._link_all(linker, cc, ignore_nonlto=False)
    cubin = linker.complete()
    ctx = devices.get_context()
    module = ctx.create_module_image(cubin, lib._setup_functions, lib._teardown_functions)
    capped = module.get_function(lib._entry_name)
    if capped.attrs.regs > step or capped.attrs.local > local + spill:
        log.debug("%s: %d registers, capped at %d spills %d bytes more: not taken",
                  lib._entry_name, regs, step, capped.attrs.local - local)
        return
    log.debug("%s: %d registers -> %d (local %d -> %d bytes)", lib._entry_name, regs,
              capped.attrs.regs, local, capped.attrs.local)
    lib._max_registers = step
    lib._cubin_cache[cc] = cubin
    lib._linkerinfo_cache[cc] = linker.info_log
    lib._cufunc_cache[ctx.device.id] = capped


__all__ = ["fit", "STEP", "SLACK", "SPILL"]
