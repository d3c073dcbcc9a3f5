"""What the examples (taylor_green.py, poisson.py) share: the array library of --lib, host copies and
waiting for results, and per-axis values laid out along a rank's box. Imported from the examples'
folder (python puts a script's folder first on its path)."""

import json
import os
import sys

import numpy as np
from mpi4py import MPI


def _abort_everywhere(kind, value, traceback):
    """An exception that one rank alone raises (a failed check on rank 0, a bad array) would leave the
    others waiting in their next collective: it is printed, and every rank ends with it."""
    sys.__excepthook__(kind, value, traceback)
    sys.stderr.flush()
    MPI.COMM_WORLD.Abort(1)


if MPI.COMM_WORLD.size > 1:
    sys.excepthook = _abort_everywhere  # not called for sys.exit (the skip code 77, a failed check's 1)


def array_library(name, comm=MPI.COMM_WORLD):
    """(the array module, jax or None, the GPU of this rank or None) for --lib numpy, cupy or jax (JAX with
    64-bit types on). The GPU is the node-local rank's (ranks share GPUs where there are fewer): CuPy's
    current device, JAX's default device, and the one to make the grid on (dt.Grid(..., device=)), since
    a process may see every GPU of its host. Several JAX processes on a host do not each take 75 % of
    every GPU they see (XLA_PYTHON_CLIENT_PREALLOCATE=false unless set). A missing library ends the run
    with ctest's skip code (77) and the reason, on every rank alike."""
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    rank, size = local.Get_rank(), local.Get_size()
    local.Free()
    try:
        if name == "jax":
            if size > 1:
                os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
            import jax
            import jax.numpy as xp
            jax.config.update("jax_enable_x64", True)
            gpus = [d for d in jax.devices() if d.platform == "gpu"]
            if not gpus:
                return xp, jax, None
            jax.config.update("jax_default_device", gpus[rank % len(gpus)])
            return xp, jax, rank % len(gpus)
        if name == "cupy":
            import cupy as xp
            device = rank % xp.cuda.runtime.getDeviceCount()
            xp.cuda.Device(device).use()
            return xp, None, device
    except ImportError as e:
        if comm.rank == 0:
            print(f"SKIP: --lib {name}: {e}", flush=True)
        sys.exit(77)
    return np, None, None


def write_json(path, grid, record, comm=MPI.COMM_WORLD):
    """Rank 0 writes the run's record, with the grid's dimensions, layout and ranks (the C examples' keys
    where they mean the same), to path, if given."""
    if path and comm.rank == 0:
        pr, pc = grid.dims[:2]
        with open(path, "w") as f:
            json.dump({**record, "grid": [pr, pc], "layout": "slabs" if pr == 1 else "pencils", "ranks": comm.size},
                      f, indent=1)
            f.write("\n")


def host(a):
    """A NumPy array of a NumPy, CuPy or JAX array (waiting for the work that makes it)."""
    return a.get() if hasattr(a, "get") else np.asarray(a)


def wait(a):
    """Until the work that makes `a` is done (CuPy queues it on its stream, JAX runs it asynchronously)."""
    if hasattr(a, "block_until_ready"):
        a.block_until_ready()
    elif hasattr(a, "get"):
        import cupy
        cupy.cuda.get_current_stream().synchronize()


def along(box, d, values):
    """values (one per index of the box along dimension d: 0 = x, 1 = y, 2 = z) shaped to broadcast over
    the three spatial axes of the box's array (box.order lists them fastest first; a trailing axis of
    fields broadcasts as well with [..., None])."""
    axes = ["xyz".index(a) for a in reversed(box.order)]  # the array's axis j holds dimension axes[j]
    view = [1, 1, 1]
    view[axes.index(d)] = len(values)
    return np.asarray(values).reshape(view)


def indices(box, d):
    """The global indices of the box along dimension d (0 = x, 1 = y, 2 = z)."""
    return np.arange(box.start[d], box.start[d] + box.size[d])


def signed(idx, n):
    """Indices of an axis of n modes as wavenumbers in numpy's order: 0 ... ceil(n / 2) - 1, then the
    negative ones (an even n's Nyquist mode, -n / 2, among them, where the library keeps it)."""
    return np.where(idx < (n + 1) // 2, idx, idx - n)
