"""JAX arrays and tracers through XLA's FFI: a plan's execute is a JAX primitive whose lowering is an XLA
custom call (python/ffi/jax_ffi.cc), so it runs inside jax.jit on XLA's stream (its CPU threads on the
host) with no host synchronization, and eagerly as a one-primitive computation: the same bits.

- Order: the custom calls of one function body are chained by a byte of data (each takes the byte the
  one before gave), so XLA runs them in program order on every rank; two transposes with no data
  between them could otherwise run in either order, or at once on XLA's CPU threads, and the ranks'
  collectives would cross. Not JAX's ordered effects: an effect takes every call of a jitted function
  off JAX's fast dispatch path (0.5 ms a call instead of tens of microseconds on the host). The
  custom calls are marked as having side effects, so XLA neither drops, merges nor repeats one.
- Differentiation: a plan is linear, so its tangent is the same plan on the tangent, and its transpose
  (for grad, vjp and linear_transpose) is the reverse plan on the cotangent; an FFT's is its other
  direction, weighed and conjugated around (_ops.py: JAX's transpose is the bilinear one).
- vmap: a leading batch of n becomes a plan with howmany * n entries (the batch moved next to the
  trailing howmany axis: one exchange, not n); the FFT (whose batched plans of fields are the caller's
  choice, howmany=) runs the batch as n executes in order.
- Checks: a tracer's shape and type are checked at trace time and agreed over the plan's ranks, so a
  wrong one raises Error on every rank before anything is compiled.

The custom calls are built with the package whether or not jax is there (against XLA's stable FFI C
ABI) and registered with XLA when a JAX array first comes. Where they are missing or XLA refuses them
(an ABI version it no longer supports), concrete JAX arrays take the synchronous path of _arrays._Jax
and tracers raise Error saying why.
"""

import ctypes
import functools

import jax
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from . import _arrays, _collective, _lib, _ops
from .errors import RESULT_INVALID_ARGUMENT, Error

_TARGET = "disttranspose_execute"
_NAME = "libdisttranspose_jax.so"


@functools.lru_cache(maxsize=None)
def module():
    """The custom calls' library, registered with XLA for the host and, where jaxlib has it, CUDA; None
    where it is missing or refused (unavailable() says why). Registered when a JAX array first reaches
    the package, not when it is built: jax may be installed before or after it."""
    global _why, _why_not_gpu
    path = _lib.companion(_NAME)
    if path is None:
        _why = (f"are not installed ({_NAME} is neither beside the package nor beside the library that "
                "DISTTRANSPOSE_LIBRARY names): reinstall the package with 'pip install ./python'")
        return None
    lib = ctypes.CDLL(path)
    lib.dtrJaxInit.argtypes = [ctypes.c_void_p]
    lib.dtrJaxRegister.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    lib.dtrJaxForget.argtypes = [ctypes.c_int64]
    lib.dtrJaxMisfit.restype = ctypes.c_char_p
    lib.dtrJaxInit(ctypes.cast(_lib.lib.dtrGetLastError, ctypes.c_void_p))
    # JAX defers a registration for a platform whose backend has not started, and a refusal then breaks
    # that backend: started first, a refusal raises here.
    jax.devices()
    refused = _register(lib, lib.dtrJaxExecuteHost, "cpu")
    if refused:
        _why = f"this jax ({jax.__version__}) refused: {refused}"
        return None
    # A jaxlib without GPU support keeps the registration for a CUDA platform it never loads.
    _why_not_gpu = _register(lib, lib.dtrJaxExecuteCuda, "CUDA")
    return lib


_why = None
_why_not_gpu = None  # why XLA's CUDA platform refused the handler, where it did: raised at lowering


def _register(lib, handler, platform):
    """Registers the handler with XLA for `platform`: None, or why either side refused. XLA asks the
    handler which version of the ABI it speaks and refuses versions it does not support; the handler
    checks XLA's call frame and API table then, and keeps its reason (dtrJaxMisfit)."""
    try:
        jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(handler), platform=platform)
        refused = None
    except Exception as e:  # XLA's exception types differ between jaxlib versions
        refused = str(e)
    misfit = lib.dtrJaxMisfit().decode(errors="replace")
    if not (misfit or refused):
        return None
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.dtrJaxAbiVersion(ctypes.byref(major), ctypes.byref(minor))
    return (f"{misfit or refused} (disttranspose's custom calls speak version {major.value}.{minor.value} of XLA's "
            "FFI C ABI)")


def unavailable():
    """Why JAX tracers cannot run here (module() is None): the custom calls are missing or refused."""
    module()
    return f"JAX tracers (jax.jit, grad, vmap) need disttranspose's XLA custom calls, which {_why}"


def op_of(plan):
    """The plan's number, registered with the custom calls on first use."""
    if not plan._jax_registered:
        module().dtrJaxRegister(plan._op, plan._executor, plan._handle, plan._direction, int(plan._in_place))
        # Eager calls through a jitted call of the primitive: JAX's fast dispatch (apply_primitive, its
        # own path for one primitive, costs ten times as much a call).
        plan._jax_call = jax.jit(functools.partial(execute_p.bind, op=plan._op))
        plan._jax_scaled = {}  # an FFT's eager calls with norm "forward": jitted with the factor
        plan._jax_registered = True
    return plan._op


def forget(plan):
    """Before the plan is destroyed: the computations whose results are alive are waited for (one that
    still uses the plan would otherwise find it gone), then the custom calls forget it (after any call
    running it returns)."""
    if plan._jax_registered:
        jax.block_until_ready(jax.live_arrays())
        module().dtrJaxForget(plan._op)
        plan._jax_call = None
        plan._jax_scaled = {}
        plan._jax_registered = False


def _device_of(a):
    devices = list(a.devices())
    if len(devices) != 1:
        return None
    d = devices[0]
    return d.local_hardware_id if d.platform in ("gpu", "cuda", "rocm") else -1


def execute(plan, a, out, stream):
    """plan.execute for a JAX array or tracer (NotImplemented: the synchronous path, without custom calls)."""
    tracer = isinstance(a, jax.core.Tracer)
    if module() is None:
        if tracer:
            raise Error(RESULT_INVALID_ARGUMENT, unavailable())
        return NotImplemented
    ad_ = _arrays.adapter(a)
    device = plan._device if tracer else _device_of(a)
    problem = None
    if out is not None:
        problem = "out: JAX arrays are immutable; leave out=None (the result is a new array)"
    elif stream is not None:
        problem = "stream: JAX runs the plan on its own stream; leave stream=None"
    elif device is None:
        problem = "a is a JAX array sharded over several devices: pass each process's local array"
    else:
        d = _arrays.Described(0, tuple(a.shape), np.dtype(a.dtype), True, device)
        problem = _arrays.problem(ad_, d, plan.in_shape, plan._expected(ad_), plan._device, getattr(plan, "_argument", "a"))
    _collective.agree(plan._comm, problem)
    op = op_of(plan)
    return execute_p.bind(a, op=op) if tracer else plan._jax_call(a)


def fft(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding):
    """disttranspose.fft's call `name` on a JAX array or tracer: agreed (and its plan made) at trace time,
    or at each eager call; then the plan's direction as a custom call, and norm "forward"'s factor. An
    eager call runs the same jitted computation a trace would build: the same bits."""
    tracer = isinstance(x, jax.core.Tracer)
    if tracer:
        # Where XLA runs the call is known only then, so the plan goes where the grid's plans go (a
        # computation on another GPU is refused by the library's execute, on every rank, naming the GPUs);
        # the host where JAX has no GPU to run it on.
        host = isinstance(backend, str) and backend.lower() == "cpu" or jax.default_backend() == "cpu"
        device = -1 if host else grid._device
    else:
        device = _device_of(x)
    op, factor = _ops.fft_operation(name, grid, shape, norm, out, backend, chunks, howmany, kinds, padding, _arrays._Jax,
                                    x.dtype, x.shape, device)
    plan = _ops.get(op)
    op_of(plan)
    if tracer:
        y = execute_p.bind(x, op=op)
        return y if factor == 1.0 else y * factor
    if factor == 1.0:
        return plan._jax_call(x)
    call = plan._jax_scaled.get(factor)
    if call is None:
        call = plan._jax_scaled[factor] = jax.jit(lambda v: execute_p.bind(v, op=op) * factor)
    return call(x)


execute_p = Primitive("disttranspose_execute")
_CHAIN = jax.core.ShapedArray((1,), np.uint8)
_CHAINS = object()  # the key of the chains' ends in a lowering's module context


def _impl(x, *, op):
    from jax._src.dispatch import apply_primitive
    return apply_primitive(execute_p, x, op=op)


def _abstract(x, *, op):
    plan = _ops.get(op)
    return jax.core.ShapedArray(plan.out_shape, plan._expected_out(_arrays._Jax))


def _lowering(ctx, x, *, op):
    plan = _ops.get(op)
    platform = ctx.module_context.platforms[0]
    if (platform in ("cuda", "rocm", "gpu")) != (plan._device >= 0):
        where = f"GPU {plan._device}" if plan._device >= 0 else "the host (cpu backend)"
        raise Error(RESULT_INVALID_ARGUMENT, f"the plan runs on {where}; this computation runs on {platform}")
    if plan._device >= 0 and _why_not_gpu:
        raise Error(RESULT_INVALID_ARGUMENT, f"disttranspose's XLA custom calls cannot run on GPUs here: XLA's "
                                             f"CUDA platform refused them: {_why_not_gpu}")
    # The chain's end in the block being lowered (a function's body, a loop's); the first call of a
    # block starts from a constant.
    ends = ctx.module_context.cached_primitive_lowerings.setdefault(_CHAINS, {})
    block = mlir.ir.InsertionPoint.current.block
    after = ends.get(block)
    if after is None:
        after = mlir.ir_constant(np.zeros(1, np.uint8))
    chained = ctx.replace(avals_in=(*ctx.avals_in, _CHAIN), avals_out=(*ctx.avals_out, _CHAIN))
    # An in-place plan (a halo exchange) writes its result over its input: XLA gives the two one buffer,
    # copying the input first where the program still needs it.
    aliases = {0: 0} if plan._in_place else None
    y, ends[block] = jax.ffi.ffi_lowering(_TARGET, has_side_effect=True, operand_output_aliases=aliases)(
        chained, x, after, op=np.int64(op))
    return [y]


def _transpose(ct, x, *, op):
    plan = _ops.get(op)
    adjoint = op_of(plan._adjoint())
    weights = plan._adjoint_weights
    if weights is None:  # real: its transpose is its adjoint
        return [execute_p.bind(ct, op=adjoint)]
    # The bilinear transpose of a complex map: conj(adjoint(conj(ct))) (_ops.py).
    before, after = weights
    y = execute_p.bind(_weigh(jax.numpy.conj(ct), before), op=adjoint)
    return [jax.numpy.conj(_weigh(y, after))]


def _weigh(t, w):
    """t times a factor of _adjoint_weights: None, a number, or a tuple of real arrays (their product)."""
    if w is None:
        return t
    if isinstance(w, tuple):
        for a in w:
            t = t * a
        return t
    return t * w


def _batch(args, dims, *, op):
    (x,), (axis,) = args, dims
    plan = _ops.get(op)
    n = x.shape[axis]
    batched = plan._batched(n)
    if batched is None:  # no batched plan (the FFT): one execute an element, chained in order
        x = jax.numpy.moveaxis(x, axis, 0)
        return jax.numpy.stack([execute_p.bind(x[i], op=op) for i in range(n)]), 0
    k = plan._spatial
    x = jax.numpy.moveaxis(x, axis, k).reshape(batched.in_shape)
    y = execute_p.bind(x, op=op_of(batched))
    y = y.reshape(tuple(plan.out_shape[:k]) + (n,) + tuple(plan.out_shape[k:]))
    return jax.numpy.moveaxis(y, k, 0), 0


execute_p.def_impl(_impl)
execute_p.def_abstract_eval(_abstract)
# Linear: the tangent is the plan on the tangent; symbolic zeros pass through (JAX's rule for linear
# primitives).
ad.deflinear2(execute_p, _transpose)
batching.primitive_batchers[execute_p] = _batch
# Not cacheable: a cached lowering is emitted once into a function of its own and called, which would
# take the call out of its block's chain.
mlir.register_lowering(execute_p, _lowering, platform="cpu", cacheable=False)
try:
    mlir.register_lowering(execute_p, _lowering, platform="cuda", cacheable=False)
except NotImplementedError:  # no GPU platform in this jaxlib
    pass
