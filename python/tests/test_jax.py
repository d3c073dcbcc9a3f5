"""JAX through XLA's custom calls: on the host (cpu backend, in CI) and on GPUs where there are. Jitted
against eager and both against the pattern, bit for bit (transposes of every type, pencils on every
grid, odd shapes, empty boxes, loops); gradients (grad, vjp, jvp, linear_transpose) against the
reference of the whole array; vmap; independent transposes in one jitted function; a wrong tracer
refused at trace time on every rank; closed plans. JAX arrays without the custom calls:
test_jax_without_custom_calls.py."""


import numpy as np
import pytest
from conftest import COMM, DTYPES, FrameworkWhere, custom_calls_missing, everywhere, framework_platforms, \
    raises_everywhere, same_bits
from test_pencils import SHAPES, box_values, directions, grids
from test_transpose import shapes, slabs

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from disttranspose import _jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
pytestmark = pytest.mark.skipif(custom_calls_missing() is not None, reason=str(custom_calls_missing()))

R, LAST = COMM.Get_rank(), COMM.Get_size() - 1


@pytest.fixture(params=framework_platforms("jax"))
def where(request):
    return FrameworkWhere("jax", request.param)


@pytest.mark.parametrize("dtype", DTYPES)
def test_jit_matches_eager(where, dtype):
    ok, cases = True, 0
    f = None
    for i, (rows, cols) in enumerate(shapes()):
        howmany = 3 if i % 2 else 1
        with dt.Plan(rows, cols, dtype, COMM, howmany=howmany, backend=where.backend) as plan:
            a, want = slabs(rows, cols, dtype, howmany, plan.local)
            x = where.put(a)
            f = jax.jit(plan.execute)
            eager, jitted = plan.execute(x), f(x)
            ok &= same_bits(np.asarray(eager), want) and same_bits(np.asarray(jitted), want)
            ok &= list(jitted.devices()) == [where.device]
            cases += 1
    assert everywhere(ok), f"{cases} cases"


def test_pencils_jitted(where):
    """Every direction jitted against the pattern, a round trip in one jitted function, and one in a loop."""
    ok = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for i, shape in enumerate(SHAPES):
                dtype, howmany = ("complex64", 1) if i % 2 else ("float64", 2)
                plans = {}
                for src, dst in directions(pr):
                    plans[src, dst] = plan = dt.PencilPlan(grid, shape, src, dst, dtype, howmany=howmany,
                                                           backend=where.backend)
                    a = box_values(grid.box(shape, src, dtype, howmany), shape, dtype, howmany)
                    want = box_values(grid.box(shape, dst, dtype, howmany), shape, dtype, howmany)
                    ok &= same_bits(np.asarray(jax.jit(plan.execute)(where.put(a))), want)
                x0 = where.put(box_values(grid.box(shape, "x", dtype, howmany), shape, dtype, howmany))
                path = ["x", "y", "z", "y", "x"]

                def round_trip(u):
                    for s, d in zip(path, path[1:]):
                        u = plans[s, d].execute(u)
                    return u

                ok &= same_bits(np.asarray(jax.jit(round_trip)(x0)), np.asarray(x0))
                loop = jax.jit(lambda u: jax.lax.fori_loop(0, 3, lambda _, v: round_trip(v), u))
                ok &= same_bits(np.asarray(loop(x0)), np.asarray(x0))
                for plan in plans.values():
                    plan.close()
    assert everywhere(ok)


def _whole(rows, cols, seed):
    """A matrix of exact small values, the same on every rank."""
    return np.random.default_rng(seed).integers(-8, 8, size=(rows, cols)).astype(np.float64)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradients(where, dtype):
    """grad, vjp, jvp and linear_transpose of a transpose, eager and jitted, against A and W of the whole
    matrix: the adjoint takes W's rows of B back to W^T's rows of A."""
    rows, cols = 2 * COMM.Get_size() + 3, 5
    A, W = _whole(rows, cols, 1), _whole(cols, rows, 2)
    if dtype == "complex128":
        A, W = A + 1j * _whole(rows, cols, 3), W - 2j * _whole(cols, rows, 4)
    ok = True
    with dt.Plan(rows, cols, dtype, COMM, backend=where.backend) as plan:
        ls = plan.local
        a = where.put(A[ls.in_row_start:ls.in_row_start + ls.in_rows])
        w = where.put(W[ls.out_row_start:ls.out_row_start + ls.out_rows])
        b_want = A.T[ls.out_row_start:ls.out_row_start + ls.out_rows]
        g_want = W.T[ls.in_row_start:ls.in_row_start + ls.in_rows]
        y, pull = jax.vjp(plan.execute, a)
        ok &= same_bits(np.asarray(y), b_want) and same_bits(np.asarray(pull(w)[0]), g_want)
        ok &= same_bits(np.asarray(jax.jit(lambda c: jax.vjp(plan.execute, a)[1](c)[0])(w)), g_want)
        ok &= same_bits(np.asarray(jax.linear_transpose(plan.execute, a)(w)[0]), g_want)
        y, t = jax.jvp(plan.execute, (a,), (where.put(g_want),))
        ok &= same_bits(np.asarray(y), b_want) and same_bits(np.asarray(t), np.asarray(w))
        if dtype == "float64":
            def loss(x):
                return jnp.sum(w * plan.execute(x))
            ok &= same_bits(np.asarray(jax.grad(loss)(a)), g_want)
            ok &= same_bits(np.asarray(jax.jit(jax.grad(loss))(a)), g_want)
    assert everywhere(ok)


def test_pencil_adjoint(where):
    """The adjoint of X -> Y is Y -> X: the cotangent's pattern comes back in the X-pencils' order."""
    ok = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            shape, dtype = (7, 5, 3), "complex128"
            with dt.PencilPlan(grid, shape, "x", "y", dtype, backend=where.backend) as plan:
                x = where.put(box_values(grid.box(shape, "x", dtype), shape, dtype))
                w = where.put(box_values(grid.box(shape, "y", dtype), shape, dtype))
                _, pull = jax.vjp(jax.jit(plan.execute), x)
                ok &= same_bits(np.asarray(pull(w)[0]), np.asarray(x))
    assert everywhere(ok)


def test_vmap(where):
    """A leading batch becomes howmany: the same bits as one execute per element, eager and jitted."""
    ok = True
    rows, cols = COMM.Get_size() + 2, 4
    for howmany in (1, 2):
        with dt.Plan(rows, cols, "float32", COMM, howmany=howmany, backend=where.backend) as plan:
            a, _ = slabs(rows, cols, "float32", howmany, plan.local)
            xs = where.put(np.stack([a, a[::-1].copy() if a.size else a, a]))
            want = np.stack([np.asarray(plan.execute(x)) for x in xs])
            ok &= same_bits(np.asarray(jax.vmap(plan.execute)(xs)), want)
            ok &= same_bits(np.asarray(jax.jit(jax.vmap(plan.execute))(xs)), want)
            # the batch on another axis than the first
            ok &= same_bits(np.asarray(jax.vmap(plan.execute, in_axes=1)(jnp.moveaxis(xs, 0, 1))), want)
    with dt.Grid(COMM) as grid:
        shape = (5, 4, 3)
        with dt.PencilPlan(grid, shape, "y", "z", "complex64", backend=where.backend) as plan:
            y = box_values(grid.box(shape, "y", "complex64"), shape, "complex64")
            ys = where.put(np.stack([y, np.roll(y, 1)]))
            want = np.stack([np.asarray(plan.execute(v)) for v in ys])
            ok &= same_bits(np.asarray(jax.jit(jax.vmap(plan.execute))(ys)), want)
    assert everywhere(ok)


def test_independent_transposes_in_one_function(where):
    """Transposes with no data between them, on two communicators: in program order on every rank."""
    half = COMM.Split(R % 2, R)
    ok = True
    with dt.Plan(60, 40, "float64", COMM, backend=where.backend) as p1, \
            dt.Plan(21, 33, "complex128", half, backend=where.backend) as p2:
        a1, b1 = slabs(60, 40, "float64", 1, p1.local)
        a2, b2 = slabs(21, 33, "complex128", 1, p2.local)

        @jax.jit
        def f(u, v):
            return p1.execute(u), p2.execute(v), p1.execute(-u)

        for _ in range(5):
            y1, y2, y3 = f(where.put(a1), where.put(a2))
            ok &= same_bits(np.asarray(y1), b1) and same_bits(np.asarray(y2), b2)
            ok &= same_bits(np.asarray(y3), -b1)
    half.Free()
    assert everywhere(ok)


def test_wrong_tracer_refused_at_trace_time():
    # The cpu backend's plans take host arrays: this test's are on the CPU device, whatever JAX's default.
    with jax.default_device(jax.devices("cpu")[0]):
        with dt.Plan(9, 7, "float32", COMM, backend="cpu") as plan:
            f = jax.jit(plan.execute)
            rows = plan.in_shape[0]
            raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct((rows + 1, 7), jnp.float32)), RESULT_INVALID_ARGUMENT,
                              "a has shape")
            raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct(plan.in_shape, jnp.float64)), RESULT_INVALID_ARGUMENT,
                              "elements of float64")
            # on one rank only: every rank's trace stops, naming it
            bad = jax.ShapeDtypeStruct((rows + (R == LAST), 7), jnp.float32)
            msg = raises_everywhere(lambda: jax.jit(plan.execute)(jnp.zeros(bad.shape, bad.dtype)), RESULT_INVALID_ARGUMENT,
                                    "shape")
            assert everywhere(R == LAST or f"rank {LAST}:" in msg), msg
            raises_everywhere(lambda: jax.grad(lambda x: jnp.sum(plan.execute(x)))(jnp.zeros((rows + 1, 7), jnp.float32)),
                              RESULT_INVALID_ARGUMENT, "shape")
            raises_everywhere(lambda: plan.execute(jnp.zeros(plan.in_shape, jnp.float32), out=1), RESULT_INVALID_ARGUMENT,
                              "immutable")
            # ... and still fine afterwards
            assert everywhere(np.asarray(f(jnp.zeros(plan.in_shape, jnp.float32))).shape == plan.out_shape)


def test_closed_plan():
    """A jitted function of a closed plan fails on every rank (no collective is left waiting)."""
    # The cpu backend's plans take host arrays: this test's are on the CPU device, whatever JAX's default.
    with jax.default_device(jax.devices("cpu")[0]):
        plan = dt.Plan(6, 5, "float32", COMM, backend="cpu")
        f = jax.jit(plan.execute)
        x = jnp.zeros(plan.in_shape, jnp.float32)
        ok = np.asarray(f(x)).shape == plan.out_shape
        plan.close()
        try:
            np.asarray(f(x))
            failed = ""
        except Exception as e:  # noqa: BLE001 (XLA's runtime error, carrying the handler's message)
            failed = str(e)
        assert everywhere(ok and "closed" in failed), failed
