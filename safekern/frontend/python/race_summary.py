"""What the race analysis finds in a kernel (races.py): each parameter's accesses, and the
parameters whose accesses are not all known."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Access:
    array: str                          # the parameter
    write: bool
    index: tuple | None                 # one Form per index component; None: unknown
    guards: tuple = ()                  # Forms that are >= 0 where the access runs
    certain: bool = True                # every condition on the way is in `guards`
    lineno: int = 0
    text: str = ""                      # the access as written, for messages
    #: A write whose value is the same in every thread of a launch (constants, scalar
    #: parameters never reassigned): two threads running it write one value, which is benign.
    uniform_value: bool = False
    #: (block_lo, block_hi, grid_lo, grid_hi): barriers passed before it runs (see module doc)
    phase: tuple = (0, 0, 0, 0)
    col: int = 0                        # the access's column (0-based), for check reports


@dataclass
class RaceSummary:
    params: tuple                       # every parameter, in order
    accesses: dict = field(default_factory=dict)   # param -> [Access]
    opaque: dict = field(default_factory=dict)     # param -> (lineno, why): used unmodelled
    # param -> (lineno, why): read at elements not known (passed to a checked device function
    # that never writes it), never written through that use
    opaque_reads: dict = field(default_factory=dict)
    has_barriers: bool = False
    has_grid_sync: bool = False

    def written(self, param) -> bool:
        return param in self.opaque or any(a.write for a in self.accesses.get(param, ()))

    def uses(self, param) -> bool:
        return param in self.opaque or param in self.opaque_reads or \
            bool(self.accesses.get(param))

    def unknown(self, param) -> bool:
        """Its accesses are not all known (used unmodelled, or read by a device function)."""
        return param in self.opaque or param in self.opaque_reads


__all__ = ["Access", "RaceSummary"]
