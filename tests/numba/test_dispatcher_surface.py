"""DispatcherSurface (surface.py) on its own: what a checked function delegates numba's questions
to, given numba's dispatcher (here a stand-in), the hidden parameters' types, the argument types
the launches ran and, for a kernel, the form that ran them. Outside the simulator these answers
are numba's; here the translation, routing and bookkeeping are checked without a GPU."""
import pytest
from numba.cuda import types
from numba.cuda.core.errors import TypingError

from safekern.backends.numba.surface import DispatcherSurface, hidden_types

ARR = types.float32[::1]
USER = (ARR, types.int32)
FULL = USER + hidden_types(False)


class StandIn:
    """numba's dispatcher as the surface uses it: overloads, compile, inspect_* by signature."""

    def __init__(self, refuse=()):
        self.overloads = {}
        self.compiled = []
        self.refuse = set(refuse)

    def compile(self, argtypes):
        self.compiled.append(argtypes)
        if argtypes in self.refuse:
            raise TypingError("no signature takes these")
        self.overloads[argtypes] = f"kernel{len(self.compiled)}"
        return self.overloads[argtypes]

    def inspect_asm(self, signature=None):
        if signature is None:
            return {k: f"asm of {v}" for k, v in self.overloads.items()}
        return f"asm of {self.overloads[signature]}"


def test_the_users_signature_and_the_rewritten_functions():
    surface = DispatcherSurface(StandIn, hidden=hidden_types(False), device=False)
    assert surface.full(USER) == FULL
    assert surface.user(FULL) == USER
    assert surface.full("void(float32[::1], int32)") == FULL


def test_numbas_own_kernel_has_no_hidden_parameter():
    # numba's own kernel of the function (a plain launch): its signatures are the user's.
    surface = DispatcherSurface(StandIn, hidden=(), device=False)
    assert surface.full(USER) == USER
    assert surface.user(USER) == USER


def test_asked_by_signature_in_the_users_terms():
    numba = StandIn()
    surface = DispatcherSurface(lambda: numba, hidden=hidden_types(False), device=False)
    assert surface.ask("inspect_asm", USER) == "asm of kernel1"
    assert numba.compiled == [FULL]                    # compiled for the full signature
    assert surface.ask("inspect_asm") == {USER: "asm of kernel1"}


def test_the_launches_types_are_compiled_before_an_answer_and_a_failed_one_once():
    numba = StandIn(refuse={FULL[:1] + (types.int64,) + FULL[2:]})
    bad = FULL[:1] + (types.int64,) + FULL[2:]
    surface = DispatcherSurface(lambda: numba, hidden=hidden_types(False), device=False,
                                launched=lambda: [FULL, bad])
    assert surface.ask("inspect_asm") == {USER: "asm of kernel1"}
    surface.ask("inspect_asm")
    assert numba.compiled == [FULL, bad]               # the refused types: tried once
    assert bad in surface.failed_types


def test_a_question_goes_to_the_form_that_ran_those_types():
    checked, plain = StandIn(), StandIn()
    plain_surface = DispatcherSurface(lambda: plain, hidden=(), device=False)
    surface = DispatcherSurface(lambda: checked, hidden=hidden_types(False), device=False,
                                route=lambda user: plain_surface if user == USER else None)
    assert surface.ask("inspect_asm", USER) == "asm of kernel1"
    assert plain.compiled == [USER] and checked.compiled == []
    other = (ARR, types.int64)
    surface.ask("inspect_asm", other)
    assert checked.compiled == [other + hidden_types(False)]


def test_a_compile_error_is_numbas_in_the_users_terms():
    class Refusing(StandIn):
        def compile(self, argtypes):
            raise TypingError("No match for foo__safekern(float32, int64)")

    surface = DispatcherSurface(Refusing, hidden=hidden_types(False), device=False)
    with pytest.raises(TypingError) as info:
        surface.compile(USER)
    assert "__safekern" not in str(info.value)
