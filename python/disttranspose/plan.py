"""Plans: a matrix transposed over the ranks of a communicator (Plan), a 3-D array moved between
pencils of a process grid (PencilPlan), and what a rank owns of a matrix (local_size). Thin over the
C library: the same meaning, arguments and errors (include/disttranspose.h)."""

import ctypes
import sys

from . import _arrays, _collective, _frameworks, _lib, _ops
from .errors import Error

# What the frameworks' compiled programs call to run a plan (_ops.py): dtrExecute itself.
_EXECUTOR = ctypes.cast(_lib.lib.dtrExecute, ctypes.c_void_p).value


def _comm_or_world(comm):
    """The communicator (default the world); something else cannot be agreed over, so it raises here."""
    if comm is None:
        from mpi4py import MPI
        return MPI.COMM_WORLD
    if not (hasattr(comm, "py2f") and hasattr(comm, "allgather")):
        raise Error(1, f"comm = {comm!r}: expected an mpi4py communicator")
    return comm


def _fortran_handle(comm):
    try:
        return comm.py2f()
    except AttributeError:
        raise TypeError(f"comm = {comm!r}: expected an mpi4py communicator") from None


class LocalSize:
    """What a rank owns of a rows x cols matrix and of its transpose (dtrLocalSize_t)."""

    def __init__(self, raw, rows, cols, howmany):
        self.in_rows = raw.in_rows
        self.in_row_start = raw.in_row_start
        self.out_rows = raw.out_rows
        self.out_row_start = raw.out_row_start
        self.in_bytes = raw.in_bytes
        self.out_bytes = raw.out_bytes
        self.entry_bytes = raw.entry_bytes
        extra = (howmany,) if howmany > 1 else ()
        self.in_shape = (raw.in_rows, cols) + extra
        self.out_shape = (raw.out_rows, rows) + extra

    def __repr__(self):
        return (f"LocalSize(in_rows={self.in_rows}, in_row_start={self.in_row_start}, out_rows={self.out_rows}, "
                f"out_row_start={self.out_row_start}, in_bytes={self.in_bytes}, out_bytes={self.out_bytes})")


def local_size(rows, cols, dtype, comm=None, howmany=1, rank=-1):
    """What `rank` of comm (-1: the caller) owns of A (rows x cols) and of B = A^T. Not collective."""
    comm = _comm_or_world(comm)
    raw = _lib.LocalSize()
    code = _arrays.dtype_code(dtype)
    rows, cols = _collective.integer("rows", rows), _collective.integer("cols", cols)
    howmany = _collective.integer("howmany", howmany)
    _lib.check(_lib.lib.dtrLocalSizeF(rows, cols, code, howmany, _fortran_handle(comm), rank, ctypes.byref(raw)))
    return LocalSize(raw, rows, cols, howmany)


def _config(backend, kernel, stages, inplace, device, timeout, workspace="own"):
    def index(name, value, names):
        if isinstance(value, str) and value.lower() in names:
            return names.index(value.lower())
        raise ValueError(f"{name} = {value!r}: expected one of {', '.join(names)}")

    cfg = _lib.Config()
    _lib.lib.dtrConfigInit(ctypes.byref(cfg))
    cfg.backend = index("backend", backend, _lib.BACKENDS)
    cfg.kernel = index("kernel", kernel, _lib.KERNELS)
    cfg.stages = _collective.integer("stages", stages, 0)
    cfg.workspace = index("workspace", workspace, _lib.WORKSPACES)
    if not isinstance(inplace, bool):
        raise TypeError(f"inplace = {inplace!r}: expected True or False")
    cfg.inplace = int(inplace)
    cfg.device = -1 if device is None else _collective.integer("device", device, 0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout = {timeout!r}: expected seconds (0: DTR_TIMEOUT, off by default)")
    cfg.timeout = float(timeout)
    return cfg


class _PlanBase:
    """What both plans share: execute, the getters, close, and what JAX and PyTorch ask of a plan (_ops.py)."""

    _handle = None
    _executor = _EXECUTOR
    _direction = 0  # _executor takes no direction (dtrExecute's signature)
    _in_place = False  # its result is a new array (execute_inplace is the C call's own, not the frameworks')

    def _finish_init(self, handle, dtype, in_shape, out_shape, comm):
        self._handle = handle
        self._dtype = dtype
        self._alignment = _arrays.itemsize(dtype)  # of the arrays' addresses, as the plan checks
        self._expect = {}
        self._pointers = _arrays.PointerCache()
        self._checked_a = self._checked_out = None  # the keys of the last arrays that passed the checks
        self._comm = comm
        self.in_shape = in_shape
        self.out_shape = out_shape
        device = ctypes.c_int()
        _lib.check(_lib.lib.dtrPlanGetDevice(handle, ctypes.byref(device)))
        self._device = device.value
        self._op = _ops.add(self)
        self._derived = {}  # plans made from this one at trace time (_derive)
        self._origin = None  # the plan that made this one, which closes it
        self._jax_registered = False  # known to JAX's custom calls (_jax.py)
        self._traced = set()  # the (shape, dtype) of inputs torch.compile traced and the ranks agreed on
        if "torch" in sys.modules:
            _frameworks.torch_ops()  # the custom ops registered before a compiled program traces a call

    def _derive(self, key, make):
        """Collective: the plan `key` names ('adjoint', ('batch', n)), made by make() the first time a
        trace asks for it (_ops.py says why every rank asks together) and closed with this plan."""
        plan = self._derived.get(key)
        if plan is None:
            plan = self._derived[key] = make()
            plan._origin = self
            if key == "adjoint":
                plan._derived["adjoint"] = self
        return plan

    def _adjoint(self):
        """Collective at trace time: the plan of the reverse transpose, a transpose's adjoint."""
        return self._derive("adjoint", lambda: self._like(reverse=True))

    def _batched(self, n):
        """Collective at trace time: this plan with `n` times its howmany (a leading batch of n)."""
        return self._derive(("batch", n), lambda: self._like(howmany=self.howmany * n))

    def _options(self):
        """The settings a derived plan repeats: the backend this one resolved and its GPU, so that the two
        run alike; the rest as asked."""
        return dict(backend=self.backend, kernel=self._asked["kernel"], stages=self._asked["stages"],
                    device=self.device, timeout=self._asked["timeout"])

    def _get(self, getter, kind=ctypes.c_int):
        value = kind()
        _lib.check(getter(self._live(), ctypes.byref(value)))
        return value.value

    def _live(self):
        if self._handle is None:
            raise Error(1, "this plan has been closed")
        return self._handle

    @property
    def backend(self):
        """The backend the plan resolved: 'nccl', 'cpu' or 'p2p'."""
        return _lib.BACKENDS[self._get(_lib.lib.dtrPlanGetBackend)]

    @property
    def kernel(self):
        """The kernel of its local transposes."""
        return _lib.KERNELS[self._get(_lib.lib.dtrPlanGetKernel)]

    @property
    def stages(self):
        return self._get(_lib.lib.dtrPlanGetStages)

    @property
    def device(self):
        """The plan's GPU, or None on the cpu backend."""
        self._live()
        return None if self._device < 0 else self._device

    @property
    def workspace_size(self):
        """Bytes of exchange buffers the plan holds."""
        return self._get(_lib.lib.dtrPlanGetWorkspaceSize, ctypes.c_size_t)

    @property
    def dtype(self):
        return self._dtype

    def _expected(self, ad):
        """The plan's element type as ad's library names it (computed once per library)."""
        e = self._expect.get(ad)
        if e is None:
            e = self._expect[ad] = ad.dtype(self._dtype)
        return e

    # A transpose's result has its input's element type (an FFT operation's may not: _ops.py).
    _expected_out = _expected

    # The adjoint is _adjoint() itself: a transpose is a permutation, real (_ops.py).
    _adjoint_weights = None

    def _refuse(self, handle, problem):
        """Every rank's execute fails with this rank's problem (dtrExecuteRefuse), before anything runs."""
        _lib.refuse(_lib.lib.dtrExecuteRefuse, handle, problem)

    def execute(self, a, out=None, stream=None):
        """Collective: the transpose of `a` (this rank's part, shape in_shape) into `out` (shape out_shape),
        which is allocated with a's library where None, and returned. GPU arrays: ordered on `stream`
        (a CuPy or PyTorch stream, or a cudaStream_t as an int), by default the array library's current
        stream. A wrong array on any rank raises Error on every rank before anything runs. JAX arrays and
        tracers, and PyTorch tensors that autograd or torch.compile follow, run as the frameworks' own
        operations (differentiable, compilable; out and stream stay None)."""
        handle = self._handle
        if handle is None:
            self._live()
        ad = _arrays.adapter(a)
        if ad.name in _frameworks.NAMES:
            result = _frameworks.operation(ad, self, a, out, stream)
            if result is not NotImplemented:
                return result
        return self._run(handle, ad, a, out, stream)

    def _run(self, handle, ad, a, out, stream):
        """execute's own path: the arrays' pointers to dtrExecute, checked (and agreed) unless they are the
        last ones checked."""
        if out is not None and ad.key is not None and type(out) is type(a):
            # The hot path: arrays that give the same keys as the last checked ones pass the same checks.
            ka, ko = ad.key(a, self._pointers), ad.key(out, self._pointers)
            if ka == self._checked_a and ko == self._checked_out and ka[0] != ko[0]:
                result = _lib.lib.dtrExecute(handle, ka[0] or None, ko[0] or None, ad.stream(a, stream, self._device) or None)
                if result:
                    raise Error(result, _lib.last_error())
                return out
        aptr, optr, out, a = self._check(handle, ad, a, out)
        result = _lib.lib.dtrExecute(handle, aptr or None, optr or None, ad.stream(a, stream, self._device) or None)
        if result:
            raise Error(result, _lib.last_error())
        return out if ad.synchronous_result else ad.finish(out)

    def _check(self, handle, ad, a, out):
        """The full checks of an execute's arrays (allocating out where None): their pointers, out and the
        a read (a misaligned one's aligned copy), or every rank's execute refused with this rank's
        problem."""
        given = a
        d = ad.describe(a, self._pointers)
        try:
            a, d = _arrays.aligned(ad, a, d, self._pointers, self._alignment)
        except Exception as e:  # refused on every rank below, not raised on this one alone
            self._refuse(handle, f"a lies off its elements' alignment and could not be copied: {e}")
        problem = _arrays.problem(ad, d, self.in_shape, self._expected(ad), self._device, "a")
        if problem is None and out is None:
            # Made here to the plan's shape and type: nothing of it to check, and no key to keep (the
            # next execute's result is another array).
            try:
                out = ad.empty(a, self.out_shape, self._dtype)
            except Exception as e:  # refused on every rank, not raised on this one alone
                self._refuse(handle, f"the result ({self.out_shape}, {self._dtype}) could not be allocated: {e}")
            return d.ptr, ad.describe(out, self._pointers).ptr, out, a
        if problem is None:
            od = _arrays.adapter(out)
            if not getattr(od, "accepts_out", True):
                problem = f"out: {od.name} arrays are immutable; leave out=None (the result is a new array)"
            o = od.describe(out, self._pointers)
            if problem is None:
                problem = _arrays.problem(od, o, self.out_shape, self._expected(od), self._device, "out", writable=True)
            if problem is None and d.ptr and d.ptr == o.ptr:
                problem = "out is a: in place, pass one buffer to execute_inplace, on a plan made with inplace=True"
        if problem is not None:
            self._refuse(handle, problem)
        if ad.key is not None and type(out) is type(a) and a is given:
            self._checked_a, self._checked_out = ad.key(a, self._pointers), ad.key(out, self._pointers)
        return d.ptr, o.ptr, out, a

    @property
    def inplace_size(self):
        """Elements of the one buffer an in-place execute takes: max(in, out) on this rank."""
        return max(_arrays._count(self.in_shape), _arrays._count(self.out_shape))

    def execute_inplace(self, buf, stream=None):
        """Collective, on a plan made with inplace=True: `buf` (contiguous, at least inplace_size elements
        of the plan's type) holds this rank's input in its first elements before (shape in_shape), its
        output after (shape out_shape). Returns the output as a view of buf."""
        handle = self._live()
        ad = _arrays.adapter(buf)
        d = ad.describe(buf, self._pointers)
        count, need = _arrays._count(d.shape), self.inplace_size
        problem = None
        if not self._inplace:
            problem = "execute_inplace needs a plan made with inplace=True"
        elif count < need:
            problem = f"buf has {count} elements; this rank needs {need} (inplace_size)"
        else:
            problem = _arrays.problem(ad, d, d.shape, self._expected(ad), self._device, "buf", writable=True)
        if problem is not None:
            self._refuse(handle, problem)
        result = _lib.lib.dtrExecute(handle, d.ptr or None, d.ptr or None, ad.stream(buf, stream, self._device) or None)
        if result:
            raise Error(result, _lib.last_error())
        return ad.finish(ad.view(buf, self.out_shape, self._dtype))

    def close(self):
        """Collective: frees the plan (after its last execute's stream work has finished) and the plans made
        from it for gradients and vmap. Idempotent."""
        if self._handle is not None:
            for plan in self._derived.values():
                if plan._origin is self:
                    plan.close()
            self._derived.clear()
            _frameworks.retire(self)
            handle, self._handle = self._handle, None
            self._pointers.clear()
            self._checked_a = self._checked_out = None
            _lib.check(_lib.lib.dtrPlanDestroy(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Plan(_PlanBase):
    """Collective over comm: B = A^T of a rows x cols matrix of `dtype` entries (each `howmany`
    elements, a trailing axis of the arrays), A distributed by rows over the ranks and B likewise.

    backend: 'auto', 'nccl', 'p2p' or 'cpu'; kernel: 'auto' or a kernel's name; stages: 0 (by size)
    or 1..64; inplace: executes take one buffer (see execute_inplace); device: the GPU (None: the
    current one); timeout: seconds a rank waits for the others (0: DTR_TIMEOUT, off by default).
    """

    def __init__(self, rows, cols, dtype, comm=None, *, howmany=1, backend="auto", kernel="auto", stages=0,
                 inplace=False, device=None, timeout=0):
        comm = _comm_or_world(comm)

        def convert():
            return (_collective.integer("rows", rows), _collective.integer("cols", cols),
                    _arrays.dtype_name(dtype), _collective.integer("howmany", howmany),
                    _config(backend, kernel, stages, inplace, device, timeout), _fortran_handle(comm))

        r, c, name, h, cfg, fcomm = _collective.checked(comm, convert)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrPlanCreateF(ctypes.byref(handle), r, c, _arrays.DTYPES.index(name), h, fcomm,
                                           ctypes.byref(cfg)))
        self.local = local_size(r, c, name, comm, h)
        self.rows, self.cols, self.howmany = r, c, h
        self._inplace = bool(inplace)
        self._asked = dict(kernel=kernel, stages=stages, timeout=timeout)
        self._finish_init(handle.value, name, self.local.in_shape, self.local.out_shape, comm)

    _spatial = 2  # (rows, cols) before the howmany axis

    def _like(self, reverse=False, howmany=None):
        rows, cols = (self.cols, self.rows) if reverse else (self.rows, self.cols)
        return Plan(rows, cols, self._dtype, self._comm, howmany=howmany or self.howmany, **self._options())

    def __repr__(self):
        state = "closed" if self._handle is None else self.backend
        return f"disttranspose.Plan({self.rows} x {self.cols} {self._dtype} x {self.howmany}, {state})"


class PencilPlan(_PlanBase):
    """Collective over the grid: moves a 3-D array of `shape` (nx, ny, nz) from `src` pencils to `dst`
    pencils ('x', 'y', 'z'): X<->Y, Y<->Z, and X<->Z on 1 x P grids. execute takes this rank's src box
    and returns its dst box (Grid.box gives their shapes). workspace 'grid' shares one set of buffers
    among the grid's plans whose executes never overlap."""

    def __init__(self, grid, shape, src, dst, dtype, *, howmany=1, backend="auto", kernel="auto", stages=0,
                 inplace=False, device=None, timeout=0, workspace="own"):
        comm = grid.comm

        def convert():
            sh = tuple(_collective.integer(f"shape[{i}]", s) for i, s in enumerate(shape))
            if len(sh) != 3:
                raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
            p = []
            for name, v in (("src", src), ("dst", dst)):
                if not isinstance(v, str) or v.lower() not in _lib.PENCILS:
                    raise ValueError(f"{name} = {v!r}: expected 'x', 'y' or 'z'")
                p.append(_lib.PENCILS.index(v.lower()))
            return (sh, p, _arrays.dtype_name(dtype), _collective.integer("howmany", howmany),
                    _config(backend, kernel, stages, inplace, device, timeout, workspace))

        sh, (s, d), name, h, cfg = _collective.checked(comm, convert)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrPlanCreatePencil(ctypes.byref(handle), grid._live(), (ctypes.c_int64 * 3)(*sh), s, d,
                                                _arrays.DTYPES.index(name), h, ctypes.byref(cfg)))
        self.shape, self.src, self.dst, self.howmany = sh, _lib.PENCILS[s], _lib.PENCILS[d], h
        self._inplace = bool(inplace)
        self._grid = grid
        self._asked = dict(kernel=kernel, stages=stages, timeout=timeout, workspace=workspace)
        self._finish_init(handle.value, name, grid.box(sh, self.src, name, h).shape,
                          grid.box(sh, self.dst, name, h).shape, comm)

    _spatial = 3  # the box's three axes before the howmany axis

    def _like(self, reverse=False, howmany=None):
        src, dst = (self.dst, self.src) if reverse else (self.src, self.dst)
        return PencilPlan(self._grid, self.shape, src, dst, self._dtype, howmany=howmany or self.howmany,
                          workspace=self._asked["workspace"], **self._options())

    def __repr__(self):
        state = "closed" if self._handle is None else self.backend
        return (f"disttranspose.PencilPlan({'x'.join(map(str, self.shape))} {self._dtype}, "
                f"{self.src.upper()} -> {self.dst.upper()}, {state})")
