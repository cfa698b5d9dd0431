"""What the launch predicates of a C kernel prove at one launch, evaluated on the host as the
backends do (backends/c_launch.py): for tests of launch.py's proofs without a device."""
from __future__ import annotations

from safekern.backends.c_launch import compile_mask, cuda_geometry, opencl_geometry


def proven_texts(rw, kernel: str, args, nb, grid, block, *, dialect: str = "cuda") -> set:
    """The report texts of `kernel`'s checks that the launch (args, hidden byte sizes `nb`,
    CUDA grid/block or OpenCL global/local size) proves."""
    info = rw.kernel(kernel)
    if not info.launch:
        return set()
    mask, codes = compile_mask(info.launch, python_int=(dialect == "cuda"))
    g, l = cuda_geometry(grid, block) if dialect == "cuda" else opencl_geometry(grid, block)
    m = mask(list(args), list(nb), g, l)
    proven = frozenset().union(*(c for i, c in enumerate(codes) if m >> i & 1))
    return {e.text for e in rw.report() if e.function == kernel and e.code in proven}
