"""PyTorch through the custom op disttranspose::execute: on the host (cpu backend, in CI) and on GPUs where
there are. Results bit for bit against the direct path and the pattern; torch.autograd.gradcheck of a
transpose, a pencil transpose, a halo exchange and its adjoint (float64, complex128) as functions of the
whole array; torch.compile(fullgraph=True), forward and backward; bad input refused on every rank."""

import os

import numpy as np
import pytest
from conftest import COMM, FrameworkWhere, everywhere, framework_platforms, raises_everywhere, same_bits
from mpi4py import MPI
from test_pencils import box_values
from test_transpose import slabs

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT

torch = pytest.importorskip("torch")

R, LAST = COMM.Get_rank(), COMM.Get_size() - 1


def host(t):
    return t.detach().cpu().numpy()


@pytest.fixture(params=framework_platforms("torch"))
def where(request):
    return FrameworkWhere("torch", request.param)


def _plans(where, dtype):
    """A transpose with a rank of no rows where there are several, and a pencil transpose."""
    p = COMM.Get_size()
    grid = dt.Grid(COMM)
    return grid, [dt.Plan(max(p - 1, 1), 5, dtype, COMM, backend=where.backend),
                  dt.PencilPlan(grid, (5, 4, 3), "x", "y", dtype, backend=where.backend)]


def _input(plan, dtype):
    if isinstance(plan, dt.Plan):
        return slabs(plan.rows, plan.cols, dtype, 1, plan.local)
    g = plan._grid
    return (box_values(g.box(plan.shape, plan.src, dtype), plan.shape, dtype),
            box_values(g.box(plan.shape, plan.dst, dtype), plan.shape, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_autograd_path(where, dtype):
    """A tensor that requires grad goes through the op: the same bits, and a gradient function."""
    grid, plans = _plans(where, dtype)
    ok = True
    for plan in plans:
        a, want = _input(plan, dtype)
        x = where.put(a)
        y = plan.execute(x.clone().requires_grad_(True))
        ok &= y.grad_fn is not None and same_bits(host(y), want) and same_bits(host(plan.execute(x)), want)
        plan.close()
    grid.close()
    assert everywhere(ok)


class _Scatter(torch.autograd.Function):
    """The whole input (every rank's part, flattened, in rank order; the same on every rank) to this
    rank's part. Its adjoint sums every rank's gradient of its part into the whole."""

    @staticmethod
    def forward(ctx, whole, start, shape):
        ctx.start, ctx.count, ctx.total = start, int(np.prod(shape)), whole.numel()
        return whole[start:start + ctx.count].reshape(shape).clone()

    @staticmethod
    def backward(ctx, grad):
        g = np.zeros(ctx.total, dtype=host(grad).dtype)
        g[ctx.start:ctx.start + ctx.count] = host(grad).reshape(-1)
        COMM.Allreduce(MPI.IN_PLACE, g, op=MPI.SUM)
        return torch.from_numpy(g).to(grad.device), None, None


class _Gather(torch.autograd.Function):
    """Every rank's part of the result, flattened, in rank order, on every rank; its adjoint takes this
    rank's part of the gradient."""

    @staticmethod
    def forward(ctx, part):
        parts = COMM.allgather(host(part).reshape(-1))
        ctx.start, ctx.shape = sum(len(q) for q in parts[:R]), part.shape
        return torch.from_numpy(np.concatenate(parts)).to(part.device)

    @staticmethod
    def backward(ctx, grad):
        count = int(np.prod(ctx.shape))
        return grad[ctx.start:ctx.start + count].reshape(ctx.shape).contiguous()


def _whole_function(plan, run=None):
    """plan.execute (or `run`, another call of the plan) as a function of the whole array to the whole
    result, the same on every rank; and the whole array's size."""
    run = run or plan.execute
    sizes = COMM.allgather(int(np.prod(plan.in_shape)))
    start = sum(sizes[:R])
    return (lambda whole: _Gather.apply(run(_Scatter.apply(whole, start, plan.in_shape)))), sum(sizes)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck(where, dtype):
    """The transpose as a function of the whole array, whose gradient the ranks assemble: gradcheck's
    numerical Jacobian against the analytical one of the reverse plans."""
    grid, plans = _plans(where, dtype)
    ok = True
    for plan in plans:
        ok &= _gradcheck(where, dtype, plan)
        plan.close()
    grid.close()
    assert everywhere(ok)


def _gradcheck(where, dtype, plan, run=None):
    """gradcheck of _whole_function(plan, run) on a random whole array."""
    f, total = _whole_function(plan, run)
    rng = np.random.default_rng(7)
    whole = rng.standard_normal(total) + (1j * rng.standard_normal(total) if dtype == "complex128" else 0)
    x = torch.from_numpy(whole.astype(dtype)).to(where.device).requires_grad_(True)
    return torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-9, raise_exception=False)


def _halo(where, dtype):
    """A halo exchange wider than some boxes, periodic along two axes."""
    grid = dt.Grid(COMM)
    return grid, dt.HaloPlan(grid, (5, 4, 3), "y", dtype, halo=(2, 1, 2), periodic=(True, False, True),
                             backend=where.backend)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_halo_gradcheck(where, dtype):
    """The halo exchange and its adjoint as functions of the whole array (every rank's padded one):
    gradcheck's numerical Jacobian against the analytical one, each the other's backward."""
    grid, plan = _halo(where, dtype)
    ok = _gradcheck(where, dtype, plan) and _gradcheck(where, dtype, plan, plan.adjoint)
    plan.close()
    grid.close()
    assert everywhere(ok)


def test_halo_autograd_path(where):
    """A tensor that requires grad: execute and adjoint give fresh tensors with the in-place calls' bits,
    the input as it was; the gradient of each is the other on the gradient."""
    grid, plan = _halo(where, "float32")
    rng = np.random.default_rng(R)
    x, w = (rng.standard_normal(plan.padded_shape).astype(np.float32) for _ in range(2))
    ok = True
    for run, back in ((plan.execute, plan.adjoint), (plan.adjoint, plan.execute)):
        t = where.put(x).requires_grad_(True)
        y = run(t)
        ok &= y is not t and y.grad_fn is not None and same_bits(host(t), x)
        ok &= same_bits(host(y), host(run(where.put(x))))
        (y * where.put(w)).sum().backward()
        ok &= same_bits(host(t.grad), host(back(where.put(w))))
    plan.close()
    grid.close()
    assert everywhere(ok)


def _backends():
    # Inductor compiles C++ for the host: one run of it (on one rank) is enough; aot_eager traces the
    # same graph through dynamo and AOTAutograd everywhere.
    return ["aot_eager"] + (["inductor"] if COMM.Get_size() == 1 else [])


@pytest.mark.parametrize("backend", _backends())
def test_compile_fullgraph(where, backend):
    """torch.compile(fullgraph=True) traces through the op (a graph break would raise): the same bits as
    eager, forward and backward, for a transpose and a chain of pencil transposes."""
    torch._dynamo.reset()
    dtype = "float32"
    grid, (plan, fwd) = _plans(where, dtype)
    back = fwd._adjoint()
    ok = True

    def f(t):
        return plan.execute(t * 2) - t.sum()

    def small(shape):  # exact sums in any order
        return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7 + R

    g = torch.compile(f, fullgraph=True, backend=backend)
    x = where.put(small(plan.in_shape))
    ok &= same_bits(host(g(x)), host(f(x)))
    xg = x.clone().requires_grad_(True)
    g(xg).sum().backward()
    xe = x.clone().requires_grad_(True)
    f(xe).sum().backward()
    ok &= same_bits(host(xg.grad), host(xe.grad))

    u = where.put(small(fwd.in_shape))
    h = torch.compile(lambda t: back.execute(fwd.execute(t) * 4), fullgraph=True, backend=backend)
    ok &= same_bits(host(h(u)), host(u * 4))
    plan.close()
    fwd.close()
    grid.close()

    grid, halo = _halo(where, dtype)
    k = torch.compile(lambda t: halo.adjoint(halo.execute(t) * 2), fullgraph=True, backend=backend)
    v = where.put(small(halo.padded_shape))
    ok &= same_bits(host(k(v)), host(halo.adjoint(halo.execute(v.clone()) * 2)))
    vg, ve = v.clone().requires_grad_(True), v.clone().requires_grad_(True)
    k(vg).sum().backward()
    halo.adjoint(halo.execute(ve) * 2).sum().backward()
    ok &= same_bits(host(vg.grad), host(ve.grad))
    halo.close()
    grid.close()
    assert everywhere(ok)


def test_compiled_wrong_shape_refused_everywhere(where):
    """A tensor of the wrong shape on one rank: torch.compile's trace stops on every rank, naming it."""
    torch._dynamo.reset()
    with dt.Plan(9, 7, "float32", COMM, backend=where.backend) as plan:
        rows = plan.in_shape[0] + (R == LAST)
        g = torch.compile(lambda t: plan.execute(t) + 1, fullgraph=True, backend="aot_eager")
        try:
            g(where.put(np.zeros((rows, 7), np.float32)))
            failed = ""
        except Exception as e:  # noqa: BLE001 (dynamo wraps what the fake implementation raised)
            failed = str(e)
        assert everywhere("a has shape" in failed), failed


def test_out_with_autograd_refused():
    with dt.Plan(6, 4, "float64", COMM, backend="cpu") as plan:
        x = torch.zeros(plan.in_shape, dtype=torch.float64, requires_grad=True)
        out = torch.zeros(plan.out_shape, dtype=torch.float64)
        raises_everywhere(lambda: plan.execute(x, out=out), RESULT_INVALID_ARGUMENT, "out and stream")
        with torch.no_grad():
            assert everywhere(plan.execute(x, out=out) is out)


def _kernels_expected():
    """The C++ kernels should be in effect: built beside the package (or the build tree's library), and
    not turned off."""
    from disttranspose import _lib
    return (_lib.companion("libdisttranspose_torch.so") is not None
            and os.environ.get("DISTTRANSPOSE_TORCH_KERNELS", "native") == "native")


@pytest.mark.parametrize("dtype", ["int8", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_kernels_agree(where, dtype):
    """The op's kernel (C++ where built, else Python) against the plan's own path, bit for bit, for every
    element type, on a transpose with a rank of no rows and a pencil transpose; the compiled call gives the
    same. Tensors off the kernel's path (a view off the alignment, a non-contiguous one) take the checked
    path, with the same result."""
    from disttranspose import _torch
    assert everywhere((_torch._kernels is not None) == _kernels_expected())
    torch._dynamo.reset()
    grid, plans = _plans(where, dtype)
    ok = True
    for plan in plans:
        a, want = _input(plan, dtype)
        x = where.put(a) if dtype != "bfloat16" else where.put(a.view(np.uint16)).view(torch.bfloat16)
        y = torch.ops.disttranspose.run(x, plan._op)
        ok &= same_bits(host(y.view(torch.uint16) if dtype == "bfloat16" else y), want.view(np.uint16)
                        if dtype == "bfloat16" else want)
        ok &= plan._op in _torch._registered or _torch._kernels is None
        g = torch.compile(plan.execute, fullgraph=True, backend="aot_eager")
        ok &= same_bits(host(g(x).view(torch.uint8)), host(y.view(torch.uint8)))
        # Off the path: a copy one element off (misaligned for all but int8) and a transposed view.
        flat = torch.zeros(x.numel() + 1, dtype=x.dtype, device=x.device)
        shifted = flat[1:].view(x.shape)
        shifted.copy_(x)
        ok &= same_bits(host(torch.ops.disttranspose.run(shifted, plan._op).view(torch.uint8)), host(y.view(torch.uint8)))
        strided = x.t().contiguous().t() if x.dim() == 2 else x.transpose(0, 1).contiguous().transpose(0, 1)
        ok &= same_bits(host(torch.ops.disttranspose.run(strided, plan._op).view(torch.uint8)), host(y.view(torch.uint8)))
        plan.close()
        ok &= plan._op not in _torch._registered
    grid.close()
    assert everywhere(ok)


def test_kernel_wrong_shape_on_one_rank(where):
    """The op called with a tensor of the wrong shape on the last rank only: the others' kernels take their
    fast path, the last rank's the checked one, and every rank raises Error naming the shape."""
    with dt.Plan(9, 7, "float32", COMM, backend=where.backend) as plan:
        good = where.put(np.zeros(plan.in_shape, np.float32))
        torch.ops.disttranspose.run(good, plan._op)  # registered, the fast path from here on
        shape = (plan.in_shape[0] + 1, 7) if R == LAST else plan.in_shape
        x = where.put(np.zeros(shape, np.float32))
        raises_everywhere(lambda: torch.ops.disttranspose.run(x, plan._op), RESULT_INVALID_ARGUMENT, "shape")
        assert everywhere(same_bits(host(torch.ops.disttranspose.run(good, plan._op)), np.zeros(plan.out_shape, np.float32)))


def test_kernel_failed_call_raises_error():
    """A C call that fails inside the C++ kernel (an FFT plan's execute registered with a direction that is
    neither forward nor inverse) raises the package's Error with the library's message on every rank."""
    from types import SimpleNamespace

    from disttranspose import _arrays, _ops
    from disttranspose import _torch
    if _torch._kernels is None:
        pytest.skip("the C++ kernels are not built (or turned off)")
    with dt.Grid(COMM) as grid:
        shape = (4, 3, 2)
        x_shape = grid.box(shape, "x", "complex128").shape
        op, _ = _ops.fft_operation("fftn", grid, shape, "backward", None, "cpu", 0, 1, None, None, _arrays._Torch,
                                   torch.complex128, x_shape, -1)
        f = _ops.get(op)
        bogus = 1 << 40
        _torch._register(SimpleNamespace(_op=bogus, _executor=f._executor, _handle=f._handle, _direction=7, _device=-1,
                                         _in_place=False, _alignment=f._alignment, in_shape=f.in_shape,
                                         out_shape=f.out_shape, _expected=f._expected, _expected_out=f._expected_out))
        try:
            x = torch.zeros(x_shape, dtype=torch.complex128)
            raises_everywhere(lambda: torch.ops.disttranspose.run(x, bogus), RESULT_INVALID_ARGUMENT, "direction = 7")
        finally:
            _torch._forget(bogus)


def test_fft_kernel_wrong_shape_on_one_rank():
    """An FFT's op called with a tensor of the wrong shape on the last rank only (the others on the fast
    path into dtrFftExecute, the last rank on the checked path, which refuses with dtrFftExecuteRefuse):
    every rank raises Error naming the shape, and the plan runs afterwards."""
    from disttranspose import _arrays, _ops
    with dt.Grid(COMM) as grid:
        shape = (5, 4, 3)
        x_shape = grid.box(shape, "x", "complex128").shape
        op, _ = _ops.fft_operation("fftn", grid, shape, "backward", None, "cpu", 0, 1, None, None, _arrays._Torch,
                                   torch.complex128, x_shape, -1)
        good = torch.ones(x_shape, dtype=torch.complex128)
        want = host(torch.ops.disttranspose.run(good, op))
        wrong = torch.ones((x_shape[0] + 1,) + tuple(x_shape[1:]), dtype=torch.complex128) if R == LAST else good
        raises_everywhere(lambda: torch.ops.disttranspose.run(wrong, op), RESULT_INVALID_ARGUMENT, "is not what was traced")
        assert everywhere(same_bits(host(torch.ops.disttranspose.run(good, op)), want))
