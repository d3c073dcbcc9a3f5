"""The distributed 3-D FFT against numpy.fft.fftn of the whole array, forward and back, on every
grid (slabs and pencils, empty boxes included)."""

import numpy as np
import pytest
from conftest import COMM, everywhere

import disttranspose as dt


def grids():
    p = COMM.Get_size()
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def whole(shape, dtype):
    rng = np.random.default_rng(20261124)
    z = rng.standard_normal(shape[::-1]) + 1j * rng.standard_normal(shape[::-1])  # [z][y][x]
    return z.astype(dtype)


def local(array_zyx, box):
    """This rank's box of an array indexed [z][y][x], in the box's memory order."""
    sl = tuple(slice(box.start[d], box.start[d] + box.size[d]) for d in (2, 1, 0))
    part = array_zyx[sl]  # [z][y][x]
    axes = {"x": 2, "y": 1, "z": 0}
    return np.ascontiguousarray(np.transpose(part, [axes[a] for a in reversed(box.order)]))


def local_passes(lib, passes):
    """The local= values worth testing with lib: FFTW (where pyfftw is installed) and numpy.fft for
    NumPy arrays; the array's own library for the others (one of the two)."""
    if lib.name != "numpy" and passes != "auto":
        pytest.skip("local= chooses between FFTW and numpy.fft for NumPy arrays only")
    if lib.name == "numpy" and passes == "auto":
        pytest.importorskip("pyfftw")


LOCALS = ["auto", "library"]


@pytest.mark.parametrize("passes", LOCALS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(16, 12, 10), (7, 5, 3), (3, 2, 1)])
def test_fftn_against_numpy(lib, dtype, shape, passes):
    local_passes(lib, passes)
    tol = 1e-4 if dtype == "complex64" else 1e-11
    data = whole(shape, dtype)
    reference = np.fft.fftn(data.astype(np.complex128))
    scale = np.abs(reference).max()
    ok, worst = True, 0.0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            x = lib.put(local(data, grid.box(shape, "x", dtype)))
            y = dt.fft.fftn(x, grid, shape, backend=lib.backend, local=passes)
            want = local(reference, grid.box(shape, "z", dtype))
            got = lib.get(y)
            ok &= got.dtype == np.dtype(dtype) and got.shape == want.shape
            if got.size:
                worst = max(worst, float(np.abs(got - want).max() / scale))
            back = lib.get(dt.fft.ifftn(y, grid, shape, backend=lib.backend, local=passes))
            if back.size:
                worst = max(worst, float(np.abs(back - local(data, grid.box(shape, "x", dtype))).max()))
    worst = COMM.allreduce(worst, op=__import__("mpi4py").MPI.MAX)
    assert everywhere(ok and worst < tol), worst


@pytest.mark.parametrize("passes", LOCALS)
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fftn_norms(lib, norm, passes):
    """Each norm scales as numpy.fft's does (the GPU libraries' passes run unscaled and the whole
    factor is applied once, as with FFTW)."""
    local_passes(lib, passes)
    shape, dtype = (6, 5, 4), "complex128"
    data = whole(shape, dtype)
    reference = np.fft.fftn(data, norm=norm)
    inverse = np.fft.ifftn(data, norm=norm)
    ok, worst = True, 0.0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            y = lib.get(dt.fft.fftn(lib.put(local(data, grid.box(shape, "x", dtype))), grid, shape, norm=norm,
                                    backend=lib.backend, local=passes))
            # ifftn of the data laid out as Z-pencils: numpy's ifftn of the whole, as X-pencils
            back = lib.get(dt.fft.ifftn(lib.put(local(data, grid.box(shape, "z", dtype))), grid, shape, norm=norm,
                                        backend=lib.backend, local=passes))
            for got, want in ((y, local(reference, grid.box(shape, "z", dtype))),
                              (back, local(inverse, grid.box(shape, "x", dtype)))):
                ok &= got.shape == want.shape
                if got.size:
                    worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
    worst = COMM.allreduce(worst, op=__import__("mpi4py").MPI.MAX)
    assert everywhere(ok and worst < 1e-12), worst


@pytest.mark.parametrize("passes", LOCALS)
def test_fftn_into_out(lib, passes):
    """fftn and ifftn write their results into a given out (and return it), on every grid."""
    local_passes(lib, passes)
    if lib.name == "jax":
        pytest.skip("JAX arrays are immutable: no out")
    shape, dtype = (9, 6, 5), "complex128"
    data = whole(shape, dtype)
    reference = np.fft.fftn(data)
    ok, worst = True, 0.0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            bx, bz = grid.box(shape, "x", dtype), grid.box(shape, "z", dtype)
            x = lib.put(local(data, bx))
            y, back = lib.put(np.zeros(bz.shape, dtype)), lib.put(np.zeros(bx.shape, dtype))
            ok &= dt.fft.fftn(x, grid, shape, out=y, backend=lib.backend, local=passes) is y
            ok &= dt.fft.ifftn(y, grid, shape, out=back, backend=lib.backend, local=passes) is back
            for got, want in ((lib.get(y), local(reference, bz)), (lib.get(back), local(data, bx))):
                if got.size:
                    worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
    worst = COMM.allreduce(worst, op=__import__("mpi4py").MPI.MAX)
    assert everywhere(ok and worst < 1e-12), worst
