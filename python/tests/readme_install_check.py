"""What the README's `pip install ./python` gives, run by readme_install.sh on 2 ranks in the fresh
environment it installed: jax.jit of a transpose and of fftn, jax.grad and jax.vmap through JAX's
custom calls, and torch.compile of a plan's execute, each checked against NumPy exactly (fftn: of a
point at the origin, exact in any algorithm; of random values, within 1e-12 of the largest entry); the
warning that PyTorch's ops run their Python kernels (pip's isolated build cannot make the C++ ones),
once. Fails where the custom calls are missing or refused, or where the package imported is not this
environment's. Every check is agreed over the ranks, so that all of them fail together."""

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import torch
from mpi4py import MPI

import disttranspose as dt
from disttranspose import _jax

COMM = MPI.COMM_WORLD
failed = []


def check(ok, what):
    """Collective: ok on every rank, else the check is recorded as failed (on every rank)."""
    if not COMM.allreduce(bool(ok), op=MPI.LAND):
        failed.append(what)


def finish():
    """Collective: exits, saying which checks failed, where any did."""
    if failed:
        if COMM.rank == 0:
            print("readme install: wrong: " + "; ".join(failed), flush=True)
        sys.exit(1)


def local(whole_zyx, box):
    """This rank's box of an array indexed [z][y][x], in the box's memory order."""
    part = whole_zyx[tuple(slice(box.start[d], box.start[d] + box.size[d]) for d in (2, 1, 0))]
    return np.ascontiguousarray(np.transpose(part, ["zyx".index(a) for a in reversed(box.order)]))


jax.config.update("jax_platforms", "cpu")  # host arrays and the cpu backend, on a machine with GPUs too
jax.config.update("jax_enable_x64", True)
check(dt.__file__.startswith(sys.prefix), f"the package imported is {dt.__file__}, not the one in {sys.prefix}")
check(_jax.module() is not None, "the custom calls: " + ("" if _jax.module() else _jax.unavailable()))
finish()

rows, cols = 2 * COMM.size + 3, 5
A = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) - 7
W = np.arange(rows * cols, dtype=np.float64).reshape(cols, rows) % 5
with dt.Plan(rows, cols, "float64", COMM, backend="cpu") as plan:
    ls = plan.local
    a = A[ls.in_row_start:ls.in_row_start + ls.in_rows]
    b = A.T[ls.out_row_start:ls.out_row_start + ls.out_rows]
    w = W[ls.out_row_start:ls.out_row_start + ls.out_rows]
    check(np.array_equal(np.asarray(jax.jit(plan.execute)(jnp.asarray(a))), b), "jax.jit of a transpose")
    grad = jax.grad(lambda u: jnp.sum(jnp.asarray(w) * plan.execute(u)))(jnp.asarray(a))
    g = W.T[ls.in_row_start:ls.in_row_start + ls.in_rows]
    check(np.array_equal(np.asarray(grad), g), "jax.grad of a transpose")
    batch = jax.vmap(plan.execute)(jnp.asarray(np.stack([a, 2 * a])))
    check(np.array_equal(np.asarray(batch), np.stack([b, 2 * b])), "jax.vmap of a transpose")
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        compiled = torch.compile(plan.execute, fullgraph=True)
        results = [compiled(torch.from_numpy(k * a)).numpy() for k in (1, 3)]
    check(np.array_equal(results[0], b) and np.array_equal(results[1], 3 * b), "torch.compile of a plan's execute")
    said = [str(m.message) for m in warned if "Python kernels" in str(m.message)]
    check(len(said) == 1, f"the Python kernels' warning, once: {said}")

shape = (8, 4, 6)
with dt.Grid(COMM) as grid:
    fftn = jax.jit(lambda v: dt.fft.fftn(v, grid, shape, backend="cpu"))
    x_box, z_box = grid.box(shape, "x", "complex128"), grid.box(shape, "z", "complex128")
    point = np.zeros(shape[::-1], np.complex128)
    point[0, 0, 0] = 3 - 2j
    y = np.asarray(fftn(jnp.asarray(local(point, x_box))))
    check(np.array_equal(y, local(np.fft.fftn(point), z_box)), "jax.jit of fftn, of a point")
    rng = np.random.default_rng(52)
    X = rng.standard_normal(shape[::-1]) + 1j * rng.standard_normal(shape[::-1])
    want = np.fft.fftn(X)
    y = np.asarray(fftn(jnp.asarray(local(X, x_box))))
    check(y.shape == z_box.shape and np.abs(y - local(want, z_box)).max(initial=0) <= 1e-12 * np.abs(want).max(),
          "jax.jit of fftn, of random values")

finish()
if COMM.rank == 0:
    print("readme install: jit, grad, vmap and torch.compile exact", flush=True)
