"""PyTorch tensors through a custom op (torch.library), so that autograd differentiates a plan's execute
and torch.compile(fullgraph=True) traces it: `disttranspose::execute(a, op)`, op a plan's number
(_ops.py). Its fake implementation gives the result's shape and type from the plan; its backward is
the reverse plan on the gradient (a transpose's adjoint). CUDA tensors run on the current stream,
CPU tensors on the cpu backend, zero copy, as outside autograd.

A plan reached at trace time for the first time (the reverse plan, when autograd records a call or
torch.compile traces one) is made then, collectively: every rank records and compiles the same program
in the same order, so every rank makes it together (_ops.py).
"""

import torch

from . import _arrays, _collective, _ops
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
    return torch.ops.disttranspose.execute(a, plan._op)


# Defined with torch.library.Library rather than torch.library.custom_op: the latter's Python wrappers
# cost 10 us a call more on the host (19 against 9.5 us a call of an empty op).
_library = torch.library.Library("disttranspose", "DEF")
_library.define("execute(Tensor a, int op) -> Tensor")


def _execute(a, op):
    plan = _ops.get(op)
    return plan._run(plan._live(), _arrays._Torch, a.contiguous(), None, None)


_library.impl("execute", _execute, "CompositeExplicitAutograd")


@torch.library.register_fake("disttranspose::execute")
def _(a, op):
    """The result's shape and type; a wrong input is refused at trace time on every rank (agreed once per
    plan and input shape: a trace may ask more than once)."""
    plan = _ops.get(op)
    # int() of a symbolic size (a recompiled trace makes sizes dynamic) specializes it: a plan takes one
    # shape.
    key = (tuple(int(n) for n in a.shape), a.dtype)
    if key not in plan._traced:
        expected = plan._expected(_arrays._Torch)
        d = _arrays.Described(0, key[0], a.dtype, True, plan._device)
        _collective.agree(plan._comm, _arrays.problem(_arrays._Torch, d, plan.in_shape, expected, plan._device, "a"))
        plan._traced.add(key)
    return a.new_empty(plan.out_shape, dtype=plan._expected(_arrays._Torch))


def _setup(ctx, inputs, output):
    ctx.adjoint = _ops.get(inputs[1])._adjoint()._op


def _backward(ctx, grad):
    return torch.ops.disttranspose.execute(grad, ctx.adjoint), None


torch.library.register_autograd("disttranspose::execute", _backward, setup_context=_setup)
