"""A pseudo-spectral solver of the 3-D incompressible Navier-Stokes equations on the periodic box
[0, 2 pi)^3: the Taylor-Green vortex, the three velocity components transformed together (one plan of
three fields, one exchange for all: howmany=3), classical RK4 in time, the nonlinear term in rotational
form (u x omega), the pressure by projection onto divergence-free fields.

The nonlinear term is dealiased by the 3/2 rule, with the library's padding: the velocity and the
vorticity (n modes per axis) go onto the padded grid of m = floor(3 n / 2) points per axis by
irfftn(..., padding=1.5) (the kept modes put among zeros), u x omega is formed there, point by point,
and rfftn(..., padding=1.5) transforms it back and keeps the n modes. The Nyquist modes of an even n are
zeroed in the result: with them out of the fields, a product's modes reach |k| <= n - 2, whose aliases
on the padded grid (k -+ m) fall outside the kept modes, so the kept modes of u x omega are exact. The
state is the kept modes; the run starts from the vortex sampled on the padded grid and ends on it.

    mpirun -np 4 python taylor_green.py --n 64 --steps 20 [--lib numpy|cupy|jax] [--grid PRxPC] [--check]

--check gathers the velocity on rank 0 and compares it with a single-process NumPy run of the same
steps (numpy.fft on the whole array, float64, padded and truncated by hand as the library does it:
pad_inverse, truncate_forward), and the kinetic energy with the early-time decay the vortex starts
with, E(t) = E0 exp(-6 nu t) (dE/dt = -2 nu x enstrophy, and the enstrophy is 3 E at t = 0; the
nonlinear term moves energy but does not change it). It also transforms a random field on the padded
grid forward and back with the library and with the reference's two functions (the Nyquist planes,
which the run keeps at zero, included). With --lib jax the whole run is one jitted function, and
--check also differentiates it: jax.grad of the final energy with respect to the amplitude of the
initial field against a centred finite difference. Exit status 1 where a check fails.
"""

import argparse
import sys
import time

import numpy as np
from mpi4py import MPI

import disttranspose as dt
from example_support import along, array_library, host, indices, signed, write_json

COMM = MPI.COMM_WORLD
PADDING = 1.5  # the 3/2 rule


def padded(n):
    """The padded grid's points along an axis of n modes (the library's rule: floor(n * padding))."""
    return int(np.floor(n * PADDING))


def wavenumbers(box, n, xp):
    """The wavenumbers (kx, ky, kz) of this rank's kept modes (its box of the spectral side), broadcast
    over its array's spatial axes: 0 ... n // 2 along x, the halved axis; numpy's order along y and z
    (the Nyquist mode of an even n is -n / 2, where the library keeps it)."""
    k = []
    for d in range(3):
        idx = indices(box, d)
        kd = idx if d == 0 else signed(idx, n)
        k.append(xp.asarray(along(box, d, kd.astype(np.float64))))
    return k


class Spectral:
    """The operators of the solver on the arrays of one rank (or of the whole array, for the NumPy
    reference): the inverse transform of 3 fields onto the padded grid and the forward transform that
    truncates back to the kept modes, the wavenumbers, the mask that zeroes the Nyquist modes."""

    def __init__(self, forward, inverse, k, n, xp):
        self.forward, self.inverse, self.xp = forward, inverse, xp
        self.kx, self.ky, self.kz = k
        self.k2 = self.kx ** 2 + self.ky ** 2 + self.kz ** 2
        self.k2_safe = xp.where(self.k2 == 0, 1.0, self.k2)
        half = n / 2.0  # only an even n has modes there
        self.mask = ((xp.abs(self.kx) < half) & (xp.abs(self.ky) < half) & (xp.abs(self.kz) < half)).astype(np.float64)

    def rhs(self, uh, nu):
        """d(u hat)/dt: the projected u x omega, formed on the padded grid, less the viscous term."""
        xp = self.xp
        ux, uy, uz = uh[..., 0], uh[..., 1], uh[..., 2]
        wh = xp.stack([1j * (self.ky * uz - self.kz * uy), 1j * (self.kz * ux - self.kx * uz),
                       1j * (self.kx * uy - self.ky * ux)], axis=-1)
        u, w = self.inverse(uh), self.inverse(wh)  # the padded grid
        cross = xp.stack([u[..., 1] * w[..., 2] - u[..., 2] * w[..., 1], u[..., 2] * w[..., 0] - u[..., 0] * w[..., 2],
                          u[..., 0] * w[..., 1] - u[..., 1] * w[..., 0]], axis=-1)
        nh = self.forward(cross) * self.mask[..., None]  # the kept modes, less the Nyquist ones
        div = (self.kx * nh[..., 0] + self.ky * nh[..., 1] + self.kz * nh[..., 2]) / self.k2_safe
        nh = xp.stack([nh[..., 0] - self.kx * div, nh[..., 1] - self.ky * div, nh[..., 2] - self.kz * div], axis=-1)
        return nh - nu * self.k2[..., None] * uh

    def rk4(self, uh, nu, dt_):
        a = self.rhs(uh, nu)
        b = self.rhs(uh + 0.5 * dt_ * a, nu)
        c = self.rhs(uh + 0.5 * dt_ * b, nu)
        d = self.rhs(uh + dt_ * c, nu)
        return uh + dt_ / 6.0 * (a + 2 * b + 2 * c + d)


def taylor_green(m, zyx_start, zyx_size):
    """The initial velocity [z][y][x][3] on a box of the grid of m points per axis (starts and sizes
    slowest axis first)."""
    h = 2 * np.pi / m
    z, y, x = (h * np.arange(s, s + c) for s, c in zip(zyx_start, zyx_size))
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
    return np.stack([np.sin(X) * np.cos(Y) * np.cos(Z), -np.cos(X) * np.sin(Y) * np.cos(Z), np.zeros_like(X)], axis=-1)


# ---- the reference: the library's padded transforms written out with numpy.fft on the whole array ----

def kept(n, m):
    """Where the kept modes of a complex axis (numpy's order, k = 0 ... n - 1) sit in the padded
    spectrum of m: the low ones, k < ceil(n / 2), at k; the high ones (the negative frequencies, the
    Nyquist mode of an even n among them) at k + m - n."""
    low = (n + 1) // 2
    return np.concatenate([np.arange(low), np.arange(low + m - n, m)])


def pad_inverse(uh, n, m):
    """irfftn(uh, ..., padding=1.5) on the whole array [z][y][x][f] of the kept modes: they are put
    among zeros (y and z by kept(), x at their own index), the Nyquist plane kx = n / 2 of an even n
    halved (on the padded grid it stands for itself and its twin -n / 2), and numpy's irfftn takes the
    padded spectrum onto the m^3 grid, scaled by M / N (norm "backward" scales by 1 / N, the modes' N =
    n^3, where numpy's scales by 1 / M, the padded grid's M = m^3)."""
    spectrum = np.zeros((m, m, m // 2 + 1) + uh.shape[3:], np.complex128)
    spectrum[np.ix_(kept(n, m), kept(n, m), np.arange(n // 2 + 1))] = uh
    if n % 2 == 0:
        spectrum[:, :, n // 2] *= 0.5
    return np.fft.irfftn(spectrum, s=(m, m, m), axes=(0, 1, 2)) * (m / n) ** 3


def truncate_forward(u, n, m):
    """rfftn(u, ..., padding=1.5) on the whole array [z][y][x][f] of the padded grid: numpy's rfftn,
    the kept modes taken out, the Nyquist plane kx = n / 2 of an even n doubled (pad_inverse halved it),
    scaled by N / M (norm "backward": a round trip gives the modes back)."""
    spectrum = np.fft.rfftn(u, axes=(0, 1, 2))[np.ix_(kept(n, m), kept(n, m), np.arange(n // 2 + 1))]
    if n % 2 == 0:
        spectrum[:, :, n // 2] *= 2.0
    return spectrum * (n / m) ** 3


def reference(n, nu, dt_, steps):
    """The same steps in one process with numpy.fft on the whole array [z][y][x][3]."""
    m = padded(n)
    u0 = taylor_green(m, (0, 0, 0), (m, m, m))
    forward = lambda u: truncate_forward(u, n, m)  # noqa: E731
    inverse = lambda uh: pad_inverse(uh, n, m)  # noqa: E731
    kz = np.fft.fftfreq(n, 1.0 / n).reshape(n, 1, 1)
    ky = np.fft.fftfreq(n, 1.0 / n).reshape(1, n, 1)
    kx = np.arange(n // 2 + 1, dtype=np.float64).reshape(1, 1, n // 2 + 1)
    op = Spectral(forward, inverse, (kx, ky, kz), n, np)
    uh = forward(u0)
    for _ in range(steps):
        uh = op.rk4(uh, nu, dt_)
    return inverse(uh)


def gather(box, a, whole_shape):
    """Collective: every rank's array of its box (of either side) put together on rank 0 as the whole
    array [z][y][x][f] of whole_shape; None on the other ranks."""
    axes = list(reversed(box.order))  # the array's axes, slowest first
    a = np.transpose(a, [axes.index(c) for c in "zyx"] + [3])
    pieces = COMM.gather((box.start[::-1], a), root=0)
    if COMM.rank != 0:
        return None
    whole = np.zeros(whole_shape, a.dtype)
    for (z, y, x), p in pieces:
        whole[z:z + p.shape[0], y:y + p.shape[1], x:x + p.shape[2]] = p
    return whole


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=32, help="modes along each axis (the padded grid has floor(3n/2) points)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--nu", type=float, default=0.1, help="the kinematic viscosity")
    p.add_argument("--dt", type=float, default=0.01)
    p.add_argument("--grid", default="", help="PRxPC (default: the library's choice)")
    p.add_argument("--lib", default="numpy", choices=("numpy", "cupy", "jax"))
    p.add_argument("--check", action="store_true")
    p.add_argument("--json", metavar="FILE", help="write the run's figures as JSON (rank 0)")
    args = p.parse_args(argv)
    if args.n < 4:
        p.error(f"--n {args.n}: at least 4 modes per axis (the vortex's |k| = 1 below the Nyquist mode)")
    xp, jax, device = array_library(args.lib)
    n, shape = args.n, (args.n,) * 3
    m = padded(n)
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    with dt.Grid(COMM, pr, pc, device=device) as grid:
        bx = dt.fft.local_box(grid, shape, "x", "float64", howmany=3, padding=PADDING)  # the padded grid's
        bk = dt.fft.local_box(grid, shape, "z", "float64", howmany=3, padding=PADDING)  # the kept modes
        forward = lambda u: dt.fft.rfftn(u, grid, shape, howmany=3, padding=PADDING)  # noqa: E731
        inverse = lambda uh: dt.fft.irfftn(uh, grid, shape, howmany=3, padding=PADDING)  # noqa: E731
        op = Spectral(forward, inverse, wavenumbers(bk, n, xp), n, xp)
        u0 = taylor_green(m, bx.start[::-1], bx.size[::-1])
        energy0 = COMM.allreduce(float(np.sum(u0 ** 2))) * 0.5 / m ** 3

        def run(v0):
            uh = forward(v0)
            for _ in range(args.steps):
                uh = op.rk4(uh, args.nu, args.dt)
            return inverse(uh)
        if args.lib == "jax":
            run = jax.jit(run)
            run(xp.asarray(u0)).block_until_ready()  # compiled before the clock starts
        else:
            host(inverse(forward(xp.asarray(u0))))  # the plans made (collective, cuFFT's) before the clock starts
        COMM.Barrier()
        t0 = time.perf_counter()
        u = run(xp.asarray(u0))
        u_host = host(u)
        COMM.Barrier()
        seconds = time.perf_counter() - t0
        energy = COMM.allreduce(float(np.sum(u_host ** 2))) * 0.5 / m ** 3
        if COMM.rank == 0:
            print(f"Taylor-Green {n}^3 modes on the {m}^3 grid (3/2 rule), {grid.dims[0]} x {grid.dims[1]} ({args.lib}): "
                  f"{args.steps} RK4 steps in {seconds * 1e3:.1f} ms ({seconds / args.steps * 1e3:.2f} ms a step), "
                  f"E {energy0:.6f} -> {energy:.6f}")
        ok = True
        if args.check:
            whole = gather(bx, u_host, (m, m, m, 3))
            if COMM.rank == 0:
                ref = reference(n, args.nu, args.dt, args.steps)
                err = float(np.abs(whole - ref).max())
                t = args.steps * args.dt
                decay = energy0 * np.exp(-6 * args.nu * t)
                rel = abs(energy - decay) / decay
                ok = err <= 1e-10 and rel <= 1e-3
                print(f"  against one process's NumPy run of the same steps: max |u - u_ref| = {err:.2e} (bound 1e-10); "
                      f"E against E0 exp(-6 nu t) at t = {t:g}: relative {rel:.2e} (bound 1e-3): {'OK' if ok else 'FAILED'}")
            ok = COMM.bcast(ok, root=0)
            ok &= padding_check(forward, inverse, bx, bk, n, m, xp)
            if args.lib == "jax":
                ok &= gradient_check(jax, xp, run, xp.asarray(u0), m)
            if COMM.rank == 0:
                print(f"taylor_green: {'every check passed' if ok else 'a check FAILED'}")
        write_json(args.json, grid, {
            "example": "taylor_green", "lib": args.lib, "n": n, "type": "fp64", "kind": "R2C", "howmany": 3,
            "dealias": "3/2", "padding": PADDING, "physical_n": m, "steps": args.steps, "dt": args.dt, "nu": args.nu,
            "run_us": seconds * 1e6, "step_us": seconds / args.steps * 1e6,
            "energy0": energy0, "energy": energy, "checked": args.check, "passed": bool(ok)})
    return 0 if ok else 1


def padding_check(forward, inverse, bx, bk, n, m, xp):
    """Collective: the library's padded transforms against the reference's (truncate_forward and
    pad_inverse), on a random field of the padded grid, whose kept modes fill the Nyquist planes that
    the run keeps at zero: its forward transform, and the inverse of that, gathered on rank 0."""
    field = np.random.default_rng(54).standard_normal((m, m, m, 3))  # the same on every rank
    (z, y, x), (nz, ny, nx) = bx.start[::-1], bx.size[::-1]
    uh = forward(xp.asarray(np.ascontiguousarray(field[z:z + nz, y:y + ny, x:x + nx])))
    back = inverse(uh)
    uh, back = gather(bk, host(uh), (n, n, n // 2 + 1, 3)), gather(bx, host(back), (m, m, m, 3))
    ok = True
    if COMM.rank == 0:
        ref = truncate_forward(field, n, m)
        ref_back = pad_inverse(ref, n, m)
        err = max(float(np.abs(uh - ref).max() / np.abs(ref).max()),
                  float(np.abs(back - ref_back).max() / np.abs(ref_back).max()))
        ok = err <= 1e-12
        print(f"  the padded transforms of a random field against the reference's (Nyquist planes included): "
              f"max relative error {err:.1e} (bound 1e-12): {'OK' if ok else 'FAILED'}")
    return COMM.bcast(ok, root=0)


def gradient_check(jax, xp, run, u0, m):
    """Collective: d E(T) / d a for the initial field a u0, by jax.grad through the jitted run (each rank
    differentiates its share of the energy; the shares' gradients add up) against a centred finite
    difference of the whole energy."""
    def share(a):
        return 0.5 * xp.sum(run(a * u0) ** 2) / m ** 3
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
