"""The distributed complex 3-D FFT on a process grid: local 1-D (or 2-D) transforms along the axis
each pencil holds whole (its fastest), by the array's own library (by FFTW for NumPy arrays, where
pyfftw is installed), the transposes between pencils by disttranspose.

    fftn:  X-pencils -> Z-pencils   (pr > 1: fft x, X->Y, fft y, Y->Z, fft z;  1 x P slabs: fft2 y,x, X->Z, fft z)
    ifftn: Z-pencils -> X-pencils   (the same backwards, with inverse transforms)

x is this rank's box (Grid.box(shape, 'x' or 'z', dtype).shape), complex64 or complex128, of NumPy
(pyfftw or numpy.fft), CuPy (cupy.fft), PyTorch (torch.fft) or JAX (jax.numpy.fft). The plans and a scratch
buffer per pencil are made on the first call and kept with the grid (freed by Grid.close): later
calls allocate nothing but their result, and nothing at all when given `out`.
"""

from . import _arrays, _collective
from .plan import PencilPlan


class _NumPyFft:
    """numpy.fft writing into the buffers it is given (NumPy 2's out=), in place where they coincide:
    fresh memory costs more than the transform on the host (page faults). It scales within its own
    passes: each pass takes the norm as it is."""

    scales_once = False

    def __init__(self):
        import numpy
        self.np = numpy

    def one(self, a, out, inverse, norm):
        f = self.np.fft.ifft if inverse else self.np.fft.fft
        return f(a, axis=-1, norm=norm, out=out)

    def two(self, a, out, inverse, norm):
        # fftn/ifftn over two axes rather than fft2/ifft2: NumPy's ifft2 drops out= (2.4 at least).
        f = self.np.fft.ifftn if inverse else self.np.fft.fftn
        return f(a, axes=(-2, -1), norm=norm, out=out)


class _ModuleFft:
    """An array library's own fft module (CuPy, PyTorch, JAX): its results come from its allocator,
    whose pools make them cheap on GPUs; out, where given, receives the last one. These libraries
    scale a normalized transform in a pass of its own over the array, so the passes run unscaled and
    the whole transform's factor is applied once, to the result (see scale)."""

    scales_once = True

    def __init__(self, name):
        if name == "cupy":
            import cupy.fft as f
            self.kw1, self.kw2 = {"axis": -1}, {"axes": (-2, -1)}
        elif name == "torch":
            import torch.fft as f
            self.kw1, self.kw2 = {"dim": -1}, {"dim": (-2, -1)}
        else:
            import jax.numpy.fft as f
            self.kw1, self.kw2 = {"axis": -1}, {"axes": (-2, -1)}
        self.f, self.name = f, name

    def _call(self, fn, a, out, kw, norm):
        if out is None:
            return fn(a, norm=norm, **kw)
        if self.name == "torch":
            return fn(a, norm=norm, out=out, **kw)
        if self.name == "jax":
            raise ValueError("JAX arrays are immutable: fftn takes no out for them")
        out[...] = fn(a, norm=norm, **kw)  # CuPy's fft has no out: a copy (a fresh result costs less)
        return out

    def scale(self, a, factor):
        if self.name == "jax":
            return a * factor
        if self.name == "torch":
            return a.mul_(factor)
        a *= factor
        return a

    def one(self, a, out, inverse, norm):
        if _arrays._count(a.shape) == 0:  # a rank whose box is empty: cuFFT refuses a batch of none
            return a if out is None else out
        return self._call(self.f.ifft if inverse else self.f.fft, a, out, self.kw1, norm)

    def two(self, a, out, inverse, norm):
        if _arrays._count(a.shape) == 0:
            return a if out is None else out
        return self._call(self.f.ifft2 if inverse else self.f.fft2, a, out, self.kw2, norm)


class _FftwFft:
    """FFTW (through pyfftw) for NumPy arrays: a plan per pass (FFTW_MEASURE, made on arrays of its
    own on the first call, one thread: the ranks are the parallelism), run on each call's arrays.
    FFTW scales nothing itself: the whole transform's factor is applied once, to the result."""

    scales_once = True

    def __init__(self, pyfftw):
        import numpy
        self.pyfftw, self.np, self.plans = pyfftw, numpy, {}

    def _pass(self, a, out, inverse, axes):
        if out is None:
            out = self.np.empty(a.shape, a.dtype)
        if a.size == 0:
            return out
        inplace = a is out
        key = (a.shape, a.dtype, inverse, axes, inplace)
        plan = self.plans.get(key)
        if plan is None:
            # Planning measures on (and writes over) arrays of its own; unaligned, so that any
            # NumPy array can be run through it.
            i = self.pyfftw.empty_aligned(a.shape, a.dtype)
            o = i if inplace else self.pyfftw.empty_aligned(a.shape, a.dtype)
            plan = self.plans[key] = self.pyfftw.FFTW(
                i, o, axes=axes, direction="FFTW_BACKWARD" if inverse else "FFTW_FORWARD",
                flags=("FFTW_MEASURE", "FFTW_UNALIGNED"), threads=1)
        # Views with the canonical strides of C order (NumPy lets axes of length 1 keep any stride,
        # and FFTW's plans take only the strides they were made for).
        plan.update_arrays(a.reshape(-1).reshape(a.shape), out.reshape(-1).reshape(out.shape))
        plan.execute()
        return out

    def one(self, a, out, inverse, norm):
        return self._pass(a, out, inverse, (-1,))

    def two(self, a, out, inverse, norm):
        return self._pass(a, out, inverse, (-2, -1))

    def scale(self, a, factor):
        a *= factor
        return a


_LOCALS = ("auto", "fftw", "library")


def _local(ad, local="auto"):
    """The local passes: FFTW for NumPy arrays where pyfftw is installed (local="auto" or "fftw"),
    else the array's own library."""
    if local not in _LOCALS:
        raise ValueError(f"local = {local!r}: expected one of {', '.join(_LOCALS)}")
    if ad.name == "numpy":
        if local != "library":
            try:
                import pyfftw
                return _FftwFft(pyfftw)
            except ImportError:
                if local == "fftw":
                    raise ValueError("local = 'fftw' needs pyfftw (pip install pyfftw)") from None
        return _NumPyFft()
    if local == "fftw":
        raise ValueError(f"local = 'fftw' takes NumPy arrays; x is a {ad.name} array")
    if ad.name in ("cupy", "torch", "jax"):
        return _ModuleFft(ad.name)
    raise TypeError("fftn takes NumPy, CuPy, PyTorch or JAX arrays")


class _Fft:
    """The transposes and scratch buffers of one array (shape, type) in one library on one device."""

    def __init__(self, grid, shape, dtype, backend, ad, like, local):
        self.grid, self.shape, self.dtype, self.ad = grid, shape, dtype, ad
        self.fft = _local(ad, local)
        self.plans = {}
        self.backend = backend
        # One scratch buffer per pencil, where the library's arrays can be written (not JAX's).
        self.scratch = {}
        if ad.name != "jax":
            for p in ("x", "y", "z") if grid.pr > 1 else ("x", "z"):
                self.scratch[p] = ad.empty(like, grid.box(shape, p, dtype).shape, dtype)

    def plan(self, src, dst):
        plan = self.plans.get((src, dst))
        if plan is None:
            # One after another on one stream: the FFT's transposes share one workspace.
            plan = PencilPlan(self.grid, self.shape, src, dst, self.dtype, backend=self.backend, workspace="grid")
            self.plans[(src, dst)] = plan
        return plan

    def move(self, a, src, dst):
        return self.plan(src, dst).execute(a, out=self.scratch.get(dst))

    def local(self, fn, a, out, inverse, norm, then):
        """A local transform; where it fails on this rank, the transpose `then` that the others wait in
        fails on every rank with its message (no rank is left waiting)."""
        try:
            return fn(a, out, inverse, norm)
        except Exception as e:
            if then is None:
                raise
            plan = self.plan(*then)
            plan._refuse(plan._live(), f"a local FFT failed on this rank: {e}")

    def run(self, x, inverse, norm, out):
        factor = 1.0
        if self.fft.scales_once:
            norm, factor = _unscaled(norm, inverse, self.shape)
        result = self.passes(x, inverse, norm, out)
        return result if factor == 1.0 else self.fft.scale(result, factor)

    def passes(self, x, inverse, norm, out):
        local = self.local
        one = lambda a, o, then=None: local(self.fft.one, a, o, inverse, norm, then)
        two = lambda a, o, then=None: local(self.fft.two, a, o, inverse, norm, then)
        # NumPy transforms into the scratch buffers; the GPU libraries into their pools' memory, which
        # costs nothing to take (and a copy into a buffer would).
        s = self.scratch.get if self.ad.name == "numpy" else (lambda pencil: None)
        if self.grid.pr == 1:
            # Slabs: y and x are whole in the X-pencil, z in the Z-pencil; one exchange between them.
            if not inverse:
                return one(self.move(two(x, s("x"), ("x", "z")), "x", "z"), out)
            return two(self.move(one(x, s("z"), ("z", "x")), "z", "x"), out)
        p = ("z", "y", "x") if inverse else ("x", "y", "z")
        a = one(x, s(p[0]), (p[0], p[1]))
        a = one(self.move(a, p[0], p[1]), s(p[1]), (p[1], p[2]))
        return one(self.move(a, p[1], p[2]), out)

    def close(self):
        for plan in self.plans.values():
            plan.close()
        self.plans.clear()
        self.scratch.clear()


_NORMS = ("backward", "ortho", "forward")


def _unscaled(norm, inverse, shape):
    """The norm under which a direction's passes scale nothing, and the factor of `norm` for the
    whole transform (NumPy's meaning: "backward" scales the inverse by 1/n, "forward" the forward,
    "ortho" both by 1/sqrt(n))."""
    n = shape[0] * shape[1] * shape[2]
    plain = "forward" if inverse else "backward"
    if norm == plain:
        return plain, 1.0
    return plain, (n ** -0.5 if norm == "ortho" else 1.0 / n)


def _run(x, grid, shape, inverse, norm, backend, out, local):
    src, dst = ("z", "x") if inverse else ("x", "z")

    def convert():
        sh = tuple(_collective.integer(f"shape[{i}]", s, 1) for i, s in enumerate(shape))
        if len(sh) != 3:
            raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
        if norm not in _NORMS:
            raise ValueError(f"norm = {norm!r}: expected one of {', '.join(_NORMS)}")
        ad = _arrays.adapter(x)
        d = ad.describe(x, _arrays.PointerCache())
        name = ad.name_of(d.dtype)
        if name not in ("complex64", "complex128"):
            raise ValueError(f"x has elements of {name}; the FFT takes complex64 or complex128")
        want = grid.box(sh, src, name).shape
        if tuple(d.shape) != want:
            raise ValueError(f"x has shape {tuple(d.shape)}; this rank's {src.upper()}-pencil is {want}")
        problem = _arrays.problem(ad, d, want, d.dtype, d.device, "x")
        if problem:
            raise ValueError(problem)
        if out is not None:
            o = _arrays.adapter(out).describe(out, _arrays.PointerCache())
            problem = _arrays.problem(ad, o, grid.box(sh, dst, name).shape, d.dtype, d.device, "out", writable=True)
            if problem:
                raise ValueError(problem)
        _local(ad, local)
        return sh, name, ad, d.device

    shape, dtype, ad, device = _collective.checked(grid.comm, convert)
    key = ("fft", shape, dtype, backend, ad.name, device, local)
    f = grid._plans.get(key)
    if f is None:
        f = grid._plans[key] = _Fft(grid, shape, dtype, backend, ad, x, local)
    return f.run(x, inverse, norm, out)


def fftn(x, grid, shape, *, norm="backward", backend="auto", out=None, local="auto"):
    """Collective over the grid: the forward FFT of the array whose X-pencil this rank holds (x), as
    this rank's Z-pencil of the result (Grid.box(shape, 'z', dtype).shape), in `out` where given.
    local: who runs the local passes: "auto" (FFTW through pyfftw for NumPy arrays where it is
    installed, else the array's own library), "fftw", or "library" (the array's own)."""
    return _run(x, grid, shape, False, norm, backend, out, local)


def ifftn(x, grid, shape, *, norm="backward", backend="auto", out=None, local="auto"):
    """Collective over the grid: the inverse of fftn, from this rank's Z-pencil to its X-pencil."""
    return _run(x, grid, shape, True, norm, backend, out, local)
