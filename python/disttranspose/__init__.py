"""disttranspose: the distributed matrix transpose, pencil transposes and 3-D FFT (disttranspose.fft)
of the C library, for NumPy (host memory, cpu backend), CuPy, PyTorch and JAX arrays (GPU backends;
PyTorch's and JAX's host arrays on the cpu backend), zero copy, on mpi4py communicators; the transposes
and the FFT also inside jax.jit and torch.compile, differentiable (a transpose's adjoint is the reverse
plan, an FFT's its plan's other direction).

    from mpi4py import MPI
    import numpy as np
    import disttranspose as dt

    with dt.Plan(1000, 700, "float32", MPI.COMM_WORLD) as plan:
        a = np.random.rand(*plan.in_shape).astype(np.float32)   # this rank's rows of A
        b = plan.execute(a)                                      # its rows of B = A^T
"""

from mpi4py import MPI as _MPI  # noqa: F401  (MPI is initialized before the library is used)

from . import fft
from .errors import Error
from .grid import Box, Grid
from .halo import HaloPlan
from .plan import LocalSize, PencilPlan, Plan, local_size

__version__ = "0.1.0"
__all__ = ["Plan", "PencilPlan", "HaloPlan", "Grid", "Box", "LocalSize", "local_size", "Error", "fft", "__version__"]
