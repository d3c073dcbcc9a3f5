/*
 * The physics of the Taylor-Green example, one point at a time: the only place it is written. The host
 * loops (pointwise_host.c) and the CUDA kernels (pointwise_gpu.cu) both call these functions, the
 * distributed solver and the single-process reference alike; they differ only in where a point's data
 * lives (the box and its memory order) and in who runs the loop.
 *
 * The equations: the incompressible Navier-Stokes equations on the periodic box [0, 2 pi)^3 in
 * rotational form, du/dt = P(u x omega) + nu lap u, P the projection onto divergence-free fields (the
 * pressure), in Fourier space: d(u hat)/dt = P_k(D(F(u x omega))) - nu |k|^2 u hat, D the dealiasing.
 * The velocity is real: its transform is kept for kx = 0 .. n/2 (real to complex along x).
 *
 * Storage: every point holds the three components of the velocity (or of the vorticity, or of u x omega)
 * interleaved, as the library's FFT plan of three fields takes them (howmany = 3): three reals on the
 * physical side, three complex numbers (re, im) on the spectral side. Values are fp64 or fp32 (`dbl`);
 * the arithmetic is fp64 either way, so that the fp32 run differs from the fp64 one only by the storage
 * and the transforms. Callers pass `dbl` as a constant where they can (a kernel's template argument, a
 * loop per precision) so that the choice folds away once these functions are inlined.
 */
#ifndef NS_PHYSICS_H
#define NS_PHYSICS_H

#include <math.h>
#include <stdint.h>

#include "common/spectral_box.h"

/* A box of one side of the transform: part of (or all of) a global array. The distributed solver's
 * boxes are dtrFftGetBox's (the X-pencil of the physical grid, the Z-pencil of the transform's modes);
 * the reference's are the whole arrays in FFTW's layout ([z][y][x], x fastest). */
typedef struct {
  ExBox box;
  int64_t n; /* the physical side: its grid's points per axis (the spacing 2 pi / n), m = floor(3n/2) under
                the 3/2 rule; the spectral side: the modes' n, the period of the wavenumbers */
} NsBox;

/* Components per point: the three fields of one plan. */
#define NS_FIELDS 3

EX_HD int64_t nsBoxPoints(const NsBox* b) { return exBoxPoints(&b->box); }

/* The wavenumbers of the spectral point p (b: the spectral box, n the modes'). An even n's Nyquist mode
 * counts as +n/2, as numpy.fft.rfftfreq and the Python example have it; both rules zero it in every
 * product, so the velocity never holds it. */
EX_HD void nsWavevector(const NsBox* b, int64_t p, double k[3]) {
  int64_t c[3];
  exBoxCoords(&b->box, p, c);
  for (int d = 0; d < 3; d++) k[d] = (double)exWavenumber(c[d], b->n);
}

/*
 * Dealiasing: the factor by which a mode of the transformed product u x omega is kept.
 *   nsThreeHalves: Orszag's 3/2 rule, the product formed on the padded grid of m = floor(3n/2) points per
 *   axis (the plan's config.padding = 1.5) and its transform truncated back to the n modes by the plan;
 *   every mode the plan returns is kept, but for an even n's Nyquist modes (some |k_d| = n/2), zeroed.
 *   The kept |k_d| <= n/2 - 1 (odd n: (n - 1)/2) make products up to |k_d| = n - 2 (n - 1), whose
 *   aliases fold to |k_d| >= m - (n - 2) = n/2 + 2 (m - (n - 1) = (n + 1)/2): beyond the kept modes.
 *   The Nyquist modes would take the aliases of the products that reach n (m - n = n/2), and on the
 *   padded grid they have no twin (numpy's -n/2 of y and z alone, R2C's x split in halves: the plan's
 *   convention, docs/fft.md): zeroed, as dealiasing codes do, so that the velocity never holds them.
 *   nsTwoThirds: the 2/3 rule on the unpadded grid, every mode with some |k_d| > cut = (2/3)(n/2)
 *   zeroed. A product of two modes within the cut reaches |k| <= 2 cut, whose alias folds back to
 *   |k| >= n - 2 cut >= cut: onto the zeroed modes (or, where 6 divides n, onto the cut itself, as in the
 *   Python example).
 */
typedef enum { nsTwoThirds = 0, nsThreeHalves = 1 } NsDealiasRule;

EX_HD double nsDealias(NsDealiasRule rule, int64_t n, const double k[3]) {
  switch (rule) {
    case nsTwoThirds: {
      /* The cut as the Python example computes it, so that both keep the same modes. */
      const double cut = 2.0 / 3.0 * (double)(n / 2);
      return fabs(k[0]) <= cut && fabs(k[1]) <= cut && fabs(k[2]) <= cut ? 1.0 : 0.0;
    }
    case nsThreeHalves: {
      const double nyquist = n % 2 == 0 ? (double)(n / 2) : -1.0;
      return fabs(k[0]) != nyquist && fabs(k[1]) != nyquist && fabs(k[2]) != nyquist ? 1.0 : 0.0;
    }
  }
  return 0.0;
}

/* ---- the operations, one point each ------------------------------------------------------------- */

/* The Taylor-Green vortex at the physical point p: u = (sin x cos y cos z, -cos x sin y cos z, 0). */
EX_HD void nsInitialPoint(const NsBox* b, int dbl, int64_t p, void* u) {
  int64_t c[3];
  exBoxCoords(&b->box, p, c);
  const double h = 2.0 * 3.14159265358979323846 / (double)b->n;
  const double x = h * (double)c[0], y = h * (double)c[1], z = h * (double)c[2];
  exStore(u, dbl, NS_FIELDS * p + 0, sin(x) * cos(y) * cos(z));
  exStore(u, dbl, NS_FIELDS * p + 1, -cos(x) * sin(y) * cos(z));
  exStore(u, dbl, NS_FIELDS * p + 2, 0.0);
}

/* The vorticity's transform at the spectral point p: w hat = i k x u hat. */
EX_HD void nsCurlPoint(const NsBox* b, int dbl, int64_t p, const void* uh, void* wh) {
  double k[3], re[3], im[3];
  nsWavevector(b, p, k);
  for (int f = 0; f < 3; f++) {
    re[f] = exLoad(uh, dbl, 2 * (NS_FIELDS * p + f));
    im[f] = exLoad(uh, dbl, 2 * (NS_FIELDS * p + f) + 1);
  }
  for (int f = 0; f < 3; f++) {
    const int g = (f + 1) % 3, h = (f + 2) % 3;
    /* (k x u)_f = k_g u_h - k_h u_g; times i: (re, im) -> (-im, re) */
    const double cre = k[g] * re[h] - k[h] * re[g], cim = k[g] * im[h] - k[h] * im[g];
    exStore(wh, dbl, 2 * (NS_FIELDS * p + f), -cim);
    exStore(wh, dbl, 2 * (NS_FIELDS * p + f) + 1, cre);
  }
}

/* u x omega at the physical point p, into w (read whole before it is written). */
EX_HD void nsCrossPoint(int dbl, int64_t p, const void* u, void* w) {
  double a[3], o[3];
  for (int f = 0; f < 3; f++) {
    a[f] = exLoad(u, dbl, NS_FIELDS * p + f);
    o[f] = exLoad(w, dbl, NS_FIELDS * p + f);
  }
  for (int f = 0; f < 3; f++) {
    const int g = (f + 1) % 3, h = (f + 2) % 3;
    exStore(w, dbl, NS_FIELDS * p + f, a[g] * o[h] - a[h] * o[g]);
  }
}

/* What one right-hand side evaluation feeds into the classical Runge-Kutta step. */
typedef struct {
  double nu, dt;
  NsDealiasRule rule;
  int stage; /* 0 .. 3 */
} NsStage;

/*
 * The right-hand side at the spectral point p, r = P_k(D nh) - nu |k|^2 in (nh: the transform of
 * u x omega; in: the stage's velocity), and its place in the Runge-Kutta step from uh:
 *   stage 0:  acc = r;          next = uh + dt/2 r
 *   stage 1:  acc = acc + 2 r;  next = uh + dt/2 r
 *   stage 2:  acc = acc + 2 r;  next = uh + dt r
 *   stage 3:  uh = uh + dt/6 (acc + r)
 * the Python example's uh + dt/6 (a + 2b + 2c + d), operation for operation. Every array is read at p
 * before any is written there, so `next` may be `in`.
 */
EX_HD void nsUpdatePoint(const NsBox* b, int dbl, const NsStage* s, int64_t p, const void* nh, const void* in, void* uh,
                         void* acc, void* next) {
  double k[3], r[3][2];
  nsWavevector(b, p, k);
  const double k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
  const double keep = nsDealias(s->rule, b->n, k);
  double m[3][2]; /* the dealiased transform of u x omega */
  for (int f = 0; f < 3; f++)
    for (int c = 0; c < 2; c++) m[f][c] = exLoad(nh, dbl, 2 * (NS_FIELDS * p + f) + c) * keep;
  /* The pressure: remove the part along k (k . N / |k|^2; the mean mode k = 0 has none). */
  for (int c = 0; c < 2; c++) {
    const double div = k2 > 0 ? (k[0] * m[0][c] + k[1] * m[1][c] + k[2] * m[2][c]) / k2 : 0.0;
    for (int f = 0; f < 3; f++)
      r[f][c] = (m[f][c] - k[f] * div) - s->nu * k2 * exLoad(in, dbl, 2 * (NS_FIELDS * p + f) + c);
  }
  for (int f = 0; f < 3; f++)
    for (int c = 0; c < 2; c++) {
      const int64_t j = 2 * (NS_FIELDS * p + f) + c;
      const double u0 = exLoad(uh, dbl, j);
      switch (s->stage) {
        case 0:
          exStore(acc, dbl, j, r[f][c]);
          exStore(next, dbl, j, u0 + 0.5 * s->dt * r[f][c]);
          break;
        case 1:
        case 2:
          exStore(acc, dbl, j, exLoad(acc, dbl, j) + 2.0 * r[f][c]);
          exStore(next, dbl, j, u0 + (s->stage == 1 ? 0.5 * s->dt : s->dt) * r[f][c]);
          break;
        default:
          exStore(uh, dbl, j, u0 + s->dt / 6.0 * (exLoad(acc, dbl, j) + r[f][c]));
          break;
      }
    }
}

#endif
