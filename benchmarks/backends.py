"""Whether CuPy and PyOpenCL can run here, and on which OpenCL device: shared by the suite
(`cuda_c_cases.py`, `opencl_cases.py`) and `assert_cost.py`, and by the tests
(`tests/support/opencl_env.py` sets up the ICD loader with `setup_icd_vendors`).

Nothing here imports a GPU library at import time.
"""
from __future__ import annotations

import ctypes.util
import glob
import os
import shutil
import tempfile

SYSTEM_VENDORS = "/etc/OpenCL/vendors"


def nvidia_opencl_library() -> str | None:
    for pattern in ("/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so*",
                    "/usr/lib64/libnvidia-opencl.so*", "/usr/lib/libnvidia-opencl.so*",
                    "/usr/local/nvidia/lib64/libnvidia-opencl.so*"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return ctypes.util.find_library("nvidia-opencl")


def setup_icd_vendors() -> None:
    """Point the ICD loader at the system's vendors (OCL_ICD_VENDORS, unless it is set).

    The PoCL that pyopencl's optional wheel dependency bundles fails on some CPUs ("unknown
    target CPU 'generic'"), so the system's ICDs are used. Where the NVIDIA driver's OpenCL
    library exists but no ICD file names it (common in containers), a private vendors
    directory adds one. Call it before pyopencl is imported.
    """
    if "OCL_ICD_VENDORS" in os.environ:
        return
    icds = sorted(glob.glob(os.path.join(SYSTEM_VENDORS, "*.icd")))
    nvidia = nvidia_opencl_library()
    names_nvidia = any("nvidia" in open(p).read().lower() for p in icds)
    if nvidia and not names_nvidia:
        private = tempfile.mkdtemp(prefix="safekern-icd-")
        for p in icds:
            shutil.copy(p, private)
        with open(os.path.join(private, "nvidia.icd"), "w") as f:
            f.write("libnvidia-opencl.so.1\n" if ctypes.util.find_library("nvidia-opencl")
                    else nvidia + "\n")
        os.environ["OCL_ICD_VENDORS"] = private
    elif os.path.isdir(SYSTEM_VENDORS):
        os.environ["OCL_ICD_VENDORS"] = SYSTEM_VENDORS


def clang_missing() -> str | None:
    """Why safekern cannot parse C kernels here (libclang missing), or None."""
    try:
        import clang.cindex  # noqa: F401
    except ImportError as err:
        return f"libclang is not installed ({err}): safekern cannot check C kernels"
    return None


def cupy_unavailable() -> str | None:
    """Why CuPy cannot run kernels here (not installed, no device), or None."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
    except Exception as err:     # noqa: BLE001 - no CuPy, no driver, no device
        return f"CuPy cannot run here ({type(err).__name__}: {err})"
    return None


def opencl_device():
    """(device, None) or (None, why not): the context PYOPENCL_CTX names when it is set, else
    a device of NVIDIA's platform, else a GPU, else the first device (PoCL's CPU)."""
    setup_icd_vendors()
    try:
        import pyopencl as cl
    except ImportError as err:
        return None, f"PyOpenCL is not installed ({err})"
    try:
        if os.environ.get("PYOPENCL_CTX"):
            return cl.create_some_context(interactive=False).devices[0], None
        platforms = cl.get_platforms()
    except cl.Error as err:
        return None, f"no OpenCL platform ({err})"
    devices = []
    for platform in platforms:
        try:
            devices += platform.get_devices()
        except cl.Error:
            pass
    if not devices:
        return None, f"no OpenCL device (platforms: {[p.name for p in platforms]})"
    return min(devices, key=lambda d: ("nvidia" not in d.platform.name.lower(),
                                       not d.type & cl.device_type.GPU)), None


def opencl_device_name(device) -> str:
    return f"{device.name.strip()} ({device.platform.name.strip()})"


def opencl_on_cpu(device) -> bool:
    import pyopencl as cl

    return bool(device.type & cl.device_type.CPU)


__all__ = ["setup_icd_vendors", "nvidia_opencl_library", "clang_missing", "cupy_unavailable",
           "opencl_device", "opencl_device_name", "opencl_on_cpu"]
