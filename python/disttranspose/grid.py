"""A process grid for 3-D arrays in pencils, and the boxes each rank holds."""

import ctypes

from . import _arrays, _collective, _lib
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
    Plans made on it stay valid after close()."""

    def __init__(self, comm=None, pr=0, pc=0):
        from .plan import _comm_or_world
        comm = _comm_or_world(comm)

        def convert():
            return comm.py2f(), _collective.integer("pr", pr, 0), _collective.integer("pc", pc, 0)

        fcomm, r, c = _collective.checked(comm, convert)
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.dtrGridCreateF(ctypes.byref(handle), fcomm, r, c))
        self._handle = handle.value
        self.comm = comm
        dims = [ctypes.c_int() for _ in range(4)]
        _lib.check(_lib.lib.dtrGridGetDims(self._handle, *(ctypes.byref(d) for d in dims)))
        self.pr, self.pc, self.a, self.b = (d.value for d in dims)
        self._plans = {}  # what the bindings keep with the grid (disttranspose.fft's plans), closed with it

    def _live(self):
        if self._handle is None:
            raise Error(1, "this grid has been closed")
        return self._handle

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
