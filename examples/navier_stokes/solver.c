#include "solver.h"

#include "common/arrays.h"
#include "pointwise.h"

size_t nsSideBytes(const NsSolver* s, int spectral) {
  const NsBox* b = spectral ? &s->spec : &s->phys;
  return (size_t)nsBoxPoints(b) * NS_FIELDS * (spectral ? 2u : 1u) * (s->dbl ? sizeof(double) : sizeof(float));
}

int nsSolverAllocate(NsSolver* s) {
  void** const spectral[4] = {&s->uh, &s->next, &s->acc, &s->wh};
  void** const physical[2] = {&s->u, &s->w};
  for (int i = 0; i < 4; i++)
    if (!(*spectral[i] = exAllocate(s->gpu, nsSideBytes(s, 1)))) {
      exFail(&s->failure, "cannot allocate %zu bytes of %s memory", nsSideBytes(s, 1), s->gpu ? "device" : "host");
      return -1;
    }
  for (int i = 0; i < 2; i++)
    if (!(*physical[i] = exAllocate(s->gpu, nsSideBytes(s, 0)))) {
      exFail(&s->failure, "cannot allocate %zu bytes of %s memory", nsSideBytes(s, 0), s->gpu ? "device" : "host");
      return -1;
    }
  return 0;
}

int nsSolverFree(NsSolver* s) {
  void* const arrays[6] = {s->uh, s->next, s->acc, s->wh, s->u, s->w};
  int bad = 0;
  for (int i = 0; i < 6; i++) bad |= exRelease(s->gpu, arrays[i]) != 0;
  s->uh = s->next = s->acc = s->wh = s->u = s->w = NULL;
  return bad ? -1 : 0;
}

/* The pointwise operations, skipped once this rank has failed (the next transform then refuses). */
static void curl(NsSolver* s, const void* uh, void* wh) {
  if (s->failure.failed) return;
  if (s->gpu) exLaunched(&s->failure, nsGpuCurl(&s->spec, s->dbl, uh, wh, s->stream), "curl");
  else nsHostCurl(&s->spec, s->dbl, uh, wh);
}

static void cross(NsSolver* s) {
  if (s->failure.failed) return;
  if (s->gpu) exLaunched(&s->failure, nsGpuCross(&s->phys, s->dbl, s->u, s->w, s->stream), "cross product");
  else nsHostCross(&s->phys, s->dbl, s->u, s->w);
}

static void update(NsSolver* s, const void* in) {
  if (s->failure.failed) return;
  if (s->gpu)
    exLaunched(&s->failure, nsGpuUpdate(&s->spec, s->dbl, &s->stage, s->wh, in, s->uh, s->acc, s->next, s->stream), "update");
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
