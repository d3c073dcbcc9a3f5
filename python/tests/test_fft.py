"""The distributed 3-D FFT (the library's dtrFft* plans through disttranspose.fft) against numpy.fft
of the whole array: every grid the rank count allows (slabs, pencils; boxes empty where an axis has
fewer planes than ranks), odd shapes, complex64 and complex128, rfftn and irfftn with even and odd nx,
every norm, chunk counts, results into out, round trips, the plans kept with the grid; several fields
of one plan (howmany, a trailing axis) against numpy.fft of each and the single-field calls; padding
(the 3/2 rule) against numpy's FFT of the whole padded grid; per-axis real-to-real kinds (kinds=:
DCT-II/III, DST-II/III) in C2C, R2C and real plans and the 2-D calls against the definitions' sums as
dense matrices, axis by axis; both together (padded periodic axes beside real-to-real ones); and bad
input, also on one rank only or a
setting that differs between ranks, refused on every rank."""

import numpy as np
import pytest
from conftest import COMM, anywhere, everywhere, largest, poison, raises_everywhere, same_bits

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT, RESULT_MISMATCH

R, LAST = COMM.Get_rank(), COMM.Get_size() - 1
# Odd and even nx, primes, and axes of fewer planes than ranks (empty boxes on 2-4 ranks).
SHAPES = [(8, 6, 5), (7, 5, 3), (3, 2, 1), (1, 4, 9), (2, 1, 1)]
# 0: the library's rule; 64: more chunks than any rank has planes.
CHUNKS = [0, 1, 2, 3, 64]
TOLERANCE = {"complex64": 1e-5, "float32": 1e-5, "complex128": 1e-12, "float64": 1e-12}
COMPLEX = {"float32": "complex64", "float64": "complex128"}


_HOST = {}


def host_fft_built():
    """Whether this build's library has the FFT of host memory (FFTW): found out once, by a transform of
    one entry (an Error on every rank where it has not)."""
    if "built" not in _HOST:
        try:
            with dt.Grid(COMM) as grid:
                dt.fft.fftn(np.zeros(grid.box((1, 1, 1), "x", "complex128").shape, np.complex128), grid, (1, 1, 1))
            _HOST["built"] = True
        except dt.Error as e:
            if "no FFTW" not in str(e):
                raise
            _HOST["built"] = False
    return _HOST["built"]


@pytest.fixture(autouse=True)
def host_fft(request):
    """Tests of NumPy arrays skip where the library was built without FFTW (its host passes), as a GPU
    machine's build may be: found out once, by a transform of one entry (an Error on every rank)."""
    params = getattr(request.node, "callspec", None)
    if params is not None and params.params.get("lib", "numpy") != "numpy":
        return
    if not host_fft_built():
        pytest.skip("this build of the library has no FFTW: the FFT of host memory is not there")


def grids():
    p = COMM.Get_size()
    return [(pr, p // pr) for pr in range(1, p + 1) if p % pr == 0]


def whole(shape, dtype):
    """The global array of `shape` (nx, ny, nz), indexed [z][y][x]: the same on every rank."""
    rng = np.random.default_rng(20261125)
    a = rng.standard_normal(shape[::-1])
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape[::-1])
    return a.astype(dtype)


def local(array_zyx, box):
    """This rank's box of an array indexed [z][y][x], in the box's memory order."""
    part = array_zyx[tuple(slice(box.start[d], box.start[d] + box.size[d]) for d in (2, 1, 0))]
    axes = {"x": 2, "y": 1, "z": 0}
    return np.ascontiguousarray(np.transpose(part, [axes[a] for a in reversed(box.order)]))


def half(shape):
    return (shape[0] // 2 + 1,) + tuple(shape[1:])


class Worst:
    """The largest error of a test's results, relative to the largest entry of the whole reference."""

    def __init__(self):
        self.value, self.ok, self.where = 0.0, True, None

    def add(self, got, want, reference, dtype=None, where=None):
        """where: the case, named in a failure's message where its error is this rank's largest."""
        self.ok &= got.shape == want.shape and (dtype is None or got.dtype == np.dtype(dtype))
        if self.ok and got.size:
            error = float(np.abs(got - want).max() / max(np.abs(reference).max(), 1e-300))
            if error > self.value:
                self.value, self.where = error, where

    def below(self, tolerance):
        worst = largest(self.value)
        return everywhere(self.ok) and worst <= tolerance, worst


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_fftn_against_numpy(lib, dtype):
    """fftn on every grid and shape (chunk counts in turn) against numpy.fft.fftn of the whole array,
    ifftn back to the input, the input untouched."""
    worst, n = Worst(), 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for shape in SHAPES:
                data = whole(shape, dtype)
                reference = np.fft.fftn(data.astype(np.complex128))
                bx, bz = grid.box(shape, "x", dtype), grid.box(shape, "z", dtype)
                x0 = local(data, bx)
                x = lib.put(x0)
                chunks = CHUNKS[n % len(CHUNKS)]
                y = dt.fft.fftn(x, grid, shape, chunks=chunks)
                worst.add(lib.get(y), local(reference, bz), reference, dtype)
                worst.add(lib.get(x), x0, data)
                worst.add(lib.get(dt.fft.ifftn(y, grid, shape, chunks=chunks)), x0, data, dtype)
                n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"{n} shapes and grids: error {value:.3g}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfftn_against_numpy(lib, dtype):
    """rfftn (even and odd nx) against numpy.fft.rfftn of the whole array, as the Z-pencils of the
    (nx // 2 + 1, ny, nz) complex array; irfftn back to the input."""
    worst, n = Worst(), 0
    ctype = COMPLEX[dtype]
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for shape in SHAPES:
                data = whole(shape, dtype)
                reference = np.fft.rfftn(data.astype(np.float64))
                bx, bz = grid.box(shape, "x", dtype), grid.box(half(shape), "z", ctype)
                x0 = local(data, bx)
                chunks = CHUNKS[(n + 2) % len(CHUNKS)]
                y = dt.fft.rfftn(lib.put(x0), grid, shape, chunks=chunks)
                worst.add(lib.get(y), local(reference, bz), reference, ctype)
                worst.add(lib.get(dt.fft.irfftn(y, grid, shape, chunks=chunks)), x0, data, dtype)
                n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"{n} shapes and grids: error {value:.3g}"


@pytest.mark.parametrize("dtype", ["complex64", "float64"])
def test_2d_against_numpy(lib, dtype):
    """fft2 / rfft2 of (nx, ny) on the P x 1 grid (rows over the ranks) against numpy's 2-D transform of
    the whole array, as this rank's columns; back to the rows."""
    worst, n = Worst(), 0
    real = dtype == "float64"
    for pr, pc in ((COMM.Get_size(), 1),):
        with dt.Grid(COMM, pr, pc) as grid:
            for nx, ny in ((12, 9), (7, 11), (1, 5)):
                data = whole((nx, ny, 1), dtype)[0]                         # [y][x]
                reference = (np.fft.rfft2 if real else np.fft.fft2)(data.astype(np.float64 if real else np.complex128))
                ctype = COMPLEX[dtype] if real else dtype
                bx = grid.box((nx, ny, 1), "x", dtype)
                bz = grid.box(((nx // 2 + 1) if real else nx, ny, 1), "z", ctype)
                rows = data[bx.start[1]:bx.start[1] + bx.size[1], :]
                cols = reference[:, bz.start[0]:bz.start[0] + bz.size[0]]
                forward, inverse = (dt.fft.rfft2, dt.fft.irfft2) if real else (dt.fft.fft2, dt.fft.ifft2)
                y = forward(lib.put(rows), grid, (nx, ny))
                worst.add(lib.get(y), cols, reference, ctype)
                worst.add(lib.get(inverse(y, grid, (nx, ny))), rows, data, dtype)
                n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"{n} shapes and grids: error {value:.3g}"


def test_2d_out_and_wrong_rank():
    """fft2 into a given out (returned as given); an array of three axes where two are expected is
    refused on every rank, as the 3-D call refuses a wrong shape; a grid of pc > 1 refused by name."""
    with dt.Grid(COMM, COMM.Get_size(), 1) as grid:
        nx, ny = 6, 5
        data = whole((nx, ny, 1), "complex128")[0]
        bx, bz = grid.box((nx, ny, 1), "x", "complex128"), grid.box((nx, ny, 1), "z", "complex128")
        rows = np.ascontiguousarray(data[bx.start[1]:bx.start[1] + bx.size[1], :])
        out = np.empty((bz.size[1], bz.size[0]), np.complex128)
        got = dt.fft.fft2(rows, grid, (nx, ny), out=out)
        want = np.fft.fft2(data)[:, bz.start[0]:bz.start[0] + bz.size[0]]
        ok = got is out and np.abs(out - want).max(initial=0) <= 1e-12 * np.abs(want).max()
        wrong = rows[None, None] if COMM.Get_rank() == 0 else rows
        with pytest.raises(dt.Error):
            dt.fft.fft2(wrong, grid, (nx, ny))
    if COMM.Get_size() > 1:
        with dt.Grid(COMM, 1, COMM.Get_size()) as slabs, pytest.raises(dt.Error, match="P x 1 grid"):
            dt.fft.fft2(rows, slabs, (nx, ny))
    assert everywhere(ok)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "float64"])
def test_howmany_fields(lib, dtype):
    """howmany 2 and 3: arrays with a trailing axis of the fields, each field's forward against
    numpy.fft of the whole field and against the single-field call on that field alone (the same bound:
    the library's batched passes may take other FFT plans), the inverse alike; every grid and shape,
    norms and chunk counts in turn."""
    real = np.dtype(dtype).kind == "f"
    forward, inverse = (dt.fft.rfftn, dt.fft.irfftn) if real else (dt.fft.fftn, dt.fft.ifftn)
    ctype = COMPLEX.get(dtype, dtype)
    worst, n = Worst(), 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for shape in SHAPES:
                howmany, norm, chunks = 2 + n % 2, ("backward", "ortho", "forward")[n % 3], CHUNKS[n % len(CHUNKS)]
                cshape = half(shape) if real else shape
                bx, bz = grid.box(shape, "x", dtype), grid.box(cshape, "z", ctype)
                fields = [whole(shape, dtype) * (f + 1) + f for f in range(howmany)]
                x0 = np.stack([local(a, bx) for a in fields], axis=-1)
                assert grid.box(shape, "x", dtype, howmany).shape == x0.shape
                y = forward(lib.put(x0), grid, shape, norm=norm, chunks=chunks, howmany=howmany)
                back = inverse(y, grid, shape, norm=norm, chunks=chunks, howmany=howmany)
                worst.ok &= everywhere(lib.get(y).shape == bz.shape + (howmany,))
                for f, a in enumerate(fields):
                    case = f"{pr}x{pc} {shape} howmany {howmany} norm {norm} chunks {chunks} field {f}"
                    ref = (np.fft.rfftn if real else np.fft.fftn)(a.astype(np.float64 if real else np.complex128), norm=norm)
                    yf = lib.get(y)[..., f]
                    worst.add(yf, local(ref, bz), ref, ctype, where=f"{case}: forward against numpy")
                    one = forward(lib.put(local(a, bx)), grid, shape, norm=norm, chunks=chunks)
                    worst.add(yf, lib.get(one), ref, where=f"{case}: forward against the single field's")
                    worst.add(lib.get(back)[..., f], local(a, bx), a, dtype, where=f"{case}: round trip")
                    one_back = inverse(lib.put(np.ascontiguousarray(lib.get(y)[..., f])), grid, shape, norm=norm, chunks=chunks)
                    worst.add(lib.get(back)[..., f], lib.get(one_back), a, where=f"{case}: inverse against the single field's")
                n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"{n} shapes and grids: error {value:.3g}; rank {R}'s largest: {worst.value:.3g} in {worst.where}"


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("real", [False, True], ids=["c2c", "r2c"])
def test_norms(lib, norm, real):
    """Each norm scales as numpy.fft's does, forward and inverse (the inverse on an array given as
    Z-pencils, against numpy's inverse of the whole)."""
    shape = (5, 4, 3) if real else (6, 5, 4)
    dtype = "float64" if real else "complex128"
    forward, inverse = (dt.fft.rfftn, dt.fft.irfftn) if real else (dt.fft.fftn, dt.fft.ifftn)
    data = whole(shape, dtype)
    spectrum = np.fft.rfftn(data) if real else whole(shape, dtype)
    want_forward = (np.fft.rfftn if real else np.fft.fftn)(data, norm=norm)
    want_inverse = np.fft.irfftn(spectrum, s=shape[::-1], axes=(0, 1, 2), norm=norm) if real else np.fft.ifftn(spectrum, norm=norm)
    worst = Worst()
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            bx = grid.box(shape, "x", dtype)
            bz = grid.box(half(shape) if real else shape, "z", "complex128")
            y = forward(lib.put(local(data, bx)), grid, shape, norm=norm)
            worst.add(lib.get(y), local(want_forward, bz), want_forward)
            back = inverse(lib.put(local(spectrum, bz)), grid, shape, norm=norm)
            worst.add(lib.get(back), local(want_inverse, bx), want_inverse)
    ok, value = worst.below(1e-12)
    assert ok, f"error {value:.3g}"


def test_into_out(lib):
    """Every transform writes into a given out and returns it; the input is left as it was."""
    if lib.name == "jax":
        pytest.skip("JAX arrays are immutable: no out")
    worst, same = Worst(), True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for real in (False, True):
                shape = (9, 6, 5)
                dtype = "float64" if real else "complex128"
                forward, inverse = (dt.fft.rfftn, dt.fft.irfftn) if real else (dt.fft.fftn, dt.fft.ifftn)
                data = whole(shape, dtype)
                reference = np.fft.rfftn(data) if real else np.fft.fftn(data)
                bx = grid.box(shape, "x", dtype)
                bz = grid.box(half(shape) if real else shape, "z", "complex128")
                x0 = local(data, bx)
                x = lib.put(x0)
                y = lib.put(poison(bz.shape, "complex128"))
                back = lib.put(poison(bx.shape, dtype))
                for _ in range(2):  # the second time on the arrays the first one checked
                    same &= forward(x, grid, shape, out=y) is y
                    same &= inverse(y, grid, shape, out=back) is back
                worst.add(lib.get(y), local(reference, bz), reference)
                worst.add(lib.get(back), x0, data)
                worst.add(lib.get(x), x0, data)
    ok, value = worst.below(1e-12)
    assert ok and everywhere(same), f"error {value:.3g}"


def misaligned(lib, a):
    """A copy of `a` on the GPU at an address 8 bytes past a multiple of 16 (as torch.autograd.gradcheck's
    views of complex128 storage lie), through a CuPy allocation (a PyTorch tensor shares it)."""
    import cupy
    host = np.ascontiguousarray(a)
    mem = cupy.cuda.alloc(host.nbytes + 16)
    shift = 8 if mem.ptr % 16 == 0 else 0
    view = cupy.ndarray(host.shape, host.dtype, memptr=mem + shift)
    view.set(host)
    assert view.data.ptr % 16 == 8
    if lib.name == "cupy":
        return view
    import torch
    return torch.as_tensor(view, device="cuda")


def test_misaligned_input_copied(lib):
    """A GPU input 8 bytes off its element's alignment (complex128, float64 for rfftn) is copied, not
    refused, by the FFT and by a transpose plan: the same bits as the aligned input, the input untouched."""
    if lib.name not in ("cupy", "torch"):
        pytest.skip("CuPy and PyTorch arrays can lie off their elements' alignment")
    pytest.importorskip("cupy")
    same = True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for real in (False, True):
                shape = (9, 6, 5)
                dtype = "float64" if real else "complex128"
                forward = dt.fft.rfftn if real else dt.fft.fftn
                x0 = local(whole(shape, dtype), grid.box(shape, "x", dtype))
                want = lib.get(forward(lib.put(x0), grid, shape))
                x = misaligned(lib, x0)
                for _ in range(2):  # the second call takes no shortcut through the first one's copy
                    got = lib.get(forward(x, grid, shape))
                    same &= got.shape == want.shape and got.tobytes() == want.tobytes()
                same &= lib.get(x).tobytes() == x0.tobytes()
    with dt.Plan(7, 5, "complex128", COMM, backend=lib.backend) as plan:
        a0 = (np.arange(np.prod(plan.in_shape)) + R * 100).reshape(plan.in_shape) * (1 + 2j)
        want = lib.get(plan.execute(lib.put(a0)))
        for _ in range(2):
            got = lib.get(plan.execute(misaligned(lib, a0)))
            same &= got.shape == want.shape and got.tobytes() == want.tobytes()
    assert everywhere(same)


def test_plans_kept_with_the_grid(lib):
    """One plan per setting on the grid: made by the first call, taken by the next ones and by the
    inverse of the same settings, freed by Grid.close; chunks as asked, the backend the array's."""
    from disttranspose.fft import _plan_of
    shape, dtype = (6, 5, 4), "complex128"
    with dt.Grid(COMM) as grid:
        x = lib.put(local(whole(shape, dtype), grid.box(shape, "x", dtype)))
        y = dt.fft.fftn(x, grid, shape, chunks=2)
        plan = _plan_of(grid, "fftn", x, shape, chunks=2)
        dt.fft.fftn(x, grid, shape, chunks=2)
        dt.fft.ifftn(y, grid, shape, chunks=2)
        ok = _plan_of(grid, "fftn", x, shape, chunks=2) is plan and _plan_of(grid, "ifftn", y, shape, chunks=2) is plan
        ok &= plan.chunks == 2 and (plan.backend == "cpu") == (lib.name == "numpy") and plan.workspace_size > 0
        dt.fft.fftn(x, grid, shape, norm="ortho", chunks=2)
        other = _plan_of(grid, "fftn", x, shape, norm="ortho", chunks=2)
        ok &= other is not plan
    ok &= plan.handle is None and other.handle is None
    assert everywhere(ok)
    raises_everywhere(lambda: dt.fft.fftn(x, grid, shape), RESULT_INVALID_ARGUMENT, "closed")


def test_shape_as_a_list(lib):
    shape, dtype = (5, 4, 3), "complex128"
    data = whole(shape, dtype)
    with dt.Grid(COMM) as grid:
        y = dt.fft.fftn(lib.put(local(data, grid.box(shape, "x", dtype))), grid, list(shape))
        worst = Worst()
        worst.add(lib.get(y), local(np.fft.fftn(data), grid.box(shape, "z", dtype)), np.fft.fftn(data))
    ok, value = worst.below(1e-12)
    assert ok, value


def test_bad_input():
    """Each bad argument raises Error on every rank before anything runs; calls go on afterwards."""
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        bx, bz = grid.box(shape, "x", "complex64"), grid.box(shape, "z", "complex64")
        x = np.zeros(bx.shape, np.complex64)

        def refused(fn, words, code=RESULT_INVALID_ARGUMENT):
            raises_everywhere(fn, code, words)

        refused(lambda: dt.fft.fftn(np.zeros(bx.shape, np.float32), grid, shape), "complex64 or complex128")
        refused(lambda: dt.fft.rfftn(x, grid, shape), "float32 or float64")
        refused(lambda: dt.fft.irfftn(np.zeros(bx.shape, np.float64), grid, shape), "complex64 or complex128")
        refused(lambda: dt.fft.fftn(np.zeros((1, 2, 3), np.complex64), grid, (7, 5, 4)), "X-pencil")
        refused(lambda: dt.fft.ifftn(np.zeros((1, 1, 7), np.complex64), grid, shape), "Z-pencil")
        refused(lambda: dt.fft.fftn(x, grid, (6, 5)), "(nx, ny, nz)")
        refused(lambda: dt.fft.fftn(x, grid, (6, 0, 4)), "shape[1]")
        refused(lambda: dt.fft.fftn(x, grid, shape, norm="unitary"), "norm = 'unitary'")
        refused(lambda: dt.fft.fftn(x, grid, shape, backend="gpu"), "backend = 'gpu'")
        refused(lambda: dt.fft.fftn(x, grid, shape, backend="nccl"), "runs on GPUs")
        refused(lambda: dt.fft.fftn(x, grid, shape, chunks=-1), "chunks = -1")
        refused(lambda: dt.fft.fftn(x, grid, shape, chunks=65), "chunks = 65")
        refused(lambda: dt.fft.fftn(x, grid, shape, howmany=0), "howmany = 0")
        refused(lambda: dt.fft.fftn(x, grid, shape, howmany=-2), "howmany = -2")
        # Fields without their trailing axis, or another count of them.
        refused(lambda: dt.fft.fftn(x, grid, shape, howmany=2), "X-pencil")
        x3 = np.zeros(grid.box(shape, "x", "complex64", 3).shape, np.complex64)
        refused(lambda: dt.fft.fftn(x3, grid, shape, howmany=2), "X-pencil")
        refused(lambda: dt.fft.fftn(x3, grid, shape), "X-pencil")
        refused(lambda: dt.fft.fftn([[1j]], grid, shape), "not an array")
        strided = np.zeros(bx.shape[:-1] + (2 * bx.shape[-1],), np.complex64)[..., ::2]
        if anywhere(strided.size > 1):
            refused(lambda: dt.fft.fftn(strided, grid, shape), "not C-contiguous")
        refused(lambda: dt.fft.fftn(x, grid, shape, out=np.zeros((1, 1, 1), np.complex64)), "out has shape")
        refused(lambda: dt.fft.fftn(x, grid, shape, out=np.zeros(bz.shape, np.complex128)), "elements of complex128")
        ro = np.zeros(bz.shape, np.complex64)
        ro.flags.writeable = False
        refused(lambda: dt.fft.fftn(x, grid, shape, out=ro), "read-only")
        # another grid's box: the slabs' X-pencil where this grid has pencils (or the other way round)
        with dt.Grid(COMM, 1 if grid.pr > 1 else COMM.Get_size(), 0) as other:
            wrong = np.zeros(other.box(shape, "x", "complex64").shape, np.complex64)
            if anywhere(wrong.shape != bx.shape):
                refused(lambda: dt.fft.fftn(wrong, grid, shape), "X-pencil")
        assert everywhere(dt.fft.fftn(x, grid, shape).shape == bz.shape)


# Padding (the 3/2 rule): odd and even n and m, one axis or a few, ranks whose padded range lies in the
# gap (ny 2 x 3 on 4 ranks).
PADDED_CASES = [((6, 5, 4), 1.5), ((8, 8, 8), 1.5), ((6, 5, 4), (1, 1.5, 0)), ((5, 7, 3), (2, 0, 1.5)),
                ((4, 2, 4), (1, 3, 1.5))]


def padded_shape(shape, padding):
    p = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * 3
    return tuple(n if f in (0, 1) else int(np.floor(n * f)) for n, f in zip(shape, p))


def kept_at(n, m, halved):
    """Where the kept modes of an axis of n sit among m (numpy's order: k < ceil(n/2) at k, the others
    m - n further on); those of a halved x (R2C) at their own index."""
    k = np.arange(n // 2 + 1 if halved else n)
    return k if halved else np.where(k < (n + 1) // 2, k, k + m - n)


def _nyquist_weights(shape, m, real, factor):
    """Along the kept x: `factor` on an even nx's Nyquist mode where x pads (R2C), else 1; None for none."""
    if not (real and shape[0] % 2 == 0 and m[0] > shape[0]):
        return None
    w = np.ones(shape[0] // 2 + 1)
    w[shape[0] // 2] = factor
    return w


def pad_modes(modes, shape, m, real, xp=np):
    """The kept modes ([z][y][x]) among zeros on the padded grid (its half spectrum for R2C)."""
    at = np.ix_(kept_at(shape[2], m[2], False), kept_at(shape[1], m[1], False), kept_at(shape[0], m[0], real))
    w = _nyquist_weights(shape, m, real, 0.5)
    if w is not None:
        modes = modes * w
    padded = xp.zeros((m[2], m[1], m[0] // 2 + 1 if real else m[0]), modes.dtype)
    if xp is np:
        padded[at] = modes
        return padded
    return padded.at[at].set(modes)


def truncate(spectrum, shape, m, real):
    """The kept modes of a padded grid's spectrum ([z][y][x])."""
    at = np.ix_(kept_at(shape[2], m[2], False), kept_at(shape[1], m[1], False), kept_at(shape[0], m[0], real))
    kept = spectrum[at]
    w = _nyquist_weights(shape, m, real, 2.0)
    return kept if w is None else kept * w


def padded_reference(name, shape, padding, norm, xp=np):
    """A padded call on whole arrays [z][y][x] with xp's fft: the forward of the padded grid truncated, the
    inverse of the kept modes among zeros; N the modes' points, M the padded grid's (norm "backward": the
    inverse 1/N, the forward N/M; "forward": the forward 1/M)."""
    m = padded_shape(shape, padding)
    real = name in ("rfftn", "irfftn")
    n_, m_ = float(np.prod(shape)), float(np.prod(m))
    if name in ("fftn", "rfftn"):
        scale = n_ / m_ if norm == "backward" else 1 / m_
        f = xp.fft.rfftn if real else xp.fft.fftn
        return lambda a: truncate(f(a, axes=(0, 1, 2)), shape, m, real) * scale
    scale = 1 / n_ if norm == "backward" else 1.0
    if real:
        return lambda a: xp.fft.irfftn(pad_modes(a, shape, m, True, xp), s=m[::-1], axes=(0, 1, 2), norm="forward") * scale
    return lambda a: xp.fft.ifftn(pad_modes(a, shape, m, False, xp), axes=(0, 1, 2), norm="forward") * scale


@pytest.mark.parametrize("real", [False, True], ids=["c2c", "r2c"])
def test_padded_against_numpy(lib, real):
    """Padding (the 3/2 rule) on every grid, both norms padding takes: the forward of the padded grid's
    whole array against numpy's FFT of it truncated to the kept modes, the inverse of the kept modes
    against numpy's inverse FFT of them among zeros (irfftn: the Nyquist mode of an even nx halved where x
    pads); the arrays' shapes dt.fft.local_box's (the input side the padded grid's X-pencil); the inputs
    untouched; two fields of one plan against the single-field calls."""
    dtype, ctype = ("float64" if real else "complex128"), "complex128"
    forward, inverse = (dt.fft.rfftn, dt.fft.irfftn) if real else (dt.fft.fftn, dt.fft.ifftn)
    worst, n, boxes = Worst(), 0, True
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for i, (shape, padding) in enumerate(PADDED_CASES):
                norm = ("backward", "forward")[(i + pr) % 2]
                m = padded_shape(shape, padding)
                bx = dt.fft.local_box(grid, shape, "x", dtype, padding=padding)
                bz = dt.fft.local_box(grid, shape, "z", dtype, padding=padding)
                boxes &= bx.shape == grid.box(m, "x", dtype).shape
                u, modes = whole(m, dtype), whole(half(shape) if real else shape, ctype)
                want_f = padded_reference("rfftn" if real else "fftn", shape, padding, norm)(u)
                want_i = padded_reference("irfftn" if real else "ifftn", shape, padding, norm)(modes)
                x, z = lib.put(local(u, bx)), lib.put(local(modes, bz))
                y = forward(x, grid, shape, norm=norm, padding=padding, chunks=CHUNKS[n % len(CHUNKS)])
                worst.add(lib.get(y), local(want_f, bz), want_f, ctype)
                worst.add(lib.get(x), local(u, bx), u)
                v = inverse(z, grid, shape, norm=norm, padding=padding)
                worst.add(lib.get(v), local(want_i, bx), want_i, dtype)
                worst.add(lib.get(z), local(modes, bz), modes)
                if i == 0:  # two fields, a trailing axis
                    two = np.stack([local(u, bx), 2 * local(u, bx)], axis=-1)
                    y2 = lib.get(forward(lib.put(two), grid, shape, norm=norm, padding=padding, howmany=2))
                    worst.add(y2[..., 1], 2 * lib.get(y), want_f, ctype)
                    worst.add(y2[..., 0], lib.get(y), want_f, ctype)
                n += 1
    ok, value = worst.below(1e-12)
    assert ok and everywhere(boxes), f"{n} cases: error {value:.3g}, boxes {boxes}"


def test_padded_plans_kept_apart(lib):
    """A padded call and an unpadded one of the same shape are two plans of the grid, and a round trip
    through the padded one gives the modes back (norm "backward")."""
    from disttranspose.fft import _plan_of
    shape, dtype = (6, 5, 4), "complex128"
    with dt.Grid(COMM) as grid:
        bz = dt.fft.local_box(grid, shape, "z", dtype, padding=1.5)
        modes = whole(shape, dtype)
        z = lib.put(local(modes, bz))
        u = dt.fft.ifftn(z, grid, shape, padding=1.5)
        assert everywhere(tuple(u.shape) == dt.fft.local_box(grid, shape, "x", dtype, padding=1.5).shape)
        back = lib.get(dt.fft.fftn(u, grid, shape, padding=1.5))
        x = lib.put(local(whole(shape, dtype), grid.box(shape, "x", dtype)))
        plain = dt.fft.fftn(x, grid, shape)
        apart = _plan_of(grid, "fftn", u, shape, padding=1.5) is not _plan_of(grid, "fftn", x, shape)
        worst = Worst()
        worst.add(back, local(modes, bz), modes, dtype)
        ok, value = worst.below(1e-12)
        assert ok and everywhere(tuple(plain.shape) == grid.box(shape, "z", dtype).shape and apart), f"error {value:.3g}"


def test_padding_refused():
    """Bad padding raises Error on every rank before anything runs, naming it: factors below 1, NaN, a
    wrong count, with norm "ortho", arrays of the unpadded grid, one rank's alone, factors that differ."""
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        bx = dt.fft.local_box(grid, shape, "x", "complex128", padding=1.5)
        x = np.zeros(bx.shape, np.complex128)

        def refused(fn, words, code=RESULT_INVALID_ARGUMENT):
            raises_everywhere(fn, code, words)

        refused(lambda: dt.fft.fftn(x, grid, shape, padding=0.5), "config.padding[0]")
        refused(lambda: dt.fft.fftn(x, grid, shape, padding=(1.5, 1.5, float("nan"))), "config.padding[2]")
        refused(lambda: dt.fft.fftn(x, grid, shape, padding=(1.5, 1.5)), "padding = (1.5, 1.5)")
        refused(lambda: dt.fft.fftn(x, grid, shape, padding="1.5"), "padding = '1.5'")
        refused(lambda: dt.fft.fftn(x, grid, shape, norm="ortho", padding=1.5), "dtrFftNormOrtho")
        unpadded = np.zeros(grid.box(shape, "x", "complex128").shape, np.complex128)
        if anywhere(unpadded.shape != x.shape):
            refused(lambda: dt.fft.fftn(unpadded, grid, shape, padding=1.5), "X-pencil")
        refused(lambda: dt.fft.fftn(x, grid, shape, padding=0.9 if R == LAST else 1.5), "config.padding[0]")
        if COMM.Get_size() > 1:  # the same padded grid (floor(6 x 1.6) = 9), another factor: a setting that differs
            refused(lambda: dt.fft.fftn(x, grid, shape, padding=(1.6, 1.5, 1.5) if R == LAST else 1.5),
                    "padding differs between ranks", RESULT_MISMATCH)
        with pytest.raises(dt.Error, match="config.padding"):
            dt.fft.local_box(grid, shape, "z", "complex128", padding=-2)
        assert everywhere(dt.fft.fftn(x, grid, shape, padding=1.5).shape == dt.fft.local_box(grid, shape, "z", "complex128",
                                                                                              padding=1.5).shape)


def test_padding_with_kinds(lib):
    """Padding beside real-to-real kinds: padding on a real-to-real axis is refused on every rank, by this
    binding's words and by the library's (local_box); padded periodic axes beside a DCT or DST axis give
    the modes back through a round trip (ifftn then fftn, rfftn then irfftn then rfftn) in both norms,
    the real-to-real axis counting 2n in both N and M; and kinds, padding and both are plans apart."""
    from disttranspose.fft import _plan_of
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        x = np.zeros(dt.fft.local_box(grid, shape, "x", "complex128", padding=1.5).shape, np.complex128)
        raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, padding=1.5, kinds=("fft", "fft", "dct2")),
                          RESULT_INVALID_ARGUMENT, "padding = 1.5 on z, whose kind is 'dct2'")
        with pytest.raises(dt.Error, match=r"config.padding\[1\] \(y\).*real-to-real"):
            dt.fft.local_box(grid, shape, "z", "complex128", kinds=("fft", "dst2", "fft"), padding=(1.5, 1.5, 0))
        worst = Worst()
        for i, norm in enumerate(("backward", "forward")):
            kinds, padding = (("fft", "fft", "dct2"), (1.5, 2, 0)) if i == 0 else (("fft", "dst3", "fft"), (1.5, 0, 1.5))
            bz = dt.fft.local_box(grid, shape, "z", "complex128", kinds=kinds, padding=padding)
            bx = dt.fft.local_box(grid, shape, "x", "complex128", kinds=kinds, padding=padding)
            modes = whole(shape, "complex128")
            z = lib.put(local(modes, bz))
            u = dt.fft.ifftn(z, grid, shape, norm=norm, kinds=kinds, padding=padding)
            assert everywhere(tuple(u.shape) == bx.shape)
            back = lib.get(dt.fft.fftn(u, grid, shape, norm=norm, kinds=kinds, padding=padding))
            worst.add(back, local(modes, bz), modes, "complex128")
            # R2C: x periodic and padded, a real-to-real z; a real field's kept modes come back
            rz = dt.fft.local_box(grid, shape, "z", "float64", kinds=("fft", "fft", "dst2"), padding=(1.5, 0, 0))
            rx = dt.fft.local_box(grid, shape, "x", "float64", kinds=("fft", "fft", "dst2"), padding=(1.5, 0, 0))
            field = whole(padded_shape(shape, (1.5, 0, 0)), "float64")
            k = lib.get(dt.fft.rfftn(lib.put(local(field, rx)), grid, shape, norm=norm, kinds=("fft", "fft", "dst2"),
                                     padding=(1.5, 0, 0)))
            assert everywhere(tuple(k.shape) == rz.shape)
            v = dt.fft.irfftn(lib.put(k), grid, shape, norm=norm, kinds=("fft", "fft", "dst2"), padding=(1.5, 0, 0))
            k2 = lib.get(dt.fft.rfftn(v, grid, shape, norm=norm, kinds=("fft", "fft", "dst2"), padding=(1.5, 0, 0)))
            worst.add(k2, k, k if k.size else np.ones(1), "complex128")
        ok, value = worst.below(1e-12)
        x2 = lib.put(np.zeros(dt.fft.local_box(grid, shape, "x", "complex128", padding=(1.5, 1.5, 0)).shape, np.complex128))
        dt.fft.fftn(x2, grid, shape, padding=(1.5, 1.5, 0))
        dt.fft.fftn(x2, grid, shape, padding=(1.5, 1.5, 0), kinds=("fft", "fft", "dct2"))
        apart = _plan_of(grid, "fftn", x2, shape, padding=(1.5, 1.5, 0)) is not \
            _plan_of(grid, "fftn", x2, shape, padding=(1.5, 1.5, 0), kinds=("fft", "fft", "dct2"))
        assert ok and everywhere(apart), f"error {value:.3g}, plans apart {apart}"


def test_bad_input_on_one_rank():
    """A problem of the last rank's, or a setting that differs between ranks: Error on every rank,
    naming the rank or the setting, and nothing written."""
    if COMM.Get_size() < 2:
        pytest.skip("needs two ranks")
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        bx, bz = grid.box(shape, "x", "complex64"), grid.box(shape, "z", "complex64")
        x = np.zeros(bx.shape, np.complex64)
        out = poison(bz.shape, "complex64")
        before = out.copy()
        mine = R == LAST
        raises_everywhere(lambda: dt.fft.fftn(x.astype(np.complex128) if mine else x, grid, shape),
                          RESULT_MISMATCH, "type differs between ranks")
        raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, norm="ortho" if mine else "backward"), RESULT_MISMATCH,
                          "norm differs between ranks")
        raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, chunks=3 if mine else 2), RESULT_MISMATCH,
                          "chunks differs between ranks")
        x2, x3 = (np.zeros(grid.box(shape, "x", "complex64", h).shape, np.complex64) for h in (2, 3))
        raises_everywhere(lambda: dt.fft.fftn(x3 if mine else x2, grid, shape, howmany=3 if mine else 2), RESULT_MISMATCH,
                          "howmany differs between ranks")
        other = (6, 5, 5)
        raises_everywhere(lambda: dt.fft.fftn(np.zeros(grid.box(other, "x", "complex64").shape, np.complex64) if mine
                                              else x, grid, other if mine else shape), RESULT_MISMATCH,
                          "shape differs between ranks")
        raises_everywhere(lambda: (dt.fft.ifftn(out, grid, shape) if mine else dt.fft.fftn(x, grid, shape, out=out)),
                          RESULT_MISMATCH, "the call differs between ranks")
        ro = out.copy()
        ro.flags.writeable = not mine
        msg = raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, out=ro), RESULT_INVALID_ARGUMENT, "read-only")
        assert everywhere(mine or f"rank {LAST}:" in msg), msg
        raises_everywhere(lambda: dt.fft.fftn([[0j]] if mine else x, grid, shape, out=out), RESULT_INVALID_ARGUMENT,
                          "not an array")
        assert everywhere(np.array_equal(out.view(np.uint8), before.view(np.uint8)))
        assert everywhere(dt.fft.fftn(x, grid, shape, out=out) is out)


def test_checks_not_skipped_for_changed_arrays():
    """A call on the arrays the last one checked skips the checks; an array changed in place since
    (reshaped, retyped) is checked again, and refused on every rank."""
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        x = np.zeros(grid.box(shape, "x", "complex64").shape, np.complex64)
        out = np.zeros(grid.box(shape, "z", "complex64").shape, np.complex64)
        for _ in range(3):
            assert everywhere(dt.fft.fftn(x, grid, shape, out=out) is out)
        if x.size > 1 and R == LAST:
            x.shape = (x.size,)  # the same object, another shape
        if anywhere(x.size > 1):
            raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, out=out), RESULT_INVALID_ARGUMENT, "shape")
        x.shape = grid.box(shape, "x", "complex64").shape
        raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, out=out.view(np.float64)), RESULT_INVALID_ARGUMENT,
                          "float64")
        assert everywhere(dt.fft.fftn(x, grid, shape, out=out) is out)


# ---- real-to-real kinds (walls) ------------------------------------------------------------------

# Each kind's partner, which runs its inverse ("ifft": the DFT's, unnormalized).
PARTNER = {"fft": "ifft", "dct2": "dct3", "dct3": "dct2", "dst2": "dst3", "dst3": "dst2"}
# Mixes of kinds (x, y, z) for C2C: every kind on every axis among them.
C2C_KINDS = [("dct2", "dst3", "fft"), ("fft", "dct3", "dst2"), ("dst2", "fft", "dct2"), ("dst3", "dct2", "dst3"),
             ("dct3", "dst2", "dct3")]
# R2C: x periodic with any kinds on y and z (the half spectrum), or every axis real-to-real (a real plan).
R2C_KINDS = [("fft", "dct2", "dst3"), ("fft", "dst2", "fft"), ("fft", "fft", "dct3"), ("fft", "dst3", "dct2")]
REAL_KINDS = [("dct2", "dst2", "dct3"), ("dst3", "dct3", "dst2"), ("dct2", "dct2", "dct2"), ("dst2", "dst3", "dst3")]


def kind_matrix(n, kind):
    """One axis of n points of an unnormalized transform as a dense matrix, from its definition: the DFT
    ("fft"), its inverse ("ifft"), FFTW's REDFT10 (dct2), REDFT01 (dct3), RODFT10 (dst2), RODFT01 (dst3)."""
    j = np.arange(n)
    k = j[:, None]
    if kind in ("fft", "ifft"):
        return np.exp((-2j if kind == "fft" else 2j) * np.pi * j * k / n)
    if kind == "dct2":  # y_k = 2 sum x_j cos(pi (2j + 1) k / (2n))
        return 2 * np.cos(np.pi * (2 * j + 1) * k / (2 * n))
    if kind == "dct3":  # y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (2k + 1) / (2n))
        m = 2 * np.cos(np.pi * j * (2 * k + 1) / (2 * n))
        m[:, 0] = 1
        return m
    if kind == "dst2":  # y_k = 2 sum x_j sin(pi (2j + 1) (k + 1) / (2n))
        return 2 * np.sin(np.pi * (2 * j + 1) * (k + 1) / (2 * n))
    assert kind == "dst3"  # y_k = (-1)^k x_{n-1} + 2 sum_{j<n-1} x_j sin(pi (j + 1) (2k + 1) / (2n))
    m = 2 * np.sin(np.pi * (j + 1) * (2 * k + 1) / (2 * n))
    m[:, n - 1] = (-1.0) ** np.arange(n)
    return m


def by_kinds(a, kinds, inverse=False, norm="backward", nx=None, xp=np):
    """The transform of `kinds` (per axis x, y[, z]) of the whole array a ([z][y][x], or [y][x] for two
    kinds), axis by axis with kind_matrix: forward, or inverse (each kind's partner), divided by N (2n
    along a real-to-real axis) where the norm scales that direction ("backward": the inverse, "forward":
    the forward). nx: x is R2C's real-to-complex axis, a the real array forward (the half spectrum kept)
    and the half spectrum inverse (nx the real length). xp: numpy, or jax.numpy (differentiable)."""
    dims = len(kinds)
    sizes = [nx if d == 0 and nx is not None else a.shape[dims - 1 - d] for d in range(dims)]
    # The real-to-complex axis first forward (on the real array) and last inverse; the others commute.
    for d in (reversed(range(dims)) if inverse else range(dims)):
        axis = dims - 1 - d
        if d == 0 and nx is not None:
            a = xp.fft.irfft(a, n=nx, axis=axis, norm="forward") if inverse else xp.fft.rfft(a, axis=axis)
        else:
            m = kind_matrix(sizes[d], PARTNER[kinds[d]] if inverse else kinds[d])
            a = xp.moveaxis(xp.tensordot(m, a, axes=([1], [axis])), 0, axis)
    n = int(np.prod([s if k == "fft" else 2 * s for s, k in zip(sizes, kinds)]))
    return a / n if (norm == "forward") != inverse else a


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_kinds_c2c(lib, dtype):
    """fftn with every mix of C2C_KINDS on every grid and shape against the definitions' sums applied
    axis by axis to the whole array (a kind acting on the real and imaginary parts alike), norms backward
    and forward in turn; ifftn of the same kinds back to the input."""
    worst, n = Worst(), 0
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for shape in SHAPES:
                data = whole(shape, dtype)
                bx, bz = grid.box(shape, "x", dtype), grid.box(shape, "z", dtype)
                x0 = local(data, bx)
                for kinds in C2C_KINDS:
                    norm = ("backward", "forward")[n % 2]
                    reference = by_kinds(data.astype(np.complex128), kinds, norm=norm)
                    y = dt.fft.fftn(lib.put(x0), grid, shape, norm=norm, kinds=kinds, chunks=CHUNKS[n % len(CHUNKS)])
                    worst.add(lib.get(y), local(reference, bz), reference, dtype)
                    worst.add(lib.get(dt.fft.ifftn(y, grid, shape, norm=norm, kinds=kinds)), x0, data, dtype)
                    n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok, f"{n} cases: error {value:.3g}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kinds_r2c(lib, dtype):
    """rfftn with x periodic and kinds on y and z, as the half spectrum (complex); with every axis
    real-to-real, as a real plan: the Z-pencil of the real transform, of the input's type and shape, the
    box the library's plan gives (dtrFftGetBox); against the definitions' sums, norms backward and forward
    in turn; irfftn of the same kinds back to the input."""
    import ctypes

    from disttranspose import _lib
    from disttranspose.fft import _plan_of
    worst, n, boxes = Worst(), 0, True
    ctype = COMPLEX[dtype]
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for shape in SHAPES:
                data = whole(shape, dtype)
                bx = grid.box(shape, "x", dtype)
                x0 = local(data, bx)
                for kinds in R2C_KINDS + REAL_KINDS:
                    real = kinds[0] != "fft"
                    norm = ("backward", "forward")[n % 2]
                    reference = by_kinds(data.astype(np.float64), kinds, norm=norm, nx=None if real else shape[0])
                    bz = grid.box(shape, "z", dtype) if real else grid.box(half(shape), "z", ctype)
                    x, chunks = lib.put(x0), CHUNKS[n % len(CHUNKS)]
                    y = dt.fft.rfftn(x, grid, shape, norm=norm, kinds=kinds, chunks=chunks)
                    worst.add(lib.get(y), local(reference, bz), reference, dtype if real else ctype)
                    worst.add(lib.get(dt.fft.irfftn(y, grid, shape, norm=norm, kinds=kinds)), x0, data, dtype)
                    if real and kinds == REAL_KINDS[0]:
                        raw = _lib.Box()
                        plan = _plan_of(grid, "rfftn", x, shape, norm=norm, chunks=chunks, kinds=kinds)
                        _lib.check(_lib.lib.dtrFftGetBox(plan.handle, _lib.FFT_OUTPUT_SIDE, ctypes.byref(raw)))
                        boxes &= tuple(raw.start) == bz.start and tuple(raw.size) == bz.size
                        boxes &= raw.entry_bytes == np.dtype(dtype).itemsize
                    n += 1
    ok, value = worst.below(TOLERANCE[dtype])
    assert ok and everywhere(boxes), f"{n} cases: error {value:.3g}, boxes {boxes}"


@pytest.mark.parametrize("norm", ["backward", "forward"])
def test_kinds_2d(lib, norm):
    """fft2 and rfft2 with two kinds (x, y) on the P x 1 grid against the definitions' 2-D sums, as this
    rank's columns: C2C mixes, R2C with x periodic (complex columns) and both axes real-to-real (real
    columns, the norm's N that of the 2-D transform); back to the rows."""
    worst, n = Worst(), 0
    cases = [("complex128", ("dct2", "dst3")), ("complex128", ("fft", "dst2")), ("float64", ("fft", "dct3")),
             ("float64", ("dct2", "dst2")), ("float64", ("dst3", "dct3"))]
    with dt.Grid(COMM, COMM.Get_size(), 1) as grid:
        for nx, ny in ((12, 9), (7, 11), (1, 5)):
            for dtype, kinds in cases:
                data = whole((nx, ny, 1), dtype)[0]  # [y][x]
                halves = dtype == "float64" and kinds[0] == "fft"
                reference = by_kinds(data, kinds, norm=norm, nx=nx if halves else None)
                ztype = "complex128" if dtype != "float64" or halves else "float64"
                bx = grid.box((nx, ny, 1), "x", dtype)
                bz = grid.box(((nx // 2 + 1) if halves else nx, ny, 1), "z", ztype)
                rows = data[bx.start[1]:bx.start[1] + bx.size[1], :]
                cols = reference[:, bz.start[0]:bz.start[0] + bz.size[0]]
                forward, inverse = (dt.fft.rfft2, dt.fft.irfft2) if dtype == "float64" else (dt.fft.fft2, dt.fft.ifft2)
                y = forward(lib.put(rows), grid, (nx, ny), norm=norm, kinds=kinds)
                worst.add(lib.get(y), cols, reference, ztype)
                worst.add(lib.get(inverse(y, grid, (nx, ny), norm=norm, kinds=list(kinds))), rows, data, dtype)
                n += 1
    ok, value = worst.below(1e-12)
    assert ok, f"{n} cases: error {value:.3g}"


def test_kinds_howmany(lib):
    """Two fields of one plan with kinds (C2C, and a real plan): each field as the single-field call
    on it alone gives, both ways."""
    worst = Worst()
    shape = (7, 5, 3)
    for pr, pc in grids():
        with dt.Grid(COMM, pr, pc) as grid:
            for dtype, kinds in (("complex128", C2C_KINDS[1]), ("float64", REAL_KINDS[1])):
                forward, inverse = (dt.fft.rfftn, dt.fft.irfftn) if dtype == "float64" else (dt.fft.fftn, dt.fft.ifftn)
                bx = grid.box(shape, "x", dtype)
                fields = [local(whole(shape, dtype) * (f + 1) + f, bx) for f in range(2)]
                y = lib.get(forward(lib.put(np.stack(fields, axis=-1)), grid, shape, kinds=kinds, howmany=2))
                back = lib.get(inverse(lib.put(y), grid, shape, kinds=kinds, howmany=2))
                for f, a in enumerate(fields):
                    one = lib.get(forward(lib.put(a), grid, shape, kinds=kinds))
                    worst.add(y[..., f], one, one, dtype)
                    worst.add(back[..., f], a, a, dtype)
    ok, value = worst.below(1e-12)
    assert ok, f"error {value:.3g}"


def test_kinds_plans_kept(lib):
    """Kinds are part of a plan's settings: by name, by the library's values or in a list, the same
    plan (the same bits); other kinds another plan; ifftn of the same kinds its inverse; kinds of
    every axis periodic the plan of no kinds."""
    from disttranspose.fft import _plan_of
    shape, dtype = (6, 5, 4), "complex128"
    with dt.Grid(COMM) as grid:
        x = lib.put(local(whole(shape, dtype), grid.box(shape, "x", dtype)))
        kinds = ("dct2", "dst2", "fft")
        y = dt.fft.fftn(x, grid, shape, kinds=kinds)
        plan = _plan_of(grid, "fftn", x, shape, kinds=kinds)
        same = same_bits(lib.get(dt.fft.fftn(x, grid, shape, kinds=(1, np.int64(3), 0))), lib.get(y))
        same &= same_bits(lib.get(dt.fft.fftn(x, grid, shape, kinds=["DCT2", "dst2", "fft"])), lib.get(y))
        dt.fft.ifftn(y, grid, shape, kinds=kinds)
        ok = _plan_of(grid, "fftn", x, shape, kinds=(1, np.int64(3), 0)) is plan
        ok &= _plan_of(grid, "fftn", x, shape, kinds=["DCT2", "dst2", "fft"]) is plan
        ok &= _plan_of(grid, "ifftn", y, shape, kinds=kinds) is plan
        dt.fft.fftn(x, grid, shape, kinds=("dct3", "dst2", "fft"))
        ok &= _plan_of(grid, "fftn", x, shape, kinds=("dct3", "dst2", "fft")) is not plan
        dt.fft.fftn(x, grid, shape)
        dt.fft.fftn(x, grid, shape, kinds=("fft",) * 3)
        ok &= _plan_of(grid, "fftn", x, shape) is _plan_of(grid, "fftn", x, shape, kinds=("fft",) * 3)
        ok &= _plan_of(grid, "fftn", x, shape) is not plan
    assert everywhere(ok and same)


def test_kinds_bad_input():
    """Bad kinds raise Error on every rank before anything runs, naming kinds: an unknown kind, a value
    beyond the library's, the wrong count (three for the 2-D calls), not a sequence, norm "ortho" with
    a real-to-real axis, rfftn with a real-to-real x and a periodic y or z; on one rank only, or kinds
    that differ between ranks."""
    shape = (6, 5, 4)
    with dt.Grid(COMM) as grid:
        x = np.zeros(grid.box(shape, "x", "complex128").shape, np.complex128)
        r = np.zeros(grid.box(shape, "x", "float64").shape, np.float64)

        def refused(fn, words, code=RESULT_INVALID_ARGUMENT):
            raises_everywhere(fn, code, words)

        refused(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct2", "dct4", "fft")), "kinds[1] (y) = 'dct4'")
        refused(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct2", 5, "fft")), "kinds[1] (y) = 5")
        refused(lambda: dt.fft.fftn(x, grid, shape, kinds=(True, 0, 0)), "kinds[0] (x) = True")
        refused(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct2", "fft")), "expected 3 kinds")
        refused(lambda: dt.fft.fftn(x, grid, shape, kinds="dct2"), "expected 3 kinds")
        refused(lambda: dt.fft.fftn(x, grid, shape, kinds=2), "expected 3 kinds")
        refused(lambda: dt.fft.ifftn(np.zeros(grid.box(shape, "z", "complex128").shape, np.complex128), grid, shape,
                                     kinds=("dst2",) * 4), "expected 3 kinds")
        refused(lambda: dt.fft.fftn(x, grid, shape, norm="ortho", kinds=("fft", "fft", "dst2")), "ortho")
        refused(lambda: dt.fft.rfftn(r, grid, shape, kinds=("dct2", "dct2", "fft")), "real-to-real x")
        refused(lambda: dt.fft.rfftn(r, grid, shape, kinds=("dct2", "dct2", "dct2"), norm="ortho"), "ortho")
        # irfftn of a real plan takes the real Z-pencil, not a complex one
        refused(lambda: dt.fft.irfftn(np.zeros(grid.box(shape, "z", "complex128").shape, np.complex128), grid, shape,
                                      kinds=("dct2", "dct2", "dct2")), "float32 or float64")
        with dt.Grid(COMM, COMM.Get_size(), 1) as rows:
            x2 = np.zeros(rows.box((6, 5, 1), "x", "complex128").shape[1:], np.complex128)
            refused(lambda: dt.fft.fft2(x2, rows, (6, 5), kinds=("dct2", "fft", "fft")), "expected 2 kinds")
            refused(lambda: dt.fft.rfft2(x2.real.copy(), rows, (6, 5), kinds=("dct2", "fft")), "real-to-real x")
            assert everywhere(dt.fft.fft2(x2, rows, (6, 5), kinds=("dct2", "fft")).shape ==
                              rows.box((6, 5, 1), "z", "complex128").shape[:-1])
        if COMM.Get_size() > 1:
            mine = R == LAST
            msg = raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct5",) * 3 if mine else None),
                                    RESULT_INVALID_ARGUMENT, "dct5")
            assert everywhere(mine or f"rank {LAST}:" in msg), msg
            raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct2", "fft", "fft") if mine else None),
                              RESULT_MISMATCH, "kinds differs between ranks")
            raises_everywhere(lambda: dt.fft.fftn(x, grid, shape, kinds=("dct2", "fft", "fft") if mine else
                                                  ("dct3", "fft", "fft")), RESULT_MISMATCH,
                              "kinds differs between ranks")
        assert everywhere(dt.fft.fftn(x, grid, shape, kinds=("dct2", "fft", "fft")).shape ==
                          grid.box(shape, "z", "complex128").shape)
