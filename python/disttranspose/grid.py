"""A process grid for 3-D arrays in pencils, and the boxes each rank holds."""

import ctypes

from . import _arrays, _collective, _cuda, _lib, _ops
from .errors import Error

_AXES = "xyz"


class Box:
    """What a rank holds of a 3-D array in one pencil (dtrBox_t). start and size are along (x, y, z);
    order lists the axes in memory, fastest first; shape is the local array's shape as NumPy and the
    others index it (slowest axis first, then a trailing howmany axis where howmany > 1)."""

    def __init__(self, raw, pencil, howmany):
        self.pencil = pencil
        self.start = tuple(raw.start)
        self.size = tuple(raw.size)
        self.order = tuple(_AXES[i] for i in raw.order)
        self.entry_bytes = raw.entry_bytes
        self.bytes = raw.bytes
        self.shape = tuple(raw.size[i] for i in reversed(raw.order)) + ((howmany,) if howmany > 1 else ())

    def __repr__(self):
        return f"Box({self.pencil}: start={self.start}, size={self.size}, order={''.join(self.order)}, shape={self.shape})"


class Grid:
    """Collective over comm (any mpi4py intracommunicator; a 2-D Cartesian one gives its dims): a pr x pc
    process grid. pr = pc = 0 chooses the squarest with pr <= pc; one of them 0 is taken from the other.
    Plans made on it stay valid after close().

    autotune=(nx, ny, nz) chooses the grid by measurement instead (dtrGridAutotune): `target` ('fft',
    'transposes' or 'halo') is timed on every pr x pc grid of the communicator's size, for an array of
    that shape and `dtype`, and the fastest is made. 'fft' runs the FFT of rfftn for a real dtype
    (float32, float64) and of fftn for a complex one, of `howmany` fields; 'transposes' the pencil chain x -> y -> z -> y -> x
    (x -> z -> x on 1 x P) of `howmany` entries; 'halo' a halo exchange of `pencil` pencils with widths
    `halo` and `periodic` axes. backend ('auto': each GPU backend that serves, or 'cpu' where a rank has
    no GPU), device and timeout are the plans' settings; iterations: timed runs per candidate. The grid
    then holds `autotune_backend`, the backend of the fastest candidate (give it to the plans), and
    `autotune_timings`: a dict per candidate (pr, pc, backend, result, seconds), in the order they were
    timed, the same on every rank.

    The grid's GPU (`device`) is the device given, else the one current when the grid is made (the
    library's rule for plans): the FFT's plans of a traced call (jax.jit), whose array XLA places only when
    it runs, are made there, and the autotune's candidates run there."""

    def __init__(self, comm=None, pr=0, pc=0, *, autotune=None, dtype=None, target="fft", backend="auto",
                 iterations=3, howmany=1, pencil="x", halo=(1, 1, 1), periodic=(True, True, True), device=None,
                 timeout=0):
        from .plan import _comm_or_world
        comm = _comm_or_world(comm)
        self.autotune_timings = None
        self.autotune_backend = None

        def convert():
            r, c = _collective.integer("pr", pr, 0), _collective.integer("pc", pc, 0)
            if autotune is not None and (r or c):
                raise ValueError(f"pr = {r}, pc = {c} beside autotune: give the grid's dimensions or autotune, not both")
            gpu = None if device is None else _collective.integer("device", device, 0)
            tune = None if autotune is None else _autotune_arguments(autotune, dtype, target, backend, iterations, howmany,
                                                                     pencil, halo, periodic, device, timeout)
            return comm.py2f(), r, c, tune, gpu

        fcomm, r, c, tune, gpu = _collective.checked(comm, convert)
        self._device = _cuda.current_device() if gpu is None else gpu
        if tune is not None:
            r, c = self._autotune(fcomm, *tune)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrGridCreateF(ctypes.byref(handle), fcomm, r, c))
        self._handle = handle.value
        self._number = _ops.grid_number(self)
        self.comm = comm
        dims = [ctypes.c_int() for _ in range(4)]
        _lib.check(_lib.lib.dtrGridGetDims(self._handle, *(ctypes.byref(d) for d in dims)))
        self.pr, self.pc, self.a, self.b = (d.value for d in dims)
        self._plans = {}  # what the bindings keep with the grid (disttranspose.fft's plans), closed with it

    def _autotune(self, fcomm, shape, code, what, cfg):
        """dtrGridAutotune; records its report. Returns the chosen (pr, pc)."""
        capacity = 64
        timings = (_lib.AutotuneTiming * capacity)()
        count = ctypes.c_int(0)
        cfg.timings = ctypes.cast(timings, ctypes.POINTER(_lib.AutotuneTiming))
        cfg.capacity = capacity
        cfg.count = ctypes.pointer(count)
        r, c, backend = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        _lib.check(_lib.lib.dtrGridAutotuneF(fcomm, (ctypes.c_int64 * 3)(*shape), code, what, ctypes.byref(cfg),
                                             ctypes.byref(r), ctypes.byref(c), ctypes.byref(backend)))
        self.autotune_backend = _lib.BACKENDS[backend.value]
        self.autotune_timings = [
            dict(pr=t.pr, pc=t.pc, backend=_lib.BACKENDS[t.backend],
                 result="success" if t.result == 0 else _lib.lib.dtrGetErrorString(t.result).decode(),
                 seconds=t.seconds if t.result == 0 else None)
            for t in timings[:min(count.value, capacity)]]
        return r.value, c.value

    def _live(self):
        if self._handle is None:
            raise Error(1, "this grid has been closed")
        return self._handle

    @property
    def device(self):
        """The grid's GPU (see the class); None where the process has none."""
        return None if self._device < 0 else self._device

    @property
    def dims(self):
        return (self.pr, self.pc)

    def box(self, shape, pencil, dtype, howmany=1, rank=-1):
        """What grid rank `rank` (-1: the caller) holds of a 3-D array of `shape` (nx, ny, nz) in `pencil`
        ('x', 'y' or 'z') pencils. Not collective."""
        if not isinstance(pencil, str) or pencil.lower() not in _lib.PENCILS:
            raise ValueError(f"pencil = {pencil!r}: expected 'x', 'y' or 'z'")
        shape = tuple(_collective.integer(f"shape[{i}]", s) for i, s in enumerate(shape))
        if len(shape) != 3:
            raise ValueError(f"shape = {shape!r}: expected (nx, ny, nz)")
        raw = _lib.Box()
        howmany = _collective.integer("howmany", howmany)
        _lib.check(_lib.lib.dtrPencilBox(self._live(), (ctypes.c_int64 * 3)(*shape), _lib.PENCILS.index(pencil.lower()),
                                         _arrays.dtype_code(dtype), howmany, rank, ctypes.byref(raw)))
        return Box(raw, pencil.lower(), howmany)

    def close(self):
        """Collective: closes the plans the FFT made on this grid, and the grid. Idempotent."""
        for plan in self._plans.values():
            plan.close()
        self._plans.clear()
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _lib.check(_lib.lib.dtrGridDestroy(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"disttranspose.Grid({self.pr} x {self.pc}, rank ({self.a}, {self.b}))"


def _autotune_arguments(shape, dtype, target, backend, iterations, howmany, pencil, halo, periodic, device, timeout):
    """Grid(autotune=...)'s arguments as the C call takes them: (shape, type code, target, config)."""
    from .plan import _config
    try:
        shape = tuple(shape)
    except TypeError:
        raise TypeError(f"autotune = {shape!r}: expected the array's shape (nx, ny, nz)") from None
    if len(shape) != 3:
        raise ValueError(f"autotune = {shape!r}: expected the array's shape (nx, ny, nz)")
    shape = tuple(_collective.integer(f"autotune[{i}]", s, 1) for i, s in enumerate(shape))
    if dtype is None:
        raise ValueError("autotune needs the array's dtype")
    name = _arrays.dtype_name(dtype)
    if not isinstance(target, str) or target.lower() not in _lib.AUTOTUNE_TARGETS:
        raise ValueError(f"target = {target!r}: expected one of {', '.join(_lib.AUTOTUNE_TARGETS)}")
    if not isinstance(pencil, str) or pencil.lower() not in _lib.PENCILS:
        raise ValueError(f"pencil = {pencil!r}: expected 'x', 'y' or 'z'")
    cfg = _lib.AutotuneConfig()
    _lib.lib.dtrAutotuneConfigInit(ctypes.byref(cfg))
    cfg.transpose = _config(backend, "auto", 0, False, device, timeout)
    # The FFT the dtype makes: R2C of a real one (rfftn), C2C of a complex one (fftn).
    cfg.fft_kind = _lib.FFT_KINDS.index("r2c" if name in ("float32", "float64") else "c2c")
    cfg.iterations = _collective.integer("iterations", iterations, 1)
    cfg.howmany = _collective.integer("howmany", howmany, 1)
    cfg.halo_pencil = _lib.PENCILS.index(pencil.lower())
    for name_, values, into in (("halo", halo, cfg.halo), ("periodic", periodic, cfg.periodic)):
        try:
            values = tuple(values)
        except TypeError:
            raise TypeError(f"{name_} = {values!r}: expected three values (x, y, z)") from None
        if len(values) != 3:
            raise ValueError(f"{name_} = {values!r}: expected three values (x, y, z)")
        for i, v in enumerate(values):
            if name_ == "periodic" and not isinstance(v, (bool, int)):
                raise TypeError(f"periodic[{i}] = {v!r}: expected True or False")
            into[i] = int(bool(v)) if name_ == "periodic" else _collective.integer(f"halo[{i}]", v, 0)
    return shape, _arrays.DTYPES.index(name), _lib.AUTOTUNE_TARGETS.index(target.lower()), cfg
