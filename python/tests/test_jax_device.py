"""JAX's traced calls in a process that sees several GPUs (GPU tests; skipped elsewhere): each rank's grid
and plans are made on its GPU (conftest.py makes rank % count current, as a program would), its arrays put
there, and JAX's default device is another GPU. A jitted fftn and transpose run on the grid's and the
plan's GPU, whatever JAX's default, with the same bits as eager calls and the library's results; a grid
made with device= runs there whatever is current; an array on another GPU than the plan's is refused by
name on every rank, and the same function runs afterwards on the right one."""

import contextlib
import os

import numpy as np
import pytest
from conftest import COMM, GPU, custom_calls_missing, everywhere, gathered, same_bits
from test_fft import local, whole

import disttranspose as dt
from disttranspose import _cuda

BACKEND = os.environ.get("DTR_TEST_GPU_BACKEND", "auto")
SHAPE = (16, 8, 8)  # every box of 1 to 4 ranks holds data, so that every rank's execute checks its array
pytestmark = pytest.mark.gpu


@pytest.fixture
def gpus():
    """JAX's device of this rank's GPU and of another GPU, where the process sees two or more; the CUDA
    current device put back afterwards, whoever changed it (XLA may leave its own on the calling thread
    once it has run on another GPU), so that the tests after these make their plans where they expect."""
    only = os.environ.get("DTR_TEST_LIBS")
    if GPU is None or (only and "jax" not in only.split(",")):
        pytest.skip("needs a GPU and JAX on it")
    jax = pytest.importorskip("jax")
    why = custom_calls_missing()
    if why:
        pytest.skip(why)
    devices = jax.devices("gpu")
    if len(devices) < 2:
        pytest.skip(f"needs a process that sees 2 or more GPUs; this one sees {len(devices)}")
    jax.config.update("jax_enable_x64", True)
    before = _cuda.current_device()
    yield devices[GPU], devices[(GPU + 1) % len(devices)]
    if _cuda.current_device() != before:
        _cuda.set_current_device(before)


@contextlib.contextmanager
def current(device):
    """`device` as the CUDA current device, set as programs set it (CuPy, else PyTorch)."""
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        with cupy.cuda.Device(device):
            yield
    else:
        import torch
        with torch.cuda.device(device):
            yield


def _calls(grid, plan, on, elsewhere):
    """A jitted fftn and transpose on arrays put on `on`, with JAX's default device `elsewhere`: whether
    their results are on `on`, the same bits as the eager calls, and the library's results."""
    import jax
    x_box, z_box = grid.box(SHAPE, "x", "complex128"), grid.box(SHAPE, "z", "complex128")
    X = whole(SHAPE, "complex128")
    want = np.fft.fftn(X)
    ls = plan.local
    A = np.arange(plan.rows * plan.cols, dtype=np.float64).reshape(plan.rows, plan.cols)
    a = A[ls.in_row_start:ls.in_row_start + ls.in_rows]
    with jax.default_device(elsewhere):
        x = jax.device_put(local(X, x_box), on)
        y = jax.jit(lambda v: dt.fft.fftn(v, grid, SHAPE))(x)
        b = jax.jit(plan.execute)(jax.device_put(a, on))
        current = _cuda.current_device()
        eager = dt.fft.fftn(x, grid, SHAPE)
        kept = _cuda.current_device() == current  # a library call never changes the current device
    ok = kept and list(y.devices()) == [on] and list(b.devices()) == [on]
    ok &= same_bits(np.asarray(y), np.asarray(eager))
    ok &= np.abs(np.asarray(y) - local(want, z_box)).max(initial=0) <= 1e-12 * np.abs(want).max()
    return ok and same_bits(np.asarray(b), A.T[ls.out_row_start:ls.out_row_start + ls.out_rows])


def test_traced_calls_run_on_the_grids_gpu(gpus):
    mine, other = gpus
    with dt.Grid(COMM) as grid, dt.Plan(3 * COMM.Get_size() + 1, 5, "float64", COMM, backend=BACKEND) as plan:
        ok = grid.device == GPU and plan.device == GPU
        ok &= _calls(grid, plan, mine, other)
    assert everywhere(ok), gathered((GPU, grid.device, plan.device))


def test_grid_made_with_device(gpus):
    """A grid's GPU is the one current when it is made, or device= whatever is current (a plan's likewise)."""
    mine, other = gpus
    with current(other.local_hardware_id):
        with dt.Grid(COMM) as there:
            ok = there.device == other.local_hardware_id
        grid = dt.Grid(COMM, device=GPU)
        plan = dt.Plan(3 * COMM.Get_size() + 1, 5, "float64", COMM, backend=BACKEND, device=GPU)
    with grid, plan:
        ok &= grid.device == GPU and plan.device == GPU
        ok &= _calls(grid, plan, mine, other)
    assert everywhere(ok), gathered((GPU, grid.device, plan.device))


def test_array_on_another_gpu_refused_everywhere(gpus):
    """An array on another GPU than the plan's: the library's execute refuses it on every rank, naming
    the GPUs, before anything runs; the same jitted functions then run on the right arrays."""
    import jax
    mine, other = gpus
    with dt.Grid(COMM) as grid, dt.Plan(3 * COMM.Get_size() + 1, 5, "float64", COMM, backend=BACKEND) as plan:
        fftn = jax.jit(lambda v: dt.fft.fftn(v, grid, SHAPE))
        transpose = jax.jit(plan.execute)
        x = np.zeros(grid.box(SHAPE, "x", "complex128").shape, np.complex128)
        a = np.zeros(plan.in_shape, np.float64)
        said = []
        for f, v in ((fftn, x), (transpose, a)):
            try:
                np.asarray(f(jax.device_put(v, other)))
                said.append(None)
            except Exception as e:  # noqa: BLE001 (XLA's runtime error, carrying the library's message)
                said.append(str(e))
        # The message of the lowest rank that refused, on every rank ("rank 0: in = ... is on GPU ...").
        ok = all(m is not None and "is on GPU" in m and "but this rank's plan runs on GPU" in m for m in said)
        ok &= same_bits(np.asarray(fftn(jax.device_put(x, mine))), np.zeros(grid.box(SHAPE, "z", "complex128").shape,
                                                                           np.complex128))
        ok &= same_bits(np.asarray(transpose(jax.device_put(a, mine))), np.zeros(plan.out_shape, np.float64))
    assert everywhere(ok), gathered(said)
