/*
 * A 1-D pass on the GPU that cuFFT cannot run alone: a real-to-real kind (cuFFT has none), or a DFT over
 * lines that lie in whole planes (two batch dimensions, where cuFFT's layout has one). The chunk's lines
 * are gathered into packed rows in the pass's scratch, one row a transform of one number (the real or
 * the imaginary part of one field, for a real-to-real kind), cuFFT runs on the rows, and the rows are
 * scattered back (axis_launch.h).
 *
 * The real-to-real kinds by one real DFT of the same length (Makhoul): a DCT-II reorders x (the evens
 * up, the odds down) into v, takes V = DFT(v) (R2C: half of it) and makes y[k] = 2 Re(exp(-i pi k / 2n)
 * V[k]); a DCT-III, its transpose up to the factor 2n, runs it backwards: V[k] = exp(i pi k / 2n) (X[k]
 * - i X[n - k]), v = inverse DFT (C2R), then Makhoul's order undone. A DST-II is a DCT-II of (-1)^j x
 * read backwards, a DST-III a DCT-III of x backwards times (-1)^j. So each pass is three kernels and one
 * cuFFT call on packed rows, the reordering and the twiddles fused into the gather and the scatter.
 *
 * Where n is a power of two from 8 to 4096 and each side's lines are packed (the pencils' own passes)
 * or side by side (a plane's columns: a slab's 2-D pass split in two; one side of the passes that
 * transpose), a real-to-real pass, the DFT over the columns, a DFT of several interleaved fields (whose
 * lines the kernel takes as lines side by side), and a normalized DFT, is one kernel instead
 * (axis_one_trip.cu): whole lines in registers and shared memory, its own FFT there, one trip through
 * HBM instead of three. The others (odd sizes) keep the kernels around cuFFT.
 */
#include "axis_pass.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "axis_launch.h"
#include "core/checks.h"
#include "core/params.h"
#include "cufft_pass.h"

struct dtrAxisPass {
  dtrLocalFftShape shape;
  int64_t n, parts;
  int dft;              /* a DFT over lines in whole planes, not a real-to-real kind */
  dtrCufftPass* rows;   /* the packed rows' transforms: R2C and C2R (real-to-real), or C2C (a DFT) */
  void* table;          /* the one-trip pass's twiddles (device memory), or NULL: the three kernels */
  size_t rowBytes;      /* the rows' scratch: real rows (n numbers), then their half spectra */
  size_t scratch;
  char* area;
};

/* Rows of one transform (unit): its lines times its fields times the numbers a field has at a point. */
static int64_t rowsPerUnit(const dtrAxisPass* p) {
  return dtrLocalFftLines(&p->shape) * dtrLocalFftFields(&p->shape) * p->parts;
}

void dtrAxisPassDestroy(dtrAxisPass* p) {
  if (!p) return;
  dtrCufftPassDestroy(p->rows);
  if (p->table) cudaFree(p->table);
  free(p);
}

/* One side's layout in points: where a transform's lines and points lie (packed by default). */
static dtrAxisSide sideOf(const dtrLocalFftShape* s, int input) {
  const int64_t stride = input ? s->in_stride : s->out_stride, dist = input ? s->in_dist : s->out_dist;
  const int64_t lineDist = input ? s->in_line_dist : s->out_line_dist;
  const dtrAxisSide side = {dist ? dist : s->n[0] * dtrLocalFftLines(s), lineDist ? lineDist : s->n[0], stride ? stride : 1};
  return side;
}

/* The one-trip kernel's view of `count` transforms of shape s: it takes one field. Several interleaved
 * fields are as many lines side by side (line l of field f is line l F + f, one number after the previous
 * field's), their points F apart: a pass of one line a transform (packed, or transposing: the slab
 * routes' passes), or of a plane's columns, becomes one of columns. 0 where lines of a transform lie
 * apart (the fields of one line would not be the neighbours of the next line's). */
static int oneTripView(const dtrLocalFftShape* s, int64_t count, dtrAxisRows* r, dtrAxisSide* from, dtrAxisSide* into) {
  const int64_t F = dtrLocalFftFields(s), L = dtrLocalFftLines(s);
  const int dft = s->kind[0] == dtrFftPeriodic;
  const dtrAxisRows one = {s->n[0], count, L, 1, dft || s->realData ? 1 : 2, s->dbl, dft};
  *r = one, *from = sideOf(s, 1), *into = sideOf(s, 0);
  if (F == 1) return 1;
  if (L > 1 && (from->line != 1 || into->line != 1)) return 0;
  r->lines = L * F;
  dtrAxisSide* const sides[2] = {from, into};
  for (int i = 0; i < 2; i++) sides[i]->unit *= F, sides[i]->line = 1, sides[i]->point *= F;
  return 1;
}

int dtrAxisPassOneTrip(const dtrLocalFftShape* s) {
  if (s->dims != 1 || s->real) return 0;
  dtrAxisRows r;
  dtrAxisSide from, into;
  return oneTripView(s, 1, &r, &from, &into) && dtrAxisOneTripFits(&r, from, into);
}

dtrResult_t dtrAxisPassCreate(const dtrLocalFftShape* s, const int64_t* batches, int nbatches, dtrAxisPass** out) {
  *out = NULL;
  if (s->dims != 1 || s->real)
    return dtrSetError(dtrInternalError, "an axis pass takes 1-D passes of complex or real data, not %d-D%s", s->dims,
                       s->real ? " real-to-complex" : "");
  dtrAxisPass* p = calloc(1, sizeof *p);
  int64_t* rowBatches = malloc((size_t)(nbatches > 0 ? nbatches : 1) * sizeof *rowBatches);
  if (!p || !rowBatches) {
    free(p);
    free(rowBatches);
    return dtrSetError(dtrOutOfMemory, "cannot allocate an axis pass");
  }
  p->shape = *s;
  p->n = s->n[0];
  p->dft = s->kind[0] == dtrFftPeriodic;
  p->parts = p->dft || s->realData ? 1 : 2;
  int64_t most = 0;
  for (int i = 0; i < nbatches; i++) {
    rowBatches[i] = batches[i] * rowsPerUnit(p);
    if (batches[i] > most) most = batches[i];
  }
  dtrAxisRows probe;
  dtrAxisSide from, into;
  if (oneTripView(s, 1, &probe, &from, &into) && dtrAxisOneTripFits(&probe, from, into)) {
    free(rowBatches);
    const size_t bytes = dtrAxisOneTripTableBytes(p->n, s->dbl);
    void* host = malloc(bytes);
    if (!host || cudaMalloc(&p->table, bytes) != cudaSuccess) {
      free(host);
      p->table = NULL;
      dtrAxisPassDestroy(p);
      return dtrSetError(dtrOutOfMemory, "cannot allocate the twiddles of a pass of %lld points", (long long)p->n);
    }
    dtrAxisOneTripTable(p->n, s->dbl, host);
    cudaError_t err = cudaMemcpy(p->table, host, bytes, cudaMemcpyHostToDevice);
    free(host);
    if (err == cudaSuccess) err = dtrAxisOneTripPrepare(&probe, from, into);
    if (err != cudaSuccess) {
      dtrAxisPassDestroy(p);
      return dtrSetError(dtrCudaError, "preparing a pass of %lld points: %s", (long long)p->n, cudaGetErrorString(err));
    }
    *out = p;
    return dtrSuccess;
  }
  /* The rows' plans: packed transforms of one number each; one point needs none (the scatter scales it). */
  const dtrLocalFftShape rowShape = {.dims = 1, .n = {p->n, 0}, .real = !p->dft, .dbl = s->dbl};
  dtrResult_t res = dtrSuccess;
  if (p->dft || p->n > 1) res = dtrCufftPassCreate(&rowShape, rowBatches, nbatches, &p->rows);
  free(rowBatches);
  if (res != dtrSuccess) {
    dtrAxisPassDestroy(p);
    return res;
  }
  const size_t rows = (size_t)(most * rowsPerUnit(p)), number = s->dbl ? 8 : 4;
  if (p->dft) {
    p->scratch = (rows * (size_t)p->n * 2 * number + 255) / 256 * 256;
  } else {
    p->rowBytes = (rows * (size_t)p->n * number + 255) / 256 * 256;
    p->scratch = p->rowBytes + (rows * (size_t)(p->n / 2 + 1) * 2 * number + 255) / 256 * 256;
  }
  *out = p;
  return dtrSuccess;
}

size_t dtrAxisPassWorkBytes(const dtrAxisPass* p) { return p->scratch + (p->rows ? dtrCufftPassWorkBytes(p->rows) : 0); }

dtrResult_t dtrAxisPassSetWorkArea(dtrAxisPass* p, void* area) {
  p->area = area;
  return p->rows ? dtrCufftPassSetWorkArea(p->rows, (char*)area + p->scratch) : dtrSuccess;
}

/* The kind the direction runs: a kind forward, the other of its pair inverse. */
static int kindOf(int kind, int direction) {
  if (direction == dtrFftForward) return kind;
  switch (kind) {
    case dtrFftDct2: return dtrFftDct3;
    case dtrFftDct3: return dtrFftDct2;
    case dtrFftDst2: return dtrFftDst3;
    default: return dtrFftDst2;
  }
}

/* What the one-trip kernel runs for this pass and direction. */
static int oneTripKind(const dtrAxisPass* p, int direction) {
  if (p->dft) return direction == dtrFftForward ? dtrAxisDftForward : dtrAxisDftInverse;
  switch (kindOf(p->shape.kind[0], direction)) {
    case dtrFftDct2: return dtrAxisDct2;
    case dtrFftDct3: return dtrAxisDct3;
    case dtrFftDst2: return dtrAxisDst2;
    default: return dtrAxisDst3;
  }
}

dtrResult_t dtrAxisPassRun(dtrAxisPass* p, int direction, int64_t count, const void* in, void* out, double factor,
                           cudaStream_t stream) {
  const dtrLocalFftShape* s = &p->shape;
  const dtrAxisRows rows = {p->n, count, dtrLocalFftLines(s), dtrLocalFftFields(s), (int)p->parts, s->dbl, p->dft};
  const dtrAxisSide from = sideOf(s, 1), into = sideOf(s, 0);
  char* const real = p->area;
  char* const spectra = p->area + p->rowBytes;
  const int64_t total = count * rowsPerUnit(p);
  if (p->table) {
    dtrAxisRows one;
    dtrAxisSide a, b;
    oneTripView(s, count, &one, &a, &b);
    CUDACHECK(dtrAxisOneTripLaunch(&one, a, b, in, out, oneTripKind(p, direction), factor, p->table,
                                      dtrEnvParamsGet()->fft_pass_async, stream));
    return dtrSuccess;
  }
  if (p->dft) {
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, spectra, dtrAxisGatherCopy, stream));
    DTRCHECK(dtrCufftPassRun(p->rows, direction, total, spectra, spectra, stream));
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, spectra, out, dtrAxisScatterCopy, factor, stream));
    return dtrSuccess;
  }
  const int kind = kindOf(s->kind[0], direction);
  const int sine = kind == dtrFftDst2 || kind == dtrFftDst3;
  if (p->n == 1) { /* y = 2x for a type II, y = x for a type III */
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, dtrAxisGatherCopy, stream));
    const double two = kind == dtrFftDct2 || kind == dtrFftDst2 ? 2.0 : 1.0;
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, real, out, dtrAxisScatterCopy, two * factor, stream));
    return dtrSuccess;
  }
  if (kind == dtrFftDct2 || kind == dtrFftDst2) {
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, sine ? dtrAxisGatherEvenOddAlternating : dtrAxisGatherEvenOdd, stream));
    DTRCHECK(dtrCufftPassRun(p->rows, dtrFftForward, total, real, spectra, stream));
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, spectra, out, sine ? dtrAxisScatterSine : dtrAxisScatterCosine, factor, stream));
    return dtrSuccess;
  }
  CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, sine ? dtrAxisGatherReversed : dtrAxisGatherCopy, stream));
  CUDACHECK(dtrAxisTwiddleLaunch(&rows, real, spectra, stream));
  DTRCHECK(dtrCufftPassRun(p->rows, dtrFftInverse, total, spectra, real, stream));
  CUDACHECK(dtrAxisScatterLaunch(&rows, into, real, out, sine ? dtrAxisScatterEvenOddAlternating : dtrAxisScatterEvenOdd, factor,
                                 stream));
  return dtrSuccess;
}
