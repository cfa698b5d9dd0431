"""A kernel of a C source as the launch sees it (CUDA C and OpenCL C alike): its parameters,
what its hidden arguments are, what it stores through, what launches may prove.

The hidden arguments follow the user's: CUDA C passes one size per pointer parameter, then
one per struct pointer field (`fields`), then the failure buffer; OpenCL C the failure buffer,
then one size per pointer parameter (backends/opencl/kernel.py).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class KernelInfo:
    name: str                 # as written
    params: list              # param_info.ParamInfo of every user parameter, in order
    lineno: int = 0           # the line of the kernel's name (as the compiler names it)
    barriers: bool = False    # synchronises its group (OpenCL: the group leaves together)
    checked: bool = True      # False: launched with the user's arguments only (see report)
    written: tuple = ()       # names of the pointer parameters the kernel stores through
    writes_unknown: str = ""  # why any pointer parameter may be written
    #: launch_expr.KernelPredicates: the checks launches may prove (None: none)
    launch: object = None
    #: struct_fields.FieldParam (CUDA C): pointer fields of by-value struct parameters whose
    #: extent in bytes the launch passes after the pointer parameters' sizes
    fields: tuple = ()
    #: the failure codes a launch must prove to run the user's own binary (plain.py;
    #: empty: it can never fail; None: never)
    codes: frozenset | None = None
    # C++ (CUDA C): how the kernel is named and found in the module
    qualified: str = ""       # with namespaces (ns::k); the name when empty
    extern_c: bool = False
    template: bool = False
    mangled: str = ""         # the symbol of the unchecked kernel (libclang's mangling)

    def __post_init__(self):
        self.qualified = self.qualified or self.name

    @property
    def pointer_params(self) -> list:
        """The pointer parameters (ParamInfo), in order: one hidden size argument each."""
        return [p for p in self.params if p.is_pointer]

    @property
    def n_user_args(self) -> int:
        return len(self.params)


__all__ = ["KernelInfo"]
