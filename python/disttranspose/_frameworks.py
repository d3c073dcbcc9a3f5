"""The executes and FFTs that the frameworks take over as operations of their own: JAX arrays and
tracers go through XLA's custom calls (_jax.py), PyTorch tensors that autograd or torch.compile follow
through the custom op (_torch.py); everything else takes the plan's (or the FFT's) own path. The
frameworks' modules are imported only for their own arrays."""

from . import _ops

NAMES = ("jax", "torch")


def torch_ops():
    """The custom ops' module (_torch.py), imported once torch is; None for a PyTorch without
    torch.library's registrations (before 2.4), whose tensors take the plan's own path only."""
    global torch_ops
    try:
        from . import _torch
    except (ImportError, AttributeError):
        _torch = None
    torch_ops = lambda: _torch  # noqa: E731
    return _torch


def fft(ad, name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding):
    """The framework's operation for an FFT call (disttranspose.fft), or NotImplemented for the FFT's own
    path. Traced by torch.compile: nothing here may leave its graph."""
    if ad.name == "jax":
        from . import _jax
        if _jax.module() is None:  # no custom calls: eager arrays on the FFT's own path, tracers refused there
            return NotImplemented
        return _jax.fft(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)
    ops = torch_ops()
    if ops is not None and ((x.requires_grad and ops.grad_enabled()) or ops.compiling()):
        return ops.fft(name, x, grid, shape, norm, out, backend, chunks, howmany, kinds, padding)
    return NotImplemented


def retire(plan):
    """Before a plan (of any kind, _ops.py) is destroyed: JAX's custom calls forget it where they know
    it, and the frameworks drop what they keep of it by its number."""
    if plan._jax_registered:
        from . import _jax
        _jax.forget(plan)
    _ops.forget(plan._op)


def operation(ad, plan, a, out, stream):
    """The framework's operation for this execute, or NotImplemented for the plan's own path."""
    if ad.name == "jax":
        from . import _jax
        return _jax.execute(plan, a, out, stream)
    ops = torch_ops()
    if ops is not None and ((a.requires_grad and ops.grad_enabled()) or ops.compiling()):
        return ops.execute(plan, a, out, stream)
    return NotImplemented
