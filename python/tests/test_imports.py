"""disttranspose with PyTorch and JAX in one process, imported in either order, in fresh processes: each
imports, makes and runs a plan on the host, and says which NCCL the process holds. The library loads
NCCL only for GPU plans, so a host plan leaves the process's NCCL the framework's own (pip's torch
once failed to import after disttranspose: the system's older NCCL, linked by the library, came first
and lacked what torch needs). And the JAX custom calls, which every installation has, registered."""

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import COMM, custom_calls_missing, everywhere

_CHILD = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
import numpy as np
from mpi4py import MPI
import disttranspose as dt
with dt.Plan(5, 3, "float32", MPI.COMM_SELF, backend="cpu") as plan:
    assert plan.execute(np.ones(plan.in_shape, np.float32)).shape == plan.out_shape
print(sorted({line.split()[-1] for line in open("/proc/self/maps") if "libnccl" in line}))
"""


def _orders():
    found = [name for name in ("torch", "jax") if importlib.util.find_spec(name)]
    return [order for name in found for order in (("disttranspose", name), (name, "disttranspose"))]


@pytest.mark.skipif(COMM.Get_size() > 1, reason="fresh processes of their own: one rank runs them")
@pytest.mark.parametrize("order", _orders() or [pytest.param(None, marks=pytest.mark.skip(reason="neither torch "
                                                                                               "nor jax is installed"))])
def test_import_order(order):
    # A process of its own, outside this job: none of the launcher's variables (MPI starts it as a
    # singleton), but its permission to run as root where it was given.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "OPAL_")) or k.startswith("OMPI_ALLOW_RUN_AS_ROOT")}
    run = subprocess.run([sys.executable, "-c", _CHILD, *order], env=env, capture_output=True, text=True, timeout=300)
    ok = run.returncode == 0
    if ok and order[0] == "disttranspose" and order[1] == "torch":
        # torch's own NCCL (pip's), not another copy before it
        ok = "nvidia" in run.stdout or "[]" in run.stdout
    assert everywhere(ok), f"{' then '.join(order)}: exit {run.returncode}\n{run.stdout}\n{run.stderr[-3000:]}"


def test_jax_custom_calls():
    """The package's XLA custom calls are there and XLA took them: they are built with the package whether
    or not the build had jax (pip's isolated build has none) and registered when JAX arrays first come."""
    pytest.importorskip("jax")
    why = custom_calls_missing()
    assert everywhere(why is None), why
