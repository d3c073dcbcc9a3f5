"""Halo exchanges (HaloPlan) on every grid the rank count allows and every pencil: widths 0-3 per axis,
periodic or not per axis, odd shapes (boxes thinner than the halo, empty boxes, halos wider than a
whole axis that is not periodic), every element type, howmany 1-3. Each rank's interior comes from the
pattern of global indices and its halos are poisoned; the reference is the global array gathered from
every rank's interior and padded with np.pad (mode 'wrap' along periodic axes, the poison beyond the
edges of the others), bit for bit. The adjoint on the same cases: small integers against the sums of
every rank's written cells into the global cells they stand for (exact in every type), <execute(x), y>
= <x, adjoint(y)> over the ranks, random values the same bits twice (and, on GPUs, the cpu backend's
bits). JAX arrays (the host's in CI, a GPU's where there is one): a fresh array, eagerly, under jax.jit
and vmap, the input untouched; jax.grad, vjp and linear_transpose through execute give adjoint's bits,
and finite differences agree. Bad input raises Error on every rank."""

import numpy as np
import pytest
from conftest import COMM, DTYPES, ITEMSIZE, everywhere, framework_platforms, gathered, jax_platform, numpy_dtype, \
    pattern, poison, raises_everywhere, same_bits

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT, RESULT_MISMATCH

R = COMM.Get_rank()
LAST = COMM.Get_size() - 1
AXES = "xyz"
T, F = True, False

# (shape, halo, periodic, howmany): odd sizes; 1 x 1 x 1 leaves boxes empty on 2+ ranks (and its y halo
# of 3, not periodic, is wider than the axis); ny = 2 and nz = 2 or 3 are thinner than the halos
# across them; a periodic halo as wide as its whole axis (nz = 3, width 3).
CASES = [
    ((7, 5, 3), (1, 1, 1), (T, T, T), 1),
    ((7, 5, 3), (2, 0, 3), (T, F, T), 2),
    ((1, 1, 1), (0, 3, 1), (F, F, T), 1),
    ((9, 2, 4), (3, 2, 0), (F, T, F), 1),
    ((6, 4, 5), (0, 0, 0), (T, T, T), 1),
    ((3, 7, 2), (1, 3, 2), (T, F, T), 3),
    ((5, 3, 8), (2, 1, 3), (F, F, F), 1),
    ((2, 9, 3), (3, 3, 3), (F, T, T), 1),
]


def grids():
    p = COMM.Get_size()
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def entry_bytes(a, howmany):
    """A box's array (memory order, a trailing howmany axis where > 1) as bytes: (s0, s1, s2, entry)."""
    a = np.ascontiguousarray(a)
    shape3 = a.shape[:3]
    return a.view(np.uint8).reshape(shape3 + (a.itemsize * howmany,))


def to_xyz(a, order):
    """A (memory order, bytes) array as [x][y][z][bytes]."""
    slowest_first = list(reversed(order))
    return np.transpose(a, [slowest_first.index(axis) for axis in AXES] + [3])


def from_xyz(a, order):
    return np.ascontiguousarray(np.transpose(a, [AXES.index(axis) for axis in reversed(order)] + [3]))


def interior_values(box, shape, dtype, howmany):
    """The pattern of global indices over a box, in its memory order."""
    idx = [np.arange(box.start[d], box.start[d] + box.size[d]) for d in range(3)]
    x, y, z = np.meshgrid(idx[0], idx[1], idx[2], indexing="ij")
    g = x + shape[0] * (y + shape[1] * z)
    return pattern(np.transpose(g, [AXES.index(a) for a in reversed(box.order)]), dtype, howmany)


def reference(plan, pieces):
    """This rank's padded array as an execute must leave it, from every rank's interior (pieces: their
    boxes' start, size, order and bytes): the global array padded, cut to this rank's padded box."""
    shape, halo, periodic = plan.shape, plan.halo, plan.periodic
    e = ITEMSIZE[plan.dtype] * plan.howmany
    whole = np.zeros(shape + (e,), np.uint8)
    filled = np.zeros(shape, bool)
    for start, size, order, data in pieces:
        cut = tuple(slice(start[d], start[d] + size[d]) for d in range(3))
        whole[cut] = to_xyz(data, order)
        filled[cut] = True
    assert filled.all(), "the boxes do not cover the array"
    beyond = np.zeros(tuple(n + 2 * h for n, h in zip(shape, halo)), bool)
    for d in range(3):
        widths = [(0, 0)] * 3 + [(0, 0)]
        widths[d] = (halo[d], halo[d])
        whole = np.pad(whole, widths, mode="wrap" if periodic[d] else "constant")
        if not periodic[d]:
            edge = [slice(None)] * 3
            edge[d] = np.r_[0:halo[d], halo[d] + shape[d]:2 * halo[d] + shape[d]]
            beyond[tuple(edge)] = True
    whole[beyond] = 0xA5  # poison's bytes: untouched beyond an edge that is not periodic
    p = plan.padded_box
    cut = tuple(slice(p.start[d] + halo[d], p.start[d] + halo[d] + p.size[d]) for d in range(3))
    mine = from_xyz(whole[cut], p.order)
    return mine.view(poison((1,), plan.dtype).dtype).reshape(plan.padded_shape), int(beyond.sum())


def run_case(lib, grid, shape, pencil, dtype, halo, periodic, howmany):
    """One plan: its boxes and shapes checked, two executes against the reference. Returns (ok, whether
    some rank's box is empty, cells beyond edges that are not periodic)."""
    with dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                     backend=lib.backend) as plan:
        box, p = plan.box, plan.padded_box
        h = {a: halo[AXES.index(a)] for a in AXES}
        ok = plan.backend == ("cpu" if lib.name == "numpy" else plan.backend) and plan.backend != "auto"
        ok &= box.order == p.order and box.order[0] == pencil
        ok &= p.start == tuple(box.start[d] - halo[d] for d in range(3))
        ok &= p.size == tuple(box.size[d] + 2 * halo[d] for d in range(3))
        ok &= plan.padded_shape == tuple(n + 2 * h[a] for n, a in zip(box.shape, reversed(box.order))) + box.shape[3:]
        ok &= plan.padded_shape == p.shape
        mine = interior_values(box, shape, dtype, howmany)
        ok &= mine.shape == box.shape
        buf = poison(plan.padded_shape, dtype)
        buf[plan.interior] = mine
        want, beyond = reference(plan, gathered((box.start, box.size, box.order, entry_bytes(mine, howmany))))
        # The interior as the reference has it: the slices and the gathered array agree.
        ok &= same_bits(want[plan.interior], mine)
        b = lib.put(buf)
        for _ in range(2):  # the second on the first one's result: the same again
            got = plan.execute(b)
            ok &= got is b
            lib.sync()
            ok &= same_bits(lib.get(b), want)
        return ok, box.bytes == 0, beyond


def rotated_cases(k):
    """(grid, pencil, case) on every grid and pencil, three of CASES each, from the k-th on (the dtypes
    take them in turn, so that every case meets every grid and pencil over the dtypes)."""
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for j, pencil in enumerate(AXES):
                for i in range(3):
                    yield grid, pencil, CASES[(3 * (k + j) + i) % len(CASES)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_grid_and_pencil(lib, dtype):
    """Every grid and pencil, three of CASES each in turn."""
    if not lib.supports(dtype):
        pytest.skip(f"{lib} has no {dtype}")
    if lib.name == "jax":
        pytest.skip("JAX arrays give a fresh array, not in place: test_jax")
    ok, empty, beyond, cases = True, False, 0, 0
    for grid, pencil, (shape, halo, periodic, howmany) in rotated_cases(DTYPES.index(dtype)):
        good, e, b = run_case(lib, grid, shape, pencil, dtype, halo, periodic, howmany)
        ok &= good
        empty |= e
        beyond += b
        cases += 1
    assert everywhere(ok), f"{cases} cases"
    assert everywhere(beyond > 0)
    if COMM.Get_size() > 1:
        assert everywhere(gathered(empty) and any(gathered(empty)))


def test_all_cases(lib):
    """Every case of CASES on every grid and pencil, in one type."""
    if lib.name == "jax":
        pytest.skip("JAX arrays give a fresh array, not in place: test_jax")
    ok = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for pencil in AXES:
                for shape, halo, periodic, howmany in CASES:
                    ok &= run_case(lib, grid, shape, pencil, "float64", halo, periodic, howmany)[0]
    assert everywhere(ok)


def padded_cells(plan):
    """This rank's padded cells in memory order (the padded shape's three axes): their global (x, y, z)
    coordinates, whether each is written by execute (periodic or inside the domain along every axis), and
    whether it is in the box."""
    p, box = plan.padded_box, plan.box
    g = np.meshgrid(*[np.arange(p.start[d], p.start[d] + p.size[d]) for d in range(3)], indexing="ij")
    g = [np.transpose(a, [AXES.index(axis) for axis in reversed(p.order)]) for a in g]
    written, inside = True, True
    for d in range(3):
        written = written & (plan.periodic[d] | ((g[d] >= 0) & (g[d] < plan.shape[d])))
        inside = inside & (g[d] >= box.start[d]) & (g[d] < box.start[d] + box.size[d])
    return g, written, inside


def small_values(plan, seed):
    """Small integers (-1, 0, 1; complex: both parts) of the plan's type and padded shape: every sum of
    the adjoint is exact, whatever its order."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-1, 2, plan.padded_shape).astype(np.float64)
    if plan.dtype.startswith("complex"):
        v = v + 1j * rng.integers(-1, 2, plan.padded_shape)
    return v.astype(numpy_dtype(plan.dtype))


def random_values(plan, seed):
    """Random values of the plan's type (int8: any; floating point: normal), whose sums round."""
    rng = np.random.default_rng(seed)
    if plan.dtype == "int8":
        return rng.integers(-128, 128, plan.padded_shape).astype(np.int8)
    v = rng.standard_normal(plan.padded_shape)
    if plan.dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(plan.padded_shape)
    return v.astype(numpy_dtype(plan.dtype))


def adjoint_reference(plan, y):
    """adjoint(y), y small integers on every rank: each cell of the box plus every written halo cell of
    every rank that stands for it; the written halo zero, the cells beyond edges that are not periodic as
    they were."""
    g, written, inside = padded_cells(plan)
    n = plan.shape
    flat = sum(np.mod(g[d], n[d]) * int(np.prod(n[:d])) for d in range(3))
    wide = np.complex128 if plan.dtype.startswith("complex") else np.float64
    values = np.asarray(y).astype(wide).reshape(written.shape + (plan.howmany,))
    total = np.zeros((int(np.prod(n)), plan.howmany), wide)
    for cells, sums in gathered((flat[written], values[written])):
        np.add.at(total, cells, sums)
    want = values.copy()
    want[written & ~inside] = 0
    want[inside] = total[flat[inside]]
    return want.astype(numpy_dtype(plan.dtype)).reshape(plan.padded_shape)


def adjoint_case(lib, grid, shape, pencil, dtype, halo, periodic, howmany):
    """One plan's adjoint: against the reference, in the dot-product identity, and random values the same
    bits twice and as the cpu backend's."""
    with dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                     backend=lib.backend) as plan:
        x, y = small_values(plan, 2 * R), small_values(plan, 2 * R + 1)
        b = lib.put(y)
        ok = plan.adjoint(b) is b
        lib.sync()
        got, hx = lib.get(b), lib.get(plan.execute(lib.put(x)))
        lib.sync()
        ok &= same_bits(got, adjoint_reference(plan, y))
        dots = np.array([np.vdot(y.astype(np.complex128), hx), np.vdot(got.astype(np.complex128), x)])
        dots = sum(gathered(dots))
        ok &= dots[0] == dots[1]
        r = random_values(plan, 3 * R + 7)
        once, twice = lib.get(plan.adjoint(lib.put(r))), lib.get(plan.adjoint(lib.put(r)))
        lib.sync()
        ok &= same_bits(once, twice)
    if lib.backend != "cpu":
        with dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                         backend="cpu") as host:
            ok &= same_bits(host.adjoint(r.copy()), once)
    return ok


@pytest.mark.parametrize("dtype", DTYPES)
def test_adjoint(lib, dtype):
    """The adjoint on every grid and pencil, three of CASES each in turn (as test_every_grid_and_pencil)."""
    if not lib.supports(dtype):
        pytest.skip(f"{lib} has no {dtype}")
    if lib.name == "jax":
        pytest.skip("JAX arrays: test_jax_adjoint_and_gradients")
    ok, cases = True, 0
    for grid, pencil, (shape, halo, periodic, howmany) in rotated_cases(DTYPES.index(dtype)):
        ok &= adjoint_case(lib, grid, shape, pencil, dtype, halo, periodic, howmany)
        cases += 1
    assert everywhere(ok), f"{cases} cases"


def test_scalar_arguments_and_plan_outliving_grid():
    """halo and periodic as one value for every axis; the plan works after its grid is closed; close is
    idempotent; a closed plan refuses."""
    grid = dt.Grid(COMM)
    shape = (6, 5, 4)
    plan = dt.HaloPlan(grid, shape, "y", "int8", halo=2, periodic=False, backend="cpu")
    assert everywhere(plan.halo == (2, 2, 2) and plan.periodic == (False, False, False))
    mine = interior_values(plan.box, shape, "int8", 1)
    pieces = gathered((plan.box.start, plan.box.size, plan.box.order, entry_bytes(mine, 1)))
    grid.close()
    buf = poison(plan.padded_shape, "int8")
    buf[plan.interior] = mine
    want, _ = reference(plan, pieces)
    assert everywhere(same_bits(plan.execute(buf), want))
    assert everywhere("Y-pencils" in repr(plan) and plan.backend == "cpu")
    plan.close()
    plan.close()
    assert everywhere("closed" in repr(plan))
    with pytest.raises(dt.Error, match="closed"):
        plan.execute(buf)
    with pytest.raises(dt.Error, match="closed"):
        plan.backend


def test_bad_arguments():
    with dt.Grid(COMM) as grid:
        def make(shape=(8, 6, 5), pencil="x", dtype="float32", **kw):
            kw.setdefault("backend", "cpu")
            return lambda: dt.HaloPlan(grid, shape, pencil, dtype, **kw)

        raises_everywhere(make(halo=(1, -1, 1)), RESULT_INVALID_ARGUMENT, "widths must be 0 or more")
        raises_everywhere(make(halo=(1, 1, 6), periodic=(F, F, T)), RESULT_INVALID_ARGUMENT, "wider than the periodic axis")
        raises_everywhere(make(halo=(1, 2)), RESULT_INVALID_ARGUMENT, "three values")
        raises_everywhere(make(halo=(1, 1.5, 1)), RESULT_INVALID_ARGUMENT, "whole number")
        raises_everywhere(make(halo=(1 << 40, 1, 1), periodic=F), RESULT_INVALID_ARGUMENT, "too large")
        raises_everywhere(make(periodic=(T, "yes", T)), RESULT_INVALID_ARGUMENT, "True or False")
        raises_everywhere(make(periodic=(T, 2, T)), RESULT_INVALID_ARGUMENT, "True or False")
        raises_everywhere(make(pencil="w"), RESULT_INVALID_ARGUMENT, "'x', 'y' or 'z'")
        raises_everywhere(make(shape=(8, 6)), RESULT_INVALID_ARGUMENT, "(nx, ny, nz)")
        raises_everywhere(make(shape=(8, 0, 5)), RESULT_INVALID_ARGUMENT, "shape[1]")
        raises_everywhere(make(dtype="float128"), RESULT_INVALID_ARGUMENT, "float128")
        raises_everywhere(make(howmany=0), RESULT_INVALID_ARGUMENT, "howmany")
        raises_everywhere(make(backend="gpu"), RESULT_INVALID_ARGUMENT, "backend")
    raises_everywhere(make(), RESULT_INVALID_ARGUMENT, "closed")


def test_arguments_that_differ_between_ranks():
    """One rank's bad argument, and arguments that differ: the same Error on every rank, naming it."""
    with dt.Grid(COMM) as grid:
        def make(halo=(1, 1, 1), periodic=(T, T, T), dtype="float64", shape=(8, 6, 5)):
            return lambda: dt.HaloPlan(grid, shape, "z", dtype, halo=halo, periodic=periodic, backend="cpu")

        msg = raises_everywhere(make(halo=(1, 1, -2) if R == LAST else (1, 1, 1)), RESULT_INVALID_ARGUMENT, "widths")
        msg = raises_everywhere(make(halo=(1, 2) if R == LAST else (1, 1, 1)), RESULT_INVALID_ARGUMENT, "three values")
        assert everywhere(R == LAST or f"rank {LAST}:" in msg), msg
        if COMM.Get_size() > 1:
            raises_everywhere(make(halo=(1, 1, 2 if R == 0 else 1)), RESULT_MISMATCH, "halo[2] (z) differs between ranks")
            raises_everywhere(make(periodic=(T, R != 0, T)), RESULT_MISMATCH, "periodic")
            raises_everywhere(make(dtype="float32" if R == 0 else "float64"), RESULT_MISMATCH, "type")
            raises_everywhere(make(shape=(8, 6, 5 + (R == LAST))), RESULT_MISMATCH, "nz")


def test_bad_buffers():
    """Wrong arrays on every rank, or on one: Error on every rank before anything is exchanged."""
    with dt.Grid(COMM) as grid, dt.HaloPlan(grid, (8, 6, 5), "x", "complex64", halo=(1, 2, 1), backend="cpu") as plan:
        good = poison(plan.padded_shape, "complex64")
        raises_everywhere(lambda: plan.execute(good.astype(np.complex128)), RESULT_INVALID_ARGUMENT, "complex128")
        raises_everywhere(lambda: plan.execute(poison(plan.box.shape, "complex64")), RESULT_INVALID_ARGUMENT,
                          "has shape")
        wide = poison(plan.padded_shape[:2] + (2 * plan.padded_shape[2],), "complex64")
        raises_everywhere(lambda: plan.execute(wide[:, :, ::2]), RESULT_INVALID_ARGUMENT, "contiguous")
        ro = good.copy()
        ro.flags.writeable = False
        raises_everywhere(lambda: plan.execute(ro), RESULT_INVALID_ARGUMENT, "read-only")
        raises_everywhere(lambda: plan.execute(good.tolist()), RESULT_INVALID_ARGUMENT, "not an array")
        # One rank's wrong array: every rank refuses, naming it, and nothing is written anywhere.
        mine = good.copy()
        before = mine.copy()
        bad = mine.astype(np.complex128) if R == LAST else mine
        msg = raises_everywhere(lambda: plan.execute(bad), RESULT_INVALID_ARGUMENT, "complex128")
        assert everywhere(R == LAST or f"rank {LAST}:" in msg), msg
        assert everywhere(same_bits(mine, before))
        # ... and the plan still works
        assert everywhere(plan.execute(good) is good)


@pytest.fixture(params=framework_platforms("jax"))
def jax_where(request):
    return jax_platform(request.param)


def jax_case(where, grid, shape, pencil, dtype, halo, periodic, howmany):
    """One plan on JAX arrays: eager and jitted executes against the reference, the input untouched, and
    the result of one taken by the next (the same again)."""
    import jax
    with dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                     backend=where.backend) as plan:
        mine = interior_values(plan.box, shape, dtype, howmany)
        buf = poison(plan.padded_shape, dtype)
        buf[plan.interior] = mine
        want, _ = reference(plan, gathered((plan.box.start, plan.box.size, plan.box.order, entry_bytes(mine, howmany))))
        with where.default():
            b = where.put(buf)
            eager = plan.execute(b)
            jitted = jax.jit(plan.execute)(b)
            twice = jax.jit(lambda u: plan.execute(plan.execute(u)))(b)
            ok = all(same_bits(np.asarray(y), want) for y in (eager, jitted, twice))
            ok &= list(eager.devices()) == [where.device] and same_bits(np.asarray(b), buf)
        return ok


def test_jax(jax_where):
    """JAX arrays on every grid and pencil, two cases each in turn and four element types: a fresh array,
    eagerly and under jax.jit, the same bits as the reference."""
    ok, n = True, 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for j, pencil in enumerate(AXES):
                for i, dtype in enumerate(("float64", "complex64", "int8", "float32")):
                    shape, halo, periodic, howmany = CASES[(2 * j + i) % len(CASES)]
                    ok &= jax_case(jax_where, grid, shape, pencil, dtype, halo, periodic, howmany)
                    n += 1
    assert everywhere(ok), f"{n} cases"


def test_jax_vmap_jvp_and_wrong_tracer(jax_where):
    """vmap over a leading batch (one exchange of howmany x the batch), jvp (the exchange of the tangent);
    a tracer of the wrong shape refused at trace time on every rank."""
    import jax
    import jax.numpy as jnp
    shape, halo, periodic = (7, 5, 3), (2, 1, 1), (True, False, True)
    with dt.Grid(COMM) as grid, jax_where.default(), \
            dt.HaloPlan(grid, shape, "y", "float64", halo=halo, periodic=periodic, backend=jax_where.backend) as plan:
        rng = np.random.default_rng(R)
        batch = rng.standard_normal((3,) + plan.padded_shape)
        x = jax_where.put(batch)
        got = jax.jit(jax.vmap(plan.execute))(x)
        want = np.stack([np.asarray(plan.execute(jax_where.put(batch[k]))) for k in range(3)])
        ok = same_bits(np.asarray(got), want)
        primal, tangent = jax.jvp(plan.execute, (x[0],), (x[1],))
        ok &= same_bits(np.asarray(primal), want[0]) and same_bits(np.asarray(tangent), want[1])
        assert everywhere(ok)
        wrong = jnp.zeros(plan.padded_shape[:-1] + (plan.padded_shape[-1] + (R == LAST),), jnp.float64)
        msg = raises_everywhere(lambda: jax.jit(plan.execute)(wrong), RESULT_INVALID_ARGUMENT, "has shape")
        assert everywhere(R == LAST or f"rank {LAST}" in msg), msg
        with pytest.raises(dt.Error, match="stream"):
            plan.execute(x[0], stream=0)


def test_jax_adjoint_and_gradients(jax_where):
    """adjoint on JAX arrays, eager and jitted, the cpu backend's bits; jax.grad, vjp (vmapped too) and
    linear_transpose through execute give adjoint's bits, linear_transpose of adjoint execute's; the
    gradient of sum(execute(u) * w) over the ranks against central differences; every grid, a pencil
    and case each in turn."""
    import jax
    import jax.numpy as jnp
    ok, n = True, 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for j, pencil in enumerate(AXES):
                for dtype in ("float64", "complex128", "float32"):
                    shape, halo, periodic, howmany = CASES[(j + 3 * n) % len(CASES)]
                    n += 1
                    with dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                                     backend=jax_where.backend) as plan, \
                            dt.HaloPlan(grid, shape, pencil, dtype, halo=halo, periodic=periodic, howmany=howmany,
                                        backend="cpu") as host, jax_where.default():
                        x, w = random_values(plan, 5 * R), random_values(plan, 5 * R + 1)
                        want, hx = host.adjoint(w.copy()), host.execute(x.copy())
                        xj, wj = jax_where.put(x), jax_where.put(w)
                        got = [plan.adjoint(wj), jax.jit(plan.adjoint)(wj), jax.vjp(plan.execute, xj)[1](wj)[0],
                               jax.linear_transpose(plan.execute, xj)(wj)[0]]
                        if not dtype.startswith("complex"):
                            got.append(jax.grad(lambda u: jnp.sum(plan.execute(u) * wj))(xj))
                        ok &= all(same_bits(np.asarray(g), want) for g in got)
                        ok &= same_bits(np.asarray(jax.linear_transpose(plan.adjoint, wj)(xj)[0]), hx)
                        batch = np.stack([w, 2 * w])
                        pull = jax.vjp(plan.execute, xj)[1]
                        ok &= same_bits(np.asarray(jax.jit(jax.vmap(lambda c: pull(c)[0]))(jax_where.put(batch))),
                                        np.stack([want, host.adjoint(batch[1].copy())]))
                        if dtype == "float64":
                            v = random_values(plan, 5 * R + 2)
                            f = jax.jit(lambda u: jnp.sum(plan.execute(u) * wj))
                            eps = 1e-3
                            diff = sum(gathered(float(f(jax_where.put(x + eps * v)) - f(jax_where.put(x - eps * v)))))
                            slope = sum(gathered(float(np.sum(want * v))))
                            ok &= abs(diff / (2 * eps) - slope) <= 1e-9 * max(1.0, abs(slope))
    assert everywhere(ok), f"{n} cases"
