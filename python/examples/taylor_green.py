"""A pseudo-spectral solver of the 3-D incompressible Navier-Stokes equations on the periodic box
[0, 2 pi)^3: the Taylor-Green vortex, the three velocity components transformed together (one plan of
three fields, one exchange for all: howmany=3), classical RK4 in time, the nonlinear term in rotational
form (u x omega) computed in physical space and dealiased by the 2/3 rule (the modes above 2/3 of the
cut-off zeroed), the pressure by projection onto divergence-free fields.

    mpirun -np 4 python taylor_green.py --n 64 --steps 20 [--lib numpy|cupy|jax] [--grid PRxPC] [--check]

--check gathers the velocity on rank 0 and compares it with a single-process NumPy run of the same
steps (numpy.fft on the whole array, float64), and the kinetic energy with the early-time decay the
vortex starts with, E(t) = E0 exp(-6 nu t) (dE/dt = -2 nu x enstrophy, and the enstrophy is 3 E at
t = 0; the nonlinear term moves energy but does not change it). With --lib jax the whole run is one
jitted function, and --check also differentiates it: jax.grad of the final energy with respect to the
amplitude of the initial field against a centred finite difference. Exit status 1 where a check fails.
"""

import argparse
import sys
import time

import numpy as np
from mpi4py import MPI

import disttranspose as dt

COMM = MPI.COMM_WORLD


def wavenumbers(box, shape, xp):
    """The wavenumbers (kx, ky, kz) of this rank's spectral box, broadcast over its array's three spatial
    axes (box.order lists them fastest first; the fields' axis follows them)."""
    axes = ["xyz".index(a) for a in reversed(box.order)]  # the array's axis j holds dimension axes[j]
    k = []
    for d in range(3):
        idx = np.arange(box.start[d], box.start[d] + box.size[d])
        kd = idx if d == 0 else np.where(idx <= shape[d] // 2, idx, idx - shape[d])  # x is the halved axis
        view = [1, 1, 1]
        view[axes.index(d)] = len(kd)
        k.append(xp.asarray(kd.reshape(view).astype(np.float64)))
    return k


class Spectral:
    """The operators of the solver on the arrays of one rank (or of the whole array, for the NumPy
    reference): forward and inverse transforms of 3 fields, the wavenumbers, the dealiasing mask."""

    def __init__(self, forward, inverse, k, n, xp):
        self.forward, self.inverse, self.xp = forward, inverse, xp
        self.kx, self.ky, self.kz = k
        self.k2 = self.kx ** 2 + self.ky ** 2 + self.kz ** 2
        self.k2_safe = xp.where(self.k2 == 0, 1.0, self.k2)
        cut = 2.0 / 3.0 * (n // 2)
        self.mask = ((xp.abs(self.kx) <= cut) & (xp.abs(self.ky) <= cut) & (xp.abs(self.kz) <= cut)).astype(np.float64)

    def rhs(self, uh, nu):
        """d(u hat)/dt: the projected, dealiased u x omega, less the viscous term."""
        xp = self.xp
        ux, uy, uz = uh[..., 0], uh[..., 1], uh[..., 2]
        wh = xp.stack([1j * (self.ky * uz - self.kz * uy), 1j * (self.kz * ux - self.kx * uz),
                       1j * (self.kx * uy - self.ky * ux)], axis=-1)
        u, w = self.inverse(uh), self.inverse(wh)
        cross = xp.stack([u[..., 1] * w[..., 2] - u[..., 2] * w[..., 1], u[..., 2] * w[..., 0] - u[..., 0] * w[..., 2],
                          u[..., 0] * w[..., 1] - u[..., 1] * w[..., 0]], axis=-1)
        nh = self.forward(cross) * self.mask[..., None]
        div = (self.kx * nh[..., 0] + self.ky * nh[..., 1] + self.kz * nh[..., 2]) / self.k2_safe
        nh = xp.stack([nh[..., 0] - self.kx * div, nh[..., 1] - self.ky * div, nh[..., 2] - self.kz * div], axis=-1)
        return nh - nu * self.k2[..., None] * uh

    def rk4(self, uh, nu, dt_):
        a = self.rhs(uh, nu)
        b = self.rhs(uh + 0.5 * dt_ * a, nu)
        c = self.rhs(uh + 0.5 * dt_ * b, nu)
        d = self.rhs(uh + dt_ * c, nu)
        return uh + dt_ / 6.0 * (a + 2 * b + 2 * c + d)


def taylor_green(n, zyx_start, zyx_size):
    """The initial velocity [z][y][x][3] on a box of the grid (starts and sizes slowest axis first)."""
    h = 2 * np.pi / n
    z, y, x = (h * np.arange(s, s + c) for s, c in zip(zyx_start, zyx_size))
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
    return np.stack([np.sin(X) * np.cos(Y) * np.cos(Z), -np.cos(X) * np.sin(Y) * np.cos(Z), np.zeros_like(X)], axis=-1)


def reference(n, nu, dt_, steps):
    """The same steps in one process with numpy.fft on the whole array [z][y][x][3]."""
    u0 = taylor_green(n, (0, 0, 0), (n, n, n))
    forward = lambda u: np.fft.rfftn(u, axes=(0, 1, 2))  # noqa: E731 (x, the last of the axes, halved)
    inverse = lambda uh: np.fft.irfftn(uh, s=(n, n, n), axes=(0, 1, 2))  # noqa: E731
    kz = np.fft.fftfreq(n, 1.0 / n).reshape(n, 1, 1, 1)
    ky = np.fft.fftfreq(n, 1.0 / n).reshape(1, n, 1, 1)
    kx = np.arange(n // 2 + 1, dtype=np.float64).reshape(1, 1, n // 2 + 1, 1)
    op = Spectral(forward, inverse, (kx[..., 0], ky[..., 0], kz[..., 0]), n, np)
    uh = forward(u0)
    for _ in range(steps):
        uh = op.rk4(uh, nu, dt_)
    return inverse(uh)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=32, help="points along each axis")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--nu", type=float, default=0.1, help="the kinematic viscosity")
    p.add_argument("--dt", type=float, default=0.01)
    p.add_argument("--grid", default="", help="PRxPC (default: the library's choice)")
    p.add_argument("--lib", default="numpy", choices=("numpy", "cupy", "jax"))
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    if args.lib == "jax":
        import jax
        import jax.numpy as xp
        jax.config.update("jax_enable_x64", True)
    else:
        xp = np if args.lib == "numpy" else __import__("cupy")
    n, shape = args.n, (args.n,) * 3
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    with dt.Grid(COMM, pr, pc) as grid:
        bx = grid.box(shape, "x", "float64", 3)
        bk = grid.box((n // 2 + 1, n, n), "z", "complex128", 3)
        forward = lambda u: dt.fft.rfftn(u, grid, shape, howmany=3)  # noqa: E731
        inverse = lambda uh: dt.fft.irfftn(uh, grid, shape, howmany=3)  # noqa: E731
        op = Spectral(forward, inverse, wavenumbers(bk, shape, xp), n, xp)
        u0 = taylor_green(n, bx.start[::-1], bx.size[::-1])
        energy0 = COMM.allreduce(float(np.sum(u0 ** 2))) * 0.5 / n ** 3

        def run(v0):
            uh = forward(v0)
            for _ in range(args.steps):
                uh = op.rk4(uh, args.nu, args.dt)
            return inverse(uh)
        if args.lib == "jax":
            run = jax.jit(run)
            run(xp.asarray(u0)).block_until_ready()  # compiled before the clock starts
        COMM.Barrier()
        t0 = time.perf_counter()
        u = run(xp.asarray(u0))
        u_host = u.get() if hasattr(u, "get") else np.asarray(u)
        COMM.Barrier()
        seconds = time.perf_counter() - t0
        energy = COMM.allreduce(float(np.sum(u_host ** 2))) * 0.5 / n ** 3
        if COMM.rank == 0:
            print(f"Taylor-Green {n}^3 on {grid.dims[0]} x {grid.dims[1]} ({args.lib}): {args.steps} RK4 steps in "
                  f"{seconds * 1e3:.1f} ms ({seconds / args.steps * 1e3:.2f} ms a step), E {energy0:.6f} -> {energy:.6f}")
        ok = True
        if args.check:
            pieces = COMM.gather((bx.start[::-1], u_host), root=0)
            if COMM.rank == 0:
                whole = np.zeros((n, n, n, 3))
                for start, a in pieces:
                    whole[start[0]:start[0] + a.shape[0], start[1]:start[1] + a.shape[1], start[2]:start[2] + a.shape[2]] = a
                ref = reference(n, args.nu, args.dt, args.steps)
                err = float(np.abs(whole - ref).max())
                t = args.steps * args.dt
                decay = energy0 * np.exp(-6 * args.nu * t)
                rel = abs(energy - decay) / decay
                ok = err <= 1e-10 and rel <= 1e-3
                print(f"  against one process's NumPy run of the same steps: max |u - u_ref| = {err:.2e} (bound 1e-10); "
                      f"E against E0 exp(-6 nu t) at t = {t:g}: relative {rel:.2e} (bound 1e-3): {'OK' if ok else 'FAILED'}")
            ok = COMM.bcast(ok, root=0)
            if args.lib == "jax":
                ok &= gradient_check(jax, xp, run, xp.asarray(u0), n)
            if COMM.rank == 0:
                print(f"taylor_green: {'every check passed' if ok else 'a check FAILED'}")
    return 0 if ok else 1


def gradient_check(jax, xp, run, u0, n):
    """Collective: d E(T) / d a for the initial field a u0, by jax.grad through the jitted run (each rank
    differentiates its share of the energy; the shares' gradients add up) against a centred finite
    difference of the whole energy."""
    def share(a):
        return 0.5 * xp.sum(run(a * u0) ** 2) / n ** 3
    grad = COMM.allreduce(float(jax.grad(share)(1.0)))
    eps = 1e-4
    fd = (COMM.allreduce(float(share(1.0 + eps))) - COMM.allreduce(float(share(1.0 - eps)))) / (2 * eps)
    rel = abs(grad - fd) / abs(fd)
    ok = rel <= 1e-6
    if COMM.rank == 0:
        print(f"  jax.grad of E(T) by the initial amplitude {grad:.12f}, finite difference {fd:.12f}: relative "
              f"{rel:.1e} (bound 1e-6): {'OK' if ok else 'FAILED'}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
