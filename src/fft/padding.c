/*
 * Padding for dealiasing (the 3/2 rule), a layer over the plan of the padded shape: the pencils, local
 * passes, exchanges and routes are those of an FFT of m = floor(n * padding) points per axis, unchanged;
 * the caller's spectral side holds only the kept modes, n per complex axis (nx / 2 + 1 of a halved x).
 *
 *   inverse:  kept modes --pad (zeros, Nyquist halved, 1/N)--> padded Z-pencil --the plan's inverse--> X
 *   forward:  X --the plan's forward--> padded Z-pencil --truncate (Nyquist doubled, N/M)--> kept modes
 *
 * The padded Z-pencil is one more array of the plan's workspace. Each rank keeps the modes of its own
 * padded box (geometry.h's dtrPadAxis: a contiguous range of kept modes along each axis), so that padding
 * and truncating are local, without an exchange of their own; a rank whose padded range lies in the
 * gap keeps no mode along that axis. The normalization is applied here, to the kept modes only (the
 * padded plan's passes scale nothing): N counts the modes' grid, M the padded one.
 */
#include <math.h>
#include <string.h>

#include "core/checks.h"
#include "core/comm.h"
#include "fft_plan.h"
#include "grid.h"
#include "pad_launch.h"

static const char axisName[3] = {'x', 'y', 'z'};

static int hasPadding(double p) { return p != 0.0 && p != 1.0; }

/*
 * The padding's checks, in one place, on the config as the caller gave it (every rank runs them before
 * the plan's arguments are agreed). Per-axis transform kinds (config.axes) add one rule here: padding
 * only on a periodic axis (the marked line in the loop).
 */
dtrResult_t dtrFftCheckPadding(const dtrFftConfig_t* cfg, const int64_t shape[3], int64_t padded[3]) {
  int any = 0;
  for (int d = 0; d < 3; d++) {
    const double p = cfg->padding[d];
    padded[d] = shape[d];
    if (!isfinite(p))
      return dtrSetError(dtrInvalidArgument, "config.padding[%d] (%c) = %g: expected 0 or 1 (none) or a factor >= 1", d,
                         axisName[d], p);
    if (!hasPadding(p)) continue;
    /* config.axes: a padded axis that is not periodic is refused here, by name. */
    if (cfg->axes[d] != dtrFftPeriodic)
      return dtrSetError(dtrInvalidArgument, "config.padding[%d] (%c) = %g on a real-to-real axis (config.axes[%d] = %d): "
                         "padding applies to periodic axes only (dtrFftPeriodic)", d, axisName[d], p, d, (int)cfg->axes[d]);
    if (p < 1.0)
      return dtrSetError(dtrInvalidArgument, "config.padding[%d] (%c) = %g: expected 0 or 1 (none) or a factor >= 1 "
                         "(the padded grid has floor(n * padding) >= n points)", d, axisName[d], p);
    /* Refused here beyond 2^62 points, before int64 overflows; the padded grid's bytes are checked with
     * the distribution's (the plan's arguments). */
    const double m = floor((double)shape[d] * p);
    if (!(m < 4611686018427387904.0))
      return dtrSetError(dtrInvalidArgument, "config.padding[%d] (%c) = %g: n%c x padding = %lld x %g is too many points",
                         d, axisName[d], p, axisName[d], (long long)shape[d], p);
    padded[d] = (int64_t)m < shape[d] ? shape[d] : (int64_t)m;
    any = 1;
  }
  if (any && cfg->norm == dtrFftNormOrtho)
    return dtrSetError(dtrInvalidArgument, "config.norm = dtrFftNormOrtho with config.padding: a padded transform is not "
                       "unitary (its two sides differ in size); use dtrFftNormNone or dtrFftNormInverse");
  return dtrSuccess;
}

/* The kept modes along each axis of the complex side: x halved for R2C. */
static void padAxes(const int64_t n[3], const int64_t m[3], dtrFftKind_t kind, dtrPadAxis axes[3]) {
  axes[0] = kind == dtrFftR2C ? dtrPadAxisHalved(n[0], m[0]) : dtrPadAxisComplex(n[0], m[0]);
  axes[1] = dtrPadAxisComplex(n[1], m[1]);
  axes[2] = dtrPadAxisComplex(n[2], m[2]);
}

dtrResult_t dtrFftSideBox(dtrGrid_t grid, const int64_t n[3], const int64_t m[3], dtrFftKind_t kind, dtrDataType_t type,
                          int64_t howmany, dtrFftSide_t side, int rank, dtrBox_t* box) {
  if (side == dtrFftInputSide) return dtrPencilBox(grid, m, dtrPencilX, type, howmany, rank, box);
  const dtrDataType_t ctype = type == dtrFloat32 || type == dtrComplex64 ? dtrComplex64 : dtrComplex128;
  dtrPadAxis axes[3];
  padAxes(n, m, kind, axes);
  const int64_t mc[3] = {axes[0].padded, axes[1].padded, axes[2].padded};
  DTRCHECK(dtrPencilBox(grid, mc, dtrPencilZ, ctype, howmany, rank, box));
  for (int d = 0; d < 3; d++) {
    const dtrRange k = dtrPadKeptRange(axes[d], (dtrRange){box->start[d], box->size[d]});
    box->start[d] = k.start, box->size[d] = k.count;
  }
  box->bytes = (size_t)(box->size[0] * box->size[1] * box->size[2]) * box->entry_bytes;
  return dtrSuccess;
}

dtrResult_t dtrFftPaddingPrepare(struct dtrFftPlan* f) {
  const dtrBox_t* z = &f->box[f->npencils - 1];
  if (f->realPlan) {
    /* Every axis real-to-real (never padded): the output side is the real Z-pencil of the input's shape. */
    f->output = *z;
    f->padded = 0;
    return dtrSuccess;
  }
  dtrPadAxis axes[3];
  padAxes(f->modes, f->shape, f->kind, axes);
  DTRCHECK(dtrFftSideBox(f->grid, f->modes, f->shape, f->kind, f->type, f->howmany, dtrFftOutputSide, -1, &f->output));
  f->padded = 0;
  for (int d = 0; d < 3; d++) f->padded |= f->shape[d] != f->modes[d];
  if (!f->padded) return dtrSuccess;
  dtrPadArgs* a = &f->pad;
  memset(a, 0, sizeof *a);
  /* Along z, complex numbers: a point's fields follow one another. */
  for (int d = 0; d < 3; d++) {
    const int64_t unit = d == 2 ? f->howmany : 1;
    const dtrPadPieces p = dtrPadPiecesOf(axes[d], (dtrRange){z->start[d], z->size[d]});
    a->paddedSize[d] = z->size[d] * unit;
    a->keptSize[d] = f->output.size[d] * unit;
    a->axis[d].pieces = p.pieces;
    for (int i = 0; i < p.pieces; i++)
      a->axis[d].kept[i] = p.kept[i] * unit, a->axis[d].padded[i] = p.padded[i] * unit, a->axis[d].count[i] = p.count[i] * unit;
  }
  /* A halved x of even nx padded: its Nyquist mode nx / 2 is no longer the padded grid's, where it would
   * count for itself and its twin at -nx / 2, so it is halved on the way in and doubled on the way out. */
  const int64_t nyquist = f->modes[0] / 2 - f->output.start[0];
  const int split = f->kind == dtrFftR2C && f->modes[0] % 2 == 0 && f->shape[0] > f->modes[0];
  a->nyquist = split && nyquist >= 0 && nyquist < f->output.size[0] ? nyquist : -1;
  a->dbl = f->ctype == dtrComplex128;
  return dtrSuccess;
}

size_t dtrFftPaddingBytes(const struct dtrFftPlan* f) {
  return f->padded ? (f->box[f->npencils - 1].bytes + 255) / 256 * 256 : 0;
}

/* The normalization's factor of a direction on the kept modes (Ortho is refused with padding). */
static double factorOf(const struct dtrFftPlan* f, dtrFftDirection_t direction) {
  if (f->norm != dtrFftNormInverse) return 1.0;
  /* A real-to-real axis (never padded) counts 2n in both, as the unpadded plan's N (pipeline.c). */
  double n = 1, m = 1;
  for (int d = 0; d < 3; d++) {
    const double logical = f->axes[d] == dtrFftPeriodic ? 1.0 : 2.0;
    n *= (double)f->modes[d] * logical;
    m *= (double)f->shape[d] * logical;
  }
  return direction == dtrFftInverse ? 1.0 / n : n / m;
}

/* The host's loops over the same arguments as the kernels: whole z pieces at a time. */
static void hostCopy(void* dst, const void* src, int64_t count, double factor, int dbl) {
  if (dbl) {
    double* d = dst;
    const double* s = src;
    for (int64_t i = 0; i < 2 * count; i++) d[i] = s[i] * factor;
  } else {
    float* d = dst;
    const float* s = src;
    const float fa = (float)factor;
    for (int64_t i = 0; i < 2 * count; i++) d[i] = s[i] * fa;
  }
}

/* The kept index of padded local index i along an axis, -1 in a gap. */
static int64_t keptOf(const dtrPadAxisPieces* a, int64_t i) {
  for (int p = 0; p < a->pieces; p++)
    if (i >= a->padded[p] && i < a->padded[p] + a->count[p]) return a->kept[p] + (i - a->padded[p]);
  return -1;
}

static void hostPadOrTruncate(const dtrPadArgs* a, int pad) {
  const size_t e = a->dbl ? 16 : 8;
  const int64_t *P = a->paddedSize, *K = a->keptSize;
  for (int64_t y = 0; y < P[1]; y++)
    for (int64_t x = 0; x < P[0]; x++) {
      const int64_t ky = keptOf(&a->axis[1], y), kx = keptOf(&a->axis[0], x);
      char* line = (char*)a->padded + (size_t)((y * P[0] + x) * P[2]) * e;
      if (ky < 0 || kx < 0) {
        if (pad) memset(line, 0, (size_t)P[2] * e);
        continue;
      }
      char* kline = (char*)a->kept + (size_t)((ky * K[0] + kx) * K[2]) * e;
      const double factor = kx == a->nyquist ? a->factor * a->nyquistFactor : a->factor;
      const dtrPadAxisPieces* z = &a->axis[2];
      if (pad) memset(line, 0, (size_t)P[2] * e);
      for (int p = 0; p < z->pieces; p++) {
        char* pz = line + (size_t)z->padded[p] * e;
        char* kz = kline + (size_t)z->kept[p] * e;
        if (pad) hostCopy(pz, kz, z->count[p], factor, a->dbl);
        else hostCopy(kz, pz, z->count[p], factor, a->dbl);
      }
    }
}

/* The kept modes in `kept` into the padded array (pad), or out of it (truncate), on the plan's side of
 * the host/GPU line. */
static dtrResult_t move(struct dtrFftPlan* f, const void* kept, void* keptOut, dtrFftDirection_t direction, cudaStream_t stream) {
  dtrPadArgs a = f->pad;
  const int pad = direction == dtrFftInverse;
  a.padded = f->padArray;
  a.kept = pad ? (void*)kept : keptOut;
  a.factor = factorOf(f, direction);
  a.nyquistFactor = pad ? 0.5 : 2.0;
  if (f->gpu) {
    CUDACHECK(cudaSetDevice(f->device));
    CUDACHECK(pad ? dtrPadLaunch(&a, stream) : dtrTruncateLaunch(&a, stream));
  } else {
    hostPadOrTruncate(&a, pad);
  }
  return dtrSuccess;
}

dtrResult_t dtrFftPaddedEarly(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                              cudaStream_t stream, int* launched) {
  *launched = 0;
  if (direction == dtrFftForward) return dtrFftRunEarly(f, in, f->padArray, direction, stream, launched);
  /* The pad writes the plan's own array only, so it may run before the agreements, on the host too. */
  DTRCHECK(move(f, in, NULL, direction, stream));
  return dtrFftRunEarly(f, f->padArray, out, direction, stream, launched);
}

dtrResult_t dtrFftPaddedRun(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                            cudaStream_t stream, int early) {
  if (direction == dtrFftInverse) return dtrFftRun(f, f->padArray, out, direction, stream, early);
  DTRCHECK(dtrFftRun(f, in, f->padArray, direction, stream, early));
  /* The truncation after the pipeline's last agreement: one more, so that every rank returns alike. */
  return dtrAgree(f->grid->comm, move(f, NULL, out, direction, stream));
}
