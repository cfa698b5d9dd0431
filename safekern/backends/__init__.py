"""Backends: compile rewritten kernels with a GPU library, launch them, own failure buffers."""
from __future__ import annotations

import importlib
import sys

from .. import sync_points

#: The array libraries at whose sync points a checked kernel's failure is raised, whichever
#: backend launched it (numba kernels run on CuPy arrays and torch tensors, CuPy kernels on
#: numba's device arrays and torch's): the module the user imports -> (safekern's module whose
#: `install_if_imported()` hooks it, the sync_points backend its hooks go in as). By name: each
#: is imported only once its library is (numba's imports numba-cuda), and the backends that
#: watch each other import none of the others.
_LIBRARIES = {"torch": ("safekern.backends.torch.sync", "torch"),
              "cupy": ("safekern.backends.cupy.sync", "cupy"),
              "numba.cuda": ("safekern.backends.numba.sync", "numba")}


def _installer(library: str, hooks: str):
    def install_if_imported() -> bool:
        if library not in sys.modules:
            return False
        return importlib.import_module(hooks).install_if_imported()
    install_if_imported.__qualname__ = f"install_if_imported[{library}]"
    return install_if_imported


#: library -> its installer (one function each: runtime.when_pending keeps a function once)
INSTALLERS = {library: _installer(library, hooks) for library, (hooks, _) in _LIBRARIES.items()}


def watch_libraries() -> None:
    """Hook each array library's sync points now if the user has imported it, else at the next
    launch that makes a device pending (sync_points.watch): what each backend does when its
    own hooks go in -- at every decoration and at a CuPy user kernel's every launch, so a
    library whose hooks are in costs a dict lookup, nothing more."""
    for library, (_, backend) in _LIBRARIES.items():
        if not sync_points.is_installed(backend):
            sync_points.watch(INSTALLERS[library])


__all__ = ["watch_libraries", "INSTALLERS"]
