"""Pencil transposes on every grid the rank count allows (empty boxes included), round trips, and
Cartesian communicators; bit for bit against the pattern of global (x, y, z) indices."""

import numpy as np
import pytest
from conftest import COMM, DTYPES, everywhere, pattern, poison, same_bits

import disttranspose as dt

SHAPES = [(17, 9, 13), (2, 3, 5), (1, 1, 1), (8, 8, 8)]


def grids():
    p = COMM.Get_size()
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def box_values(box, shape, dtype, howmany=1):
    """The pattern over a box, in its memory order (the global index is x + nx * (y + ny * z))."""
    idx = [np.arange(box.start[d], box.start[d] + box.size[d]) for d in range(3)]
    x, y, z = np.meshgrid(idx[0], idx[1], idx[2], indexing="ij")
    g = x + shape[0] * (y + shape[1] * z)  # indexed [x][y][z]
    axes = ["xyz".index(a) for a in box.order]  # fastest first
    return pattern(np.transpose(g, axes[::-1]), dtype, howmany)


def directions(pr):
    pairs = [("x", "y"), ("y", "z"), ("z", "y"), ("y", "x")]
    return pairs + [("x", "z"), ("z", "x")] if pr == 1 else pairs


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_grid(lib, dtype):
    if not lib.supports(dtype):
        pytest.skip(f"{lib} has no {dtype}")
    ok, cases = True, 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            ok &= grid.dims == (pr, pc)
            for i, shape in enumerate(SHAPES):
                howmany = 2 if i % 2 else 1
                for src, dst in directions(pr):
                    ws = "grid" if (i + len(src)) % 2 else "own"
                    with dt.PencilPlan(grid, shape, src, dst, dtype, howmany=howmany, backend=lib.backend,
                                       workspace=ws) as plan:
                        a = box_values(grid.box(shape, src, dtype, howmany), shape, dtype, howmany)
                        want = box_values(grid.box(shape, dst, dtype, howmany), shape, dtype, howmany)
                        ok &= plan.in_shape == a.shape and plan.out_shape == want.shape
                        out = lib.out(poison(plan.out_shape, dtype))
                        ok &= same_bits(lib.get(plan.execute(lib.put(a), out=out)), want)
                        cases += 1
    assert everywhere(ok), f"{cases} cases"


def test_round_trip(lib):
    """X -> Y -> Z -> Y -> X (and X -> Z -> X on slabs): the first bits again."""
    ok = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            shape, dtype = (11, 7, 5), "complex64"
            x0 = lib.put(box_values(grid.box(shape, "x", dtype), shape, dtype))
            path = ["x", "y", "z", "y", "x"] + (["z", "x"] if pr == 1 else [])
            plans = [dt.PencilPlan(grid, shape, s, d, dtype, backend=lib.backend) for s, d in zip(path, path[1:])]
            a = x0
            for plan in plans:
                a = plan.execute(a)
            ok &= same_bits(lib.get(a), lib.get(x0))
            for plan in plans:
                plan.close()
    assert everywhere(ok)


def test_boxes_cover_the_array():
    """Every pencil's boxes over all ranks tile the array exactly once; shapes in memory order."""
    shape = (9, 6, 4)
    ok = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for pencil in "xyz":
                cover = np.zeros(shape, dtype=int)
                for rank in range(COMM.Get_size()):
                    b = grid.box(shape, pencil, "float32", rank=rank)
                    cover[b.start[0]:b.start[0] + b.size[0], b.start[1]:b.start[1] + b.size[1],
                          b.start[2]:b.start[2] + b.size[2]] += 1
                    ok &= b.order[0] == pencil and b.size["xyz".index(pencil)] == shape["xyz".index(pencil)]
                    ok &= b.shape == tuple(b.size["xyz".index(a)] for a in reversed(b.order))
                ok &= bool((cover == 1).all())
    assert everywhere(ok)


def test_cartesian_grid(lib):
    dims = [0, 0]
    dims = list(__import__("mpi4py").MPI.Compute_dims(COMM.Get_size(), dims))
    cart = COMM.Create_cart(dims)
    ok = True
    with dt.Grid(cart) as grid:
        ok &= grid.dims == tuple(dims)
        shape = (5, 4, 3)
        with dt.PencilPlan(grid, shape, "x", "y", "float64", backend=lib.backend) as plan:
            a = box_values(grid.box(shape, "x", "float64"), shape, "float64")
            want = box_values(grid.box(shape, "y", "float64"), shape, "float64")
            ok &= same_bits(lib.get(plan.execute(lib.put(a))), want)
    cart.Free()
    assert everywhere(ok)
