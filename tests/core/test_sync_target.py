"""`safekern.sync(target)` refuses a target no backend understands, instead of checking nothing."""
import types

import numpy as np
import pytest

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import safekern
from safekern._targets import validate_target


@pytest.mark.parametrize("target", ["garbage", 3.0, True, object(), np.zeros(3), [0], b"0"])
def test_what_no_backend_understands_is_a_type_error(target):
    with pytest.raises(TypeError) as info:
        safekern.sync(target)
    message = str(info.value)
    assert message.startswith("safekern.sync(target): target must be None")
    assert "a device number" in message and "CommandQueue" in message
    assert f"got {type(target).__module__}.{type(target).__qualname__}" in message


def test_a_negative_device_number_is_a_value_error():
    with pytest.raises(ValueError, match="device number -1 is negative"):
        safekern.sync(-1)


@pytest.mark.parametrize("target", [None, 0, 1, np.int64(0), np.uint8(0)])
def test_none_and_device_numbers(target):
    assert safekern.sync(target) is None


def _object_of(module, name, bases=()):
    cls = type(name, bases, {})
    cls.__module__ = module
    return cls()


@pytest.mark.parametrize("module,name", [("cupy.cuda.stream", "Stream"),
                                         ("cupy.cuda.stream", "ExternalStream"),
                                         ("cupy.cuda.device", "Device"),
                                         ("numba.cuda.cudadrv.driver", "Stream"),
                                         ("numba.cuda.cudadrv.driver", "Context"),
                                         ("numba.cuda.cudadrv.devices", "_DeviceContextManager"),
                                         ("pyopencl._cl", "CommandQueue")])
def test_gpu_library_objects_by_module_and_class(module, name):
    """Recognised without importing the library (CuPy is not installed in CI)."""
    validate_target(_object_of(module, name))


def test_a_subclass_of_a_library_stream_is_accepted():
    base = type("Stream", (), {})
    base.__module__ = "numba.cuda.cudadrv.driver"
    validate_target(type("ExternalStream", (base,), {"__module__": "numba.cuda.cudadrv.driver"})())
    validate_target(type("MyStream", (base,), {"__module__": "myapp"})())


@pytest.mark.parametrize("module,name", [("myapp", "Stream"), ("cupy", "ndarray"),
                                         ("numba.cuda.cudadrv.devicearray", "DeviceNDArray")])
def test_same_names_elsewhere_and_other_library_objects_are_refused(module, name):
    with pytest.raises(TypeError, match=f"got {module}.{name}"):
        validate_target(_object_of(module, name))


@pytest.mark.cudasim
def test_numba_targets(no_pending_failure):
    from numba import cuda

    for target in (cuda.stream(), cuda.default_stream(), cuda.current_context(),
                   cuda.get_current_device(), cuda.gpus[0]):
        assert safekern.sync(target) is None, target
    with pytest.raises(TypeError, match="got numba.cuda"):
        safekern.sync(cuda.device_array(4))       # an array is not a place to synchronise


@pytest.mark.cudasim
def test_a_refused_target_leaves_the_failure_pending(no_pending_failure):
    from numba import cuda

    from tests.numba.numba_kernels import gather

    out = cuda.device_array(4, np.float32)
    gather[1, 4](out, cuda.to_device(np.zeros(4, np.float32)),
                 cuda.to_device(np.array([0, 1, 2, 99])))
    with pytest.raises(TypeError):
        safekern.sync("garbage")
    with pytest.raises(safekern.BoundsError, match="index 99 out of bounds"):
        safekern.sync(cuda.default_stream())


def test_opencl_targets(clenv):
    for target in (clenv.queue, clenv.ctx, clenv.device):
        assert safekern.sync(target) is None
