/*
 * Local passes by FFTW on the host (the cpu backend). Plans are made the first time a batch size,
 * direction and placement run (FFTW_MEASURE, on scratch arrays of their own, so that the caller's data
 * is never planned over) and kept; FFTW's new-array execute then runs them on each call's arrays. A
 * plan assumes FFTW's SIMD alignment; arrays off it (a chunk starting on an odd c64 entry) take a plan
 * made for unaligned arrays. Built where FFTW is found (pkg-config); without it the cpu backend's FFT
 * refuses to plan, saying so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/checks.h"
#include "fftw_pass.h"

#ifdef DTR_HAVE_FFTW
#include <fftw3.h>

typedef struct {
  int64_t batch;
  int direction, inplace, aligned;
  void* plan; /* fftw_plan or fftwf_plan */
} HostPlan;

struct dtrFftwPass {
  dtrLocalFftShape shape;
  HostPlan* plans;
  int nplans, capacity;
};

int dtrFftwAvailable(void) { return 1; }

dtrResult_t dtrFftwPassCreate(const dtrLocalFftShape* shape, dtrFftwPass** out) {
  *out = calloc(1, sizeof **out);
  if (!*out) return dtrSetError(dtrOutOfMemory, "cannot allocate an FFTW pass");
  (*out)->shape = *shape;
  return dtrSuccess;
}

void dtrFftwPassDestroy(dtrFftwPass* p) {
  if (!p) return;
  for (int i = 0; i < p->nplans; i++) {
    if (p->shape.dbl) fftw_destroy_plan(p->plans[i].plan);
    else fftwf_destroy_plan(p->plans[i].plan);
  }
  free(p->plans);
  free(p);
}

/* The guru64 plan of `batch` transforms: dims (strides in each side's own entries), batch distances;
 * with several fields, a second loop over them (FFTW's howmany_rank 2): every stride and distance counts
 * points of `fields` numbers, and the fields lie one number apart. */
static void* plan(const dtrLocalFftShape* s, int64_t batch, int direction, void* in, void* out, unsigned flags) {
  const int64_t last = s->n[s->dims - 1], lastC = s->real ? last / 2 + 1 : last;
  const int realIn = s->real && direction == dtrFftForward, realOut = s->real && direction == dtrFftInverse;
  const int64_t lastIn = realIn ? last : lastC, lastOut = realOut ? last : lastC;
  const int64_t h = dtrLocalFftFields(s);
  fftw_iodim64 dims[2], many[2];
  if (s->dims == 2) {
    dims[0] = (fftw_iodim64){s->n[0], lastIn * h, lastOut * h};
    dims[1] = (fftw_iodim64){last, h, h};
  } else {
    dims[0] = (fftw_iodim64){last, h, h};
  }
  const int64_t rows = s->dims == 2 ? s->n[0] : 1;
  many[0] = (fftw_iodim64){batch, rows * lastIn * h, rows * lastOut * h};
  if (s->in_dist || s->out_dist) {
    dims[0] = (fftw_iodim64){last, (s->in_stride ? s->in_stride : 1) * h, (s->out_stride ? s->out_stride : 1) * h};
    many[0] = (fftw_iodim64){batch, (s->in_dist ? s->in_dist : last) * h, (s->out_dist ? s->out_dist : last) * h};
  }
  many[1] = (fftw_iodim64){h, 1, 1};
  const int loops = h > 1 ? 2 : 1;
  const int sign = direction == dtrFftForward ? FFTW_FORWARD : FFTW_BACKWARD;
  if (s->dbl) {
    if (realIn) return fftw_plan_guru64_dft_r2c(s->dims, dims, loops, many, in, out, flags);
    if (realOut) return fftw_plan_guru64_dft_c2r(s->dims, dims, loops, many, in, out, flags);
    return fftw_plan_guru64_dft(s->dims, dims, loops, many, in, out, sign, flags);
  }
  /* fftwf_iodim64 has the same members as fftw_iodim64. */
  if (realIn) return fftwf_plan_guru64_dft_r2c(s->dims, (fftwf_iodim64*)dims, loops, (fftwf_iodim64*)many, in, out, flags);
  if (realOut) return fftwf_plan_guru64_dft_c2r(s->dims, (fftwf_iodim64*)dims, loops, (fftwf_iodim64*)many, in, out, flags);
  return fftwf_plan_guru64_dft(s->dims, (fftwf_iodim64*)dims, loops, (fftwf_iodim64*)many, in, out, sign, flags);
}

static dtrResult_t findPlan(dtrFftwPass* p, int64_t batch, int direction, int inplace, int aligned, void** out) {
  for (int i = 0; i < p->nplans; i++) {
    const HostPlan* h = &p->plans[i];
    if (h->batch == batch && h->direction == direction && h->inplace == inplace && h->aligned == aligned) {
      *out = h->plan;
      return dtrSuccess;
    }
  }
  if (p->nplans == p->capacity) {
    const int capacity = p->capacity ? 2 * p->capacity : 8;
    HostPlan* grown = realloc(p->plans, (size_t)capacity * sizeof *grown);
    if (!grown) return dtrSetError(dtrOutOfMemory, "cannot allocate FFTW plans");
    p->plans = grown;
    p->capacity = capacity;
  }
  const dtrLocalFftShape* s = &p->shape;
  const size_t real = (s->dbl ? 8 : 4) * (size_t)dtrLocalFftFields(s); /* a point's reals, every field's */
  const size_t complexBytes = (size_t)batch * (size_t)dtrLocalFftComplexLength(s) * 2 * real;
  const size_t realBytes = s->real ? (size_t)batch * (size_t)dtrLocalFftRealLength(s) * real : 0;
  size_t inBytes = s->real && direction == dtrFftForward ? realBytes : complexBytes;
  size_t outBytes = s->real && direction == dtrFftInverse ? realBytes : complexBytes;
  if (s->in_dist || s->out_dist) {
    /* Strided sides reach from the first point of the first transform to the last of the last. */
    const int64_t n = s->n[0];
    const int64_t is = s->in_stride ? s->in_stride : 1, id = s->in_dist ? s->in_dist : n;
    const int64_t os = s->out_stride ? s->out_stride : 1, od = s->out_dist ? s->out_dist : n;
    inBytes = (size_t)((batch - 1) * id + (n - 1) * is + 1) * 2 * real;
    outBytes = (size_t)((batch - 1) * od + (n - 1) * os + 1) * 2 * real;
  }
  /* Scratch arrays to plan on; unaligned plans on arrays one complex entry off FFTW's alignment. */
  const size_t shift = aligned ? 0 : (s->dbl ? 8 : 4);
  char* a = fftw_malloc(inBytes + shift + 16);
  char* b = inplace ? a : fftw_malloc(outBytes + shift + 16);
  void* made = NULL;
  if (a && b) made = plan(s, batch, direction, a + shift, b + shift, FFTW_MEASURE | (aligned ? 0 : FFTW_UNALIGNED));
  fftw_free(a);
  if (b != a) fftw_free(b);
  if (!made) {
    char size[48];
    if (s->dims == 2) snprintf(size, sizeof size, "%lld x %lld", (long long)s->n[0], (long long)s->n[1]);
    else snprintf(size, sizeof size, "%lld", (long long)s->n[0]);
    return dtrSetError(dtrInvalidArgument, "FFTW cannot plan a %d-D %s transform of %s, batch %lld", s->dims,
                       s->real ? "real" : "complex", size, (long long)batch);
  }
  p->plans[p->nplans++] = (HostPlan){batch, direction, inplace, aligned, made};
  *out = made;
  return dtrSuccess;
}

dtrResult_t dtrFftwPassRun(dtrFftwPass* p, int direction, int64_t count, const void* in, void* out) {
  const dtrLocalFftShape* s = &p->shape;
  void* src = (void*)in; /* FFTW's new-array execute takes non-const inputs (its c2r overwrites them) */
  const int aligned = s->dbl ? fftw_alignment_of(src) == 0 && fftw_alignment_of(out) == 0
                             : fftwf_alignment_of(src) == 0 && fftwf_alignment_of(out) == 0;
  void* h = NULL;
  DTRCHECK(findPlan(p, count, direction, in == out, aligned, &h));
  const int realIn = s->real && direction == dtrFftForward, realOut = s->real && direction == dtrFftInverse;
  if (s->dbl) {
    if (realIn) fftw_execute_dft_r2c(h, src, out);
    else if (realOut) fftw_execute_dft_c2r(h, src, out);
    else fftw_execute_dft(h, src, out);
  } else {
    if (realIn) fftwf_execute_dft_r2c(h, src, out);
    else if (realOut) fftwf_execute_dft_c2r(h, src, out);
    else fftwf_execute_dft(h, src, out);
  }
  return dtrSuccess;
}

#else

int dtrFftwAvailable(void) { return 0; }

dtrResult_t dtrFftwPassCreate(const dtrLocalFftShape* shape, dtrFftwPass** out) {
  (void)shape;
  *out = NULL;
  return dtrSetError(dtrInvalidArgument,
                     "this build has no FFTW: the cpu backend's FFT needs it (install FFTW 3 with pkg-config files, "
                     "e.g. libfftw3-dev, and rebuild)");
}

dtrResult_t dtrFftwPassRun(dtrFftwPass* p, int direction, int64_t count, const void* in, void* out) {
  (void)p, (void)direction, (void)count, (void)in, (void)out;
  return dtrSetError(dtrInternalError, "no FFTW in this build");
}

void dtrFftwPassDestroy(dtrFftwPass* p) { (void)p; }

#endif
