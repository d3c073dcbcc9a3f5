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

/* FFTW's real-to-real kind for an axis kind in a direction: the kind forward, the other of its pair inverse. */
static fftw_r2r_kind r2rKindOf(int kind, int direction) {
  const int inverse = direction != dtrFftForward;
  switch (kind) {
    case dtrFftDct2: return inverse ? FFTW_REDFT01 : FFTW_REDFT10;
    case dtrFftDct3: return inverse ? FFTW_REDFT10 : FFTW_REDFT01;
    case dtrFftDst2: return inverse ? FFTW_RODFT01 : FFTW_RODFT10;
    default: return inverse ? FFTW_RODFT10 : FFTW_RODFT01;
  }
}

/* A 1-D pass of a real-to-real kind, or over lines in whole planes: the guru64 plan of the transform
 * along the axis, its loops over the transforms, the lines of a transform, the fields and (a real-to-real
 * kind on complex data) the real and imaginary parts, every distance in the numbers it transforms. */
static void* axisPlan(const dtrLocalFftShape* s, int64_t batch, int direction, void* in, void* out, unsigned flags) {
  const int64_t n = s->n[0], lines = dtrLocalFftLines(s), fields = dtrLocalFftFields(s);
  const int r2r = dtrLocalFftHasRealToReal(s);
  const int64_t parts = r2r && !s->realData ? 2 : 1, point = fields * parts;
  const int64_t is = s->in_stride ? s->in_stride : 1, os = s->out_stride ? s->out_stride : 1;
  const int64_t id = s->in_dist ? s->in_dist : n * lines, od = s->out_dist ? s->out_dist : n * lines;
  const int64_t il = s->in_line_dist ? s->in_line_dist : n, ol = s->out_line_dist ? s->out_line_dist : n;
  fftw_iodim64 dims = {n, is * point, os * point}, loops[4];
  int nloops = 0;
  loops[nloops++] = (fftw_iodim64){batch, id * point, od * point};
  if (lines > 1) loops[nloops++] = (fftw_iodim64){lines, il * point, ol * point};
  if (fields > 1) loops[nloops++] = (fftw_iodim64){fields, parts, parts};
  if (parts > 1) loops[nloops++] = (fftw_iodim64){2, 1, 1};
  if (!r2r) {
    const int sign = direction == dtrFftForward ? FFTW_FORWARD : FFTW_BACKWARD;
    if (s->dbl) return fftw_plan_guru64_dft(1, &dims, nloops, loops, in, out, sign, flags);
    return fftwf_plan_guru64_dft(1, (fftwf_iodim64*)&dims, nloops, (fftwf_iodim64*)loops, in, out, sign, flags);
  }
  const fftw_r2r_kind kind = r2rKindOf(s->kind[0], direction);
  if (s->dbl) return fftw_plan_guru64_r2r(1, &dims, nloops, loops, in, out, &kind, flags);
  return fftwf_plan_guru64_r2r(1, (fftwf_iodim64*)&dims, nloops, (fftwf_iodim64*)loops, in, out, &kind, flags);
}

/* Whether a pass is axisPlan's: a real-to-real kind, lines in whole planes, real data. */
static int isAxisPass(const dtrLocalFftShape* s) {
  return dtrLocalFftHasRealToReal(s) || dtrLocalFftLines(s) > 1 || s->realData;
}

/* The guru64 plan of `batch` transforms: dims (strides in each side's own entries), batch distances;
 * with several fields, a second loop over them (FFTW's howmany_rank 2): every stride and distance counts
 * points of `fields` numbers, and the fields lie one number apart. */
static void* plan(const dtrLocalFftShape* s, int64_t batch, int direction, void* in, void* out, unsigned flags) {
  if (isAxisPass(s)) return axisPlan(s, batch, direction, in, out, flags);
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
  if (s->in_dist || s->out_dist || isAxisPass(s)) {
    /* Strided sides reach from the first point of the first transform to the last of the last. */
    const int64_t n = s->n[0], lines = dtrLocalFftLines(s), entry = s->realData ? 1 : 2;
    const int64_t is = s->in_stride ? s->in_stride : 1, id = s->in_dist ? s->in_dist : n * lines;
    const int64_t os = s->out_stride ? s->out_stride : 1, od = s->out_dist ? s->out_dist : n * lines;
    const int64_t il = s->in_line_dist ? s->in_line_dist : n, ol = s->out_line_dist ? s->out_line_dist : n;
    inBytes = (size_t)((batch - 1) * id + (lines - 1) * il + (n - 1) * is + 1) * entry * real;
    outBytes = (size_t)((batch - 1) * od + (lines - 1) * ol + (n - 1) * os + 1) * entry * real;
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
                       dtrLocalFftHasRealToReal(s) ? "real-to-real" : s->real ? "real" : "complex", size, (long long)batch);
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
  if (dtrLocalFftHasRealToReal(s)) {
    if (s->dbl) fftw_execute_r2r(h, src, out);
    else fftwf_execute_r2r(h, src, out);
  } else if (s->dbl) {
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
