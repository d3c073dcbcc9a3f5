#include "solver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pointwise.h"

size_t nsSideBytes(const NsSolver* s, int spectral) {
  const NsBox* b = spectral ? &s->spec : &s->phys;
  return (size_t)nsBoxPoints(b) * NS_FIELDS * (spectral ? 2u : 1u) * (s->dbl ? sizeof(double) : sizeof(float));
}

void nsSolverFail(NsSolver* s, const char* fmt, ...) {
  if (s->failed) return;
  s->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->error, sizeof s->error, fmt, ap);
  va_end(ap);
}

/* 64-byte aligned on the host: FFTW runs a plan on other arrays only of the alignment it was made on,
 * and every host array of a solver is aligned alike. Never zero bytes (an empty box). */
static void* allocate(NsSolver* s, size_t bytes) {
  void* p = NULL;
  if (s->gpu) return cudaMalloc(&p, bytes ? bytes : 16) == cudaSuccess ? p : NULL;
  const size_t a = 64;
  return aligned_alloc(a, bytes ? (bytes + a - 1) / a * a : a);
}

int nsSolverAllocate(NsSolver* s) {
  void** const spectral[4] = {&s->uh, &s->next, &s->acc, &s->wh};
  void** const physical[2] = {&s->u, &s->w};
  for (int i = 0; i < 4; i++)
    if (!(*spectral[i] = allocate(s, nsSideBytes(s, 1)))) {
      nsSolverFail(s, "cannot allocate %zu bytes of %s memory", nsSideBytes(s, 1), s->gpu ? "device" : "host");
      return -1;
    }
  for (int i = 0; i < 2; i++)
    if (!(*physical[i] = allocate(s, nsSideBytes(s, 0)))) {
      nsSolverFail(s, "cannot allocate %zu bytes of %s memory", nsSideBytes(s, 0), s->gpu ? "device" : "host");
      return -1;
    }
  return 0;
}

int nsSolverFree(NsSolver* s) {
  void* const arrays[6] = {s->uh, s->next, s->acc, s->wh, s->u, s->w};
  int bad = 0;
  for (int i = 0; i < 6; i++) {
    if (!arrays[i]) continue;
    if (s->gpu) bad |= cudaFree(arrays[i]) != cudaSuccess;
    else free(arrays[i]);
  }
  s->uh = s->next = s->acc = s->wh = s->u = s->w = NULL;
  return bad ? -1 : 0;
}

/* The pointwise operations, skipped once this rank has failed (the next transform then refuses). */
static void launched(NsSolver* s, cudaError_t e, const char* what) {
  if (e != cudaSuccess) nsSolverFail(s, "the %s kernel: %s", what, cudaGetErrorString(e));
}

static void curl(NsSolver* s, const void* uh, void* wh) {
  if (s->failed) return;
  if (s->gpu) launched(s, nsGpuCurl(&s->spec, s->dbl, uh, wh, s->stream), "curl");
  else nsHostCurl(&s->spec, s->dbl, uh, wh);
}

static void cross(NsSolver* s) {
  if (s->failed) return;
  if (s->gpu) launched(s, nsGpuCross(&s->phys, s->dbl, s->u, s->w, s->stream), "cross product");
  else nsHostCross(&s->phys, s->dbl, s->u, s->w);
}

static void update(NsSolver* s, const void* in) {
  if (s->failed) return;
  if (s->gpu) launched(s, nsGpuUpdate(&s->spec, s->dbl, &s->stage, s->wh, in, s->uh, s->acc, s->next, s->stream), "update");
  else nsHostUpdate(&s->spec, s->dbl, &s->stage, s->wh, in, s->uh, s->acc, s->next);
}

int nsSolverStep(NsSolver* s) {
  for (int stage = 0; stage < 4; stage++) {
    /* The first stage starts from uh itself; the others from `next`, which the update overwrites in
     * place (point by point, after reading it). */
    const void* in = stage ? s->next : s->uh;
    s->stage.stage = stage;
    curl(s, in, s->wh);
    if (s->transform(s, in, s->u, 1) || s->transform(s, s->wh, s->w, 1)) return -1;
    cross(s);
    if (s->transform(s, s->w, s->wh, 0)) return -1;
    update(s, in);
  }
  return 0;
}

int nsSolverVelocity(NsSolver* s) { return s->transform(s, s->uh, s->u, 1); }
