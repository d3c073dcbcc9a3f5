"""Arrays of any library as the pointers the library takes, zero copy: NumPy (host memory), CuPy,
PyTorch and JAX, and anything else that offers ``__cuda_array_interface__`` or DLPack.

Each library gets an adapter with the same few operations: describe an array (pointer, shape,
element type, contiguity, device), allocate a result like it, name the stream its work runs on, and
finish a result (JAX: wait, since its streams are its own). Which executes the frameworks take over
as operations of their own is _frameworks.py's business.
"""

import ctypes

# dtrDataType_t's order, as NumPy names them.
DTYPES = ("int8", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
ITEMSIZE = (1, 2, 2, 4, 8, 8, 16)
_ALIASES = {"fp16": "float16", "half": "float16", "bf16": "bfloat16", "fp32": "float32", "float": "float32",
            "single": "float32", "fp64": "float64", "double": "float64", "c64": "complex64", "c128": "complex128",
            "cfloat": "complex64", "cdouble": "complex128"}


def dtype_name(dtype):
    """The element type's name in DTYPES from a name, a NumPy/CuPy/JAX dtype or type, or a torch dtype."""
    if isinstance(dtype, str):
        name = dtype.lower()
    elif hasattr(dtype, "is_floating_point") or type(dtype).__module__ == "torch":
        name = str(dtype)
    elif hasattr(dtype, "name") and isinstance(getattr(dtype, "name"), str):
        name = dtype.name
    else:
        try:
            import numpy
            name = numpy.dtype(dtype).name
        except TypeError:
            name = str(dtype)
    name = name.replace("torch.", "")
    name = _ALIASES.get(name, name)
    if name not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    return name


def dtype_code(dtype):
    return DTYPES.index(dtype_name(dtype))


class Described:
    """What the library needs of an array and what its checks compare; dtype is the library's own
    object (compared with the plan's, which is cheap), named only for messages."""
    __slots__ = ("ptr", "shape", "dtype", "contiguous", "device", "readonly")

    def __init__(self, ptr, shape, dtype, contiguous, device, readonly=False):
        self.ptr, self.shape, self.dtype, self.contiguous, self.device = ptr, shape, dtype, contiguous, device
        self.readonly = readonly


class PointerCache:
    """The host pointers of the last arrays a plan saw, by identity. Reading a NumPy array's pointer
    costs about a microsecond; holding the array also pins it (NumPy refuses to resize an array that
    others reference), so a remembered pointer stays right. Two entries: a plan's input and output."""
    __slots__ = ("entries",)

    def __init__(self):
        self.entries = []

    def pointer(self, a):
        entries = self.entries
        if entries and entries[0][0] is a:
            return entries[0][1]
        if len(entries) > 1 and entries[1][0] is a:
            entries.reverse()
            return entries[0][1]
        ptr = a.__array_interface__["data"][0]
        self.entries = [(a, ptr)] + entries[:1]
        return ptr

    def clear(self):
        self.entries = []


def _contiguous(shape, strides, itemsize):
    """C order: strides in bytes of a row-major array (axes of extent 1 may have any stride)."""
    if strides is None:
        return True
    step = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != step:
            return False
        step *= extent
    return True


class _NumPy:
    name = "numpy"
    synchronous_result = True

    @staticmethod
    def key(a, cache):
        """Everything the checks of an array depend on, as one tuple (describe's fields): an execute
        whose arrays give the keys the last one checked needs no checks again."""
        flags = a.flags
        return (cache.pointer(a), a.shape, a.dtype, flags.c_contiguous, -1, not flags.writeable)

    @staticmethod
    def describe(a, cache):
        flags = a.flags
        return Described(cache.pointer(a), a.shape, a.dtype, flags.c_contiguous, -1, not flags.writeable)

    @staticmethod
    def dtype(name):
        return _numpy_dtype(name)

    @staticmethod
    def name_of(dtype):
        return dtype.name

    @staticmethod
    def empty(like, shape, dtype):
        import numpy
        return numpy.empty(shape, dtype=_numpy_dtype(dtype))

    @staticmethod
    def view(buf, shape, dtype):
        return buf.reshape(-1)[:_count(shape)].view(_numpy_dtype(dtype)).reshape(shape)

    @staticmethod
    def stream(a, stream, device):
        return 0

    @staticmethod
    def finish(out):
        return out


def _numpy_dtype(name):
    import numpy
    if name == "bfloat16":
        try:
            import ml_dtypes
            return ml_dtypes.bfloat16
        except ImportError as e:
            raise ValueError("bfloat16 NumPy arrays need the ml_dtypes package") from e
    return numpy.dtype(name)


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class _CuPy:
    name = "cupy"
    synchronous_result = True

    @staticmethod
    def key(a, cache):
        data = a.data
        contiguous = getattr(a, "_c_contiguous", None)
        if contiguous is None:
            contiguous = a.flags.c_contiguous
        return (data.ptr, a.shape, a.dtype, contiguous, data.device_id, False)

    @staticmethod
    def describe(a, cache):
        # The cheapest reads of CuPy's arrays (its flags and device objects are built on each access).
        data = a.data
        contiguous = getattr(a, "_c_contiguous", None)
        if contiguous is None:
            contiguous = a.flags.c_contiguous
        return Described(data.ptr, a.shape, a.dtype, contiguous, data.device_id)

    dtype = _NumPy.dtype
    name_of = _NumPy.name_of

    @staticmethod
    def empty(like, shape, dtype):
        import cupy
        with like.device:
            return cupy.empty(shape, dtype=_numpy_dtype(dtype))

    @staticmethod
    def view(buf, shape, dtype):
        return buf.reshape(-1)[:_count(shape)].view(_numpy_dtype(dtype)).reshape(shape)

    @staticmethod
    def copy(a):
        """A contiguous array copied byte for byte (its own kernels' loads of whole elements would fault
        where a lies off its elements' alignment)."""
        import cupy
        with a.device:
            out = cupy.empty(a.shape, a.dtype)
        out.reshape(-1).view(cupy.uint8)[...] = a.reshape(-1).view(cupy.uint8)
        return out

    @staticmethod
    def stream(a, stream, device):
        if stream is not None:
            return int(getattr(stream, "ptr", stream))
        return _cupy_stream_ptr()

    @staticmethod
    def finish(out):
        return out


class _Torch:
    name = "torch"
    synchronous_result = True

    @staticmethod
    def key(a, cache):
        # No device: a tensor's data cannot move to another GPU without its pointer changing.
        return (a.data_ptr(), a.shape, a.dtype, a.is_contiguous())

    @staticmethod
    def describe(a, cache):
        return Described(a.data_ptr(), a.shape, a.dtype, a.is_contiguous(), a.get_device())

    @staticmethod
    def dtype(name):
        import torch
        return getattr(torch, name)

    @staticmethod
    def name_of(dtype):
        return str(dtype)[6:]

    @staticmethod
    def empty(like, shape, dtype):
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)

    @staticmethod
    def view(buf, shape, dtype):
        import torch
        return buf.reshape(-1)[:_count(shape)].view(getattr(torch, dtype)).reshape(shape)

    @staticmethod
    def copy(a):
        """As _CuPy.copy: byte for byte."""
        import torch
        out = torch.empty(a.shape, dtype=a.dtype, device=a.device)
        out.reshape(-1).view(torch.uint8).copy_(a.reshape(-1).view(torch.uint8))
        return out

    @staticmethod
    def stream(a, stream, device):
        if stream is not None:
            return int(getattr(stream, "cuda_stream", stream))
        return _torch_stream_ptr(device) if device >= 0 else 0

    @staticmethod
    def finish(out):
        return out


class _Jax:
    """JAX arrays and tracers go through XLA's custom calls (_jax.py). Where the package has none,
    concrete arrays take this path: the inputs are waited for, a fresh result is written in place of
    nothing (on GPUs on the legacy stream, waited for before JAX sees it)."""
    key = None
    synchronous_result = False
    accepts_out = False
    name = "jax"

    @staticmethod
    def describe(a, cache):
        a.block_until_ready()
        devices = list(a.devices())
        if len(devices) != 1:
            raise ValueError("a JAX array sharded over several devices: pass each process's local array")
        d = devices[0]
        gpu = d.platform in ("gpu", "cuda", "rocm")
        ptr = a.unsafe_buffer_pointer() if a.size else 0
        return Described(ptr, tuple(a.shape), a.dtype, True, d.local_hardware_id if gpu else -1)

    dtype = _NumPy.dtype
    name_of = _NumPy.name_of

    @staticmethod
    def empty(like, shape, dtype):
        import jax
        device = list(like.devices())[0]
        # The p2p backend maps each rank's result into its peers through CUDA IPC, which XLA's own
        # memory (cuMemCreate) does not allow: a CuPy allocation (cudaMalloc) handed to JAX through
        # DLPack, zero copy, where CuPy is installed; else XLA's.
        try:
            import cupy
            if device.platform in ("gpu", "cuda"):
                with cupy.cuda.Device(device.local_hardware_id):
                    return jax.dlpack.from_dlpack(cupy.empty(shape, dtype=_numpy_dtype(dtype)))
        except ImportError:
            pass
        import jax.numpy as jnp
        with jax.default_device(device):
            out = jnp.empty(shape, dtype=_numpy_dtype(dtype))
        return out.block_until_ready()

    @staticmethod
    def view(buf, shape, dtype):
        raise ValueError("JAX arrays are immutable: an in-place plan cannot take one")

    @staticmethod
    def stream(a, stream, device):
        return 0

    @staticmethod
    def finish(out):
        if list(out.devices())[0].platform != "cpu":
            from ._cuda import device_synchronize
            device_synchronize()
        return out


class _Interface:
    """Any other array with __cuda_array_interface__ (device memory) or __array_interface__ (host)."""
    key = None
    synchronous_result = True
    name = "array interface"

    @staticmethod
    def dtype(name):
        return name

    @staticmethod
    def name_of(dtype):
        return dtype

    @staticmethod
    def describe(a, cache):
        import numpy
        cai = getattr(a, "__cuda_array_interface__", None)
        ai = cai if cai is not None else a.__array_interface__
        dt = numpy.dtype(ai["typestr"])
        shape = tuple(ai["shape"])
        ok = _contiguous(shape, ai.get("strides"), dt.itemsize)
        device = -1
        if cai is not None:
            device = _device_of(ai["data"][0])
        return Described(ai["data"][0], shape, dt.name, ok, device, ai["data"][1])

    @staticmethod
    def empty(like, shape, dtype):
        raise ValueError("out is needed for arrays of this library: disttranspose allocates NumPy, CuPy, PyTorch "
                         "and JAX arrays only")

    view = empty

    @staticmethod
    def stream(a, stream, device):
        if stream is not None:
            return int(stream)
        cai = getattr(a, "__cuda_array_interface__", None)
        s = cai.get("stream") if cai else None
        return 0 if s in (None, 1, 2) else int(s)

    @staticmethod
    def finish(out):
        return out


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CPU, _DL_CUDA = 1, 2
_DL_NAMES = {(0, 8): "int8", (2, 16): "float16", (4, 16): "bfloat16", (2, 32): "float32", (2, 64): "float64",
             (5, 64): "complex64", (5, 128): "complex128"}


class _DLPack:
    """Any other array with __dlpack__ (DLPack's unversioned capsule, read without consuming it)."""
    key = None
    synchronous_result = True
    name = "DLPack"

    dtype = _Interface.dtype
    name_of = _Interface.name_of

    @staticmethod
    def describe(a, cache):
        capsule = a.__dlpack__()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        t = _DLTensor.from_address(get(capsule, b"dltensor"))
        shape = tuple(t.shape[i] for i in range(t.ndim))
        name = _DL_NAMES.get((t.code, t.bits), f"DLPack type code {t.code} of {t.bits} bits")
        itemsize = t.bits // 8
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim)) if t.strides else None
        device = t.device_id if t.device_type == _DL_CUDA else -1 if t.device_type == _DL_CPU else -2
        return Described((t.data or 0) + t.byte_offset, shape, name, _contiguous(shape, strides, itemsize) and
                         t.lanes == 1, device)

    empty = _Interface.empty
    view = _Interface.empty

    @staticmethod
    def stream(a, stream, device):
        return 0 if stream is None else int(stream)

    @staticmethod
    def finish(out):
        return out


def _cupy_stream_ptr():
    """CuPy's current stream as a pointer: its raw accessor where this CuPy has one (no Stream object)."""
    global _cupy_stream_ptr
    import cupy
    raw = getattr(getattr(cupy.cuda, "stream", None), "get_current_stream_ptr", None)
    _cupy_stream_ptr = raw if raw is not None else (lambda: cupy.cuda.get_current_stream().ptr)
    return _cupy_stream_ptr()


def _torch_stream_ptr(device):
    """PyTorch's current stream on a device as a pointer: its raw accessor where this PyTorch has one."""
    global _torch_stream_ptr
    import torch
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    _torch_stream_ptr = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)
    return _torch_stream_ptr(device)


def _device_of(ptr):
    from ._cuda import device_of
    return device_of(ptr)


_BY_MODULE = {"numpy": _NumPy, "cupy": _CuPy, "torch": _Torch, "jax": _Jax, "jaxlib": _Jax}
_BY_TYPE = {}


def adapter(a):
    """The adapter of a's library (looked up once per type)."""
    t = type(a)
    found = _BY_TYPE.get(t)
    if found is None:
        root = t.__module__.split(".")[0]
        found = _BY_MODULE.get(root)
        if found is None:
            if hasattr(a, "__cuda_array_interface__") or hasattr(a, "__array_interface__"):
                found = _Interface
            elif hasattr(a, "__dlpack__"):
                found = _DLPack
            else:
                raise TypeError(f"{t.__module__}.{t.__name__} is not an array disttranspose can take (NumPy, CuPy, "
                                "PyTorch, JAX, or __cuda_array_interface__ / DLPack)")
        _BY_TYPE[t] = found
    return found


_ITEMSIZE = dict(zip(DTYPES, ITEMSIZE))


def itemsize(name):
    """Bytes of an element of the library's type `name` (known without NumPy's types: bfloat16 needs
    ml_dtypes there)."""
    return _ITEMSIZE[name]


def aligned(ad, a, d, cache, boundary=0):
    """An input on a GPU whose address is not a multiple of `boundary` bytes (0: its element's size), as
    the plan needs (an FFT's: its complex type's, for its real side too) - a view into storage of
    smaller elements (torch.autograd.gradcheck makes such), which the GPU backends cannot read as
    elements: (a copy of it, its description), made byte for byte on the library's current stream.
    Else (a, d) as they are, and the checks judge them (a non-contiguous one, or one of a library that
    cannot copy, is refused)."""
    size = boundary or getattr(d.dtype, "itemsize", 0)
    if d.device < 0 or not d.ptr or not size or not d.ptr % size or not d.contiguous or not hasattr(ad, "copy"):
        return a, d
    a = ad.copy(a)
    return a, ad.describe(a, cache)


def problem(ad, d, shape, dtype, device, what, writable=False):
    """Why an array (described by its adapter ad) cannot serve as `what`: None where it can. dtype is
    the plan's element type as ad's library names it (ad.dtype)."""
    if d.dtype != dtype:
        return f"{what} has elements of {ad.name_of(d.dtype)}; the plan moves {ad.name_of(dtype)}"
    if d.shape != shape and tuple(d.shape) != tuple(shape):
        return f"{what} has shape {tuple(d.shape)}; this rank's is {tuple(shape)}"
    if not d.contiguous:
        return f"{what} is not C-contiguous: pass a contiguous array (e.g. a copy)"
    if writable and d.readonly:
        return f"{what} is read-only"
    if device >= 0 and d.device < 0:
        return f"{what} is in host memory; the plan runs on GPU {device}"
    if device < 0 and d.device >= 0:
        return f"{what} is on GPU {d.device}; the plan (cpu backend) moves host memory"
    if device >= 0 and d.device != device:
        return f"{what} is on GPU {d.device}; the plan runs on GPU {device}"
    return None
