/*
 * The Poisson problem of the example, one point at a time: the only place it is written. The host loops
 * (pointwise_host.c), the CUDA kernels (pointwise_gpu.cu) and the checks (poisson.c) all call these
 * functions; they differ only in who runs the loop over a box.
 *
 * The problem: -lap u = f on [0, 2 pi)^2 x (0, Lz), periodic in x and y, u = 0 on the walls z = 0 and
 * z = Lz. Its grid: x_i = 2 pi i / nx, y_j = 2 pi j / ny, and along z the DST-II's points
 * z_k = (k + 1/2) Lz / nz, on which the sines sin(pi m z / Lz), m = 1 .. nz, are the transform's modes:
 * each vanishes on both walls, so any sum of them satisfies the boundary condition. The spectral side
 * is the library's R2C transform with a DST-II along z: mode (i, j, k) is exp(i (kx x + ky y)) times
 * sin(pi (k + 1) z / Lz), kx = i (0 .. nx/2, the halved axis), ky = j or j - ny (numpy's order), and
 * -lap multiplies it by kx^2 + ky^2 + (pi (k + 1) / Lz)^2, never 0 (the walls leave no mean mode).
 *
 * The manufactured solution u is a finite sum of such modes, so the discrete solve (transform, divide by
 * that eigenvalue, transform back) gives it exactly, up to rounding: the error of the computed u against
 * u itself measures the library's transforms and boxes, not a discretisation.
 *
 * Values are fp64 or fp32 (`dbl`); the arithmetic is fp64 either way. Callers pass `dbl` as a constant
 * where they can (a kernel's template argument, a loop per precision) so that it folds away once these
 * functions are inlined.
 */
#ifndef PS_PROBLEM_H
#define PS_PROBLEM_H

#include <math.h>
#include <stdint.h>

#include "common/spectral_box.h"

#define PS_PI 3.14159265358979323846

/* The global problem: points per axis of the physical grid and the distance between the walls. */
typedef struct {
  int64_t n[3];
  double lz;
} PsDomain;

/* -lap of the mode exp(i (kx x + ky y)) sin(pi m z / Lz): its eigenvalue. */
EX_HD double psEigenvalue(const PsDomain* d, double kx, double ky, int64_t m) {
  const double kz = PS_PI * (double)m / d->lz;
  return kx * kx + ky * ky + kz * kz;
}

/* The eigenvalue at spectral index (i, j, k): kx = i (the R2C side holds 0 .. nx/2), ky in numpy's order
 * (an even ny's Nyquist mode has the same square either way), the DST-II's k-th sine
 * sin(pi (k + 1) z / Lz). */
EX_HD double psSpectralEigenvalue(const PsDomain* d, const int64_t c[3]) {
  return psEigenvalue(d, (double)c[0], (double)exWavenumber(c[1], d->n[1]), c[2] + 1);
}

/* The smallest eigenvalue on the grid, (pi / Lz)^2: the mode constant in x and y, the first sine. The
 * solve divides the rounding of f's transform by it, so its inverse is how much a solve can amplify
 * rounding (the problem's own conditioning: a wide channel's slowest sine is nearly free). */
EX_HD double psSmallestEigenvalue(const PsDomain* d) { return psEigenvalue(d, 0.0, 0.0, 1); }

/* The largest eigenvalue on the grid, the scale of -lap for the residual's bound. */
EX_HD double psLargestEigenvalue(const PsDomain* d) {
  return psEigenvalue(d, (double)(d->n[0] / 2), (double)(d->n[1] / 2), d->n[2]);
}

/*
 * The manufactured solution: PS_MODES terms a cos(kx x + ky y + phase) sin(pi m z / Lz). The first four
 * have fixed wavenumbers, several on every axis, with phases, negative ky and a product mode (sin(2x +
 * 3y) holds sin 2x cos 3y); the last is the highest mode resolved on each axis, kx = (nx - 1)/2,
 * ky = -(ny - 1)/2 (below the Nyquist mode, whose sine part a grid cannot see), m = nz (the DST's last
 * coefficient, which its inverse treats apart), so that the ends of every axis's index range are
 * exercised. Its amplitude is 2 / lambda: its share of f stays 2 on any grid, so that f (whose rounding
 * the division carries into u) keeps the same size as the grid is refined.
 */
#define PS_MODES 5

/* The fixed modes need |kx| <= (nx - 1)/2, |ky| <= (ny - 1)/2 and m <= nz: at least these points. */
#define PS_MIN_NX 5
#define PS_MIN_NY 7
#define PS_MIN_NZ 3

typedef struct {
  double a;       /* amplitude */
  int64_t kx, ky; /* wavenumbers along x and y */
  double phase;
  int64_t m;      /* the sine along z: sin(pi m z / Lz) */
} PsMode;

/* (Not a compound literal: the CUDA compiler takes this header as C++.) */
EX_HD PsMode psMakeMode(double a, int64_t kx, int64_t ky, double phase, int64_t m) {
  PsMode r;
  r.a = a, r.kx = kx, r.ky = ky, r.phase = phase, r.m = m;
  return r;
}

EX_HD PsMode psMode(const PsDomain* d, int i) {
  switch (i) {
    case 0: return psMakeMode(1.0, 2, 3, -0.5 * PS_PI, 2); /* sin(2x + 3y) sin(2 pi z / Lz) */
    case 1: return psMakeMode(0.5, 1, 0, 0.0, 1);          /* 0.5 cos(x) sin(pi z / Lz) */
    case 2: return psMakeMode(0.25, 0, -3, 0.3, 3);        /* 0.25 cos(0.3 - 3y) sin(3 pi z / Lz) */
    case 3: return psMakeMode(0.3, 1, -2, 1.1, 3);         /* 0.3 cos(x - 2y + 1.1) sin(3 pi z / Lz) */
    default: {
      const int64_t kx = (d->n[0] - 1) / 2, ky = -((d->n[1] - 1) / 2), m = d->n[2];
      return psMakeMode(2.0 / psEigenvalue(d, (double)kx, (double)ky, m), kx, ky, 0.7, m);
    }
  }
}

/* Mode `mode`'s value at the grid point c = (i, j, k) without its amplitude. The arguments are reduced
 * exactly, in integers, before any rounding: kx x_i = 2 pi (kx i mod nx) / nx, and pi m z_k / Lz =
 * pi m (2k + 1) / (2 nz) taken mod 2 pi, so the analytic values keep fp64's accuracy on any grid (an
 * argument of thousands of radians would lose three digits of it) and do not depend on Lz at all. */
EX_HD double psModeShape(const PsDomain* d, const PsMode* mode, const int64_t c[3]) {
  const int64_t nx = d->n[0], ny = d->n[1], nz = d->n[2];
  const int64_t rx = ((mode->kx * c[0]) % nx + nx) % nx, ry = ((mode->ky * c[1]) % ny + ny) % ny;
  const int64_t rz = (mode->m * (2 * c[2] + 1)) % (4 * nz);
  const double plane = 2.0 * PS_PI * ((double)rx / (double)nx + (double)ry / (double)ny) + mode->phase;
  return cos(plane) * sin(PS_PI * (double)rz / (double)(2 * nz));
}

/* u and f = -lap u at the physical grid point c. */
EX_HD double psSolution(const PsDomain* d, const int64_t c[3]) {
  double u = 0;
  for (int i = 0; i < PS_MODES; i++) {
    const PsMode m = psMode(d, i);
    u += m.a * psModeShape(d, &m, c);
  }
  return u;
}

EX_HD double psRightHandSide(const PsDomain* d, const int64_t c[3]) {
  double f = 0;
  for (int i = 0; i < PS_MODES; i++) {
    const PsMode m = psMode(d, i);
    f += m.a * psEigenvalue(d, (double)m.kx, (double)m.ky, m.m) * psModeShape(d, &m, c);
  }
  return f;
}

/* ---- the operations, one point each ------------------------------------------------------------- */

/* f at the physical point p of the box (the X-pencil of the real array). */
EX_HD void psRhsPoint(const PsDomain* d, const ExBox* b, int dbl, int64_t p, void* f) {
  int64_t c[3];
  exBoxCoords(b, p, c);
  exStore(f, dbl, p, psRightHandSide(d, c));
}

/* What the spectral operation does at a point: the solve divides by -lap's eigenvalue, the residual's
 * second transform multiplies by it (-lap u in spectral space). */
typedef enum { psDivide = 0, psMultiply = 1 } PsScaling;

/* The complex number at the spectral point p (re, im), divided or multiplied by its eigenvalue; the
 * DST acts on the real and the imaginary parts alike, so both take the same factor. */
EX_HD void psScalePoint(const PsDomain* d, const ExBox* b, int dbl, PsScaling how, int64_t p, void* uh) {
  int64_t c[3];
  exBoxCoords(b, p, c);
  const double lambda = psSpectralEigenvalue(d, c);
  const double s = how == psDivide ? 1.0 / lambda : lambda;
  exStore(uh, dbl, 2 * p, exLoad(uh, dbl, 2 * p) * s);
  exStore(uh, dbl, 2 * p + 1, exLoad(uh, dbl, 2 * p + 1) * s);
}

#endif
