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


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(16, 12, 10), (7, 5, 3), (3, 2, 1)])
def test_fftn_against_numpy(lib, dtype, shape):
    tol = 1e-4 if dtype == "complex64" else 1e-11
    data = whole(shape, dtype)
    reference = np.fft.fftn(data.astype(np.complex128))
    scale = np.abs(reference).max()
    ok, worst = True, 0.0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            x = lib.put(local(data, grid.box(shape, "x", dtype)))
            y = dt.fft.fftn(x, grid, shape, backend=lib.backend)
            want = local(reference, grid.box(shape, "z", dtype))
            got = lib.get(y)
            ok &= got.dtype == np.dtype(dtype) and got.shape == want.shape
            if got.size:
                worst = max(worst, float(np.abs(got - want).max() / scale))
            back = lib.get(dt.fft.ifftn(y, grid, shape, backend=lib.backend))
            if back.size:
                worst = max(worst, float(np.abs(back - local(data, grid.box(shape, "x", dtype))).max()))
    worst = COMM.allreduce(worst, op=__import__("mpi4py").MPI.MAX)
    assert everywhere(ok and worst < tol), worst
