/*
 * Local passes by cuFFT: one plan per batch size a pass's chunks take (two for a real pass: R2C and
 * C2R), made at plan time, with no work area of their own: the FFT plan gives them one shared area
 * (its passes run one after another on one stream), as cuDecomp does. Plans in the basic layout:
 * transforms packed one after another, the real side unpadded (n reals, n / 2 + 1 complex entries).
 *
 * Fields interleaved at every point (transform_shape.h): cuFFT's advanced layout has one batch
 * dimension, where the points of a line of fields need two (the lines, and the fields one number
 * apart). A plan of one field per field, its strides and distances times the fields, from that
 * field's first number on, expresses it, but runs far slower than packed transforms (docs/fft.md,
 * several fields: timing), and a real pass cannot
 * run it at all: cuFFT takes a real side at an address aligned to its complex type only, and the
 * fields of a point lie one real apart. So a pass of several fields in the packed layout has its
 * chunk transposed into field-major copies in the pass's scratch (a kernel of the library's for few columns,
 * in the work area beside cuFFT's) and back, around plans of the packed layout that take every
 * field's lines as one batch. A complex pass needs one copy, transformed in place there; a real pass
 * two (the real side and the complex side). Either way the chunk is read and written twice more, at
 * the HBM rate, and the scratch is as large as the largest batch's data: the price of packed plans.
 *
 * The strided layouts (the slab routes' passes along z, the fused passes along y) keep the plans of
 * one field per field: their lines' points lie planes apart, so field-major copies would be a 3-D
 * permutation on one side (a batch of fields x n transposes, one a line) rather than one transpose,
 * whose cost against the strided plans is not measured.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cufft.h>

#include "core/checks.h"
#include "cufft_pass.h"
#include "launch.h"

typedef struct {
  int64_t batch;                /* transforms of the pass (lines of every field) */
  cufftHandle forward, inverse; /* the same handle for complex passes */
  size_t work;
} BatchPlan;

struct dtrCufftPass {
  dtrLocalFftShape shape;
  BatchPlan* plans;
  int nplans;
  int fieldMajor;      /* several fields in the packed layout: through field-major copies */
  size_t realScratch;  /* their bytes: the real side's (a real pass's), then the complex side's, before cuFFT's area */
  size_t scratch;
  char* area;
};

static dtrResult_t cufftError(cufftResult r, const char* what, const dtrLocalFftShape* s, int64_t batch) {
  const dtrResult_t code = r == CUFFT_ALLOC_FAILED ? dtrOutOfMemory : dtrCudaError;
  char size[48];
  if (s->dims == 2) snprintf(size, sizeof size, "%lld x %lld", (long long)s->n[0], (long long)s->n[1]);
  else snprintf(size, sizeof size, "%lld", (long long)s->n[0]);
  return dtrSetError(code, "cuFFT: %s of a %d-D %s%s transform of %s, batch %lld: cufftResult %d", what, s->dims,
                     s->real ? "real " : "", s->dbl ? "double" : "single", size, (long long)batch, (int)r);
}

/* A plan of `batch` transforms of the shape's layout; where it has several fields, of one field of it
 * (the strided layouts' plan a field). */
static dtrResult_t makePlan(const dtrLocalFftShape* s, int64_t batch, cufftType type, cufftHandle* h, size_t* work) {
  long long n[2] = {s->n[0], s->n[1]};
  size_t bytes = 0;
  cufftResult r = cufftCreate(h);
  if (r != CUFFT_SUCCESS) return cufftError(r, "cufftCreate", s, batch);
  if (r == CUFFT_SUCCESS) r = cufftSetAutoAllocation(*h, 0);
  const long long f = dtrLocalFftFields(s);
  if (r == CUFFT_SUCCESS && (s->in_dist || s->out_dist || f > 1)) {
    /* The advanced layout: the embeddings are the sizes (a plane's rows lie n[1] points apart);
     * strides and distances, in numbers of one field, place the points. */
    long long embed[2] = {n[0], n[1]};
    const long long length = dtrLocalFftComplexLength(s);
    const long long is = (s->in_stride ? s->in_stride : 1) * f, id = (s->in_dist ? s->in_dist : length) * f;
    const long long os = (s->out_stride ? s->out_stride : 1) * f, od = (s->out_dist ? s->out_dist : length) * f;
    r = cufftMakePlanMany64(*h, s->dims, n, embed, is, id, embed, os, od, type, batch, &bytes);
  } else if (r == CUFFT_SUCCESS) {
    r = cufftMakePlanMany64(*h, s->dims, n, NULL, 1, 0, NULL, 1, 0, type, batch, &bytes);
  }
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(*h);
    *h = 0;
    return cufftError(r, "the plan", s, batch);
  }
  if (bytes > *work) *work = bytes;
  return dtrSuccess;
}

void dtrCufftPassDestroy(dtrCufftPass* p) {
  if (!p) return;
  for (int i = 0; i < p->nplans; i++) {
    if (p->plans[i].forward) cufftDestroy(p->plans[i].forward);
    if (p->plans[i].inverse && p->plans[i].inverse != p->plans[i].forward) cufftDestroy(p->plans[i].inverse);
  }
  free(p->plans);
  free(p);
}

dtrResult_t dtrCufftPassCreate(const dtrLocalFftShape* s, const int64_t* batches, int nbatches, dtrCufftPass** out) {
  *out = NULL;
  dtrCufftPass* p = calloc(1, sizeof *p);
  if (p) p->plans = calloc(nbatches > 0 ? (size_t)nbatches : 1, sizeof *p->plans);
  if (!p || !p->plans) {
    free(p);
    return dtrSetError(dtrOutOfMemory, "cannot allocate a cuFFT pass");
  }
  p->shape = *s;
  /* Several fields in the packed layout (a real pass has no other): plans of one field's packed layout,
   * every field's lines a batch. */
  const int64_t fields = dtrLocalFftFields(s);
  p->fieldMajor = fields > 1 && (s->real || (!s->in_dist && !s->out_dist));
  dtrLocalFftShape planned = *s;
  if (p->fieldMajor) planned.fields = 0;
  int64_t most = 0;
  for (int i = 0; i < nbatches; i++) {
    int seen = batches[i] <= 0;
    for (int j = 0; j < p->nplans && !seen; j++) seen = p->plans[j].batch == batches[i];
    if (seen) continue;
    BatchPlan* b = &p->plans[p->nplans++];
    b->batch = batches[i];
    if (b->batch > most) most = b->batch;
    const int64_t transforms = p->fieldMajor ? fields * b->batch : b->batch;
    dtrResult_t res;
    if (s->real) {
      res = makePlan(&planned, transforms, s->dbl ? CUFFT_D2Z : CUFFT_R2C, &b->forward, &b->work);
      if (res == dtrSuccess) res = makePlan(&planned, transforms, s->dbl ? CUFFT_Z2D : CUFFT_C2R, &b->inverse, &b->work);
    } else {
      res = makePlan(&planned, transforms, s->dbl ? CUFFT_Z2Z : CUFFT_C2C, &b->forward, &b->work);
      b->inverse = b->forward;
    }
    if (res != dtrSuccess) {
      dtrCufftPassDestroy(p);
      return res;
    }
  }
  if (p->fieldMajor) {
    const size_t real = s->dbl ? 8 : 4, count = (size_t)(fields * most);
    p->realScratch = s->real ? (count * (size_t)dtrLocalFftRealLength(s) * real + 255) / 256 * 256 : 0;
    p->scratch = p->realScratch + (count * (size_t)dtrLocalFftComplexLength(s) * 2 * real + 255) / 256 * 256;
  }
  *out = p;
  return dtrSuccess;
}

size_t dtrCufftPassWorkBytes(const dtrCufftPass* p) {
  size_t most = 0;
  for (int i = 0; i < p->nplans; i++)
    if (p->plans[i].work > most) most = p->plans[i].work;
  return p->scratch + most;
}

dtrResult_t dtrCufftPassSetWorkArea(dtrCufftPass* p, void* area) {
  p->area = area;
  for (int i = 0; i < p->nplans; i++) {
    BatchPlan* b = &p->plans[i];
    cufftResult r = cufftSetWorkArea(b->forward, (char*)area + p->scratch);
    if (r == CUFFT_SUCCESS && b->inverse != b->forward) r = cufftSetWorkArea(b->inverse, (char*)area + p->scratch);
    if (r != CUFFT_SUCCESS) return cufftError(r, "cufftSetWorkArea", &p->shape, b->batch);
  }
  return dtrSuccess;
}

static cufftResult exec(const dtrLocalFftShape* s, cufftHandle h, int direction, void* src, void* out) {
  if (!s->real && s->dbl) return cufftExecZ2Z(h, src, out, direction == dtrFftForward ? CUFFT_FORWARD : CUFFT_INVERSE);
  if (!s->real) return cufftExecC2C(h, src, out, direction == dtrFftForward ? CUFFT_FORWARD : CUFFT_INVERSE);
  if (direction == dtrFftForward) return s->dbl ? cufftExecD2Z(h, src, out) : cufftExecR2C(h, src, out);
  return s->dbl ? cufftExecZ2D(h, src, out) : cufftExecC2R(h, src, out);
}

/* A chunk's points of interleaved fields into field-major copies (split), or back: a transpose of a
 * matrix of `fields` columns, by the library's kernel for few columns (kernels/fields.cu). */
static dtrResult_t moveFields(int split, const void* src, void* dst, int64_t points, int64_t fields, size_t entry,
                              cudaStream_t stream) {
  CUDACHECK(dtrFieldsLaunch(split, src, dst, points, (int)fields, entry, stream));
  return dtrSuccess;
}

/* A pass of several fields: its chunk into field-major copies, the plan over every field's lines, and
 * back into the points of interleaved fields. The copies lie in the scratch, apart from in and out, so
 * that in place (in == out) is safe. */
static dtrResult_t runFieldMajor(dtrCufftPass* p, cufftHandle h, int direction, int64_t count, const void* in, void* out,
                                 cudaStream_t stream) {
  const dtrLocalFftShape* s = &p->shape;
  const int64_t fields = dtrLocalFftFields(s);
  const size_t real = s->dbl ? 8 : 4;
  const int64_t reals = count * dtrLocalFftRealLength(s), complexes = count * dtrLocalFftComplexLength(s);
  char* const realCopy = p->area; /* a real pass's only */
  char* const complexCopy = p->area + p->realScratch;
  cufftResult r;
  if (!s->real) {
    /* One copy, transformed in place. */
    DTRCHECK(moveFields(1, in, complexCopy, complexes, fields, 2 * real, stream));
    r = exec(s, h, direction, complexCopy, complexCopy);
    if (r == CUFFT_SUCCESS) return moveFields(0, complexCopy, out, complexes, fields, 2 * real, stream);
  } else if (direction == dtrFftForward) {
    DTRCHECK(moveFields(1, in, realCopy, reals, fields, real, stream));
    r = exec(s, h, direction, realCopy, complexCopy);
    if (r == CUFFT_SUCCESS) return moveFields(0, complexCopy, out, complexes, fields, 2 * real, stream);
  } else {
    DTRCHECK(moveFields(1, in, complexCopy, complexes, fields, 2 * real, stream));
    r = exec(s, h, direction, complexCopy, realCopy);
    if (r == CUFFT_SUCCESS) return moveFields(0, realCopy, out, reals, fields, real, stream);
  }
  return cufftError(r, "the execution", s, fields * count);
}

dtrResult_t dtrCufftPassRun(dtrCufftPass* p, int direction, int64_t count, const void* in, void* out, cudaStream_t stream) {
  BatchPlan* b = NULL;
  for (int i = 0; i < p->nplans && !b; i++)
    if (p->plans[i].batch == count) b = &p->plans[i];
  if (!b) return dtrSetError(dtrInternalError, "cuFFT: no plan for a batch of %lld transforms", (long long)count);
  const cufftHandle h = direction == dtrFftForward ? b->forward : b->inverse;
  cufftResult r = cufftSetStream(h, stream);
  if (r != CUFFT_SUCCESS) return cufftError(r, "cufftSetStream", &p->shape, count);
  if (p->fieldMajor) return runFieldMajor(p, h, direction, count, in, out, stream);
  /* cuFFT takes non-const inputs (and C2R overwrites its input, the FFT's workspace). Several fields of
   * a complex pass in a strided layout: the plan of one field from each field's first number on. */
  const dtrLocalFftShape* s = &p->shape;
  const size_t complex = s->dbl ? 16 : 8;
  for (int64_t field = 0; field < dtrLocalFftFields(s) && r == CUFFT_SUCCESS; field++)
    r = exec(s, h, direction, (char*)in + field * complex, (char*)out + field * complex);
  if (r != CUFFT_SUCCESS) return cufftError(r, "the execution", &p->shape, count);
  return dtrSuccess;
}
