"""JAX arrays where the package's custom calls are missing or refused (the library's own path): eager
calls on the host and on the GPU, every grid, against numpy; tracers refused, saying why. These run
whether the custom calls were built or not: each test takes them away itself."""


import numpy as np
import pytest
from conftest import COMM, FrameworkWhere, everywhere, framework_platforms, raises_everywhere, same_bits
from test_pencils import grids
from test_fft import TOLERANCE, Worst, local, whole
from test_transpose import slabs

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from disttranspose import _jax  # noqa: E402

R = COMM.Get_rank()


@pytest.fixture(params=framework_platforms("jax"))
def where(request):
    return FrameworkWhere("jax", request.param)


def test_fft_without_custom_calls(where, monkeypatch):
    """The FFT of JAX arrays where the custom calls are missing or refused (the library's own path, on the
    legacy stream): norm "forward" scales the result once it is complete. JAX scales on a stream of its
    own, which does not wait for the library's; it once read the result half written where the exchange
    took long (two ranks sharing a GPU). Every grid, fields and one, forward and inverse, against numpy."""
    monkeypatch.setattr(_jax, "module", lambda: None)
    monkeypatch.setattr(_jax, "_why", "XLA refused here")
    shape, dtype = (48, 40, 36), "complex64"
    worst = Worst()
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for howmany in (1, 3):
                bx, bz = grid.box(shape, "x", dtype), grid.box(shape, "z", dtype)
                fields = [whole(shape, dtype) * (f + 1) + f for f in range(howmany)]
                x0 = np.stack([local(a, bx) for a in fields], axis=-1)
                if howmany == 1:
                    x0 = x0[..., 0]
                y = dt.fft.fftn(where.put(x0), grid, shape, norm="forward", howmany=howmany, backend=where.backend)
                back = dt.fft.ifftn(y, grid, shape, norm="forward", howmany=howmany, backend=where.backend)
                got, returned = np.asarray(y), np.asarray(back)
                for f, a in enumerate(fields):
                    ref = np.fft.fftn(a.astype(np.complex128), norm="forward")
                    case = f"{pr}x{pc} howmany {howmany} field {f}"
                    pick = (lambda v: v[..., f]) if howmany > 1 else (lambda v: v)
                    worst.add(pick(got), local(ref, bz), ref, dtype, where=f"{case}: forward")
                    worst.add(pick(returned), local(a, bx), a, dtype, where=f"{case}: round trip")
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"error {value:.3g}; rank {R}'s largest: {worst.value:.3g} in {worst.where}"


def test_without_custom_calls(monkeypatch):
    """A package whose custom calls are missing or refused: JAX arrays on the host run eagerly on the cpu
    backend (they once asked the CUDA runtime to synchronize, and failed); tracers are refused, saying why."""
    # The cpu backend's plans take host arrays: this test's are on the CPU device, whatever JAX's default.
    with jax.default_device(jax.devices("cpu")[0]):
        monkeypatch.setattr(_jax, "module", lambda: None)
        monkeypatch.setattr(_jax, "_why", "XLA refused here")
        with dt.Plan(11, 6, "complex64", COMM, backend="cpu") as plan:
            a, want = slabs(11, 6, "complex64", 1, plan.local)
            ok = same_bits(np.asarray(plan.execute(jnp.asarray(a))), want)
            raises_everywhere(lambda: jax.jit(plan.execute)(jnp.asarray(a)), RESULT_INVALID_ARGUMENT,
                              "custom calls, which XLA refused here")
        assert everywhere(ok)
