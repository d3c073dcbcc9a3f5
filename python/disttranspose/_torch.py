"""PyTorch tensors through a custom op (torch.library), so that autograd differentiates a plan's execute
and an FFT, and torch.compile(fullgraph=True) traces them: `disttranspose::execute(a, op)`, op the
number of a plan or of an FFT plan's direction (_ops.py). Its fake implementation gives the result's
shape and type from the plan; its backward is the adjoint on the gradient (a transpose's reverse plan;
an FFT's other direction, weighed). CUDA tensors run on the current stream, CPU tensors on the cpu
backend, zero copy, as outside autograd.

An FFT call (disttranspose.fft) finds its operation through _fft_op, which torch.compile runs at trace
time and keeps as a constant of the graph (torch._dynamo.assume_constant_result): the agreement of the
call over the grid and the plan's making, collective, happen once per trace, not per compiled call.

A plan reached at trace time for the first time (the reverse plan, when autograd records a call or
torch.compile traces one) is made then, collectively: every rank records and compiles the same program
in the same order, so every rank makes it together (_ops.py).
"""

import ctypes
import os
import warnings

import torch

from . import _arrays, _collective, _lib, _ops
from .errors import RESULT_INVALID_ARGUMENT, Error

grad_enabled = torch.is_grad_enabled
compiling = torch.compiler.is_compiling


def execute(plan, a, out, stream):
    """plan.execute for a tensor that autograd follows or torch.compile traces."""
    if out is not None or stream is not None:
        problem = ("out and stream apply to tensors outside autograd and torch.compile: leave them None (the "
                   "result is a new tensor, on the current stream)")
        if compiling():
            raise Error(RESULT_INVALID_ARGUMENT, problem)
        plan._refuse(plan._live(), problem)
    return _call(a, plan._op)


def _call(a, op):
    """The op autograd follows where a's gradient is asked for; else the same kernel without autograd's
    wrapper (Python code of torch.library's, a dozen microseconds a call): compiled programs that ask
    no gradient (inference) call that one."""
    if a.requires_grad and grad_enabled():
        return torch.ops.disttranspose.execute(a, op)
    return torch.ops.disttranspose.run(a, op)


def _fft_op(name, grid_number, shape, norm, has_out, backend, chunks, howmany, kinds, padding, dtype, x_shape, device):
    """Collective (at trace time under torch.compile, else at each call): the FFT operation of the call
    and its result's factor (fft._framework_op)."""
    index = -1 if device.type == "cpu" else device.index
    return _ops.fft_operation(name, _ops.grid_of(grid_number), shape, norm, True if has_out else None, backend, chunks,
                              howmany, kinds, padding, _arrays._Torch, dtype, x_shape, index)


_fft_op = torch._dynamo.assume_constant_result(_fft_op)


def fft(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding):
    """disttranspose.fft's call `name` on a tensor that autograd or torch.compile follows."""
    # A trace's sizes may be symbolic (a recompiled trace makes them dynamic) and cannot be constants of
    # the trace: there the op's fake implementation checks the shape (agreed as well).
    x_shape = None if compiling() else tuple(x.shape)
    op, factor = _fft_op(name, grid._number, shape, norm, out is not None, backend, chunks, howmany, kinds, padding, x.dtype,
                         x_shape, x.device)
    y = _call(x, op)
    return y if factor == 1.0 else y * factor


# Defined with torch.library.Library rather than torch.library.custom_op: the latter's Python wrappers
# cost 10 us a call more on the host (19 against 9.5 us a call of an empty op).
_library = torch.library.Library("disttranspose", "DEF")
_library.define("execute(Tensor a, int op) -> Tensor")
_library.define("run(Tensor a, int op) -> Tensor")  # the same, outside autograd
# The C++ kernels' way back into Python (torch_ops.cc): a call off their path, or one whose C call failed
# (result, non-zero: raised here as Error).
_library.define("fallback(Tensor a, int op, int result) -> Tensor")


def _load_kernels():
    """The C++ kernels of execute and run (libdisttranspose_torch.so, built against the torch the package
    was built with), loaded into this process's torch, and None; or None and why not, where they were not
    built (pip's isolated build has no torch) or do not load (another torch); or None, None where
    DISTTRANSPOSE_TORCH_KERNELS=python asks for the Python ones."""
    choice = os.environ.get("DISTTRANSPOSE_TORCH_KERNELS", "native")
    if choice not in ("native", "python"):
        raise Error(RESULT_INVALID_ARGUMENT, f"DISTTRANSPOSE_TORCH_KERNELS = {choice!r}: expected 'native' or 'python'")
    if choice == "python":
        return None, None
    path = _lib.companion(_KERNELS)
    if path is None:
        return None, (f"this installation has no C++ kernels ({_KERNELS}): pip's isolated build, which has no torch, "
                      "cannot make them")
    try:
        kernels = ctypes.CDLL(path)  # its static registrations give the ops their kernels
    except OSError as e:
        return None, (f"its C++ kernels do not load into this torch ({torch.__version__}), another than they were "
                      f"built for: {e}")
    kernels.dtrTorchRegister.restype = ctypes.c_int
    kernels.dtrTorchRegister.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                         ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int,
                                         ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int]
    kernels.dtrTorchForget.argtypes = [ctypes.c_int64]
    return kernels, None


_KERNELS = "libdisttranspose_torch.so"
_kernels, _without_kernels = _load_kernels()


def _warn_without_kernels():
    """Once, at the first call the Python kernels serve in place of missing C++ ones: why, and what to do."""
    global _without_kernels
    why, _without_kernels = _without_kernels, None
    warnings.warn(f"disttranspose: PyTorch's custom ops run their Python kernels, 10-25 us slower a call: "
                  f"{why}. 'pip install --no-build-isolation ./python' in an environment that has torch and "
                  "scikit-build-core builds them; DISTTRANSPOSE_TORCH_KERNELS=python chooses the Python kernels "
                  "without this warning", RuntimeWarning)


_registered = set()  # the ops the C++ kernels know


def _register(plan):
    """The plan's call, registered with the C++ kernels (once): what its tensor is and gives. In-place
    plans (a halo exchange, its adjoint) are not theirs to run: the C++ kernels call (in, out)."""
    if _kernels is None or plan._op in _registered or plan._in_place:
        return
    ins, outs = tuple(plan.in_shape), tuple(plan.out_shape)
    result = _kernels.dtrTorchRegister(
        plan._op, plan._executor, plan._handle, plan._direction, plan._device, plan._alignment, len(ins),
        (ctypes.c_int64 * max(len(ins), 1))(*ins), _arrays.dtype_code(plan._expected(_arrays._Torch)), len(outs),
        (ctypes.c_int64 * max(len(outs), 1))(*outs), _arrays.dtype_code(plan._expected_out(_arrays._Torch)))
    if result:
        raise Error(RESULT_INVALID_ARGUMENT, f"operation {plan._op}: the C++ kernels refused its description")
    _registered.add(plan._op)


def _forget(op):
    if op in _registered:
        _kernels.dtrTorchForget(op)
        _registered.discard(op)


_ops.forgetters.append(_forget)


def _fallback(a, op, result):
    """The C++ kernels' calls off their path: registered, then the Python kernel's path; a failed C call's
    error raised."""
    if result:
        raise Error(result, _lib.last_error())
    _register(_ops.get(op))
    return _execute(a, op)


def _execute(a, op):
    """The op's kernel: a tensor like the one the plan takes (the one a compiled program traced, or one an
    eager call checked and agreed) straight to the plan's executor; anything else through the plan's own
    execute path, which checks it and refuses it on every rank."""
    if _without_kernels is not None:
        _warn_without_kernels()
    fast = _fast.get(op)
    if fast is None:
        fast = _fast[op] = _fast_path(_ops.get(op))
    plan, shape, dtype, device, out_shape, out_dtype, run = fast
    handle = plan._handle
    if (handle is not None and a.dtype == dtype and a.shape == shape and a.get_device() == device and a.is_contiguous()
            and not a.data_ptr() % plan._alignment):
        out = torch.empty(out_shape, dtype=out_dtype, device=a.device)
        if plan._in_place:  # on a copy: the op's input stays as it was
            out.copy_(a)
        result = run(handle, a.data_ptr() or None, out.data_ptr() or None,
                     _arrays._torch_stream_ptr(device) if device >= 0 else None)
        if result:
            raise Error(result, _lib.last_error())
        return out
    _fast.pop(op, None)
    plan = _ops.get(op)
    handle = plan._live()
    try:
        a = a.contiguous()
        if a.data_ptr() % plan._alignment:  # a view into storage of smaller elements (gradcheck makes such)
            a = _arrays._Torch.copy(a)
    except Exception as e:  # refused on every rank, not raised on this one alone
        plan._refuse(handle, f"a could not be made contiguous and aligned: {e}")
    return plan._run(handle, _arrays._Torch, a, None, None)


# What _execute needs of a plan, looked up once: per call, the kernel costs a few attribute reads, an
# allocation and the C call.
_fast = {}
_ops.forgetters.append(lambda op: _fast.pop(op, None))


def _fast_path(plan):
    if plan._in_place:
        fn = plan._c_execute

        def run(handle, a, out, stream):
            return fn(handle, out, stream)
    elif plan._direction:
        fn, direction = _lib.lib.dtrFftExecute, plan._direction

        def run(handle, a, out, stream):
            return fn(handle, a, out, direction, stream)
    else:
        run = _lib.lib.dtrExecute
    return (plan, torch.Size(plan.in_shape), plan._expected(_arrays._Torch), plan._device, tuple(plan.out_shape),
            plan._expected_out(_arrays._Torch), run)


if _kernels is None:
    _library.impl("execute", _execute, "CompositeExplicitAutograd")
    _library.impl("run", _execute, "CompositeExplicitAutograd")
_library.impl("fallback", _fallback, "CompositeExplicitAutograd")


@torch.library.register_fake("disttranspose::execute")
def _fake(a, op):
    """The result's shape and type; a wrong input is refused at trace time on every rank (agreed once per
    plan and input shape: a trace may ask more than once)."""
    plan = _ops.get(op)
    # int() of a symbolic size (a recompiled trace makes sizes dynamic) specializes it: a plan takes one
    # shape.
    key = (tuple(int(n) for n in a.shape), a.dtype)
    if key not in plan._traced:
        expected = plan._expected(_arrays._Torch)
        d = _arrays.Described(0, key[0], a.dtype, True, plan._device)
        _collective.agree(plan._comm, _arrays.problem(_arrays._Torch, d, plan.in_shape, expected, plan._device,
                                                      getattr(plan, "_argument", "a")))
        plan._traced.add(key)
        _register(plan)  # the compiled program's calls go straight to the C++ kernel
    return a.new_empty(plan.out_shape, dtype=plan._expected_out(_arrays._Torch))


torch.library.register_fake("disttranspose::run")(_fake)


def _setup(ctx, inputs, output):
    plan = _ops.get(inputs[1])
    ctx.adjoint = plan._adjoint()._op
    ctx.weights = plan._adjoint_weights


def _weigh(t, w):
    """t times a factor of _adjoint_weights: a number, or a tuple of real arrays (their product; constants
    of the graph)."""
    if isinstance(w, float):
        return t * w
    for a in w:
        weights = torch.tensor(a.reshape(-1).tolist(), dtype=getattr(torch, a.dtype.name), device=t.device)
        t = t * weights.reshape(a.shape)
    return t


def _backward(ctx, grad):
    if ctx.weights is None:
        return _call(grad, ctx.adjoint), None
    before, after = ctx.weights
    if before is not None:
        grad = _weigh(grad, before)
    y = _call(grad.contiguous(), ctx.adjoint)
    return (y if after is None else _weigh(y, after)), None


torch.library.register_autograd("disttranspose::execute", _backward, setup_context=_setup)
