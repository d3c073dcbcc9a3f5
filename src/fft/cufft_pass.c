/*
 * Local passes by cuFFT: one plan per batch size a pass's chunks take (two for a real pass: R2C and
 * C2R), made at plan time, with no work area of their own: the FFT plan gives them one shared area
 * (its passes run one after another on one stream), as cuDecomp does. Plans in the basic layout:
 * transforms packed one after another, the real side unpadded (n reals, n / 2 + 1 complex entries).
 */
#include <stdio.h>
#include <stdlib.h>

#include <cufft.h>

#include "core/checks.h"
#include "cufft_pass.h"

typedef struct {
  int64_t batch;
  cufftHandle forward, inverse; /* the same handle for complex passes */
  size_t work;
} BatchPlan;

struct dtrCufftPass {
  dtrLocalFftShape shape;
  BatchPlan* plans;
  int nplans;
};

static dtrResult_t cufftError(cufftResult r, const char* what, const dtrLocalFftShape* s, int64_t batch) {
  const dtrResult_t code = r == CUFFT_ALLOC_FAILED ? dtrOutOfMemory : dtrCudaError;
  char size[48];
  if (s->dims == 2) snprintf(size, sizeof size, "%lld x %lld", (long long)s->n[0], (long long)s->n[1]);
  else snprintf(size, sizeof size, "%lld", (long long)s->n[0]);
  return dtrSetError(code, "cuFFT: %s of a %d-D %s%s transform of %s, batch %lld: cufftResult %d", what, s->dims,
                     s->real ? "real " : "", s->dbl ? "double" : "single", size, (long long)batch, (int)r);
}

static dtrResult_t makePlan(const dtrLocalFftShape* s, int64_t batch, cufftType type, cufftHandle* h, size_t* work) {
  long long n[2] = {s->n[0], s->n[1]};
  size_t bytes = 0;
  cufftResult r = cufftCreate(h);
  if (r != CUFFT_SUCCESS) return cufftError(r, "cufftCreate", s, batch);
  if (r == CUFFT_SUCCESS) r = cufftSetAutoAllocation(*h, 0);
  if (r == CUFFT_SUCCESS && (s->in_dist || s->out_dist)) {
    /* The advanced layout: the embeddings only say "not packed"; strides and distances place the points. */
    long long embed[1] = {n[0]};
    const long long is = s->in_stride ? s->in_stride : 1, id = s->in_dist ? s->in_dist : n[0];
    const long long os = s->out_stride ? s->out_stride : 1, od = s->out_dist ? s->out_dist : n[0];
    r = cufftMakePlanMany64(*h, 1, n, embed, is, id, embed, os, od, type, batch, &bytes);
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
  for (int i = 0; i < nbatches; i++) {
    int seen = batches[i] <= 0;
    for (int j = 0; j < p->nplans && !seen; j++) seen = p->plans[j].batch == batches[i];
    if (seen) continue;
    BatchPlan* b = &p->plans[p->nplans++];
    b->batch = batches[i];
    dtrResult_t res;
    if (s->real) {
      res = makePlan(s, b->batch, s->dbl ? CUFFT_D2Z : CUFFT_R2C, &b->forward, &b->work);
      if (res == dtrSuccess) res = makePlan(s, b->batch, s->dbl ? CUFFT_Z2D : CUFFT_C2R, &b->inverse, &b->work);
    } else {
      res = makePlan(s, b->batch, s->dbl ? CUFFT_Z2Z : CUFFT_C2C, &b->forward, &b->work);
      b->inverse = b->forward;
    }
    if (res != dtrSuccess) {
      dtrCufftPassDestroy(p);
      return res;
    }
  }
  *out = p;
  return dtrSuccess;
}

size_t dtrCufftPassWorkBytes(const dtrCufftPass* p) {
  size_t most = 0;
  for (int i = 0; i < p->nplans; i++)
    if (p->plans[i].work > most) most = p->plans[i].work;
  return most;
}

dtrResult_t dtrCufftPassSetWorkArea(dtrCufftPass* p, void* area) {
  for (int i = 0; i < p->nplans; i++) {
    BatchPlan* b = &p->plans[i];
    cufftResult r = cufftSetWorkArea(b->forward, area);
    if (r == CUFFT_SUCCESS && b->inverse != b->forward) r = cufftSetWorkArea(b->inverse, area);
    if (r != CUFFT_SUCCESS) return cufftError(r, "cufftSetWorkArea", &p->shape, b->batch);
  }
  return dtrSuccess;
}

dtrResult_t dtrCufftPassRun(dtrCufftPass* p, int direction, int64_t count, const void* in, void* out, cudaStream_t stream) {
  BatchPlan* b = NULL;
  for (int i = 0; i < p->nplans && !b; i++)
    if (p->plans[i].batch == count) b = &p->plans[i];
  if (!b) return dtrSetError(dtrInternalError, "cuFFT: no plan for a batch of %lld transforms", (long long)count);
  const cufftHandle h = direction == dtrFftForward ? b->forward : b->inverse;
  cufftResult r = cufftSetStream(h, stream);
  void* src = (void*)in; /* cuFFT takes non-const inputs (and C2R overwrites its input, the FFT's workspace) */
  if (r == CUFFT_SUCCESS) {
    const dtrLocalFftShape* s = &p->shape;
    if (!s->real && s->dbl) r = cufftExecZ2Z(h, src, out, direction == dtrFftForward ? CUFFT_FORWARD : CUFFT_INVERSE);
    else if (!s->real) r = cufftExecC2C(h, src, out, direction == dtrFftForward ? CUFFT_FORWARD : CUFFT_INVERSE);
    else if (direction == dtrFftForward) r = s->dbl ? cufftExecD2Z(h, src, out) : cufftExecR2C(h, src, out);
    else r = s->dbl ? cufftExecZ2D(h, src, out) : cufftExecC2R(h, src, out);
  }
  if (r != CUFFT_SUCCESS) return cufftError(r, "the execution", &p->shape, count);
  return dtrSuccess;
}
