"""Halo exchanges on pencils (dtrHalo*, include/disttranspose.h): the cells around each rank's box of a
3-D array, filled from the ranks that own them, for stencils, filters and particle-mesh steps.

    with dt.HaloPlan(grid, (nx, ny, nz), "x", "float64", halo=(2, 2, 2)) as plan:
        u = np.empty(plan.padded_shape, np.float64)     # this rank's box and its halo
        u[plan.interior] = mine                          # the box's cells
        plan.execute(u)                                  # the halo's cells, in place

Thin over the C library: the same meaning, arguments and errors. The arrays are NumPy's on the cpu
backend, CuPy's and PyTorch's on the GPU backends (and anything else with __cuda_array_interface__
or __array_interface__, or DLPack), filled in place. JAX arrays are immutable: execute returns a fresh
array, and runs inside jax.jit (and vmap) as an XLA custom call whose result aliases its input (XLA
copies the input first where the program still needs it).

adjoint(buf) is execute's transpose (dtrHaloExecuteAdjoint): every halo cell execute writes is added into
the cell it copies and zeroed, the "sum the ghosts into their owners" of particle-mesh deposits. It is
the gradient too: jax.grad, vjp and linear_transpose through execute run it, and PyTorch's autograd, where
a tensor that requires grad (or torch.compile) takes execute (and adjoint) as an operation that gives a
fresh tensor, its input left as it was.

    halo_of = jax.jit(plan.execute)          # JAX: u = halo_of(u)
    rho = plan.adjoint(deposited)            # the ghosts' charge summed into their owners
"""

import ctypes
import sys

from . import _arrays, _collective, _frameworks, _lib, _ops
from .errors import Error
from .grid import Box
from .plan import _config, _PlanBase

__all__ = ["HaloPlan"]

_INT_MAX = 2**31 - 1  # the C library's widths are ints


def _per_axis(name, value, convert):
    """value for each of x, y, z: a sequence of three, or one value for all three."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} = {value!r}: expected three values (x, y, z) or one for every axis")
    try:
        values = tuple(value)
    except TypeError:
        values = (value,) * 3
    if len(values) != 3:
        raise ValueError(f"{name} = {value!r}: expected three values (x, y, z) or one for every axis")
    return tuple(convert(f"{name}[{i}]", v) for i, v in enumerate(values))


def _width(name, value):
    n = _collective.integer(name, value)
    if n > _INT_MAX:
        raise ValueError(f"{name} = {n}: too large")
    return n  # negative widths: the library's own refusal, agreed over the grid


def _flag(name, value):
    # Booleans only (NumPy's too), or 0 and 1: an axis's wrap is not to be guessed from other values.
    if isinstance(value, bool) or type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    if hasattr(value, "__index__") and value.__index__() in (0, 1):
        return bool(value.__index__())
    raise TypeError(f"{name} = {value!r}: expected True or False")


class _HaloOperation:
    """What a halo plan and its adjoint share as operations of JAX and PyTorch programs (_ops.py): in
    place, on arrays whose three axes of the box come before the trailing howmany one; real, so that
    each one's adjoint is the other's transpose."""

    _direction = 0
    _in_place = True
    _spatial = 3
    _argument = "buf"
    _adjoint_weights = None


class HaloPlan(_HaloOperation):
    """Collective over the grid: the halo exchange of this rank's `pencil` box ('x', 'y' or 'z') of a 3-D
    array of `shape` (nx, ny, nz) and `dtype` (entries of `howmany` elements: a trailing axis where
    howmany > 1).

    The local array is padded: the box plus halo[a] cells on both sides of each axis a (x, y, z; one
    number for every axis will do), in the pencil's memory order, shape padded_shape. execute(buf) fills
    every halo cell (edges and corners too) with the value of the global cell it stands for; adjoint(buf)
    adds every such halo cell into that cell and zeroes it (execute's transpose). An axis with
    periodic[a] wraps around (a single bool for every axis will do); at a domain edge of an axis that is
    not periodic the halo cells are left as they were, by both. A periodic halo takes at most the whole
    axis; one wider than a neighbour's box takes from (and gives back to) the ranks beyond.

    backend: None or 'auto' (DTR_BACKEND, else the library's choice: the GPUs where every rank has one),
    'cpu' (host arrays), 'nccl' or 'p2p' (device arrays); device: the GPU (None: the current one);
    timeout: seconds a rank waits for the others (0: DTR_TIMEOUT, off by default). The plan stays valid
    after the grid is closed; close() (or the with block) frees it, collectively.
    """

    _handle = None
    _c_execute = _lib.lib.dtrHaloExecute
    _executor = ctypes.cast(_c_execute, ctypes.c_void_p).value

    def __init__(self, grid, shape, pencil, dtype, halo=(1, 1, 1), periodic=(True, True, True), howmany=1,
                 backend=None, *, device=None, timeout=0):
        comm = grid.comm

        def convert():
            if grid._handle is None:
                raise ValueError("the grid has been closed")
            sh = tuple(_collective.integer(f"shape[{i}]", s) for i, s in enumerate(shape))
            if len(sh) != 3:
                raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
            if not isinstance(pencil, str) or pencil.lower() not in _lib.PENCILS:
                raise ValueError(f"pencil = {pencil!r}: expected 'x', 'y' or 'z'")
            widths = _per_axis("halo", halo, _width)
            wraps = _per_axis("periodic", periodic, _flag)
            cfg = _config("auto" if backend is None else backend, "auto", 0, False, device, timeout)
            return (sh, pencil.lower(), _arrays.dtype_name(dtype), _collective.integer("howmany", howmany), widths,
                    wraps, cfg)

        sh, p, name, h, widths, wraps, cfg = _collective.checked(comm, convert)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrHaloPlanCreate(ctypes.byref(handle), grid._handle, (ctypes.c_int64 * 3)(*sh),
                                              _lib.PENCILS.index(p), _arrays.DTYPES.index(name), h,
                                              (ctypes.c_int * 3)(*widths), (ctypes.c_int * 3)(*map(int, wraps)),
                                              ctypes.byref(cfg)))
        self._handle = handle.value
        self._comm = comm
        self.shape, self.pencil, self.howmany, self.halo, self.periodic = sh, p, h, widths, wraps
        self._dtype = name
        raw = _lib.Box()
        _lib.check(_lib.lib.dtrHaloGetBox(self._handle, ctypes.byref(raw)))
        self.padded_box = Box(raw, p, h)
        self.box = grid.box(sh, p, name, h)
        self.padded_shape = self.padded_box.shape
        # The box within the padded array, as slices of its axes in memory order (slowest first).
        first = tuple(widths["xyz".index(a)] for a in reversed(self.box.order))
        self.interior = tuple(slice(w, w + n) for w, n in zip(first, self.box.shape)) + \
            ((slice(None),) if h > 1 else ())
        backend_code, device_code = ctypes.c_int(), ctypes.c_int()
        _lib.check(_lib.lib.dtrHaloGetBackend(self._handle, ctypes.byref(backend_code)))
        _lib.check(_lib.lib.dtrHaloGetDevice(self._handle, ctypes.byref(device_code)))
        self._backend = _lib.BACKENDS[backend_code.value]
        self._device = device_code.value
        self._expect = {}
        self._pointers = _arrays.PointerCache()
        self._grid, self._asked = grid, dict(backend=self._backend, device=None if self._device < 0 else self._device,
                                             timeout=timeout)
        self.in_shape = self.out_shape = self.padded_shape
        self._alignment = _arrays.itemsize(name)  # of the arrays' addresses (PyTorch's op checks it)
        self._op = _ops.add(self)
        self._derived = {}  # halo plans made from this one at trace time (vmap's batches), closed with it
        self._jax_registered = False  # known to JAX's custom calls (_jax.py)
        self._traced = set()  # the (shape, dtype) of tensors torch.compile traced and the ranks agreed on
        # Its adjoint as an operation, made here: torch.compile traces adjoint() and cannot make one.
        self._back = _Adjoint(self)
        if "torch" in sys.modules:
            _frameworks.torch_ops()  # the custom ops registered before a compiled program traces a call

    def _live(self):
        if self._handle is None:
            raise Error(1, "this halo plan has been closed")
        return self._handle

    @property
    def backend(self):
        """The backend the plan resolved: 'cpu', 'nccl' or 'p2p'."""
        self._live()
        return self._backend

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        """The plan's GPU, or None on the cpu backend."""
        self._live()
        return None if self._device < 0 else self._device

    # The element type as an array library names it, kept per library (a plan's; both sides alike).
    _expected = _PlanBase._expected
    _expected_out = _expected

    def _adjoint(self):
        """The adjoint as an operation of JAX and PyTorch programs (on the same plan)."""
        return self._back

    def _refuse(self, handle, problem):
        """Every rank's execute (or adjoint) fails with this rank's problem, before anything moves."""
        _lib.refuse(_lib.lib.dtrHaloExecuteRefuse, handle, problem)

    def _batched(self, n):
        """Collective at trace time: this exchange with n times its howmany (vmap's leading batch of n, moved
        next to the trailing howmany axis: one exchange for the batch)."""
        key = ("batch", n)
        plan = self._derived.get(key)
        if plan is None:
            plan = self._derived[key] = HaloPlan(self._grid, self.shape, self.pencil, self._dtype, self.halo,
                                                 self.periodic, self.howmany * n, **self._asked)
        return plan

    def _problem(self, ad, buf):
        """Why buf cannot serve as this rank's padded array (None where it can), and its pointer."""
        if ad is _arrays._Jax:
            from ._jax import unavailable
            return f"buf is a JAX array: {unavailable()}", None
        if not getattr(ad, "accepts_out", True):
            return f"buf: {ad.name} arrays are immutable; the halo exchange runs in place", None
        d = ad.describe(buf, self._pointers)
        expected = self._expected(ad)
        gpu = self._backend != "cpu"
        if gpu and d.device < 0:
            return f"buf is in host memory; the plan's backend ({self._backend}) exchanges GPU memory", d
        # The plan's GPU is the library's to check (the device it resolved), agreed as every execute's
        # buffer check is; here whether the memory is a GPU's at all.
        return _arrays.problem(ad, d, self.padded_shape, expected, d.device if gpu else -1, "buf", writable=True), d

    def execute(self, buf, stream=None):
        """Collective: fills the halo of `buf` (this rank's padded array: shape padded_shape, the plan's
        dtype, C-contiguous, writable) in place, and returns buf. GPU arrays: ordered on `stream` (a CuPy
        or PyTorch stream, or a cudaStream_t as an int), by default the array library's current stream.
        A JAX array or tracer gives a fresh array (stream stays None), eagerly or inside jax.jit; so does
        a PyTorch tensor that requires grad (or one torch.compile traces), its input left as it was.
        A wrong array on any rank raises Error on every rank before anything is exchanged."""
        return self._exchange(self, buf, stream)

    def adjoint(self, buf, stream=None):
        """Collective: execute's adjoint on `buf` (the same array as execute takes), in place, returning
        buf: every halo cell that execute writes is added into the interior cell it copies (the wrapped
        one where periodic, through the ranks beyond where the halo is wider than a neighbour's box) and
        then zeroed; cells beyond a domain edge that is not periodic are left as they were. So
        sum(execute(x) * y) == sum(x * adjoint(y)) over the ranks. The sums run in one fixed order, the
        same bits on every backend (docs/fft.md). Arrays as execute's: JAX's and tensors that autograd
        follows give a fresh array."""
        return self._exchange(self._adjoint(), buf, stream)

    def _exchange(self, op, buf, stream):
        """op (the plan, or its _Adjoint) on buf: the frameworks' operation for their arrays, else op's C
        call in place."""
        problem = None
        # Whatever one rank alone finds must stop every rank, not leave them waiting: caught into problem.
        try:
            ad = _arrays.adapter(buf)
        except Exception as e:
            ad, problem = None, str(e) or type(e).__name__
        if ad is not None and ad.name in _frameworks.NAMES:
            self._live()
            result = _frameworks.operation(ad, op, buf, None, stream)
            if result is not NotImplemented:
                return result
        return self._run_in_place(op, ad, buf, stream, problem)

    def _run_in_place(self, op, ad, buf, stream, problem=None):
        """op's C call on buf in place, its checks agreed over the ranks; returns buf."""
        handle = self._live()
        ptr = s = None
        if problem is None:
            try:
                problem, d = self._problem(ad, buf)
                if problem is None:
                    ptr = d.ptr
                    s = ad.stream(buf, stream, d.device)
            except Exception as e:
                problem = str(e) or type(e).__name__
        if problem is not None:  # every rank's execute fails with this rank's problem, before anything moves
            self._refuse(handle, problem)
        _lib.check(op._c_execute(handle, ptr or None, s or None))
        return buf

    def _run(self, handle, ad, a, out, stream):
        """The frameworks' eager call (PyTorch's op): on a copy of `a`, in place (an op leaves its input as
        it was); returns the copy."""
        return self._run_in_place(self, ad, ad.copy(a), stream)

    def close(self):
        """Collective: frees the plan (after its last execute's stream work has finished). Idempotent."""
        if self._handle is not None:
            for plan in self._derived.values():
                plan.close()
            self._derived.clear()
            _frameworks.retire(self._back)
            _frameworks.retire(self)
            handle, self._handle = self._handle, None
            self._pointers.clear()
            _lib.check(_lib.lib.dtrHaloPlanDestroy(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self._handle is None else self._backend
        return (f"disttranspose.HaloPlan({'x'.join(map(str, self.shape))} {self._dtype}, "
                f"{self.pencil.upper()}-pencils, halo {self.halo}, periodic {self.periodic}, {state})")


class _Adjoint(_HaloOperation):
    """A halo plan's adjoint (dtrHaloExecuteAdjoint) as an operation of JAX and PyTorch programs, on the
    plan's handle; its adjoint is the plan again (second derivatives, linear_transpose twice)."""

    _c_execute = _lib.lib.dtrHaloExecuteAdjoint
    _executor = ctypes.cast(_c_execute, ctypes.c_void_p).value

    def __init__(self, plan):
        self._plan = plan
        self.in_shape = self.out_shape = plan.padded_shape
        self.dtype = plan.dtype
        self._device, self._comm, self._alignment = plan._device, plan._comm, plan._alignment
        self._jax_registered = False  # known to JAX's custom calls (_jax.py)
        self._traced = set()  # as HaloPlan's
        self._op = _ops.add(self)

    @property
    def _handle(self):
        return self._plan._handle

    def _live(self):
        return self._plan._live()

    def _expected(self, ad):
        return self._plan._expected(ad)

    _expected_out = _expected

    def _adjoint(self):
        return self._plan

    def _batched(self, n):
        return self._plan._batched(n)._adjoint()

    def _refuse(self, handle, problem):
        self._plan._refuse(handle, problem)

    def _run(self, handle, ad, a, out, stream):
        return self._plan._run_in_place(self, ad, ad.copy(a), stream)
