"""The few CUDA runtime calls the bindings make themselves (JAX's results are waited for; a pointer
of an unknown library is asked for its device; a grid notes the current device), through the CUDA
runtime library of the process: the one a GPU array library loaded, or the toolkit's."""

import ctypes
import ctypes.util
import glob
import os

_rt = None


def _runtime():
    global _rt
    if _rt is not None:
        return _rt
    names = []
    for module in ("nvidia.cuda_runtime", "nvidia.cu13", "nvidia.cu12"):
        try:
            m = __import__(module, fromlist=["__path__"])
            for path in m.__path__:
                names += sorted(glob.glob(os.path.join(path, "lib", "libcudart.so*")))
        except ImportError:
            pass
    found = ctypes.util.find_library("cudart")
    if found:
        names.append(found)
    names += ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
    names += sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*"))
    for name in names:
        try:
            _rt = ctypes.CDLL(name)
            return _rt
        except OSError:
            continue
    raise RuntimeError("disttranspose: the CUDA runtime library (libcudart) was not found; JAX arrays and arrays "
                       "of unknown libraries on GPUs need it")


def current_device():
    """The calling thread's current GPU, on which the library makes a plan that names none; -1 where the
    process has no GPU (or no CUDA runtime to ask)."""
    try:
        rt = _runtime()
    except RuntimeError:
        return -1
    count, device = ctypes.c_int(0), ctypes.c_int(-1)
    if rt.cudaGetDeviceCount(ctypes.byref(count)) or count.value < 1 or rt.cudaGetDevice(ctypes.byref(device)):
        rt.cudaGetLastError()
        return -1
    return device.value


def set_current_device(device):
    """Makes GPU `device` the calling thread's current one (for tests and tools; the library never does)."""
    if _runtime().cudaSetDevice(device):
        _runtime().cudaGetLastError()
        raise RuntimeError(f"disttranspose: cannot make GPU {device} current")


def device_synchronize():
    err = _runtime().cudaDeviceSynchronize()
    if err:
        raise RuntimeError(f"cudaDeviceSynchronize failed: CUDA error {err}")


class _Attributes(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("device", ctypes.c_int), ("devicePointer", ctypes.c_void_p),
                ("hostPointer", ctypes.c_void_p)]


def device_of(ptr):
    """The GPU that holds device pointer ptr (-1 for host memory)."""
    rt = _runtime()
    attr = _Attributes()
    if rt.cudaPointerGetAttributes(ctypes.byref(attr), ctypes.c_void_p(ptr)):
        rt.cudaGetLastError()
        return -1
    return attr.device if attr.type in (2, 3) else -1


def synchronize(device):
    """Waits for the work queued on GPU `device`, the current device kept."""
    rt = _runtime()
    current = ctypes.c_int(-1)
    rt.cudaGetDevice(ctypes.byref(current))
    if rt.cudaSetDevice(device) or rt.cudaDeviceSynchronize():
        rt.cudaGetLastError()
        raise RuntimeError(f"disttranspose: cannot wait for GPU {device}")
    if current.value >= 0:
        rt.cudaSetDevice(current.value)
