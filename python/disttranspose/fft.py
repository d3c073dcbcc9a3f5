"""The distributed 3-D FFT of the C library (dtrFft*, include/disttranspose.h) for NumPy arrays (host
memory, the cpu backend: FFTW inside the library) and CuPy, PyTorch and JAX arrays (their GPU: cuFFT
and the library's exchanges, overlapped):

    fftn,  rfftn:   this rank's X-pencil  ->  its Z-pencil of the transform
    ifftn, irfftn:  its Z-pencil          ->  its X-pencil

`shape` is (nx, ny, nz) of the real (rfftn, irfftn) or complex array, and x this rank's box of it:
Grid.box(shape, pencil, dtype).shape, [z][y][x] for an X-pencil, [y][x][z] for a Z-pencil. rfftn
halves x: its result is this rank's Z-pencil of the (nx // 2 + 1, ny, nz) complex array, which irfftn
takes back. `norm` means what it means to numpy.fft.

Every call is collective over the grid. The plan of its settings is made on the first such call and
kept with the grid (Grid.close frees it). A call checks its arguments and arrays on each rank and
agrees on them in one small reduction over the grid's communicator (which also finds settings that
differ between ranks and plans that some rank lacks), so that a problem on any rank raises Error on
every rank before anything runs; then it is the library's dtrFftExecute, on the array library's
current stream on GPUs. A call on the arrays of the previous one with the same settings skips the
checks (their results stand) but not the reduction (which a grid of one rank does without).
"""

import ctypes
import zlib

import numpy
from mpi4py import MPI

from . import _arrays, _collective, _lib
from .errors import RESULT_MISMATCH, Error
from .plan import _config

__all__ = ["fftn", "ifftn", "rfftn", "irfftn"]

# A traced JAX array (inside jax.jit) has no buffer to hand to the library; an XLA FFI custom call of
# the FFT, where one is registered here as callable(name, x, grid, shape, norm, out, backend, chunks),
# takes those calls (eager JAX arrays keep the path below).
jax_traced = None


def fftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0):
    """Collective over the grid: the forward FFT of the complex (complex64 or complex128) array of
    `shape` whose X-pencil this rank holds (x), as this rank's Z-pencil of the result, in `out` where
    given (not for JAX arrays, which are immutable). backend: "auto" (the cpu backend for host memory,
    the library's choice on GPUs), "cpu", "nccl" or "p2p". chunks: 0 (the library's rule) or how many
    chunks of planes the passes and the exchanges are cut into to overlap (1: one after the other)."""
    return _transform("fftn", x, grid, shape, norm, out, backend, chunks)


def ifftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0):
    """Collective over the grid: the inverse of fftn, from this rank's Z-pencil to its X-pencil."""
    return _transform("ifftn", x, grid, shape, norm, out, backend, chunks)


def rfftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0):
    """Collective over the grid: the forward FFT of the real (float32 or float64) array of `shape` whose
    X-pencil this rank holds, as its Z-pencil of the (nx // 2 + 1, ny, nz) complex result."""
    return _transform("rfftn", x, grid, shape, norm, out, backend, chunks)


def irfftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0):
    """Collective over the grid: the inverse of rfftn, from this rank's Z-pencil of the (nx // 2 + 1, ny,
    nz) complex array to its X-pencil of the real array of `shape` (whose nx says whether it is odd)."""
    return _transform("irfftn", x, grid, shape, norm, out, backend, chunks)


def _transform(name, x, grid, shape, norm, out, backend, chunks):
    state = grid._plans.get(_STATE) or _State.of(grid)
    problem = call = None
    device = -1
    try:
        ad = _arrays._BY_TYPE.get(type(x)) or _arrays.adapter(x)
        try:
            call = state.calls[(name, shape, norm, backend, chunks, ad, x.dtype)]
            hot = call.hot
        except (KeyError, TypeError, AttributeError):  # not seen yet, an unhashable argument (a list), no dtype
            hot = None
        if hot is not None and hot[2].handle is not None and x is hot[5] and out is hot[6] and \
                call.same(x) == hot[0] and (out is None or call.same(out) == hot[1]):
            plan, send, device, xptr, optr = hot[2], hot[3], hot[4], hot[7], hot[8]
            if out is None:
                out = ad.empty(x, call.out_box, call.out_type)
                optr = _pointer_of_new(ad, out)
        else:
            call, plan, send, device, xptr, out, optr = _prepare(state, name, x, grid, shape, norm, out, backend,
                                                                 chunks, ad, call)
        stream = ad.stream(x, None, device) or None
    except _Traced as traced:
        return traced.result
    except Exception as e:  # whatever one rank alone raises must stop every rank, not leave them waiting
        problem, send = str(e) or type(e).__name__, _State.PROBLEM

    if not state.alone:
        state.comm.Allreduce(send[0], state.recv, MPI.MAX)
    if problem is not None or not state.alone and state.buffer.tobytes() != send[1]:
        _disagreed(state, problem, call, device, send)
        plan = state.plans[call.agreed(device)[1]]
    elif send[2] & 1:  # every rank lacks the plan: the first call with these settings
        plan = state.make_plan(call, device)

    result = _lib.lib.dtrFftExecute(plan.handle, xptr or None, optr or None, call.direction, stream)
    if result:
        raise Error(result, _lib.last_error())
    if call.factor != 1.0:
        out = _scale(ad, out, call.factor)
    return out if ad.synchronous_result else ad.finish(out)


class _Traced(Exception):
    """A traced JAX call, answered by the registered custom call (jax_traced)."""

    def __init__(self, result):
        super().__init__()
        self.result = result


def _prepare(state, name, x, grid, shape, norm, out, backend, chunks, ad, call):
    """This rank's part of a call off the hot path: the call worked out (once), its arrays checked (out
    allocated where None), its plan looked up, and what it gives to the agreement (_State.value).
    Raises for a problem of this rank's."""
    if ad.name not in _LIBRARIES:
        raise TypeError(f"x is a {ad.name} array; the FFT takes NumPy, CuPy, PyTorch or JAX arrays")
    if ad is _arrays._Jax and _traced(x):
        if jax_traced is None:
            raise ValueError(f"x is a traced JAX array (inside jax.jit): {name} takes concrete arrays (eager calls)")
        raise _Traced(jax_traced(name, x, grid, shape, norm, out, backend, chunks))
    if call is None:
        call = _Call(grid, name, shape, norm, backend, chunks, ad, x.dtype)
        try:
            state.calls[(name, shape, norm, backend, chunks, ad, x.dtype)] = call
        except TypeError:  # an unhashable argument: worked out at every call
            pass
    given = out
    xptr, out, optr, device = _check(call, ad, x, out, name)
    settings, key, send = call.agreed(device)
    plan = state.plans.get(key)
    missing = plan is None or plan.device != device
    call.hot = None
    if missing:
        send = _State.value(send[2] | 1)
    elif ad.key is not None:
        call.hot = (call.same(x), None if given is None else call.same(given), plan, send, device, x, given, xptr,
                    None if given is None else optr)
    return call, plan, send, device, xptr, out, optr


def _disagreed(state, problem, call, device, send):
    """Collective, where the reduction found a problem, settings that differ, or a plan that only some
    ranks lack: Error on every rank for the first two, naming the rank and the problem or the setting;
    else the plan made on every rank (again on those that had it: one plan per setting on each rank)."""
    _collective.agree(state.comm, problem)
    every = state.comm.allgather((call.agreed(device)[0], send[2] & 1))
    first = every[0][0]
    for rank, (theirs, _) in enumerate(every):
        for (what, value), (_, other) in zip(first, theirs):
            if other != value:
                raise Error(RESULT_MISMATCH, f"{what} differs between ranks: {value} on rank 0, {other} on rank {rank}; "
                                             "every rank must give the same")
    if any(missing for _, missing in every):
        state.make_plan(call, device)


class _Call:
    """One kind of call (its function, shape, norm, backend, chunks, and the input's library and element
    type) worked out once: the boxes and types of its arrays, its plan's settings, and the last arrays
    that passed its checks (`hot`), so that a call on the same arrays skips them."""

    def __init__(self, grid, name, shape, norm, backend, chunks, ad, dtype):
        kind, direction, real_in = _CALLS[name]
        sh = tuple(_collective.integer(f"shape[{i}]", s, 1) for i, s in enumerate(shape))
        if len(sh) != 3:
            raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
        if norm is None:
            norm = "backward"
        if norm not in _NORMS:
            raise ValueError(f"norm = {norm!r}: expected one of {', '.join(_NORMS)}")
        if not isinstance(backend, str) or backend.lower() not in _lib.BACKENDS:
            raise ValueError(f"backend = {backend!r}: expected one of {', '.join(_lib.BACKENDS)}")
        self.chunks = _collective.integer("chunks", chunks, 0)
        given = ad.name_of(dtype)
        ctype = _COMPLEX.get(given) if real_in else given if given in _REAL else None
        if ctype is None:
            raise ValueError(f"x has elements of {given}; {name} takes "
                             + ("float32 or float64 (fftn takes complex arrays)" if real_in else
                                "complex64 or complex128" + (" (rfftn takes real arrays)" if name == "fftn" else "")))
        xtype = _REAL[ctype] if kind else ctype  # the X-pencil side's
        cshape = (sh[0] // 2 + 1, sh[1], sh[2]) if kind else sh
        x_side, z_side = grid.box(sh, "x", xtype).shape, grid.box(cshape, "z", ctype).shape
        forward = direction == _lib.FFT_FORWARD
        if forward:
            self.x_box, self.x_type, self.out_box, self.out_type = x_side, xtype, z_side, ctype
        else:
            self.x_box, self.x_type, self.out_box, self.out_type = z_side, ctype, x_side, xtype
        self.x_pencil, self.out_pencil = ("X", "Z") if forward else ("Z", "X")
        self.name, self.kind, self.direction, self.shape, self.norm = name, kind, direction, sh, norm
        self.plan_type = _arrays.DTYPES.index(xtype)
        # numpy.fft's norms on the library's: "forward" (1/N on the forward) has none of its own, so its
        # plans scale nothing and a forward's result takes one pass (its inverse none).
        self.cnorm = {"backward": "inverse", "ortho": "ortho", "forward": "none"}[norm]
        self.factor = 1.0 / (sh[0] * sh[1] * sh[2]) if norm == "forward" and forward else 1.0
        self.backend = backend.lower()
        self.x_dtype, self.out_dtype = ad.dtype(self.x_type), ad.dtype(self.out_type)
        self.pointers = _arrays.PointerCache()
        # What the checks of an array depend on, as one tuple: a NumPy array's pointer cannot change
        # while it is held (hot holds it), the other libraries' can.
        self.same = _numpy_key if ad is _arrays._NumPy else (lambda a, key=ad.key, cache=self.pointers: key(a, cache))
        # The last arrays that passed the checks, held: (same(x), same(out), plan, what it gives to the
        # agreement, device, x, out, their pointers).
        self.hot = None
        self._agreed = {}

    def agreed(self, device):
        """For arrays on `device` (-1: host memory): what every rank must give alike, by name (the device
        aside), the key of the plan among the grid's, and what a rank with that plan and no problem gives
        to the agreement (_State.value of the settings' digest, its lowest bit clear)."""
        host = device < 0
        found = self._agreed.get(host)
        if found is None:
            backend = "cpu" if host and self.backend == "auto" else self.backend
            settings = (("the call", self.name), ("shape", self.shape), ("type", self.x_type), ("norm", self.norm),
                        ("chunks", self.chunks), ("backend", backend))
            key = (self.kind, self.shape, self.plan_type, self.cnorm, self.chunks, backend)
            found = self._agreed[host] = (settings, key, _State.value(2 * zlib.crc32(repr(settings).encode())))
        return found


class _Plan:
    """A library FFT plan (dtrFftPlan_t) on one device (-1: host memory)."""

    def __init__(self, handle, device):
        self.handle, self.device = handle, device

    def _get(self, getter, kind=ctypes.c_int):
        value = kind()
        _lib.check(getter(self.handle, ctypes.byref(value)))
        return value.value

    @property
    def backend(self):
        return _lib.BACKENDS[self._get(_lib.lib.dtrFftGetBackend)]

    @property
    def chunks(self):
        return self._get(_lib.lib.dtrFftGetChunks)

    @property
    def workspace_size(self):
        return self._get(_lib.lib.dtrFftGetWorkspaceSize, ctypes.c_size_t)

    def close(self):
        """Collective. The library frees a plan without waiting for its executes, and on GPUs the calls
        return before their work has run: a GPU plan goes after its device's queued work."""
        if self.handle is not None:
            handle, self.handle = self.handle, None
            if self.device >= 0:
                from ._cuda import synchronize
                synchronize(self.device)
            _lib.check(_lib.lib.dtrFftPlanDestroy(handle))


class _State:
    """The FFT's part of a grid (one of its closables, Grid._plans): its plans, one per setting on this
    rank's device, the calls it has worked out, and the agreement's buffer.

    The agreement is one MAX reduction of [v, -v], v what the rank gives: -1 for a problem, else twice
    the digest of its settings, plus 1 where it lacks the plan. The result equals the rank's own [v, -v]
    exactly where every rank gave the same v."""

    PROBLEM = None  # value(-1), set below

    def __init__(self, grid):
        self.grid, self.comm = grid, grid.comm
        self.plans = {}
        self.calls = {}
        self.alone = grid.comm.Get_size() == 1  # nothing to agree on
        self.buffer = numpy.zeros(2, numpy.int64)
        self.recv = [self.buffer, MPI.INT64_T]

    @staticmethod
    def value(v):
        """What a rank gives to the reduction: the buffer as mpi4py takes it fastest, its bytes (the
        result's where every rank gave the same), and v."""
        a = numpy.array([v, -v], numpy.int64)
        a.setflags(write=False)
        return [a, MPI.INT64_T], a.tobytes(), v

    @staticmethod
    def of(grid):
        grid._live()
        state = grid._plans[_STATE] = _State(grid)
        return state

    def make_plan(self, call, device):
        """Collective (every rank, after the agreement): the plan of the call's settings on this rank's
        device, in place of one this rank had on another device."""
        settings, key, _ = call.agreed(device)
        old = self.plans.pop(key, None)
        if old is not None:
            old.close()
        cfg = _lib.FftConfig()
        _lib.lib.dtrFftConfigInit(ctypes.byref(cfg))
        cfg.transpose = _config(settings[-1][1], "auto", 0, False, None if device < 0 else device, 0)
        cfg.chunks = call.chunks
        cfg.norm = _lib.FFT_NORMS.index(call.cnorm)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrFftPlanCreate(ctypes.byref(handle), self.grid._live(), (ctypes.c_int64 * 3)(*call.shape),
                                             call.kind, call.plan_type, ctypes.byref(cfg)))
        plan = self.plans[key] = _Plan(handle.value, device)
        return plan

    def close(self):
        plans = list(self.plans.values())
        self.plans.clear()
        self.calls.clear()
        for plan in plans:
            plan.close()


def _check(call, ad, x, out, name):
    """The full checks of a call's arrays, out allocated where None: (x's pointer, out, out's pointer,
    device). Raises ValueError for a problem of this rank's."""
    d = ad.describe(x, call.pointers)
    if tuple(d.shape) != call.x_box:
        raise ValueError(f"x has shape {tuple(d.shape)}; this rank's {call.x_pencil}-pencil is {call.x_box}")
    device = d.device
    if device < 0 and call.backend in ("nccl", "p2p"):
        raise ValueError(f"x is in host memory; backend '{call.backend}' runs on GPUs")
    if device >= 0 and call.backend == "cpu":
        raise ValueError(f"x is on GPU {device}; backend 'cpu' transforms host memory")
    problem = _arrays.problem(ad, d, call.x_box, call.x_dtype, device, "x")
    fresh = out is None
    if problem is None:
        if fresh:
            out = ad.empty(x, call.out_box, call.out_type)
        elif not getattr(ad, "accepts_out", True):
            problem = f"out: {ad.name} arrays are immutable; leave out=None (the result is a new array)"
        elif _arrays.adapter(out) is not ad:
            problem = f"out is a {_arrays.adapter(out).name} array and x a {ad.name} one"
    if problem is None:
        o = ad.describe(out, _SCRATCH if fresh else call.pointers)
        _SCRATCH.clear()
        if tuple(o.shape) != call.out_box:
            problem = f"out has shape {tuple(o.shape)}; this rank's {call.out_pencil}-pencil of the result is {call.out_box}"
        else:
            problem = _arrays.problem(ad, o, call.out_box, call.out_dtype, device, "out", writable=True)
    if problem is not None:
        raise ValueError(problem)
    return d.ptr, out, o.ptr, device


def _plan_of(grid, name, x, shape, *, norm="backward", backend="auto", chunks=0):
    """Not collective: the plan (handle, device, backend, chunks) that an earlier call `name` with these
    arguments ran for x (the benchmarks time its dtrFftExecute from C)."""
    state = grid._plans[_STATE]
    ad = _arrays.adapter(x)
    call = state.calls[(name, shape, norm, backend, chunks, ad, x.dtype)]
    return state.plans[call.agreed(ad.describe(x, _arrays.PointerCache()).device)[1]]


def _numpy_key(a):
    flags = a.flags
    return a.shape, a.dtype, flags.c_contiguous, flags.writeable


def _pointer_of_new(ad, a):
    """The pointer of a result made for this call, not remembered (the caller owns it from now on)."""
    ptr = ad.describe(a, _SCRATCH).ptr
    _SCRATCH.clear()
    return ptr


def _scale(ad, a, factor):
    """The forward norm's one pass over the result, on the array library's stream."""
    if ad.name == "jax":
        return a * factor
    if ad.name == "torch":
        return a.mul_(factor)
    a *= factor
    return a


def _traced(x):
    import jax
    return isinstance(x, jax.core.Tracer)




# name: (kind (the library's dtrFftKind_t), direction, whether x is the real side)
_CALLS = {"fftn": (0, _lib.FFT_FORWARD, False), "ifftn": (0, _lib.FFT_INVERSE, False),
          "rfftn": (1, _lib.FFT_FORWARD, True), "irfftn": (1, _lib.FFT_INVERSE, False)}
_COMPLEX = {"float32": "complex64", "float64": "complex128"}
_REAL = {v: k for k, v in _COMPLEX.items()}
_NORMS = ("backward", "ortho", "forward")
_LIBRARIES = ("numpy", "cupy", "torch", "jax")
# The key among the grid's closables (Grid._plans, closed with it) of the FFT's state.
_STATE = "fft"
_State.PROBLEM = _State.value(-1)
_SCRATCH = _arrays.PointerCache()
