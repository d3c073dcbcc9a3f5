"""The distributed FFT (disttranspose.fft) as an operation of JAX and PyTorch programs: on the host (cpu
backend, in CI) and on GPUs where there are. jax.jit against eager calls bit for bit and both against
numpy.fft of the whole array (every transform, every norm, odd shapes, every grid, empty boxes);
jax.vjp, jax.grad, jax.jvp and jax.linear_transpose against jax.numpy.fft of the whole array; vmap;
torch.autograd.gradcheck of each transform as a function of the whole array (float64, complex128);
torch.compile(fullgraph=True) forward and backward against eager; several fields of one plan (howmany)
against the single-field calls, results and gradients; padded calls (the 3/2 rule): JAX's values and
gradients against jax.numpy.fft of the whole padded grid, PyTorch's gradcheck; plans with real-to-real
kinds (kinds=), results and gradients against the definitions' sums and their explicit transpose,
gradcheck; a wrong tracer or tensor refused at trace time on every rank."""


import contextlib

import numpy as np
import pytest
from conftest import COMM, FrameworkWhere, custom_calls_missing, everywhere, framework_platforms, gathered, \
    jax_platform, largest, raises_everywhere, same_bits
from test_fft import by_kinds, half, host_fft_built, local, padded_reference, padded_shape, whole

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT

R, LAST = COMM.Get_rank(), COMM.Get_size() - 1
# Odd and even nx (the R2C adjoint's doubled planes), primes, axes of fewer planes than ranks.
SHAPES = [(6, 5, 4), (7, 3, 5), (2, 3, 1)]
# gradcheck perturbs every entry of the whole array: small ones, even and odd nx.
GRADCHECK_SHAPES = [(4, 3, 2), (5, 2, 3)]
NORMS = ["backward", "ortho", "forward"]
# name: (its inverse, whether x is real, whether x is the X-pencil side)
KINDS = {"fftn": ("ifftn", False, True), "ifftn": ("fftn", False, False),
         "rfftn": ("irfftn", True, True), "irfftn": ("rfftn", False, False)}
def grids():
    p = COMM.Get_size()
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def sides(name, shape, grid, dtype="float64"):
    """The call's input and output: (box, element type, the whole array [z][y][x] maker) per side."""
    ctype = "complex128" if dtype == "float64" else "complex64"
    real = name in ("rfftn", "irfftn")
    xtype = dtype if real else ctype
    cshape = half(shape) if real else shape
    x_side = (grid.box(shape, "x", xtype), xtype, shape)
    z_side = (grid.box(cshape, "z", ctype), ctype, cshape)
    return (x_side, z_side) if KINDS[name][2] else (z_side, x_side)


def whole_of(shape_xyz, dtype, seed):
    """A whole array [z][y][x] of `dtype`, the same on every rank (seeded)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape_xyz[::-1])
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape_xyz[::-1])
    return a.astype(dtype)


def reference(name, shape, norm, xp):
    """The call on whole arrays [z][y][x] with xp's fft (numpy.fft or jax.numpy.fft)."""
    if name == "fftn":
        return lambda a: xp.fft.fftn(a, norm=norm)
    if name == "ifftn":
        return lambda a: xp.fft.ifftn(a, norm=norm)
    if name == "rfftn":
        return lambda a: xp.fft.rfftn(a, norm=norm)
    return lambda a: xp.fft.irfftn(a, s=shape[::-1], axes=(0, 1, 2), norm=norm)


def call(name, grid, shape, norm, backend):
    fn = getattr(dt.fft, name)
    return lambda a: fn(a, grid, shape, norm=norm, backend=backend)


class Worst:
    """The largest error of a test's results, relative to the largest entry of the whole reference."""

    def __init__(self):
        self.value, self.ok = 0.0, True

    def add(self, got, want, reference):
        got = np.asarray(got)
        self.ok &= got.shape == want.shape and got.dtype == want.dtype
        if self.ok and got.size:
            self.value = max(self.value, float(np.abs(got - want).max() / max(np.abs(reference).max(), 1e-300)))

    def below(self, tolerance):
        worst = largest(self.value)
        return everywhere(self.ok) and worst <= tolerance, worst


# ---- JAX -----------------------------------------------------------------------------------------

@pytest.fixture(params=framework_platforms("jax"))
def jax_where(request):
    where = jax_platform(request.param)
    if request.param == "cpu" and not host_fft_built():
        pytest.skip("this build of the library has no FFTW: the FFT of host memory is not there")
    return where


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(KINDS))
def test_jax_jit_matches_eager(jax_where, name, dtype):
    """Every transform and norm on every grid and shape: jitted and eager the same bits, both against
    numpy.fft of the whole array, fresh arrays on the input's device; two calls in one function."""
    import jax
    worst, same, n = Worst(), True, 0
    tolerance = 1e-12 if dtype == "float64" else 2e-5
    with jax_where.default():
        for pr, pc in grids():
            with dt.Grid(COMM, pr, pc) as grid:
                for i, shape in enumerate(SHAPES):
                    norm = NORMS[(i + n) % len(NORMS)]
                    (bin_, tin, sin), (bout, tout, sout) = sides(name, shape, grid, dtype)
                    data = whole_of(sin, tin, 10 + i)
                    if name == "irfftn":  # a real array's spectrum, so that the round trip gives it back
                        data = np.fft.rfftn(whole_of(shape, dtype, 10 + i)).astype(tin)
                    wide = np.complex128 if "complex" in tin else np.float64
                    want = reference(name, shape, norm, np)(data.astype(wide))
                    f = call(name, grid, shape, norm, jax_where.backend)
                    x = jax_where.put(local(data, bin_))
                    eager, jitted = f(x), jax.jit(f)(x)
                    same &= same_bits(np.asarray(eager), np.asarray(jitted))
                    same &= list(jitted.devices()) == [jax_where.device] and jitted.dtype == np.dtype(tout)
                    worst.add(np.asarray(jitted).astype(want.dtype), local(want, bout), want)
                    # a round trip in one jitted function (two custom calls, chained)
                    back = call(KINDS[name][0], grid, shape, norm, jax_where.backend)
                    round_trip = np.asarray(jax.jit(lambda u: back(f(u)))(x))
                    worst.add(round_trip.astype(np.float64 if tin.startswith("float") else np.complex128),
                              local(data, bin_).astype(np.float64 if tin.startswith("float") else np.complex128), data)
                    n += 1
    ok, value = worst.below(tolerance)
    assert ok and everywhere(same), f"{n} cases: error {value:.3g}, bits {same}"


@pytest.mark.parametrize("name", list(KINDS))
def test_jax_gradients(jax_where, name):
    """vjp (eager and jitted), linear_transpose, jvp and grad of each transform and norm against
    jax.numpy.fft of the whole array: the transpose of this rank's part is this rank's part of the
    whole transpose. float64 / complex128; irfftn's cotangent of a non-Hermitian spectrum included."""
    import jax
    import jax.numpy as jnp
    worst, n = Worst(), 0
    with jax_where.default():
        for pr, pc in grids():
            with dt.Grid(COMM, pr, pc) as grid:
                for i, shape in enumerate(SHAPES):
                    norm = NORMS[(i + pr) % len(NORMS)]
                    (bin_, tin, sin), (bout, tout, sout) = sides(name, shape, grid)
                    X, W, T = whole_of(sin, tin, 20 + i), whole_of(sout, tout, 30 + i), whole_of(sin, tin, 40 + i)
                    ref = reference(name, shape, norm, jnp)
                    with jax.default_device(jax.devices("cpu")[0]):
                        _, pull = jax.vjp(ref, jnp.asarray(X))
                        g_want = np.asarray(pull(jnp.asarray(W))[0])
                        t_want = np.asarray(jax.jvp(ref, (jnp.asarray(X),), (jnp.asarray(T),))[1])
                        # grad of a real loss: sum(Re(conj(W) * f(X)))
                        loss_want = np.asarray(jax.grad(lambda a: jnp.sum(jnp.real(jnp.conj(W) * ref(a))))(
                            jnp.asarray(X)))
                    f = call(name, grid, shape, norm, jax_where.backend)
                    x, w, t = (jax_where.put(local(a, b)) for a, b in ((X, bin_), (W, bout), (T, bin_)))
                    y, pull = jax.vjp(f, x)
                    worst.add(pull(w)[0], local(g_want, bin_), g_want)
                    worst.add(jax.jit(lambda c: jax.vjp(f, x)[1](c)[0])(w), local(g_want, bin_), g_want)
                    worst.add(jax.linear_transpose(f, x)(w)[0], local(g_want, bin_), g_want)
                    worst.add(jax.jvp(f, (x,), (t,))[1], local(t_want, bout), t_want)

                    def loss(a):
                        return jnp.sum(jnp.real(jnp.conj(w) * f(a)))
                    worst.add(jax.jit(jax.grad(loss))(x), local(loss_want, bin_), loss_want)
                    n += 1
    ok, value = worst.below(1e-12)
    assert ok, f"{n} cases: error {value:.3g}"


def test_jax_vmap(jax_where):
    """A batch runs one execute an element: the same bits as the calls one by one, eager and jitted."""
    import jax
    ok = True
    shape = (5, 4, 3)
    with jax_where.default():
        with dt.Grid(COMM) as grid:
            for name in ("fftn", "rfftn"):
                (bin_, tin, sin), _ = sides(name, shape, grid)
                f = call(name, grid, shape, "ortho", jax_where.backend)
                xs = jax_where.put(np.stack([local(whole_of(sin, tin, s), bin_) for s in range(3)]))
                want = np.stack([np.asarray(f(v)) for v in xs])
                ok &= same_bits(np.asarray(jax.vmap(f)(xs)), want)
                ok &= same_bits(np.asarray(jax.jit(jax.vmap(f))(xs)), want)
                ok &= same_bits(np.asarray(jax.vmap(f, in_axes=1, out_axes=1)(np.moveaxis(xs, 0, 1))),
                                np.moveaxis(want, 0, 1))
    assert everywhere(ok)


def test_jax_howmany(jax_where):
    """Two fields of one plan (howmany, a trailing axis) through JAX: jitted against eager bit for bit,
    each field's result and gradient (vjp) against the single-field call's of that field."""
    import jax
    worst, ok, shape = Worst(), True, (5, 4, 3)
    with jax_where.default():
        for pr, pc in grids():
            with dt.Grid(COMM, pr, pc) as grid:
                for name in KINDS:
                    (bin_, tin, sin), (bout, tout, sout) = sides(name, shape, grid)
                    fn = getattr(dt.fft, name)

                    def f(a, fn=fn, grid=grid):
                        return fn(a, grid, shape, norm="ortho", backend=jax_where.backend, howmany=2)

                    def one(a, fn=fn, grid=grid):
                        return fn(a, grid, shape, norm="ortho", backend=jax_where.backend)
                    xs = [local(whole_of(sin, tin, 50 + k), bin_) for k in range(2)]
                    ws = [local(whole_of(sout, tout, 60 + k), bout) for k in range(2)]
                    x, w = jax_where.put(np.stack(xs, axis=-1)), jax_where.put(np.stack(ws, axis=-1))
                    y = np.asarray(f(x))
                    ok &= same_bits(np.asarray(jax.jit(f)(x)), y)
                    g = np.asarray(jax.vjp(f, x)[1](w)[0])
                    for k in range(2):
                        y_one, pull = jax.vjp(one, jax_where.put(xs[k]))
                        worst.add(y[..., k], np.asarray(y_one), np.asarray(y_one))
                        g_one = np.asarray(pull(jax_where.put(ws[k]))[0])
                        worst.add(g[..., k], g_one, g_one)
    good, value = worst.below(1e-12)
    assert everywhere(ok) and good, f"error {value:.3g}"


def test_jax_wrong_tracer_refused_at_trace_time():
    """A tracer of the wrong shape or type raises Error at trace time on every rank, naming the rank
    where only one is wrong; the same function runs afterwards."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    why = custom_calls_missing()
    if why:
        pytest.skip(why)
    jax.config.update("jax_enable_x64", True)
    shape = (6, 5, 4)
    with jax.default_device(jax.devices("cpu")[0]), dt.Grid(COMM) as grid:
        bx = grid.box(shape, "x", "complex128").shape
        f = jax.jit(lambda v: dt.fft.fftn(v, grid, shape, backend="cpu"))
        raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct((bx[0] + 1,) + bx[1:], jnp.complex128)),
                          RESULT_INVALID_ARGUMENT, "x has shape")
        raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct(bx, jnp.int32)), RESULT_INVALID_ARGUMENT,
                          "elements of int32")
        raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct(bx, jnp.float64)), RESULT_INVALID_ARGUMENT,
                          "complex64 or complex128")
        bad = (bx[0] + (R == LAST),) + bx[1:]
        msg = raises_everywhere(lambda: f.lower(jax.ShapeDtypeStruct(bad, jnp.complex128)), RESULT_INVALID_ARGUMENT,
                                "shape")
        assert everywhere(R == LAST or f"rank {LAST}:" in msg), msg
        raises_everywhere(lambda: jax.grad(lambda v: jnp.sum(jnp.abs(dt.fft.fftn(v, grid, shape, backend="cpu"))))(
            jnp.zeros(bad, jnp.complex128)), RESULT_INVALID_ARGUMENT, "shape")
        raises_everywhere(lambda: dt.fft.fftn(jnp.zeros(bx, jnp.complex128), grid, shape, out=1),
                          RESULT_INVALID_ARGUMENT, "leave out=None")
        if host_fft_built():
            bz = grid.box(shape, "z", "complex128").shape
            assert everywhere(np.asarray(f(jnp.zeros(bx, jnp.complex128))).shape == bz)


# ---- real-to-real kinds (walls) --------------------------------------------------------------------

# (call, kinds (x, y, z), norm): C2C mixes, R2C with x periodic (kinds on the complex side), real plans
# (every axis real-to-real); every kind forward and inverse, both norms.
KIND_CASES = [("fftn", ("dct2", "dst3", "fft"), "backward"), ("ifftn", ("dct3", "fft", "dst2"), "forward"),
              ("fftn", ("dst2", "dct2", "dst3"), "forward"), ("ifftn", ("dst3", "dst2", "dct2"), "backward"),
              ("rfftn", ("fft", "dst2", "dct3"), "backward"), ("irfftn", ("fft", "dct2", "dst3"), "forward"),
              ("rfftn", ("dct2", "dst2", "dct3"), "forward"), ("irfftn", ("dst3", "dct3", "dst2"), "backward"),
              ("rfftn", ("dst3", "dct2", "dst2"), "backward"), ("irfftn", ("dct2", "dst2", "dct3"), "forward")]
# The 2-D calls on the P x 1 grid, (nx, ny): a real 2-D plan in either norm (its axis of one point's own
# kind differs), a C2C mix, R2C with x periodic.
KIND_CASES_2D = [("rfft2", ("dct2", "dst2"), "forward"), ("irfft2", ("dst3", "dct2"), "backward"),
                 ("rfft2", ("dst2", "dct3"), "backward"), ("irfft2", ("dct3", "dst3"), "forward"),
                 ("ifft2", ("dst2", "fft"), "forward"), ("rfft2", ("fft", "dst3"), "forward")]
NAMES_2D = {"fft2": "fftn", "ifft2": "ifftn", "rfft2": "rfftn", "irfft2": "irfftn"}


def kind_sides(name, kinds, shape, grid):
    """sides() of a call with kinds: a real plan's sides are both real arrays of `shape`. A 2-D call's
    are its 3-D plan's boxes, with the whole arrays' sides (x, y)."""
    if name in NAMES_2D:
        # Its axis of one point: real-to-real where x and y are (a real plan), periodic otherwise.
        (bin_, tin, sin), (bout, tout, sout) = kind_sides(NAMES_2D[name], kinds + ("dct3",), tuple(shape) + (1,), grid)
        return (bin_, tin, sin[:2]), (bout, tout, sout[:2])
    if name not in ("rfftn", "irfftn") or "fft" in kinds:
        return sides(name, shape, grid)
    x_side, z_side = ((grid.box(shape, p, "float64"), "float64", shape) for p in ("x", "z"))
    return (x_side, z_side) if KINDS[name][2] else (z_side, x_side)


def kind_reference(name, kinds, shape, norm, xp):
    """The call with kinds on whole arrays ([z][y][x], [y][x] for the 2-D calls) by the definitions' sums."""
    name = NAMES_2D.get(name, name)
    halves = name in ("rfftn", "irfftn") and kinds[0] == "fft"
    return lambda a: by_kinds(a, kinds, inverse=not KINDS[name][2], norm=norm, nx=shape[0] if halves else None, xp=xp)


@contextlib.contextmanager
def every_grid():
    """A grid of every shape the rank count allows, and the P x 1 grid of the 2-D calls (the last),
    closed afterwards."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(dt.Grid(COMM, pr, pc)) for pr, pc in grids() + [(COMM.Get_size(), 1)]]


def kind_cases(every):
    """(index, case, grid, shape) for KIND_CASES, the grids and even and odd nx in turn (the pairs of a
    forward and an inverse on one grid), then KIND_CASES_2D on the P x 1 grid with an odd nx; shape has
    whole arrays' sides where X, W and T come from (a 2-D call's (nx, ny))."""
    grids_3d = every[:-1]
    for c, case in enumerate(KIND_CASES):
        yield c, case, grids_3d[c // 2 % len(grids_3d)], ((6, 5, 4), (7, 3, 5))[c % 2]
    for c, case in enumerate(KIND_CASES_2D):
        yield len(KIND_CASES) + c, case, every[-1], (5, 7)


def local_2d(a, box):
    """This rank's part of a whole 2-D array [y][x]: its rows (an X-pencil box) or columns (Z)."""
    if box.pencil == "x":
        return np.ascontiguousarray(a[box.start[1]:box.start[1] + box.size[1], :])
    return np.ascontiguousarray(a[:, box.start[0]:box.start[0] + box.size[0]])


_JACOBIANS = {}


def explicit_adjoint(case, f, shape, dtype, w):
    """The adjoint of the linear map f of whole arrays of `shape` (x, y[, z]) and `dtype` on w, for the
    real inner product sum(Re(conj(a) b)) (a loss's gradient, PyTorch's; JAX's vjp is conj(adjoint(conj(w))),
    its grad conj(adjoint(w))): f's Jacobian as a real matrix, a column per real degree of freedom (the
    real and imaginary parts of a complex entry), transposed; kept by `case` (f's call, kinds, shape, norm)."""
    size, cplx = int(np.prod(shape)), "complex" in dtype
    jacobian = _JACOBIANS.get(case)
    if jacobian is None:
        columns = []
        for k in range(size * (2 if cplx else 1)):
            e = np.zeros(size * (2 if cplx else 1))
            e[k] = 1
            y = np.asarray(f((e[:size] + 1j * e[size:] if cplx else e).reshape(shape[::-1]))).reshape(-1)
            columns.append(np.concatenate([y.real, y.imag]))
        jacobian = _JACOBIANS[case] = np.stack(columns, axis=1)
    w = w.reshape(-1)
    g = jacobian.T @ np.concatenate([w.real, w.imag if np.iscomplexobj(w) else np.zeros_like(w)])
    return (g[:size] + 1j * g[size:] if cplx else g).reshape(shape[::-1])


def test_jax_kinds(jax_where):
    """Every case of KIND_CASES on the grids in turn (even and odd nx in turn), and of KIND_CASES_2D on the
    P x 1 grid (kind_cases): against the definitions' sums of the whole array; vjp, linear_transpose and jvp against
    those sums' explicit transpose (explicit_adjoint; the library's adjoint of a real-to-real axis is its
    partner with the first or last entry weighed); jitted the same bits as eager, and jitted grad."""
    import jax
    import jax.numpy as jnp
    worst, same, n = Worst(), True, 0

    def check(f, case, sin, tin, x_of, bin_, bout, X, W, T, jitted):
        nonlocal same
        ref = kind_reference(*case, np)
        Y, t_want = ref(X), ref(T)  # linear: the tangent's image
        g_want = np.conj(explicit_adjoint(case, ref, sin, tin, np.conj(W)))
        loss_want = np.conj(explicit_adjoint(case, ref, sin, tin, W)).astype(g_want.dtype)
        x, w, t = (jax_where.put(x_of(a, b)) for a, b in ((X, bin_), (W, bout), (T, bin_)))
        y = f(x)
        same &= y.dtype == Y.dtype
        worst.add(y, x_of(Y, bout), Y)
        _, pull = jax.vjp(f, x)
        worst.add(pull(w)[0], x_of(g_want, bin_), g_want)
        worst.add(jax.linear_transpose(f, x)(w)[0], x_of(g_want, bin_), g_want)
        worst.add(jax.jvp(f, (x,), (t,))[1], x_of(t_want, bout), t_want)
        if jitted:  # each compile costs a few tenths of a second
            same &= same_bits(np.asarray(y), np.asarray(jax.jit(f)(x)))
            worst.add(jax.jit(jax.grad(lambda a: jnp.sum(jnp.real(jnp.conj(w) * f(a)))))(x), x_of(loss_want, bin_),
                      loss_want)

    with jax_where.default(), every_grid() as every:
        for c, (name, kinds, norm), grid, shape in kind_cases(every):
            (bin_, tin, sin), (bout, tout, sout) = kind_sides(name, kinds, shape, grid)
            X, W, T = (whole_of(s_, t_, 90 + 3 * c + k)
                       for k, (s_, t_) in enumerate(((sin, tin), (sout, tout), (sin, tin))))
            fn = getattr(dt.fft, name)

            def f(a, fn=fn, grid=grid, shape=shape, norm=norm, kinds=kinds):
                return fn(a, grid, shape, norm=norm, kinds=kinds, backend=jax_where.backend)
            x_of = local if len(shape) == 3 else local_2d
            check(f, (name, kinds, shape, norm), sin, tin, x_of, bin_, bout, X, W, T, True)
            n += 1
    ok, value = worst.below(1e-12)
    assert ok and everywhere(same), f"{n} cases: error {value:.3g}, bits {same}"


def test_jax_kinds_vmap(jax_where):
    """A batch through a real plan (kinds on every axis) runs one execute an element: the same bits as
    the calls one by one, eager and jitted, and so do their vjps."""
    import jax
    shape = (5, 4, 3)
    name, kinds, norm = KIND_CASES[6]
    with jax_where.default(), dt.Grid(COMM) as grid:
        (bin_, tin, sin), _ = kind_sides(name, kinds, shape, grid)

        def f(a):
            return dt.fft.rfftn(a, grid, shape, norm=norm, kinds=kinds, backend=jax_where.backend)
        xs = jax_where.put(np.stack([local(whole_of(sin, tin, s), bin_) for s in range(3)]))
        want = np.stack([np.asarray(f(v)) for v in xs])
        ok = same_bits(np.asarray(jax.vmap(f)(xs)), want)
        ok &= same_bits(np.asarray(jax.jit(jax.vmap(f))(xs)), want)
        ys = jax.vmap(f)(xs)
        pulled = jax.vmap(lambda v, c: jax.vjp(f, v)[1](c)[0])(xs, ys)
        ok &= same_bits(np.asarray(pulled), np.stack([np.asarray(jax.vjp(f, v)[1](c)[0]) for v, c in zip(xs, ys)]))
    assert everywhere(ok)


# ---- PyTorch -------------------------------------------------------------------------------------

# Padding: even and odd n and m, every axis or a few (the R2C Nyquist plane split where nx is even and x pads).
PADDED = [((6, 5, 4), 1.5), ((5, 4, 3), (2, 1.5, 0)), ((4, 3, 2), (1.5, 1, 2))]


def padded_sides(name, shape, padding, grid):
    """A padded call's input and output: (box, element type, the whole array's shape [x, y, z]) per side."""
    real = name in ("rfftn", "irfftn")
    xtype = "float64" if real else "complex128"
    m = padded_shape(shape, padding)
    x_side = (dt.fft.local_box(grid, shape, "x", xtype, padding=padding), xtype, m)
    z_side = (dt.fft.local_box(grid, shape, "z", xtype, padding=padding), "complex128", half(shape) if real else shape)
    return (x_side, z_side) if KINDS[name][2] else (z_side, x_side)


@pytest.mark.parametrize("name", list(KINDS))
def test_jax_padded_gradients(jax_where, name):
    """Padded calls (the 3/2 rule): values, vjp (eager and jitted) and jvp against jax.numpy.fft of the
    whole padded grid, its modes put among zeros or truncated (test_fft.padded_reference): the adjoints'
    weights of the padded plans, the R2C Nyquist plane's among them."""
    import jax
    import jax.numpy as jnp
    worst, n = Worst(), 0
    with jax_where.default():
        for pr, pc in grids():
            with dt.Grid(COMM, pr, pc) as grid:
                for i, (shape, padding) in enumerate(PADDED):
                    norm = ("backward", "forward")[(i + pr) % 2]
                    (bin_, tin, sin), (bout, tout, sout) = padded_sides(name, shape, padding, grid)
                    X, W, T = whole_of(sin, tin, 50 + i), whole_of(sout, tout, 60 + i), whole_of(sin, tin, 70 + i)
                    ref = padded_reference(name, shape, padding, norm, jnp)
                    with jax.default_device(jax.devices("cpu")[0]):
                        y_want, pull = jax.vjp(ref, jnp.asarray(X))
                        y_want, g_want = np.asarray(y_want), np.asarray(pull(jnp.asarray(W))[0])
                        t_want = np.asarray(jax.jvp(ref, (jnp.asarray(X),), (jnp.asarray(T),))[1])
                    fn = getattr(dt.fft, name)

                    def f(a):
                        return fn(a, grid, shape, norm=norm, padding=padding, backend=jax_where.backend)
                    x, w, t = (jax_where.put(local(a, b)) for a, b in ((X, bin_), (W, bout), (T, bin_)))
                    y, pull = jax.vjp(f, x)
                    worst.add(y, local(y_want, bout), y_want)
                    worst.add(pull(w)[0], local(g_want, bin_), g_want)
                    worst.add(jax.jit(lambda c: jax.vjp(f, x)[1](c)[0])(w), local(g_want, bin_), g_want)
                    worst.add(jax.jvp(f, (x,), (t,))[1], local(t_want, bout), t_want)
                    n += 1
    ok, value = worst.below(1e-12)
    assert ok, f"{n} cases: error {value:.3g}"


@pytest.fixture(params=framework_platforms("torch"))
def torch_where(request):
    pytest.importorskip("torch")
    if request.param == "cpu" and not host_fft_built():
        pytest.skip("this build of the library has no FFTW: the FFT of host memory is not there")
    return FrameworkWhere("torch", request.param)


def host(t):
    return t.detach().cpu().numpy()


def gradcheck_whole(f, block, dtype, seed, device):
    """torch's gradcheck of `f`, a call on this rank's block (of shape `block`), as a function of the
    whole array whose gradient the ranks assemble: each rank's block scattered from one random whole
    array of `dtype` (its size the sum of the ranks' blocks), the results gathered. True on this rank
    where the numerical Jacobian matches the analytical one of the adjoints."""
    import torch
    from test_torch import _Gather, _Scatter
    sizes = COMM.allgather(int(np.prod(block)))
    start = sum(sizes[:R])

    def whole_fn(a):
        return _Gather.apply(f(_Scatter.apply(a, start, block)))
    rng = np.random.default_rng(seed)
    total = sum(sizes)
    a = rng.standard_normal(total) + (1j * rng.standard_normal(total) if "complex" in dtype else 0)
    x = torch.from_numpy(a.astype(dtype)).to(device).requires_grad_(True)
    return torch.autograd.gradcheck(whole_fn, (x,), eps=1e-6, atol=1e-8, raise_exception=False)


@pytest.mark.parametrize("name", list(KINDS))
def test_torch_gradcheck(torch_where, name):
    """Each transform and norm, as a function of the whole array whose gradient the ranks assemble:
    gradcheck's numerical Jacobian against the analytical one of the adjoints (float64, complex128)."""
    ok, n = True, 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for i, shape in enumerate(GRADCHECK_SHAPES):
                norm = NORMS[(i + pr) % len(NORMS)]
                (bin_, tin, _), _ = sides(name, shape, grid)
                f = call(name, grid, shape, norm, torch_where.backend)
                ok &= gradcheck_whole(f, bin_.shape, tin, 5 + i, torch_where.device)
                n += 1
    assert everywhere(ok), f"{n} cases"


@pytest.mark.parametrize("name", list(KINDS))
def test_torch_padded_gradcheck(torch_where, name):
    """Padded calls as functions of the whole array: gradcheck's numerical Jacobian against the analytical
    one of the padded plans' adjoints (float64, complex128)."""
    ok, n = True, 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for i, (shape, padding) in enumerate(PADDED[1:]):
                norm = ("backward", "forward")[(i + pr) % 2]
                (bin_, tin, _), _ = padded_sides(name, shape, padding, grid)
                fn = getattr(dt.fft, name)

                def f(a):
                    return fn(a, grid, shape, norm=norm, padding=padding, backend=torch_where.backend)
                ok &= gradcheck_whole(f, bin_.shape, tin, 15 + i, torch_where.device)
                n += 1
    assert everywhere(ok), f"{n} cases"


def test_torch_howmany(torch_where):
    """Two fields of one plan through autograd: each field's result and gradient against the single-field
    call's of that field (float64, complex128)."""
    import torch
    worst, shape = Worst(), (5, 4, 3)
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for name in KINDS:
                (bin_, tin, sin), (bout, tout, sout) = sides(name, shape, grid)
                fn = getattr(dt.fft, name)
                xs = [local(whole_of(sin, tin, 70 + k), bin_) for k in range(2)]
                ws = [torch_where.put(local(whole_of(sout, tout, 80 + k), bout)) for k in range(2)]

                def loss(y, w):
                    return (torch.conj(w) * y).real.sum()
                x = torch_where.put(np.stack(xs, axis=-1)).requires_grad_(True)
                y = fn(x, grid, shape, norm="backward", backend=torch_where.backend, howmany=2)
                loss(y, torch.stack(ws, dim=-1)).backward()
                for k in range(2):
                    xk = torch_where.put(xs[k]).requires_grad_(True)
                    yk = fn(xk, grid, shape, norm="backward", backend=torch_where.backend)
                    loss(yk, ws[k]).backward()
                    worst.add(host(y)[..., k], host(yk), host(yk))
                    worst.add(host(x.grad)[..., k], host(xk.grad), host(xk.grad))
    good, value = worst.below(1e-12)
    assert good, f"error {value:.3g}"


def test_torch_autograd_matches_direct(torch_where):
    """A tensor that requires grad goes through the op: the same bits as the direct path."""
    import torch
    ok = True
    shape = (7, 3, 5)
    with dt.Grid(COMM) as grid:
        for name in KINDS:
            for norm in NORMS:
                (bin_, tin, sin), _ = sides(name, shape, grid)
                f = call(name, grid, shape, norm, torch_where.backend)
                x = torch_where.put(local(whole_of(sin, tin, 3), bin_))
                y = f(x.clone().requires_grad_(True))
                ok &= y.grad_fn is not None and same_bits(host(y), host(f(x)))
    assert everywhere(ok)


def _compile_backends():
    # Inductor compiles C++ for the host: one run of it (on one rank) is enough; aot_eager traces the
    # same graph through dynamo and AOTAutograd everywhere.
    return ["aot_eager"] + (["inductor"] if COMM.Get_size() == 1 else [])


@pytest.mark.parametrize("backend", _compile_backends())
def test_torch_compile_fullgraph(torch_where, backend):
    """torch.compile(fullgraph=True) traces through fftn and rfftn and their inverses (a graph break
    would raise): the same bits as eager, forward and backward."""
    import torch
    torch._dynamo.reset()
    ok = True
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        for name, norm in (("fftn", "backward"), ("rfftn", "forward"), ("irfftn", "ortho")):
            (bin_, tin, sin), _ = sides(name, shape, grid)
            fn = getattr(dt.fft, name)
            inverse = getattr(dt.fft, KINDS[name][0])

            def f(t):
                y = fn(t * 2, grid, shape, norm=norm, backend=torch_where.backend)
                return inverse(y * y.abs(), grid, shape, norm=norm, backend=torch_where.backend)

            g = torch.compile(f, fullgraph=True, backend=backend)
            x = torch_where.put(local(whole_of(sin, tin, 8), bin_))
            ok &= same_bits(host(g(x)), host(f(x)))
            xg, xe = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
            g(xg).abs().sum().backward()
            f(xe).abs().sum().backward()
            ok &= np.allclose(host(xg.grad), host(xe.grad), rtol=1e-12, atol=1e-12)
            ok &= same_bits(host(g(x)), host(f(x)))  # again, on the compiled graph
    assert everywhere(ok)


def test_torch_compiled_wrong_shape_refused_everywhere(torch_where):
    """A tensor of the wrong shape on one rank: torch.compile's trace stops on every rank, naming it."""
    import torch
    torch._dynamo.reset()
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        bx = grid.box(shape, "x", "complex128").shape
        g = torch.compile(lambda t: dt.fft.fftn(t, grid, shape, backend=torch_where.backend) + 1, fullgraph=True,
                          backend="aot_eager")
        try:
            g(torch_where.put(np.zeros((bx[0] + (R == LAST),) + bx[1:], np.complex128)))
            failed = ""
        except Exception as e:  # noqa: BLE001 (dynamo wraps what the trace raised)
            failed = str(e)
        messages = gathered(failed[:200])
        assert everywhere("has shape" in failed and (R == LAST or f"rank {LAST}" in failed)), messages
        x = torch_where.put(np.zeros(bx, np.complex128))
        assert everywhere(host(g(x)).shape == grid.box(shape, "z", "complex128").shape)


@pytest.mark.parametrize("case", [0, 3, 4, 7, 8])
def test_torch_kinds_gradcheck(torch_where, case):
    """Cases of KIND_CASES (C2C both ways, R2C's half spectrum forward, a real plan both ways) as
    functions of the whole array whose gradient the ranks assemble: gradcheck's numerical Jacobian
    against the analytical one of the weighed adjoints (float64, complex128), even and odd nx, on the
    grid of the ranks (every case on the grids in turn: the test below)."""
    name, kinds, norm = KIND_CASES[case]
    shape = GRADCHECK_SHAPES[case % 2]
    with dt.Grid(COMM) as grid:
        (bin_, tin, _), _ = kind_sides(name, kinds, shape, grid)
        fn = getattr(dt.fft, name)

        def f(a):
            return fn(a, grid, shape, norm=norm, kinds=kinds, backend=torch_where.backend)
        ok = gradcheck_whole(f, bin_.shape, tin, 15 + case, torch_where.device)
    assert everywhere(ok)


def test_torch_kinds_against_definitions(torch_where):
    """Autograd through plans with kinds: the result and the gradient of sum(Re(conj(w) f(x))) against
    NumPy's definitions' sums and their explicit transposes (the Hermitian adjoint of each axis's
    matrix), the 2-D calls included; and torch.compile(fullgraph=True) of the same, forward and
    backward, against eager."""
    import torch
    worst, same, n = Worst(), True, 0

    def check(f, name, kinds, shape, norm, x_of, bin_, bout, tin, tout, sin, sout, compile_too):
        nonlocal same
        X, W = whole_of(sin, tin, 300 + n), whole_of(sout, tout, 400 + n)
        Y = kind_reference(name, kinds, shape, norm, np)(X.astype(np.complex128 if "complex" in tin else np.float64))
        G = explicit_adjoint((name, kinds, shape, norm), kind_reference(name, kinds, shape, norm, np), sin, tin, W)
        x = torch_where.put(x_of(X, bin_)).requires_grad_(True)
        w = torch_where.put(x_of(W, bout))
        y = f(x)
        (torch.conj(w) * y).real.sum().backward() if y.is_complex() else (w * y).sum().backward()
        worst.add(host(y), x_of(Y, bout).astype(tout), Y)
        worst.add(host(x.grad), x_of(G, bin_).astype(tin), G)
        if not compile_too:
            return
        torch._dynamo.reset()  # each case's f is the same code, traced again: no recompile limit
        g = torch.compile(f, fullgraph=True, backend="aot_eager")
        xc = torch_where.put(x_of(X, bin_)).requires_grad_(True)
        yc = g(xc)
        (torch.conj(w) * yc).real.sum().backward() if yc.is_complex() else (w * yc).sum().backward()
        same &= same_bits(host(yc), host(y)) and np.allclose(host(xc.grad), host(x.grad), rtol=1e-12, atol=1e-12)

    with every_grid() as every:
        for c, (name, kinds, norm), grid, shape in kind_cases(every):
            (bin_, tin, sin), (bout, tout, sout) = kind_sides(name, kinds, shape, grid)
            fn = getattr(dt.fft, name)

            def f(a, fn=fn, grid=grid, shape=shape, kinds=kinds, norm=norm):
                return fn(a, grid, shape, norm=norm, kinds=kinds, backend=torch_where.backend)
            # compiled: a C2C, an R2C and a real plan's case, forward and inverse, and a 2-D one
            check(f, name, kinds, shape, norm, local if len(shape) == 3 else local_2d, bin_, bout, tin, tout, sin, sout,
                  c in (0, 5, 6, 7, len(KIND_CASES)))
            n += 1
    ok, value = worst.below(1e-12)
    assert ok and everywhere(same), f"{n} cases: error {value:.3g}, compiled {same}"
