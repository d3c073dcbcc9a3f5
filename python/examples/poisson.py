"""A Poisson solver with walls: -lap u = f on [0, 2 pi)^2 x (0, Lz), periodic in x and y, u = 0 on the
walls z = 0 and z = Lz, by one transform: rfftn with kinds=("fft", "fft", "dst2") (x is R2C's halved
axis, y a DFT, z a DST-II), the coefficients divided by -lap's eigenvalues, and irfftn back.

The grid: x_i = 2 pi i / nx, y_j = 2 pi j / ny, and along z the DST-II's points z_k = (k + 1/2) Lz / nz,
on which the sines sin(pi m z / Lz), m = 1 ... nz, are the transform's modes: each vanishes on both
walls. Mode (i, j, k) of the spectral side (this rank's Z-pencil [y][x][z] of the (nx // 2 + 1, ny, nz)
complex array) is exp(i (kx x + ky y)) sin(pi (k + 1) z / Lz), kx = i, ky in numpy's order, and -lap
multiplies it by kx^2 + ky^2 + (pi (k + 1) / Lz)^2, never 0 (the walls leave no mean mode).

    mpirun -np 4 python poisson.py --shape 64x64x32 [--lz LZ] [--lib numpy|cupy|jax] [--grid PRxPC]
                                   [--type fp64|fp32] [--iters 10] [--check]

f is that of a manufactured solution made of the transform's own modes, a cos(kx x + ky y + phase)
sin(pi m z / Lz) (the C example's, examples/poisson/problem.h): four with fixed wavenumbers and the
highest mode resolved on each axis, so the discrete solve is exact up to rounding. The time per solve
(forward, division, inverse) is the median over --iters solves after a warm-up of the slowest rank's
time; with --lib jax the solve is one jitted function. --check compares u with the manufactured
solution, max |u - u*| / max |u*| within 1e-12 (fp64) or 1e-5 (fp32), times (Lz / pi)^2 where Lz > pi
(the smallest eigenvalue, (pi / Lz)^2, divides the rounding of f's transform); and the residual by a
second transform, max |-lap u - f| / (max |f| + lambda_max max |u*|), within the same base bound. Exit
status 1 where a check fails.
"""

import argparse
import sys
import time

import numpy as np
from mpi4py import MPI

import disttranspose as dt
from example_support import along, array_library, host, indices, signed, wait, write_json

COMM = MPI.COMM_WORLD
KINDS = ("fft", "fft", "dst2")  # x, y periodic; a sine series along z
BOUNDS = {"fp64": 1e-12, "fp32": 1e-5}
SMALLEST = (5, 7, 3)  # the fixed modes need |kx| <= (nx - 1) / 2, |ky| <= (ny - 1) / 2, m <= nz


def eigenvalue(kx, ky, m, lz):
    """-lap's eigenvalue of exp(i (kx x + ky y)) sin(pi m z / Lz)."""
    return kx ** 2 + ky ** 2 + (np.pi * m / lz) ** 2


def modes(shape, lz):
    """The manufactured solution's terms (a, kx, ky, phase, m): a cos(kx x + ky y + phase) sin(pi m z / Lz).
    The last is the highest mode resolved on each axis (below x's and y's Nyquist modes, whose sine part
    a grid cannot see; the DST's last sine), its amplitude 2 / lambda, so that its share of f stays 2."""
    nx, ny, nz = shape
    kx, ky, m = (nx - 1) // 2, -((ny - 1) // 2), nz
    return [(1.0, 2, 3, -0.5 * np.pi, 2),  # sin(2x + 3y) sin(2 pi z / Lz)
            (0.5, 1, 0, 0.0, 1),  # 0.5 cos(x) sin(pi z / Lz)
            (0.25, 0, -3, 0.3, 3),  # 0.25 cos(0.3 - 3y) sin(3 pi z / Lz)
            (0.3, 1, -2, 1.1, 3),  # 0.3 cos(x - 2y + 1.1) sin(3 pi z / Lz)
            (2.0 / eigenvalue(kx, ky, m, lz), kx, ky, 0.7, m)]


def problem(shape, lz, box):
    """(u*, f) at the points of this rank's X-pencil box, [z][y][x], float64. The arguments are reduced
    exactly, in integers, before any rounding (kx x_i = 2 pi (kx i mod nx) / nx, pi m z_k / Lz =
    pi m (2k + 1) / (2 nz) mod 2 pi), so the values keep fp64's accuracy on any grid."""
    nx, ny, nz = shape
    i, j, k = (indices(box, d) for d in range(3))
    i, j, k = i[None, None, :], j[None, :, None], k[:, None, None]
    u = f = 0.0
    for a, kx, ky, phase, m in modes(shape, lz):
        plane = 2 * np.pi * ((kx * i) % nx / nx + (ky * j) % ny / ny) + phase
        term = a * np.cos(plane) * np.sin(np.pi * ((m * (2 * k + 1)) % (4 * nz)) / (2 * nz))
        u, f = u + term, f + eigenvalue(kx, ky, m, lz) * term
    return u, f


def eigenvalues(box, shape, lz, xp, dtype):
    """-lap's eigenvalue at each mode of this rank's spectral box, broadcast over its array's axes
    (box.order lists them fastest first): kx = 0 ... nx // 2, ky in numpy's order (an even ny's Nyquist
    mode has the same square either way), the (k + 1)-th sine along z; of the real type of the arrays."""
    idx = [indices(box, d) for d in range(3)]
    k = [along(box, d, v.astype(np.float64)) for d, v in enumerate((idx[0], signed(idx[1], shape[1]), idx[2] + 1))]
    return xp.asarray(eigenvalue(k[0], k[1], k[2], lz).astype(dtype))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, help="points along each axis (or --shape)")
    p.add_argument("--shape", default="64x64x64", help="NXxNYxNZ (default 64x64x64)")
    p.add_argument("--lz", type=float, default=np.pi, help="the distance between the walls (default pi)")
    p.add_argument("--iters", type=int, default=10, help="timed solves, after a warm-up")
    p.add_argument("--json", metavar="FILE", help="write the run's figures as JSON (rank 0)")
    p.add_argument("--grid", default="", help="PRxPC (default: the library's choice)")
    p.add_argument("--lib", default="numpy", choices=("numpy", "cupy", "jax"))
    p.add_argument("--type", default="fp64", choices=("fp64", "fp32"))
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    shape = (args.n,) * 3 if args.n else tuple(int(v) for v in args.shape.split("x"))
    if len(shape) != 3 or any(s < low for s, low in zip(shape, SMALLEST)):
        p.error(f"the shape {' x '.join(map(str, shape))} is too small: the manufactured solution's modes need at "
                f"least {' x '.join(map(str, SMALLEST))} points")
    if not args.lz > 0 or args.iters < 1:
        p.error("--lz must be > 0 and --iters >= 1")
    xp, jax, device = array_library(args.lib)
    dtype = np.float64 if args.type == "fp64" else np.float32
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    with dt.Grid(COMM, pr, pc, device=device) as grid:
        bx = dt.fft.local_box(grid, shape, "x", dtype, kinds=KINDS)  # the real X-pencil, [z][y][x]
        bk = dt.fft.local_box(grid, shape, "z", dtype, kinds=KINDS)  # the spectral Z-pencil, [y][x][z]
        lam = eigenvalues(bk, shape, args.lz, xp, dtype)

        def solve(f):
            uk = dt.fft.rfftn(f, grid, shape, kinds=KINDS)
            return dt.fft.irfftn(uk / lam, grid, shape, kinds=KINDS)

        def laplacian(u):  # -lap u, by a second transform: the residual's
            return dt.fft.irfftn(dt.fft.rfftn(u, grid, shape, kinds=KINDS) * lam, grid, shape, kinds=KINDS)
        if args.lib == "jax":
            solve, laplacian = jax.jit(solve), jax.jit(laplacian)
        u_star, f_host = problem(shape, args.lz, bx)
        f = xp.asarray(f_host.astype(dtype))
        times = []
        for it in range(args.iters + 1):  # the first, a warm-up (and JAX's compilation), is not timed
            COMM.Barrier()
            t0 = time.perf_counter()
            u = solve(f)
            wait(u)
            times.append(time.perf_counter() - t0)
        slowest = np.empty(args.iters)
        COMM.Allreduce(np.array(times[1:]), slowest, op=MPI.MAX)
        if COMM.rank == 0:
            print(f"Poisson {' x '.join(map(str, shape))}, Lz = {args.lz:g}, walls on z (DST-II), on {grid.dims[0]} x "
                  f"{grid.dims[1]} ({args.lib}, {args.type}): {np.median(slowest) * 1e3:.3f} ms a solve "
                  f"(median of {args.iters}, slowest rank)")
        ok = True
        if args.check:
            ok = check(shape, args, u, u_star, f_host, laplacian(u), bx)
            if COMM.rank == 0:
                print(f"poisson: {'every check passed' if ok else 'a check FAILED'}")
        write_json(args.json, grid, {
            "example": "poisson", "lib": args.lib, "shape": list(shape), "lz": args.lz, "type": args.type, "kind": "R2C",
            "axes": ["periodic" if k == "fft" else k for k in KINDS], "warmup_solves": 1,
            "timed_solves": args.iters, "solve_us": float(np.median(slowest)) * 1e6,
            "solve_us_min": float(slowest.min()) * 1e6, "solve_us_max": float(slowest.max()) * 1e6,
            "checked": args.check, "passed": bool(ok)})
    return 0 if ok else 1


def check(shape, args, u, u_star, f, lap_u, box):
    """Collective: the solution against u* and the residual, the largest values over every rank's box."""
    u, lap_u = host(u).astype(np.float64), host(lap_u).astype(np.float64)
    empty = box.size[0] * box.size[1] * box.size[2] == 0
    mine = np.zeros(5) if empty else np.array([np.abs(u - u_star).max(), np.abs(u_star).max(),
                                                np.abs(lap_u - f).max(), np.abs(f).max(), 0.0])
    every = np.empty(5)
    COMM.Allreduce(np.where(np.isnan(mine), np.inf, mine), every, op=MPI.MAX)  # a NaN, which MAX may drop, fails
    lam_max = eigenvalue(shape[0] // 2, shape[1] // 2, shape[2], args.lz)
    error, residual = every[0] / every[1], every[2] / (every[3] + lam_max * every[1])
    base = BOUNDS[args.type]
    bound = base * max(1.0, (args.lz / np.pi) ** 2)
    ok = error <= bound and residual <= base
    if COMM.rank == 0:
        print(f"  against the manufactured solution: max |u - u*| / max |u*| = {error:.2e} (bound {bound:.3g}); "
              f"the residual by a second transform: max |-lap u - f| / (max |f| + lambda_max max |u*|) = {residual:.2e} "
              f"(bound {base:g}): {'OK' if ok else 'FAILED'}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
