"""Grid(comm, autotune=shape): the grid chosen by measurement (dtrGridAutotune) for each target, the same
on every rank, a grid of the communicator, the fastest of its report; bad arguments refused on every
rank. On the backend of the array library (the cpu backend for NumPy)."""

import pytest
from conftest import COMM, everywhere, gathered, raises_everywhere

import disttranspose as dt


def grids(p):
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def check(grid, lib):
    p = COMM.Get_size()
    timings = grid.autotune_timings
    ok = grid.pr * grid.pc == p and isinstance(timings, list)
    every = grids(p)
    backends = ["cpu"] if lib.backend == "cpu" else ["p2p", "nccl"] if lib.backend == "auto" else [lib.backend]
    # Every candidate, in order: pr ascending, each backend tried.
    ok &= [(t["pr"], t["pc"], t["backend"]) for t in timings] == [(r, c, b) for r, c in every for b in backends]
    ran = [t for t in timings if t["result"] == "success"]
    ok &= len(ran) > 0 and all(t["seconds"] > 0 for t in ran)
    ok &= all(t["seconds"] is None for t in timings if t["result"] != "success")
    if ran:
        fastest = min(ran, key=lambda t: t["seconds"])  # the first of equal ones, as the library breaks ties
        ok &= (fastest["pr"], fastest["pc"], fastest["backend"]) == (grid.pr, grid.pc, grid.autotune_backend)
    # The same report and choice on every rank.
    mine = (grid.dims, grid.autotune_backend, [(t["pr"], t["pc"], t["backend"], t["result"], t["seconds"]) for t in timings])
    ok &= all(other == mine for other in gathered(mine))
    return ok


@pytest.mark.parametrize("shape", [(12, 10, 9), (5, 3, 2)])
@pytest.mark.parametrize("dtype", ["complex64", "float64"])
def test_fft(lib, shape, dtype):
    with dt.Grid(COMM, autotune=shape, dtype=dtype, target="fft", backend=lib.backend, iterations=2) as grid:
        assert everywhere(check(grid, lib))


@pytest.mark.parametrize("dtype,howmany", [("float32", 1), ("complex128", 2), ("int8", 3)])
def test_transposes(lib, dtype, howmany):
    with dt.Grid(COMM, autotune=(9, 7, 6), dtype=dtype, target="transposes", backend=lib.backend,
                 howmany=howmany) as grid:
        assert everywhere(check(grid, lib))
        # The chosen grid serves a plan.
        with dt.PencilPlan(grid, (9, 7, 6), "x", "y", dtype, howmany=howmany, backend=lib.backend) as plan:
            assert everywhere(plan.in_shape == grid.box((9, 7, 6), "x", dtype, howmany).shape)


@pytest.mark.parametrize("pencil", ["x", "y", "z"])
def test_halo(lib, pencil):
    with dt.Grid(COMM, autotune=(10, 8, 6), dtype="float64", target="halo", backend=lib.backend, pencil=pencil,
                 halo=(1, 2, 0), periodic=(True, False, True)) as grid:
        assert everywhere(check(grid, lib))


def test_plain_grid_has_no_report():
    with dt.Grid(COMM) as grid:
        assert everywhere(grid.autotune_timings is None and grid.autotune_backend is None)


def test_bad_arguments():
    def grid(**kw):
        args = dict(autotune=(8, 6, 4), dtype="complex64", backend="cpu")
        args.update(kw)
        return dt.Grid(COMM, **args)

    raises_everywhere(lambda: grid(dtype=None), 1, "needs the array's dtype")
    raises_everywhere(lambda: grid(autotune=(8, 6)), 1, "expected the array's shape")
    raises_everywhere(lambda: grid(autotune=(8, 0, 4)), 1, "autotune[1] = 0")
    raises_everywhere(lambda: grid(target="everything"), 1, "target = 'everything'")
    raises_everywhere(lambda: grid(backend="gpu"), 1, "backend = 'gpu'")
    raises_everywhere(lambda: grid(iterations=0), 1, "iterations = 0")
    raises_everywhere(lambda: grid(halo=(1, -1, 0), target="halo"), 1, "halo[1] = -1")
    raises_everywhere(lambda: grid(pencil="w", target="halo"), 1, "pencil = 'w'")
    raises_everywhere(lambda: dt.Grid(COMM, 1, COMM.Get_size(), autotune=(8, 6, 4), dtype="complex64"), 1, "not both")
    # The library's own checks: the FFT of an integer type.
    raises_everywhere(lambda: grid(dtype="int8"), 1, "C2C FFT takes type c64 or c128")
    # One rank's bad argument stops every rank.
    raises_everywhere(lambda: grid(iterations=0 if COMM.Get_rank() == COMM.Get_size() - 1 else 2), 1, "iterations = 0")
    if COMM.Get_size() > 1:
        # Arguments that differ between ranks: the library refuses them by name.
        raises_everywhere(lambda: grid(autotune=(8, 6, 4 + COMM.Get_rank())), 2, "differs between ranks")
