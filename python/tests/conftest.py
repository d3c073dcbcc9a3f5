"""Shared test support: the communicator, array libraries, the verification pattern, bit-for-bit
comparisons, and the agreement that keeps the ranks of a test together.

Run under mpiexec: every rank runs every test in the same order. A test's own collective steps
(everywhere, largest, gathered, raises_everywhere) and the end of each test phase (setup, call,
teardown) are rounds of one protocol on a communicator of their own, never matched with a collective
of the library or of a test body: in each round every rank says which test and phase it is in and
whether it is still in the body or has passed, failed or skipped. A rank that raises (an error of its
own, not an assertion on agreed values) makes every other rank fail that test at its next round, with
that rank's error named, and all go on to the next test together. A rank that raised while the others
wait for it in some other collective (the library's, mpi4py's) cannot reach them: after AGREE_TIMEOUT
seconds it prints its error and aborts the job, which ends the run instead of hanging it."""

import os
import time
import traceback
import zlib

import numpy as np
import pytest
from mpi4py import MPI

import disttranspose as dt

COMM = MPI.COMM_WORLD
DTYPES = ["int8", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
ITEMSIZE = dict(zip(DTYPES, [1, 2, 2, 4, 8, 8, 16]))

# ---- the agreement -----------------------------------------------------------------------------

_ROUNDS = COMM.Dup()
_BODY, _PASSED, _FAILED, _SKIPPED = 0.0, 1.0, 2.0, 3.0
_WORDS = {_PASSED: "passed", _FAILED: "failed", _SKIPPED: "skipped"}
AGREE_TIMEOUT = 60.0
_where = {"test": 0.0, "name": "(no test)"}


class AnotherRankFailed(Exception):
    """This rank's part of a test was fine, another rank's raised (named in the message)."""


def _round(state, value=0.0, deadline=None):
    """Collective over _ROUNDS: every rank's (state, test, value), a row a rank; None where `deadline`
    (time.monotonic()) passes first. Non-blocking on every rank alike, since a rank that failed polls
    it with a deadline and MPI matches no blocking collective with a non-blocking one."""
    mine = np.array([state, _where["test"], value], np.float64)
    every = np.empty((_ROUNDS.Get_size(), 3), np.float64)
    request = _ROUNDS.Iallgather(mine, every)
    if deadline is None:
        request.Wait()
        return every
    while not request.Test():
        if time.monotonic() > deadline:
            return None
        time.sleep(0.001)
    return every


def _same_test(every):
    tests = every[:, 1]
    if (tests != tests[0]).any():
        ranks = [r for r in range(len(tests)) if tests[r] != tests[0]]
        _abort(f"rank {ranks[0]} runs another test or phase than rank 0 ({_where['name']} here): the ranks "
               "collected different tests")


def _abort(why):
    print(f"rank {COMM.Get_rank()}: {why}: aborting the job", flush=True)
    COMM.Abort(1)


def _in_body(value):
    """A round of a test body: every rank's value, or AnotherRankFailed where a rank has left the body."""
    every = _round(_BODY, value)
    _same_test(every)
    if (every[:, 0] != _BODY).any():
        r = next(r for r in range(len(every)) if every[r, 0] != _BODY)
        raise AnotherRankFailed(f"rank {r} left this test ({_WORDS[every[r, 0]]}) while this one was in it")
    return every[:, 2]


def everywhere(ok):
    """True on every rank when ok on every rank."""
    return bool(_in_body(float(bool(ok))).min())


def anywhere(ok):
    """True on every rank when ok on some rank."""
    return bool(_in_body(float(bool(ok))).max())


def largest(value):
    """The largest of every rank's value (a number), on every rank."""
    return float(_in_body(float(value)).max())


def gathered(obj):
    """Every rank's obj, by rank."""
    _in_body(0.0)
    return _ROUNDS.allgather(obj)


def _phase(item, phase):
    """The hook wrapper of one test phase: the phase's outcome agreed over the ranks (see the module's
    docstring). A generator, for `yield from` in the hook wrappers."""
    _where["test"] = float(zlib.crc32(f"{item.nodeid}::{phase}".encode()))
    _where["name"] = f"{item.nodeid} ({phase})"
    error = None
    try:
        result = yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # pytest's skips and failures are BaseExceptions too
        error = e
    state = _PASSED if error is None else _SKIPPED if isinstance(error, pytest.skip.Exception) else _FAILED
    deadline = time.monotonic() + AGREE_TIMEOUT if state == _FAILED else None
    while True:
        every = _round(state, deadline=deadline)
        if every is None:
            raised = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            _abort(f"{_where['name']} raised {raised}and the other ranks did not reach the end of the test within "
                   f"{AGREE_TIMEOUT:.0f} s (they wait in a collective for this rank)")
        _same_test(every)
        if (every[:, 0] != _BODY).all():
            break
    states = every[:, 0]
    if (states == _PASSED).all():
        return result
    own = state == _FAILED and not isinstance(error, AnotherRankFailed)
    summary = f"{type(error).__name__}: {error}".splitlines()[0][:300] if own else None
    summaries = _ROUNDS.allgather(summary)
    if own or (states == _SKIPPED).all():
        raise error
    if (states == _FAILED).any():
        raise AnotherRankFailed("; ".join(f"rank {r}: {m}" for r, m in enumerate(summaries) if m is not None))
    if (states == _SKIPPED).any():
        raise AnotherRankFailed("ranks disagree whether to skip this test: "
                                + ", ".join(f"rank {r} {_WORDS[st]}" for r, st in enumerate(states)))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _phase(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _phase(item, "call"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    return (yield from _phase(item, "teardown"))


def raises_everywhere(fn, code=None, words=None):
    """fn() raises dt.Error on every rank, with `code` and a message containing `words` (on the rank
    that found the problem; the others name it); returns this rank's message."""
    try:
        fn()
        got = None
    except dt.Error as e:
        got = e
    ok = got is not None and (code is None or got.code == code) and (words is None or words in str(got))
    messages = gathered(None if got is None else f"{got.code}: {got}")
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
    global GPU
    n = _gpus()
    if not n:
        return
    local = COMM.Split_type(MPI.COMM_TYPE_SHARED)
    device = GPU = local.Get_rank() % n
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


def framework_platforms(name):
    """Where the tests of JAX or PyTorch (`name`) as frameworks run: the host (cpu backend) where
    DTR_TEST_LIBS asks for host arrays (numpy) or is unset, and the GPU (marked gpu) where there is one
    and DTR_TEST_LIBS names the framework or is unset."""
    only = os.environ.get("DTR_TEST_LIBS")
    wanted = only.split(",") if only else ["numpy", name]
    return (["cpu"] if "numpy" in wanted else []) + (
        [pytest.param("gpu", marks=pytest.mark.gpu)] if GPU is not None and name in wanted else [])


class FrameworkWhere:
    """A platform of the tests of JAX or PyTorch (`framework`): its device, the backend of its plans, and
    (JAX) a context that makes the device JAX's default (where jax.numpy makes the tests' own arrays)."""

    def __init__(self, framework, platform):
        self.jax = framework == "jax"
        self.gpu = platform == "gpu"
        self.backend = os.environ.get("DTR_TEST_GPU_BACKEND", "auto") if self.gpu else "cpu"
        if self.jax:
            import jax
            self.device = jax.devices("gpu")[GPU] if self.gpu else jax.devices("cpu")[0]
        else:
            import torch
            self.device = torch.device("cuda", GPU) if self.gpu else torch.device("cpu")

    def put(self, a):
        a = np.ascontiguousarray(a)
        if self.jax:
            import jax
            return jax.device_put(a, self.device)
        import torch
        return torch.from_numpy(a).to(self.device)

    def default(self):
        import jax
        return jax.default_device(self.device)


def jax_platform(platform):
    """FrameworkWhere for JAX on `platform` (a fixture's parameter from framework_platforms("jax")):
    skipped where jax or the package's custom calls are missing; 64-bit types on."""
    jax = pytest.importorskip("jax")
    why = custom_calls_missing()
    if why:
        pytest.skip(why)
    jax.config.update("jax_enable_x64", True)
    return FrameworkWhere("jax", platform)


def custom_calls_missing():
    """Why the package's JAX custom calls cannot run here, or None (test_imports.py fails on it; the JAX
    tests skip)."""
    from disttranspose import _jax
    return None if _jax.module() is not None else _jax.unavailable()


GPU = None  # the GPU of this rank's arrays (_pick_gpu), where there is one
_pick_gpu()
LIBS = _libs()
if "jax" in LIBS:
    _jax_x64()


@pytest.fixture(params=[pytest.param(n, marks=[pytest.mark.gpu] if n != "numpy" else []) for n in LIBS])
def lib(request):
    return Lib(request.param)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU and a GPU array library")
