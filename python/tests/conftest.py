"""Shared test support: the communicator, array libraries, the verification pattern, bit-for-bit
comparisons. Run under mpiexec: every rank runs every test in the same order, and every assertion is
made on values agreed over the ranks (everywhere()), so that no rank leaves the others waiting in a
collective call."""

import os

import numpy as np
import pytest
from mpi4py import MPI

import disttranspose as dt

COMM = MPI.COMM_WORLD
DTYPES = ["int8", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
ITEMSIZE = dict(zip(DTYPES, [1, 2, 2, 4, 8, 8, 16]))


def everywhere(ok):
    """True on every rank when ok on every rank."""
    return COMM.allreduce(bool(ok), op=MPI.LAND)


def raises_everywhere(fn, code=None, words=None):
    """fn() raises dt.Error on every rank, with `code` and a message containing `words` (on the rank
    that found the problem; the others name it); returns this rank's message."""
    try:
        fn()
        got = None
    except dt.Error as e:
        got = e
    ok = got is not None and (code is None or got.code == code) and (words is None or words in str(got))
    messages = COMM.allgather(None if got is None else f"{got.code}: {got}")
    assert everywhere(ok), f"expected Error {code} mentioning {words!r} on every rank, got {messages}"
    return str(got)


def mix(x):
    """splitmix64's finaliser on uint64 arrays (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def numpy_dtype(name):
    if name == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def pattern(index, dtype, howmany=1):
    """Entries whose bytes are a hash of their global index (every entry, every byte differs; NaN
    payloads included): an array of index's shape (+ howmany) of dtype."""
    nbytes = ITEMSIZE[dtype] * howmany
    index = np.asarray(index, dtype=np.uint64)
    b = np.arange(nbytes, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = mix(index[..., None] * np.uint64(0x9E3779B97F4A7C15) + b)
    raw = (words & np.uint64(0xFF)).astype(np.uint8)
    out = raw.view(numpy_dtype(dtype))
    shape = index.shape + ((howmany,) if howmany > 1 else ())
    return out.reshape(shape)


def poison(shape, dtype):
    return np.full(int(np.prod(shape)) * ITEMSIZE[dtype], 0xA5, dtype=np.uint8).view(numpy_dtype(dtype)).reshape(shape)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))


# ---- array libraries ---------------------------------------------------------------------------

def _gpus():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        pass
    try:
        import torch
        return torch.cuda.device_count()
    except Exception:
        return 0


class Lib:
    """An array library for the tests: from and to NumPy, and what its plans' backend is."""

    def __init__(self, name):
        self.name = name
        self.gpu = name != "numpy"
        self.backend = "cpu" if name == "numpy" else os.environ.get("DTR_TEST_GPU_BACKEND", "auto")

    def __repr__(self):
        return self.name

    def supports(self, dtype):
        return not (self.name == "cupy" and dtype == "bfloat16")

    def out(self, a):
        """An output array for execute(out=...): None for JAX, whose arrays are immutable."""
        return None if self.name == "jax" else self.put(a)

    def put(self, a):
        a = np.ascontiguousarray(a)
        if self.name == "numpy":
            return a
        if self.name == "cupy":
            import cupy
            return cupy.asarray(a)
        if self.name == "torch":
            import torch
            if a.dtype.name == "bfloat16":
                return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16).cuda()
            return torch.from_numpy(np.ascontiguousarray(a)).cuda()
        import jax.numpy as jnp
        return jnp.asarray(a)

    def get(self, a):
        if self.name == "numpy":
            return a
        if self.name == "cupy":
            import cupy
            return cupy.asnumpy(a)
        if self.name == "torch":
            import torch
            if a.dtype == torch.bfloat16:
                ml_dtypes = pytest.importorskip("ml_dtypes")
                return a.cpu().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
            return a.cpu().numpy()
        return np.asarray(a)

    def sync(self):
        if self.name == "cupy":
            import cupy
            cupy.cuda.get_current_stream().synchronize()
        elif self.name == "torch":
            import torch
            torch.cuda.synchronize()


def _libs():
    names = ["numpy"]
    if _gpus() > 0:
        for name in ("cupy", "torch", "jax"):
            try:
                __import__(name)
                names.append(name)
            except ImportError:
                pass
    only = os.environ.get("DTR_TEST_LIBS")
    if only:
        names = [n for n in names if n in only.split(",")]
    return names


def _pick_gpu():
    """The node-local rank's GPU, modulo the GPUs (ranks share them where there are fewer), made current
    in every library the tests use, as a program would."""
    n = _gpus()
    if not n:
        return
    local = COMM.Split_type(MPI.COMM_TYPE_SHARED)
    device = local.Get_rank() % n
    local.Free()
    try:
        import cupy
        cupy.cuda.Device(device).use()
    except ImportError:
        pass
    try:
        import torch
        torch.cuda.set_device(device)
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_default_device", jax.devices()[device])
    except (ImportError, RuntimeError, IndexError):
        pass


def _jax_x64():
    """JAX keeps 64-bit types off unless asked: float64 and complex128 arrays need it."""
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
    except ImportError:
        pass


_pick_gpu()
LIBS = _libs()
if "jax" in LIBS:
    _jax_x64()


@pytest.fixture(params=LIBS)
def lib(request):
    return Lib(request.param)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU and a GPU array library")
