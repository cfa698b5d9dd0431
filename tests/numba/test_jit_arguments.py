"""safekern.jit's arguments as numba's cuda.jit takes them, and names as Python gives them
(issue 29): what numba refuses is refused with numba's error, from the user's line; a failure in
a lambda device function names `<lambda>` and the kernel that called it."""
import os
import traceback

import numpy as np
import pytest
from numba import cuda

import safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

PACKAGE = os.path.dirname(os.path.abspath(safekern.__file__))


def _our_frames(exc):
    return [f for f in traceback.extract_tb(exc.__traceback__)
            if os.path.abspath(f.filename).startswith(PACKAGE + os.sep)]


def test_a_number_is_not_a_function():
    with pytest.raises(TypeError, match="^42 is not a callable object$") as info:
        safekern.jit(42)
    assert len(_our_frames(info.value)) <= 1
    assert traceback.extract_tb(info.value.__traceback__)[0].filename == __file__


def _kernel(a):
    a[0] = 1


def test_every_kind_of_signature_object_is_a_signature():
    # numba.void(...) makes numba's own Signature, numba.cuda.types.void(...) numba-cuda's (two
    # classes); numba-cuda's cuda.jit takes both, and so must safekern.jit (numba's own tests
    # write `@cuda.jit(void(float64[:]))` with numba's).
    import numba
    from numba.cuda import types as cuda_types

    for sig in (numba.void(numba.float32[:]), cuda_types.void(cuda_types.float32[:])):
        kernel = safekern.jit(sig)(_kernel)
        out = cuda.to_device(np.zeros(1, np.float32))
        kernel[1, 1](out)
        assert out.copy_to_host()[0] == 1


@pytest.mark.parametrize("sig, error, words", [
    ("not a signature", SyntaxError, "invalid syntax"),
    ([42], TypeError, "invalid signature: 42"),
    ("void(float32[:], nosuchtype)", NameError, "nosuchtype"),
])
def test_a_signature_numba_cannot_read(sig, error, words):
    decorator = safekern.jit(sig)            # numba too says nothing until it decorates
    with pytest.raises(error, match=words) as info:
        decorator(_kernel)
    assert len(_our_frames(info.value)) <= 1, traceback.format_tb(info.value.__traceback__)


def test_good_signatures_still_decorate():
    assert safekern.jit("void(float32[:])")(_kernel) is not None
    assert safekern.jit(["void(float32[:])", "void(int64[:])"])(_kernel) is not None


get_next = safekern.jit(device=True)(lambda a, i: a[i + 1])


@safekern.jit
def calls_lambda(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = get_next(a, i)


def test_a_lambda_device_function_is_named_as_python_names_it():
    out = cuda.device_array(4, np.float32)
    calls_lambda[1, 4](out, cuda.to_device(np.zeros(4, np.float32)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert err.kernel == "<lambda>" and err.called_from == ("calls_lambda",), str(err)
    assert "in device function '<lambda>' called from kernel 'calls_lambda'" in str(err)
    assert "lambda_" not in str(err)
