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
 */
#include "axis_pass.h"

#include <stdio.h>
#include <stdlib.h>

#include <cufft.h>

#include "axis_launch.h"
#include "core/checks.h"

typedef struct {
  int64_t batch;                /* transforms of the pass (units) */
  cufftHandle forward, inverse; /* R2C and C2R of the rows (real-to-real); one C2C handle (a DFT) */
  size_t work;
} RowPlan;

struct dtrAxisPass {
  dtrLocalFftShape shape;
  int64_t n, parts;
  int dft;            /* a DFT over lines in whole planes, not a real-to-real kind */
  RowPlan* plans;
  int nplans;
  size_t rowBytes;    /* the rows' scratch: real rows (n numbers), then their half spectra */
  size_t scratch;
  char* area;
};

static dtrResult_t cufftError(cufftResult r, const char* what, const dtrAxisPass* p, int64_t rows) {
  return dtrSetError(r == CUFFT_ALLOC_FAILED ? dtrOutOfMemory : dtrCudaError,
                     "cuFFT: %s of %lld %s rows of %lld (%s): cufftResult %d", what, (long long)rows,
                     p->dft ? "complex" : "real", (long long)p->n, p->shape.dbl ? "double" : "single", (int)r);
}

/* Rows of one transform (unit): its lines times its fields times the numbers a field has at a point. */
static int64_t rowsPerUnit(const dtrAxisPass* p) {
  return dtrLocalFftLines(&p->shape) * dtrLocalFftFields(&p->shape) * p->parts;
}

static dtrResult_t makePlan(const dtrAxisPass* p, int64_t rows, cufftType type, cufftHandle* h, size_t* work) {
  long long n = p->n;
  size_t bytes = 0;
  cufftResult r = cufftCreate(h);
  if (r != CUFFT_SUCCESS) return cufftError(r, "cufftCreate", p, rows);
  r = cufftSetAutoAllocation(*h, 0);
  if (r == CUFFT_SUCCESS) r = cufftMakePlanMany64(*h, 1, &n, NULL, 1, 0, NULL, 1, 0, type, rows, &bytes);
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(*h);
    *h = 0;
    return cufftError(r, "the plan", p, rows);
  }
  if (bytes > *work) *work = bytes;
  return dtrSuccess;
}

void dtrAxisPassDestroy(dtrAxisPass* p) {
  if (!p) return;
  for (int i = 0; i < p->nplans; i++) {
    if (p->plans[i].forward) cufftDestroy(p->plans[i].forward);
    if (p->plans[i].inverse && p->plans[i].inverse != p->plans[i].forward) cufftDestroy(p->plans[i].inverse);
  }
  free(p->plans);
  free(p);
}

dtrResult_t dtrAxisPassCreate(const dtrLocalFftShape* s, const int64_t* batches, int nbatches, dtrAxisPass** out) {
  *out = NULL;
  if (s->dims != 1 || s->real)
    return dtrSetError(dtrInternalError, "an axis pass takes 1-D passes of complex or real data, not %d-D%s", s->dims,
                       s->real ? " real-to-complex" : "");
  dtrAxisPass* p = calloc(1, sizeof *p);
  if (p) p->plans = calloc(nbatches > 0 ? (size_t)nbatches : 1, sizeof *p->plans);
  if (!p || !p->plans) {
    free(p);
    return dtrSetError(dtrOutOfMemory, "cannot allocate an axis pass");
  }
  p->shape = *s;
  p->n = s->n[0];
  p->dft = s->kind[0] == dtrFftPeriodic;
  p->parts = p->dft || s->realData ? 1 : 2;
  const size_t number = s->dbl ? 8 : 4;
  int64_t most = 0;
  for (int i = 0; i < nbatches; i++) {
    int seen = batches[i] <= 0;
    for (int j = 0; j < p->nplans && !seen; j++) seen = p->plans[j].batch == batches[i];
    if (seen) continue;
    RowPlan* b = &p->plans[p->nplans++];
    b->batch = batches[i];
    if (b->batch > most) most = b->batch;
    const int64_t rows = b->batch * rowsPerUnit(p);
    dtrResult_t res = dtrSuccess;
    if (p->dft) {
      res = makePlan(p, rows, s->dbl ? CUFFT_Z2Z : CUFFT_C2C, &b->forward, &b->work);
      b->inverse = b->forward;
    } else if (p->n > 1) { /* one point needs no DFT: the scatter scales it */
      res = makePlan(p, rows, s->dbl ? CUFFT_D2Z : CUFFT_R2C, &b->forward, &b->work);
      if (res == dtrSuccess) res = makePlan(p, rows, s->dbl ? CUFFT_Z2D : CUFFT_C2R, &b->inverse, &b->work);
    }
    if (res != dtrSuccess) {
      dtrAxisPassDestroy(p);
      return res;
    }
  }
  const size_t rows = (size_t)(most * rowsPerUnit(p));
  if (p->dft) {
    p->rowBytes = 0;
    p->scratch = (rows * (size_t)p->n * 2 * number + 255) / 256 * 256;
  } else {
    p->rowBytes = (rows * (size_t)p->n * number + 255) / 256 * 256;
    p->scratch = p->rowBytes + (rows * (size_t)(p->n / 2 + 1) * 2 * number + 255) / 256 * 256;
  }
  *out = p;
  return dtrSuccess;
}

size_t dtrAxisPassWorkBytes(const dtrAxisPass* p) {
  size_t most = 0;
  for (int i = 0; i < p->nplans; i++)
    if (p->plans[i].work > most) most = p->plans[i].work;
  return p->scratch + most;
}

dtrResult_t dtrAxisPassSetWorkArea(dtrAxisPass* p, void* area) {
  p->area = area;
  for (int i = 0; i < p->nplans; i++) {
    RowPlan* b = &p->plans[i];
    cufftResult r = CUFFT_SUCCESS;
    if (b->forward) r = cufftSetWorkArea(b->forward, (char*)area + p->scratch);
    if (r == CUFFT_SUCCESS && b->inverse && b->inverse != b->forward) r = cufftSetWorkArea(b->inverse, (char*)area + p->scratch);
    if (r != CUFFT_SUCCESS) return cufftError(r, "cufftSetWorkArea", p, b->batch * rowsPerUnit(p));
  }
  return dtrSuccess;
}

/* One side's layout in points: where a transform's lines and points lie (packed by default). */
static dtrAxisSide sideOf(const dtrLocalFftShape* s, int input) {
  const int64_t stride = input ? s->in_stride : s->out_stride, dist = input ? s->in_dist : s->out_dist;
  const int64_t lineDist = input ? s->in_line_dist : s->out_line_dist;
  const dtrAxisSide side = {dist ? dist : s->n[0] * dtrLocalFftLines(s), lineDist ? lineDist : s->n[0], stride ? stride : 1};
  return side;
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

dtrResult_t dtrAxisPassRun(dtrAxisPass* p, int direction, int64_t count, const void* in, void* out, cudaStream_t stream) {
  RowPlan* b = NULL;
  for (int i = 0; i < p->nplans && !b; i++)
    if (p->plans[i].batch == count) b = &p->plans[i];
  if (!b) return dtrSetError(dtrInternalError, "axis pass: no plan for a batch of %lld transforms", (long long)count);
  const dtrLocalFftShape* s = &p->shape;
  const dtrAxisRows rows = {p->n, count, dtrLocalFftLines(s), dtrLocalFftFields(s), (int)p->parts, s->dbl, p->dft};
  const dtrAxisSide from = sideOf(s, 1), into = sideOf(s, 0);
  char* const real = p->area;
  char* const spectra = p->area + p->rowBytes;
  const int64_t total = count * rowsPerUnit(p);
  cufftResult r = CUFFT_SUCCESS;
  if (p->dft) {
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, spectra, dtrAxisGatherCopy, stream));
    r = cufftSetStream(b->forward, stream);
    const int sign = direction == dtrFftForward ? CUFFT_FORWARD : CUFFT_INVERSE;
    if (r == CUFFT_SUCCESS) r = s->dbl ? cufftExecZ2Z(b->forward, (void*)spectra, (void*)spectra, sign)
                                       : cufftExecC2C(b->forward, (void*)spectra, (void*)spectra, sign);
    if (r != CUFFT_SUCCESS) return cufftError(r, "the execution", p, total);
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, spectra, out, dtrAxisScatterCopy, 1.0, stream));
    return dtrSuccess;
  }
  const int kind = kindOf(s->kind[0], direction);
  const int sine = kind == dtrFftDst2 || kind == dtrFftDst3;
  if (p->n == 1) { /* y = 2x for a type II, y = x for a type III */
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, dtrAxisGatherCopy, stream));
    const double factor = kind == dtrFftDct2 || kind == dtrFftDst2 ? 2.0 : 1.0;
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, real, out, dtrAxisScatterCopy, factor, stream));
    return dtrSuccess;
  }
  if (kind == dtrFftDct2 || kind == dtrFftDst2) {
    CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, sine ? dtrAxisGatherEvenOddAlternating : dtrAxisGatherEvenOdd, stream));
    r = cufftSetStream(b->forward, stream);
    if (r == CUFFT_SUCCESS) r = s->dbl ? cufftExecD2Z(b->forward, (void*)real, (void*)spectra) : cufftExecR2C(b->forward, (void*)real, (void*)spectra);
    if (r != CUFFT_SUCCESS) return cufftError(r, "the execution", p, total);
    CUDACHECK(dtrAxisScatterLaunch(&rows, into, spectra, out, sine ? dtrAxisScatterSine : dtrAxisScatterCosine, 1.0, stream));
    return dtrSuccess;
  }
  CUDACHECK(dtrAxisGatherLaunch(&rows, from, in, real, sine ? dtrAxisGatherReversed : dtrAxisGatherCopy, stream));
  CUDACHECK(dtrAxisTwiddleLaunch(&rows, real, spectra, stream));
  r = cufftSetStream(b->inverse, stream);
  if (r == CUFFT_SUCCESS) r = s->dbl ? cufftExecZ2D(b->inverse, (void*)spectra, (void*)real) : cufftExecC2R(b->inverse, (void*)spectra, (void*)real);
  if (r != CUFFT_SUCCESS) return cufftError(r, "the execution", p, total);
  CUDACHECK(dtrAxisScatterLaunch(&rows, into, real, out, sine ? dtrAxisScatterEvenOddAlternating : dtrAxisScatterEvenOdd, 1.0, stream));
  return dtrSuccess;
}
