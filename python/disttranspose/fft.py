"""The distributed 3-D FFT of the C library (dtrFft*, include/disttranspose.h) for NumPy arrays (host
memory, the cpu backend: FFTW inside the library) and CuPy, PyTorch and JAX arrays (their GPU: cuFFT
and the library's exchanges, overlapped):

    fftn,  rfftn:   this rank's X-pencil  ->  its Z-pencil of the transform
    ifftn, irfftn:  its Z-pencil          ->  its X-pencil

`shape` is (nx, ny, nz) of the real (rfftn, irfftn) or complex array, and x this rank's box of it:
Grid.box(shape, pencil, dtype).shape, [z][y][x] for an X-pencil, [y][x][z] for a Z-pencil; with
howmany fields (howmany=, above 1), Grid.box(shape, pencil, dtype, howmany).shape, a trailing axis of
the fields ([z][y][x][f]: every point holds one number of each, as the library interleaves them). rfftn
halves x: its result is this rank's Z-pencil of the (nx // 2 + 1, ny, nz) complex array, which irfftn
takes back. `norm` means what it means to numpy.fft.

padding= (dealiasing, the 3/2 rule: 1.5; a number for every axis or one per axis x, y, z, each 0 or 1
for none or a factor >= 1): the X-pencil side is then the padded grid of m = floor(n * padding) points
per axis, the Z-pencil side this rank's kept modes of `shape` (the library's dtrFftConfig_t.padding).
local_box(grid, shape, side, dtype, howmany=, padding=) gives either side's box. Norms, with N the
modes' points and M the padded grid's: "backward" scales the inverse by 1/N and the forward by N/M (a
round trip gives the modes back, the padded field is numpy's unpadded inverse sampled on the finer
grid), "forward" the forward by 1/M; "ortho" is refused.

Walls (kinds=, docs/fft.md#cosine-and-sine-transforms-walls): every function takes one kind per axis,
in the library's order (x, y, z), not NumPy's: an X-pencil is indexed [z][y][x], so kinds[0] acts along
its last axis. "fft" is the DFT (periodic, the default); "dct2", "dct3", "dst2" and "dst3" are FFTW's
REDFT10, REDFT01, RODFT10 and RODFT01, unnormalized:

    dct2: y_k = 2 sum_j x_j cos(pi (2j + 1) k / (2n))
    dct3: y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (2k + 1) / (2n))
    dst2: y_k = 2 sum_j x_j sin(pi (2j + 1) (k + 1) / (2n))
    dst3: y_k = (-1)^k x_{n-1} + 2 sum_{j<n-1} x_j sin(pi (j + 1) (2k + 1) / (2n))

Each one's inverse is the other of its pair (dct2 and dct3, dst2 and dst3), and an inverse function
takes the kinds of the forward it inverts: ifftn(y, ..., kinds=k) undoes fftn(x, ..., kinds=k). A
real-to-real axis counts 2n in the norm's N (a round trip multiplies it by 2n), and norm "ortho" is
refused with one (1/sqrt(N) both ways would not make it orthonormal). fftn takes any mix (a kind acts on
the real and imaginary parts alike); rfftn keeps x periodic (its real-to-complex axis, the kinds of y
and z acting on the complex side), or takes real-to-real kinds on every axis: then both sides are real
arrays of `shape` and of x's type (the Z-pencil of the transform as the forward's result), and irfftn
takes that real array back.

Every call is collective over the grid. The plan of its settings is made on the first such call and
kept with the grid (Grid.close frees it). A call checks its arguments and arrays on each rank and
agrees on them in one small reduction over the grid's communicator (which also finds settings that
differ between ranks and plans that some rank lacks), so that a problem on any rank raises Error on
every rank before anything runs; then it is the library's dtrFftExecute, on the array library's
current stream on GPUs. A call on the arrays of the previous one with the same settings skips the
checks (their results stand) but not the reduction (which a grid of one rank does without).

JAX arrays and tracers, and PyTorch tensors that autograd or torch.compile follow, run as the
frameworks' own operations (_frameworks.py): each direction of a library plan is an operation of the
plans' protocol (_ops.py, _FftOp here), agreed and made at trace time (or at an eager call) by
_framework_op, and differentiated by its adjoint (_FftOp._adjoint_weights says how).
"""

import ctypes
import math
import zlib

import numpy
from mpi4py import MPI

from . import _arrays, _collective, _frameworks, _lib, _ops
from .errors import RESULT_INVALID_ARGUMENT, RESULT_MISMATCH, Error
from .grid import Box
from .plan import _config

__all__ = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2", "local_box"]

# What the frameworks' compiled programs call to run an FFT operation (_ops.py): dtrFftExecute itself.
_EXECUTOR = ctypes.cast(_lib.lib.dtrFftExecute, ctypes.c_void_p).value


def fftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None,
         padding=None):
    """Collective over the grid: the forward FFT of the complex (complex64 or complex128) array of
    `shape` whose X-pencil this rank holds (x), as this rank's Z-pencil of the result, in `out` where
    given (not for JAX arrays, which are immutable). backend: "auto" (the cpu backend for host memory,
    the library's choice on GPUs), "cpu", "nccl" or "p2p". chunks: 0 (the library's rule) or how many
    chunks of planes the passes and the exchanges are cut into to overlap (1: one after the other).
    howmany: fields transformed together, one exchange for all (the library's dtrFftConfig_t.howmany):
    where it is above 1, x and the result have a trailing axis of howmany, field f being [..., f].
    kinds: None (the DFT along every axis) or three kinds, per axis in the library's order (x, y, z;
    kinds[0] acts along an X-pencil's last axis): "fft" (periodic), "dct2", "dct3", "dst2" or "dst3"
    (or the library's dtrFftAxis_t values 0 to 4), each acting on the real and imaginary parts alike.
    padding: None, or a number or (x, y, z) of factors (0 or 1: none), on periodic axes only: x is then
    the X-pencil of the padded grid (m = floor(n * padding) points per axis) and the result the modes of
    `shape` its FFT keeps (docs/fft.md#padding-32-rule); local_box gives both sides' boxes."""
    return _transform("fftn", x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)


def ifftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None,
          padding=None):
    """Collective over the grid: the inverse of fftn, from this rank's Z-pencil to its X-pencil. kinds:
    those of the fftn it inverts (x, y, z): a "dct2" axis runs the DCT-III back, and so on. padding: from
    its kept modes to its X-pencil of the padded grid, the modes put among zeros."""
    return _transform("ifftn", x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)


def rfftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None,
          padding=None):
    """Collective over the grid: the forward FFT of the real (float32 or float64) array of `shape` whose
    X-pencil this rank holds, as its Z-pencil of the (nx // 2 + 1, ny, nz) complex result. kinds (x, y,
    z, as fftn's): x periodic and any kinds on y and z (acting on the complex side); or real-to-real kinds
    on every axis, and then the result is this rank's Z-pencil of the real (nx, ny, nz) transform, of x's
    type. A real-to-real x with a periodic y or z is refused. padding (periodic axes only): of the padded
    grid, keeping the modes of the (nx // 2 + 1, ny, nz) spectrum of `shape`."""
    return _transform("rfftn", x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)


def irfftn(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None,
           padding=None):
    """Collective over the grid: the inverse of rfftn, from this rank's Z-pencil of the (nx // 2 + 1, ny,
    nz) complex array to its X-pencil of the real array of `shape` (whose nx says whether it is odd).
    kinds: those of the rfftn it inverts; with real-to-real kinds on every axis, x is the real Z-pencil
    that rfftn gave. padding: of the padded grid, the Nyquist mode nx // 2 of an even nx halved where x
    pads."""
    return _transform("irfftn", x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)


def fft2(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None):
    """Collective over the grid: the 2-D forward FFT of the complex array of shape = (nx, ny), the plan
    of (nx, ny, 1) on a P x 1 grid (docs/fft.md#2-d-transforms), which splits its rows over the ranks. x is this
    rank's rows [y][x] (grid.box((nx, ny, 1), "x", dtype) without its leading axis of 1); the result its
    columns [y][x] (the Z-pencil without its axis of 1). kinds: None or two kinds, (x, y), as fftn's."""
    return _planar("fft2", x, grid, shape, norm, out, backend, chunks, howmany, kinds)


def ifft2(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None):
    """Collective over the grid: the inverse of fft2, from this rank's columns to its rows (kinds: those
    of the fft2 it inverts)."""
    return _planar("ifft2", x, grid, shape, norm, out, backend, chunks, howmany, kinds)


def rfft2(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None):
    """Collective over the grid: the 2-D forward FFT of the real array of shape = (nx, ny), as this
    rank's columns of the (nx // 2 + 1, ny) complex result. kinds: None or two kinds, (x, y), as rfftn's:
    x periodic, or both real-to-real (then the result is real, (nx, ny))."""
    return _planar("rfft2", x, grid, shape, norm, out, backend, chunks, howmany, kinds)


def irfft2(x, grid, shape, *, norm="backward", out=None, backend="auto", chunks=0, howmany=1, kinds=None):
    """Collective over the grid: the inverse of rfft2, to this rank's rows of the real array of shape
    (kinds: those of the rfft2 it inverts)."""
    return _planar("irfft2", x, grid, shape, norm, out, backend, chunks, howmany, kinds)


def _planar(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds):
    """A 2-D transform as the 3-D one of (nx, ny, 1) on a P x 1 grid: the arrays viewed with the axis of 1
    put in (the X side's leading z, the Z side's trailing z, before the fields' axis). An array of another rank (number
    of axes) is passed as it is, so that the 3-D call's checks refuse it on every rank. The call keeps its
    2-D name, by which _Call takes two kinds and gives the axis of 1 its own (_axes)."""
    if grid.dims[1] != 1:
        # Every rank knows the grid alike: the refusal needs no agreement.
        raise Error(RESULT_INVALID_ARGUMENT, f"2-D transforms take a P x 1 grid (rows over the ranks), not "
                                             f"{grid.dims[0]} x {grid.dims[1]}: use fftn on (nx, ny, 1) there")
    inverse = name in ("ifft2", "irfft2")
    axes = 2 if howmany in (0, 1) else 3
    try:
        shape3 = tuple(shape) + (1,)
    except TypeError:
        shape3 = shape
    x3 = _with_unit_axis(x, axes, 2 if inverse else 0)
    out3 = None if out is None else _with_unit_axis(out, axes, 0 if inverse else 2)
    y = _transform(name, x3, grid, shape3, norm, out3, backend, chunks, howmany, kinds, None)
    return out if out is not None else _without_unit_axis(y, 0 if inverse else 2)


def _with_unit_axis(a, axes, at):
    if getattr(a, "ndim", None) != axes:
        return a
    s = tuple(a.shape)
    return a.reshape(s[:at] + (1,) + s[at:])


def _without_unit_axis(a, at):
    s = tuple(a.shape)
    return a.reshape(s[:at] + s[at + 1:]) if len(s) > at and s[at] == 1 else a


def local_box(grid, shape, side, dtype, *, howmany=1, kinds=None, padding=None):
    """Not collective: this rank's box (grid.Box) of one side of the FFT of `shape` whose X-pencil side
    holds elements of `dtype` (complex: fftn's and ifftn's, real: rfftn's and irfftn's), side "x" (the
    X-pencil) or "z" (the Z-pencil of the transform, its kept modes with padding), as the library's plan
    would give it (dtrFftLocalBox): the arrays' shapes before the first call, which padding needs."""
    if side not in ("x", "z"):
        raise ValueError(f"side = {side!r}: expected 'x' or 'z'")
    name = dtype if isinstance(dtype, str) else numpy.dtype(dtype).name
    real = name in _COMPLEX
    if not real and name not in _REAL:
        raise ValueError(f"dtype = {name}: expected float32, float64, complex64 or complex128")
    howmany = _collective.integer("howmany", howmany, 1)
    axes = _axes(kinds, False, int(real), "backward")
    return _library_box(grid, _shape3(shape), int(real), name, howmany, _padding3(padding), None, side, axes)


def _shape3(shape):
    sh = tuple(_collective.integer(f"shape[{i}]", s, 1) for i, s in enumerate(shape))
    if len(sh) != 3:
        raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
    return sh


def _padding3(padding):
    """padding as three floats (0.0: none), from None, a number or a sequence of three."""
    if padding is None:
        return (0.0, 0.0, 0.0)
    if isinstance(padding, str):
        raise TypeError(f"padding = {padding!r}: expected a number or (x, y, z) numbers")
    try:
        factors = (float(padding),) * 3
    except TypeError:
        try:
            factors = tuple(float(p) for p in padding)
        except (TypeError, ValueError):
            raise TypeError(f"padding = {padding!r}: expected a number or (x, y, z) numbers") from None
        if len(factors) != 3:
            raise ValueError(f"padding = {padding!r}: expected a number or (x, y, z) numbers")
    return factors


def _padded(n, p):
    """The padded grid's points along an axis of n (the library's rule: floor(n * padding), none for 0 or 1)."""
    return n if p in (0.0, 1.0) else max(n, int(math.floor(n * p)))


def _library_box(grid, shape, kind, xtype, howmany, padding, cnorm, side, axes=(0, 0, 0)):
    """This rank's box of one side as the library's plan gives it (dtrFftLocalBox; its checks raise Error)."""
    cfg = _lib.FftConfig()
    _lib.lib.dtrFftConfigInit(ctypes.byref(cfg))
    cfg.howmany = howmany
    cfg.axes[:] = axes
    cfg.padding = (ctypes.c_double * 3)(*padding)
    if cnorm in _lib.FFT_NORMS:
        cfg.norm = _lib.FFT_NORMS.index(cnorm)
    raw = _lib.Box()
    _lib.check(_lib.lib.dtrFftLocalBox(grid._live(), (ctypes.c_int64 * 3)(*shape), kind, _arrays.DTYPES.index(xtype),
                                       ctypes.byref(cfg), 0 if side == "x" else 1, -1, ctypes.byref(raw)))
    return Box(raw, side, howmany)


def _transform(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding):
    if type(kinds) is list:  # a key of the calls' caches, as a tuple (its entries are checked by _Call)
        kinds = tuple(kinds)
    if type(padding) is list:  # likewise
        padding = tuple(padding)
    # First, and traceable by torch.compile: the frameworks' operations (a type that is not known yet
    # is not a framework's: its first call takes the path below, which learns its type).
    ad = _arrays._BY_TYPE.get(type(x))
    if ad is None:
        try:
            ad = _arrays.adapter(x)
        except TypeError:  # not an array: refused below, on every rank
            pass
    if ad is not None and ad.name in _frameworks.NAMES:
        result = _frameworks.fft(ad, name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)
        if result is not NotImplemented:
            return result
    state = grid._plans.get(_STATE) or _State.of(grid)
    problem = call = plan = None
    device = -1
    try:
        ad = _arrays._BY_TYPE.get(type(x)) or _arrays.adapter(x)
        try:
            call = state.calls[(name, shape, norm, backend, chunks, howmany, kinds, padding, ad, x.dtype)]
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
            call, plan, send, device, xptr, out, optr, x = _prepare(state, name, x, grid, shape, norm, out, backend,
                                                                    chunks, howmany, kinds, padding, ad, call)
        stream = ad.stream(x, None, device) or None
    except Exception as e:  # whatever one rank alone raises must stop every rank, not leave them waiting
        problem, send = str(e) or type(e).__name__, _State.PROBLEM

    plan = _agree(state, problem, call, device, send, plan)
    result = _lib.lib.dtrFftExecute(plan.handle, xptr or None, optr or None, call.direction, stream)
    if result:
        raise Error(result, _lib.last_error())
    if not ad.synchronous_result:
        # Before the factor: JAX scales on a stream of its own, which does not wait for the library's.
        out = ad.finish(out)
    return out if call.factor == 1.0 else _scale(ad, out, call.factor)


def _agree(state, problem, call, device, send, plan):
    """Collective over the grid: the agreement of a call (_State), its plan made where every rank lacks
    it; Error on every rank for a problem or settings that differ. Returns the plan."""
    if not state.alone:
        state.comm.Allreduce(send[0], state.recv, MPI.MAX)
    if problem is not None or not state.alone and state.buffer.tobytes() != send[1]:
        _disagreed(state, problem, call, device, send)
        return state.plans[call.agreed(device)[1]]
    if send[2] & 1:  # every rank lacks the plan: the first call with these settings
        return state.make_plan(call, device)
    return plan


def _framework_op(name, grid, shape, norm, out, backend, chunks, howmany, kinds, padding, ad, dtype, x_shape, device):
    """Collective over the grid, at trace time (jax.jit, torch.compile) or at a framework's eager call:
    the checks of a call on an array described by its type, shape (None: left to the operation's
    trace) and device (None: sharded over several devices), agreed as every call's are, the plan made
    where missing. Returns the number of the operation that runs the call (_FftOp) and the factor its
    result takes (norm "forward")."""
    state = grid._plans.get(_STATE) or _State.of(grid)
    # The hot path of eager calls: the same call on an array like the last one's needs the agreement
    # only (its checks stand).
    try:
        hot = state.framework_hot.get((name, shape, norm, out, backend, chunks, howmany, kinds, padding, ad, dtype, x_shape,
                                       device))
    except TypeError:  # an unhashable argument: the full path
        hot = None
    if hot is not None and hot[0].handle is not None:
        plan, send, op, factor, _ = hot
        if state.alone:
            return op, factor
        state.comm.Allreduce(send[0], state.recv, MPI.MAX)
        if state.buffer.tobytes() == send[1]:
            return op, factor
        # settings that differ (Error everywhere), or a rank without the plan (made again everywhere)
        state.framework_hot.clear()
        call = state.calls[hot[4]]
        _disagreed(state, None, call, device, send)
        return state.plans[call.agreed(device)[1]].op(call.direction, call)._op, factor
    call = plan = key = None
    problem = None
    try:
        if ad.name not in _LIBRARIES:
            raise TypeError(f"x is a {ad.name} array; the FFT takes NumPy, CuPy, PyTorch or JAX arrays")
        key = (name, shape, norm, backend, chunks, howmany, kinds, padding, ad, dtype)
        try:
            call = state.calls.get(key)
        except TypeError:  # an unhashable argument (a list): worked out at every call
            key = None
        if call is None:
            call = _Call(grid, name, shape, norm, backend, chunks, howmany, kinds, padding, ad, dtype)
            if key is not None:
                state.calls[key] = call
        if out is not None:
            raise ValueError(f"out: {ad.name} arrays here are the framework's own (immutable JAX arrays, tensors that "
                             "autograd or torch.compile follow); leave out=None (the result is a new array)")
        if device is None:
            raise ValueError("x is a JAX array sharded over several devices: pass each process's local array")
        _check_framework(call, ad, None if x_shape is None else tuple(x_shape), dtype, device)
        _, pkey, send = call.agreed(device)
        plan = state.plans.get(pkey)
        if plan is None or plan.device != device:
            send = _State.value(send[2] | 1)
    except Exception as e:  # whatever one rank alone raises must stop every rank, not leave them waiting
        problem, send = str(e) or type(e).__name__, _State.PROBLEM
    plan = _agree(state, problem, call, device, send, plan)
    op = plan.op(call.direction, call)._op
    if key is not None and x_shape is not None:
        _, _, send = call.agreed(device)
        state.framework_hot[(name, shape, norm, out, backend, chunks, howmany, kinds, padding, ad, dtype, x_shape, device)] = \
            (plan, send, op, call.factor, key)
    return op, call.factor


def _check_framework(call, ad, shape, dtype, device):
    """The checks of a framework's array (a tracer has no buffer: its type, shape and device; shape None:
    checked by the operation's own trace, PyTorch's fake implementation)."""
    if shape is not None and shape != call.x_box:
        raise ValueError(f"x has shape {shape}; this rank's {call.x_pencil}-pencil is {call.x_box}")
    if device < 0 and call.backend in ("nccl", "p2p"):
        raise ValueError(f"x is in host memory; backend '{call.backend}' runs on GPUs")
    if device >= 0 and call.backend == "cpu":
        raise ValueError(f"x is on GPU {device}; backend 'cpu' transforms host memory")
    if dtype != call.x_dtype:
        raise ValueError(f"x has elements of {ad.name_of(dtype)}; {call.name} takes {ad.name_of(call.x_dtype)} here")


def _prepare(state, name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding, ad, call):
    """This rank's part of a call off the hot path: the call worked out (once), its arrays checked (out
    allocated where None), its plan looked up, what it gives to the agreement (_State.value), and the x
    it read (an aligned copy of a misaligned one, held until the execute is queued). Raises for a
    problem of this rank's."""
    if ad.name not in _LIBRARIES:
        raise TypeError(f"x is a {ad.name} array; the FFT takes NumPy, CuPy, PyTorch or JAX arrays")
    if ad is _arrays._Jax and _traced(x):
        from ._jax import unavailable
        raise ValueError(f"x is a traced JAX array: {unavailable()}")
    if call is None:
        call = _Call(grid, name, shape, norm, backend, chunks, howmany, kinds, padding, ad, x.dtype)
        try:
            state.calls[(name, shape, norm, backend, chunks, howmany, kinds, padding, ad, x.dtype)] = call
        except TypeError:  # an unhashable argument: worked out at every call
            pass
    given = out
    xptr, out, optr, device, read = _check(call, ad, x, out, name)
    settings, key, send = call.agreed(device)
    plan = state.plans.get(key)
    missing = plan is None or plan.device != device
    call.hot = None
    if missing:
        send = _State.value(send[2] | 1)
    elif ad.key is not None and read is x:  # not a copy, which the next call would not find
        call.hot = (call.same(x), None if given is None else call.same(given), plan, send, device, x, given, xptr,
                    None if given is None else optr)
    return call, plan, send, device, xptr, out, optr, read


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
    """One kind of call (its function, shape, norm, backend, chunks, fields, kinds, padding, and the input's library and
    element type) worked out once: the boxes and types of its arrays, its plan's settings, and the last
    arrays that passed its checks (`hot`), so that a call on the same arrays skips them."""

    def __init__(self, grid, name, shape, norm, backend, chunks, howmany, kinds, padding, ad, dtype):
        kind, direction, real_in, planar = _CALLS[name]
        sh = _shape3(shape)
        if norm is None:
            norm = "backward"
        if norm not in _NORMS:
            raise ValueError(f"norm = {norm!r}: expected one of {', '.join(_NORMS)}")
        if not isinstance(backend, str) or backend.lower() not in _lib.BACKENDS:
            raise ValueError(f"backend = {backend!r}: expected one of {', '.join(_lib.BACKENDS)}")
        self.chunks = _collective.integer("chunks", chunks, 0)
        self.howmany = _collective.integer("howmany", howmany, 1)
        self.axes = _axes(kinds, planar, kind, norm)
        self.kinds = tuple(_lib.FFT_AXES[a] for a in self.axes)
        # The library refuses these plans too, but only once the call has been agreed: named here, by the
        # words of this binding (kinds, not config.axes), before anything is made.
        walls = any(self.axes)
        if kind and self.axes[0] and not all(self.axes):
            raise ValueError(f"kinds = {kinds!r}: {name} with a real-to-real x needs real-to-real kinds on every axis "
                             "(x is its real-to-complex axis otherwise): make x periodic (walls on y or z), or use "
                             + ("fft2" if planar else "fftn"))
        if walls and norm == "ortho":
            raise ValueError(f"norm = 'ortho' with kinds = {kinds!r}: 1/sqrt(N) would not make a DCT or DST "
                             "orthonormal; use norm 'backward' or 'forward' with real-to-real kinds")
        # R2C with every axis real-to-real is a real plan: both sides real arrays of the input's shape.
        real_plan = kind == 1 and all(self.axes)
        halves = kind == 1 and not real_plan  # x halved into the complex side
        given = ad.name_of(dtype)
        if real_plan:
            ctype = given if given in _COMPLEX else None
        else:
            ctype = _COMPLEX.get(given) if real_in else given if given in _REAL else None
        if ctype is None:
            real_fn, complex_fn = ("rfft2", "fft2") if planar else ("rfftn", "fftn")
            raise ValueError(f"x has elements of {given}; {name} takes "
                             + ("float32 or float64 here (real-to-real kinds on every axis: both sides real)"
                                if real_plan else
                                f"float32 or float64 ({complex_fn} takes complex arrays)" if real_in else
                                "complex64 or complex128" + (f" ({real_fn} takes real arrays)"
                                                             if name == complex_fn else "")))
        xtype = _REAL[ctype] if halves else ctype  # the X-pencil side's
        cshape = (sh[0] // 2 + 1, sh[1], sh[2]) if halves else sh
        # numpy.fft's norms on the library's: "forward" (1/N on the forward) has none of its own, so its
        # plans scale nothing and a forward's result takes one pass (its inverse none).
        self.cnorm = {"backward": "inverse", "ortho": "ortho", "forward": "none"}[norm]
        # Padding: the padded grid's points (m) on the X side, the kept modes on the Z side, whose boxes
        # the library works out (and checks the factors). Periodic axes only: named here, in this
        # binding's words, as the kinds' checks above are (the library refuses it too, as config.padding).
        self.padding = _padding3(padding)
        for d in range(3):
            if self.axes[d] and self.padding[d] not in (0.0, 1.0):
                raise ValueError(f"padding = {padding!r} on {'xyz'[d]}, whose kind is {self.kinds[d]!r}: padding "
                                 "applies to periodic ('fft') axes only")
        # Several fields: a trailing axis of howmany (the library's interleaved fields) on both sides.
        if self.padding != (0.0, 0.0, 0.0):
            z_box = _library_box(grid, sh, kind, xtype, self.howmany, self.padding, self.cnorm, "z", self.axes)
            x_box = _library_box(grid, sh, kind, xtype, self.howmany, self.padding, self.cnorm, "x", self.axes)
        else:
            z_box = grid.box(cshape, "z", ctype, self.howmany)
            x_box = grid.box(sh, "x", xtype, self.howmany)
        x_side, z_side = x_box.shape, z_box.shape
        self.padded = tuple(_padded(n, p) for n, p in zip(sh, self.padding))  # the factors checked above
        # Both sides' boxes: an adjoint weighs planes of either (_FftOp._adjoint_weights).
        self.boxes = {_lib.FFT_INPUT_SIDE: x_box, _lib.FFT_OUTPUT_SIDE: z_box}
        self.halves = halves
        self.xtype, self.ctype, self.x_side, self.z_side = xtype, ctype, x_side, z_side
        self.alignment = _arrays.itemsize(ctype)  # of both sides' addresses, as the plan checks
        forward = direction == _lib.FFT_FORWARD
        if forward:
            self.x_box, self.x_type, self.out_box, self.out_type = x_side, xtype, z_side, ctype
        else:
            self.x_box, self.x_type, self.out_box, self.out_type = z_side, ctype, x_side, xtype
        self.x_pencil, self.out_pencil = ("X", "Z") if forward else ("Z", "X")
        self.name, self.kind, self.direction, self.shape, self.norm = name, kind, direction, sh, norm
        self.plan_type = _arrays.DTYPES.index(xtype)
        # N, as the library counts it: 2n along a real-to-real axis (FFTW's logical size); M, the padded
        # grid's, the same (a real-to-real axis is never padded). "forward": 1/M (N unpadded), so that a
        # round trip gives the modes back.
        self.logical = self.padded_logical = 1
        for n, m, a in zip(sh, self.padded, self.axes):
            self.logical *= 2 * n if a else n
            self.padded_logical *= 2 * m if a else m
        self.factor = 1.0 / self.padded_logical if norm == "forward" and forward else 1.0
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
                        ("chunks", self.chunks), ("howmany", self.howmany), ("kinds", self.kinds),
                        ("padding", self.padding), ("backend", backend))
            key = (self.kind, self.shape, self.plan_type, self.cnorm, self.chunks, self.howmany, self.axes, self.padding,
                   backend)
            found = self._agreed[host] = (settings, key, _State.value(2 * zlib.crc32(repr(settings).encode())))
        return found


class _Plan:
    """A library FFT plan (dtrFftPlan_t) on one device (-1: host memory)."""

    def __init__(self, handle, device, comm):
        self.handle, self.device, self.comm = handle, device, comm
        self.ops = {}  # the plan's directions as operations of JAX and PyTorch programs, made when asked

    def op(self, direction, call):
        """The operation of one direction (call: any call of this plan, for its sides)."""
        found = self.ops.get(direction)
        if found is None:
            found = self.ops[direction] = _FftOp(self, direction, call)
        return found

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
            for op in self.ops.values():
                op.forget()
            self.ops.clear()
            handle, self.handle = self.handle, None
            if self.device >= 0:
                from ._cuda import synchronize
                synchronize(self.device)
            _lib.check(_lib.lib.dtrFftPlanDestroy(handle))


class _FftOp:
    """One direction of a library FFT plan as an operation of JAX and PyTorch programs: the plans'
    protocol (_ops.py), with dtrFftExecute and that direction as the executor. It is the plan's own
    transform (its norm: none, inverse or ortho, the library's); norm "forward"'s factor is the
    framework's multiplication after it.

    Its adjoint (the Hermitian one, PyTorch's backward; JAX's transpose conjugates around it) is the
    plan's other direction, weighed: with s_f and s_i the plan's scales of the forward and inverse
    (1, 1/N or 1/sqrt(N)), F the unnormalized forward DFT and G the inverse (F^H = G):
      C2C forward  s_f F   ->  s_f G = (s_f / s_i) * inverse;  C2C inverse s_i G  ->  (s_i / s_f) * forward.
      R2C forward  x -> s_f (F x)[half]: its adjoint is g -> s_f Re(G pad(g)), pad putting the half
        spectrum back among zeros. The library's C2R computes Re(G pad(D h)), D = 2 on the x planes
        that stand for two of the full spectrum (0 < kx < nx/2) and 1 on kx = 0 and nx/2 (even nx),
        so the adjoint is (s_f / s_i) * inverse(D^-1 g).
      C2R inverse  h -> s_i Re(G pad(D h)): its adjoint is t -> s_i D (F t)[half] = (s_i / s_f) D forward(t).
    Padded (the 3/2 rule), F and G are the padded grid's, pad also puts the kept modes among zeros (its
    adjoint the truncation), s_f and s_i the padded plan's (N / M and 1 / N for norm inverse), and D is 2 on
    the x planes of the padded grid's half spectrum that stand for two (0 < kx < mx/2): the same weights,
    except on an even nx's Nyquist plane kx = nx/2 where x pads, which the plan halves on the way in and
    doubles on the way out: there the forward's adjoint weighs 2 (2 / (D 1/2)), the inverse's 1/2.
    A real-to-real axis (kinds) is a real matrix, its adjoint its transpose, which is its partner kind's
    matrix with one entry weighed. With E doubling the first entry of a vector for a DCT (the last for a
    DST), the type-II matrix M2 (dct2, dst2) and the type-III M3 of the same n: M2^T = M3 E and M3^T =
    E^-1 M2 (the type-III sums take x_0, or x_{n-1}, once where the type-II's transposed terms would take it
    twice). E lies on the side of M2's output and M3's input, the axis's coefficient side: the Z-pencil
    for a forward dct2 or dst2, the X-pencil for a forward dct3 or dst3. So the adjoint of either
    direction is the other one with E on that side where it is the adjoint's input (before), E^-1 where
    it is its output (after); per axis, with the R2C planes and the scale as above.
    _adjoint_weights is (before, after): each None, a number, or a tuple of real arrays, each along one
    axis of its side (broadcasting against the arrays, the fields' axis too), whose product is the
    factor."""

    _executor = _EXECUTOR
    _in_place = False
    _spatial = 3  # the box's axes, before the fields' (howmany); _batched gives None: one execute an element

    def __init__(self, plan, direction, call):
        self._plan, self._direction = plan, direction
        x_side, z_side = (call.x_side, call.xtype), (call.z_side, call.ctype)
        (self.in_shape, self.dtype), (self.out_shape, self.out_dtype) = \
            (x_side, z_side) if direction == _lib.FFT_FORWARD else (z_side, x_side)
        self._device, self._comm = plan.device, plan.comm
        self._alignment = call.alignment
        self._call = call
        self._expect = {}
        self._weights = None
        self._jax_registered = False  # known to JAX's custom calls (_jax.py)
        self._traced = set()  # the (shape, dtype) of inputs torch.compile traced and the ranks agreed on
        self._op = _ops.add(self)

    @property
    def _handle(self):
        return self._plan.handle

    def _live(self):
        if self._plan.handle is None:
            raise Error(RESULT_INVALID_ARGUMENT, "this FFT plan has been closed (its grid was closed)")
        return self._plan.handle

    def _expected(self, ad):
        """The input's element type as ad's library names it."""
        e = self._expect.get(ad)
        if e is None:
            e = self._expect[ad] = (ad.dtype(self.dtype), ad.dtype(self.out_dtype))
        return e[0]

    def _expected_out(self, ad):
        self._expected(ad)
        return self._expect[ad][1]

    def _adjoint(self):
        """Not collective: the plan's other direction (the weights: _adjoint_weights)."""
        return self._plan.op(-self._direction, self._call)

    def _batched(self, n):
        return None

    @property
    def _adjoint_weights(self):
        if self._weights is None:
            call = self._call
            n, m = call.logical, call.padded_logical
            s_f, s_i = {"none": (1.0, 1.0), "inverse": (n / m, 1.0 / n), "ortho": (n ** -0.5, n ** -0.5)}[call.cnorm]
            forward = self._direction == _lib.FFT_FORWARD
            scale = s_f / s_i if forward else s_i / s_f
            # The sides of the adjoint's input and output: a forward's adjoint runs Z -> X.
            adj_in, adj_out = (_lib.FFT_OUTPUT_SIDE, _lib.FFT_INPUT_SIDE) if forward else \
                (_lib.FFT_INPUT_SIDE, _lib.FFT_OUTPUT_SIDE)
            factors = {adj_in: [], adj_out: []}
            real = numpy.dtype(call.xtype)  # the weights' type, that of the real side (or the parts of complex ones)
            if real.kind == "c":
                real = numpy.dtype(_REAL[real.name])
            if call.halves:  # R2C's planes along x on the Z side: D^-1 before a forward's adjoint, D after an inverse's
                nx, mx = call.shape[0], call.padded[0]
                kx = self._along(_lib.FFT_OUTPUT_SIDE, 0)
                once = (kx == 0) | ((mx % 2 == 0) & (kx == mx // 2))  # planes of one of the full spectrum
                split = (nx % 2 == 0) & (mx > nx) & (kx == nx // 2)  # the Nyquist plane the padded plan splits
                factors[_lib.FFT_OUTPUT_SIDE].append(
                    (0, numpy.where(split, 2.0 if forward else 0.5, numpy.where(once, 1.0, 0.5 if forward else 2.0))))
            for d, a in enumerate(call.axes):
                if not a:
                    continue
                kind = _lib.FFT_AXES[a]
                side = _lib.FFT_OUTPUT_SIDE if kind.endswith("2") else _lib.FFT_INPUT_SIDE  # the coefficient side
                special = 0 if kind.startswith("dct") else call.shape[d] - 1  # the entry E doubles
                e = numpy.where(self._along(side, d) == special, 2.0, 1.0)
                factors[side].append((d, e if side == adj_in else 1.0 / e))
            weights = [self._factor(side, factors[side], real) for side in (adj_in, adj_out)]
            # The scale goes with the weights where there are some, else alone.
            if scale != 1.0:
                if weights[1] is not None:
                    weights[1] = (weights[1][0] * real.type(scale),) + weights[1][1:]
                elif weights[0] is not None:
                    weights[0] = (weights[0][0] * real.type(scale),) + weights[0][1:]
                else:
                    weights[1] = scale
            self._weights = tuple(weights)
        return self._weights

    def _along(self, side, d):
        """The global indices along axis d (0 = x) of this rank's box of a side."""
        box = self._call.boxes[side]
        return box.start[d] + numpy.arange(box.size[d])

    def _factor(self, side, vectors, real):
        """The per-axis vectors (d, values along this rank's box) of one side as arrays that broadcast
        against its arrays (the fields' trailing axis included), or None for none."""
        if not vectors:
            return None
        box = self._call.boxes[side]
        axes = list(reversed(box.order))  # the array's axes, slowest first
        rank = len(box.shape)
        out = []
        for d, v in vectors:
            shape = [1] * rank
            shape[axes.index("xyz"[d])] = v.size
            out.append(numpy.asarray(v, real).reshape(shape))
        return tuple(out)

    def _refuse(self, handle, problem):
        """Every rank's execute fails with this rank's problem (dtrFftExecuteRefuse), before anything runs."""
        _lib.refuse(_lib.lib.dtrFftExecuteRefuse, handle, problem)

    def _run(self, handle, ad, a, out, stream):
        """The op's eager execute (PyTorch's op): its checks were agreed where it was traced or by the
        call that led here (_framework_op), and what a compiled program hands it is what it traced; a
        rank where it is not, or whose result cannot be allocated, refuses every rank's execute."""
        d = ad.describe(a, _SCRATCH)
        _SCRATCH.clear()
        if tuple(d.shape) != self.in_shape or d.dtype != self._expected(ad) or not d.contiguous:
            self._refuse(handle, f"x ({tuple(d.shape)}, {d.dtype}) is not what was traced: {self.in_shape}, {self.dtype}")
        try:
            out = ad.empty(a, self.out_shape, self.out_dtype)
        except Exception as e:  # refused on every rank, not raised on this one alone
            self._refuse(handle, f"the result ({self.out_shape}, {self.out_dtype}) could not be allocated: {e}")
        optr = _pointer_of_new(ad, out)
        result = _lib.lib.dtrFftExecute(handle, d.ptr or None, optr or None, self._direction,
                                        ad.stream(a, stream, self._device) or None)
        if result:
            raise Error(result, _lib.last_error())
        return out

    def forget(self):
        """Before the plan is destroyed: the frameworks forget the operation."""
        _frameworks.retire(self)


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
        self.framework_hot = {}  # _framework_op's calls that passed: (plan, what to give, op, factor, call key)
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
        cfg.howmany = call.howmany
        cfg.norm = _lib.FFT_NORMS.index(call.cnorm)
        cfg.axes[:] = call.axes
        cfg.padding = (ctypes.c_double * 3)(*call.padding)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrFftPlanCreate(ctypes.byref(handle), self.grid._live(), (ctypes.c_int64 * 3)(*call.shape),
                                             call.kind, call.plan_type, ctypes.byref(cfg)))
        plan = self.plans[key] = _Plan(handle.value, device, self.comm)
        return plan

    def close(self):
        plans = list(self.plans.values())
        self.plans.clear()
        self.calls.clear()
        self.framework_hot.clear()
        for plan in plans:
            plan.close()


def _check(call, ad, x, out, name):
    """The full checks of a call's arrays, out allocated where None: (x's pointer, out, out's pointer,
    device, the x read: x, or its aligned copy). Raises ValueError for a problem of this rank's."""
    d = ad.describe(x, call.pointers)
    x, d = _arrays.aligned(ad, x, d, _SCRATCH, call.alignment)
    _SCRATCH.clear()
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
    return d.ptr, out, o.ptr, device, x


def _plan_of(grid, name, x, shape, *, norm="backward", backend="auto", chunks=0, howmany=1, kinds=None,
             padding=None):
    """Not collective: the plan (handle, device, backend, chunks) that an earlier call `name` with these
    arguments ran for x (the benchmarks time its dtrFftExecute from C)."""
    state = grid._plans[_STATE]
    ad = _arrays.adapter(x)
    kinds = tuple(kinds) if type(kinds) is list else kinds
    padding = tuple(padding) if type(padding) is list else padding
    call = state.calls[(name, shape, norm, backend, chunks, howmany, kinds, padding, ad, x.dtype)]
    return state.plans[call.agreed(ad.describe(x, _arrays.PointerCache()).device)[1]]


def _axes(kinds, planar, kind, norm):
    """The kinds (None, or one per axis: names of _lib.FFT_AXES or their values) as the library's
    dtrFftAxis_t values for x, y and z. A 2-D call takes two; its z of one point gets the DFT (the
    identity), or, where x and y are real-to-real in a real plan (which needs every axis so), the kind
    whose pass is the identity on one point in the direction the norm leaves unscaled: the DCT-III (y_0 =
    x_0) forward for norm "backward", the DCT-II back (whose DCT-III is then the inverse) for "forward",
    since N counts 2 for it and the scaled direction's 1/2 undoes the other's factor 2."""
    count = 2 if planar else 3
    if kinds is None:
        return (0, 0, 0)
    given = None if isinstance(kinds, (str, bytes)) else kinds
    try:
        given = tuple(given)
    except TypeError:
        given = None
    if given is None or len(given) != count:
        raise ValueError(f"kinds = {kinds!r}: expected {count} kinds, one per axis ({', '.join('xyz'[:count])}), each "
                         f"one of {', '.join(repr(k) for k in _lib.FFT_AXES)}")
    axes = []
    for d, k in enumerate(given):
        if isinstance(k, str) and k.lower() in _lib.FFT_AXES:
            axes.append(_lib.FFT_AXES.index(k.lower()))
        elif not isinstance(k, (bool, str)) and hasattr(k, "__index__") and 0 <= k.__index__() < len(_lib.FFT_AXES):
            axes.append(k.__index__())
        else:
            raise ValueError(f"kinds[{d}] ({'xyz'[d]}) = {k!r}: expected one of "
                             f"{', '.join(repr(k) for k in _lib.FFT_AXES)} (or the library's values 0 to 4)")
    if planar:
        real_plan = kind == 1 and axes[0] and axes[1]
        axes.append(0 if not real_plan else _lib.FFT_AXES.index("dct2" if norm == "forward" else "dct3"))
    return tuple(axes)


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




# name: (kind (the library's dtrFftKind_t), direction, whether x is the real side, whether it is a 2-D
# call: the 3-D plan of (nx, ny, 1), taking two kinds)
_CALLS = {"fftn": (0, _lib.FFT_FORWARD, False, False), "ifftn": (0, _lib.FFT_INVERSE, False, False),
          "rfftn": (1, _lib.FFT_FORWARD, True, False), "irfftn": (1, _lib.FFT_INVERSE, False, False),
          "fft2": (0, _lib.FFT_FORWARD, False, True), "ifft2": (0, _lib.FFT_INVERSE, False, True),
          "rfft2": (1, _lib.FFT_FORWARD, True, True), "irfft2": (1, _lib.FFT_INVERSE, False, True)}
_COMPLEX = {"float32": "complex64", "float64": "complex128"}
_REAL = {v: k for k, v in _COMPLEX.items()}
_NORMS = ("backward", "ortho", "forward")
_LIBRARIES = ("numpy", "cupy", "torch", "jax")
# The key among the grid's closables (Grid._plans, closed with it) of the FFT's state.
_STATE = "fft"
_State.PROBLEM = _State.value(-1)
_SCRATCH = _arrays.PointerCache()


_ops.fft_operation = _framework_op
