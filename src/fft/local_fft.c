/* A local pass: the offsets of a chunk's transforms on each side (each transform one of every field),
 * and the implementation that runs them (with a factor folded in where it can). A 2-D pass with a
 * real-to-real kind runs as two 1-D passes, along x and then along y (neither cuFFT nor FFTW mixes a DFT
 * with a real-to-real kind in one plan), as does one of several complex fields on GPUs where the
 * library's one-trip kernel takes both parts; on GPUs a real-to-real kind, a pass over lines in whole
 * planes, and several complex fields run on the library's own kernels (axis_pass.h). */
#include "local_fft.h"

#include <stdlib.h>

#include "axis_pass.h"
#include "core/checks.h"
#include "cufft_pass.h"
#include "fftw_pass.h"

struct dtrLocalFft {
  dtrLocalFftShape shape;
  int gpu;
  dtrCufftPass* cufft;
  dtrFftwPass* fftw;
  dtrAxisPass* axis;
  dtrAxisPass* scaled;  /* cuFFT's transforms with a factor folded into their output, in one kernel */
  dtrLocalFft* part[2]; /* a 2-D pass by its 1-D parts (a real-to-real kind, or several fields on GPUs):
                           along x (its rows), then along y */
};

/* The two 1-D passes of a 2-D one (n = {ny, nx}): the rows along x, as many batches of them as a
 * plane has rows; the columns along y on the side after x's pass (complex for R2C), each plane one
 * transform of its columns. */
static void partShapes(const dtrLocalFftShape* s, dtrLocalFftShape* x, dtrLocalFftShape* y) {
  const int64_t rows = s->n[0];
  *x = *s, *y = *s;
  x->dims = 1, x->n[0] = s->n[1], x->n[1] = 0, x->kind[0] = s->kind[1], x->kind[1] = 0;
  const int64_t width = s->real ? s->n[1] / 2 + 1 : s->n[1];
  y->dims = 1, y->n[0] = rows, y->n[1] = 0, y->real = 0, y->kind[1] = 0;
  y->in_stride = y->out_stride = width;
  y->in_dist = y->out_dist = width * rows;
  y->lines = width, y->in_line_dist = y->out_line_dist = 1;
}

static dtrResult_t createParts(dtrLocalFft* f, const int64_t* batches, int nbatches) {
  const dtrLocalFftShape* s = &f->shape;
  int64_t* rowBatches = malloc((size_t)(nbatches > 0 ? nbatches : 1) * sizeof *rowBatches);
  if (!rowBatches) return dtrSetError(dtrOutOfMemory, "cannot allocate a local FFT pass");
  for (int i = 0; i < nbatches; i++) rowBatches[i] = batches[i] * s->n[0];
  dtrLocalFftShape x, y;
  partShapes(s, &x, &y);
  dtrResult_t res = dtrLocalFftCreate(&x, f->gpu, rowBatches, nbatches, &f->part[0]);
  if (res == dtrSuccess) res = dtrLocalFftCreate(&y, f->gpu, batches, nbatches, &f->part[1]);
  free(rowBatches);
  return res;
}

/* Several fields of complex data on GPUs: the one-trip kernel reads them where they lie (axis_pass.c),
 * where cuFFT needs them copied field-major around its pass, two more trips through memory each way
 * (cufft_pass.c). A 2-D pass so runs as its two 1-D parts where both can. */
static int fieldsOneTrip(const dtrLocalFftShape* s) {
  if (dtrLocalFftFields(s) < 2 || s->real) return 0;
  if (s->dims == 1) return dtrAxisPassOneTrip(s);
  dtrLocalFftShape x, y;
  partShapes(s, &x, &y);
  return dtrAxisPassOneTrip(&x) && dtrAxisPassOneTrip(&y);
}

dtrResult_t dtrLocalFftCreate(const dtrLocalFftShape* shape, int gpu, const int64_t* batches, int nbatches,
                              dtrLocalFft** out) {
  *out = NULL;
  dtrLocalFft* f = calloc(1, sizeof *f);
  if (!f) return dtrSetError(dtrOutOfMemory, "cannot allocate a local FFT pass");
  f->shape = *shape;
  f->gpu = gpu;
  const dtrLocalFftShape* s = shape;
  const int fields = gpu && fieldsOneTrip(s);
  const int own = s->dims == 1 && (dtrLocalFftHasRealToReal(s) || dtrLocalFftLines(s) > 1 || s->realData || fields);
  dtrResult_t res;
  if (s->dims == 2 && (dtrLocalFftHasRealToReal(s) || fields)) res = createParts(f, batches, nbatches);
  else if (gpu && own) res = dtrAxisPassCreate(s, batches, nbatches, &f->axis);
  else if (gpu) res = dtrCufftPassCreate(s, batches, nbatches, &f->cufft);
  else res = dtrFftwPassCreate(s, &f->fftw);
  /* A normalized pass whose transforms one kernel of the library's runs: that kernel scales as it
   * stores, where cuFFT would need a scaling pass of its own after it (another trip through HBM). */
  if (res == dtrSuccess && f->cufft && s->scaled && dtrAxisPassOneTrip(s))
    res = dtrAxisPassCreate(s, batches, nbatches, &f->scaled);
  if (res != dtrSuccess) {
    dtrLocalFftDestroy(f);
    return res;
  }
  *out = f;
  return dtrSuccess;
}

dtrResult_t dtrLocalFftTwin(const dtrLocalFft* f, const int64_t* batches, int nbatches, dtrLocalFft** out) {
  return dtrLocalFftCreate(&f->shape, f->gpu, batches, nbatches, out);
}

size_t dtrLocalFftWorkBytes(const dtrLocalFft* f) {
  if (f->part[0]) {
    const size_t x = dtrLocalFftWorkBytes(f->part[0]), y = dtrLocalFftWorkBytes(f->part[1]);
    return x > y ? x : y;
  }
  if (f->axis) return dtrAxisPassWorkBytes(f->axis);
  return f->gpu ? dtrCufftPassWorkBytes(f->cufft) : 0;
}

dtrResult_t dtrLocalFftSetWorkArea(dtrLocalFft* f, void* area) {
  /* The two parts run one after the other on one stream: one area serves both. */
  if (f->part[0]) {
    DTRCHECK(dtrLocalFftSetWorkArea(f->part[0], area));
    return dtrLocalFftSetWorkArea(f->part[1], area);
  }
  if (f->axis) return dtrAxisPassSetWorkArea(f->axis, area);
  return f->gpu ? dtrCufftPassSetWorkArea(f->cufft, area) : dtrSuccess;
}

/* A 2-D pass by its parts. Forward: x from in into out, then y in place there. Inverse: y first; where
 * x's pass is C2R (real output), y runs in place on the input, which a real inverse pass may overwrite
 * (as cuFFT's and FFTW's do); else from in into out, and x in place there. The second part takes the
 * factor where it can. */
static dtrResult_t runParts(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                            double factor, cudaStream_t stream) {
  const int64_t rows = f->shape.n[0];
  if (direction == dtrFftForward) {
    DTRCHECK(dtrLocalFftRun(f->part[0], direction, first * rows, count * rows, in, out, stream));
    return dtrLocalFftRunScaled(f->part[1], direction, first, count, out, out, factor, stream);
  }
  void* const columns = f->shape.real ? (void*)in : out;
  DTRCHECK(dtrLocalFftRun(f->part[1], direction, first, count, in, columns, stream));
  return dtrLocalFftRunScaled(f->part[0], direction, first * rows, count * rows, columns, out, factor, stream);
}

dtrResult_t dtrLocalFftRun(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                           cudaStream_t stream) {
  return dtrLocalFftRunScaled(f, direction, first, count, in, out, 1.0, stream);
}

dtrResult_t dtrLocalFftRunScaled(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                                 double factor, cudaStream_t stream) {
  if (count <= 0) return dtrSuccess;
  if (f->part[0]) return runParts(f, direction, first, count, in, out, factor, stream);
  const dtrLocalFftShape* s = &f->shape;
  /* Every number below counts points, each holding one of every field: an entry of the complex side,
   * or of real data where the plan's axes are all real-to-real. */
  const size_t real = (s->dbl ? 8 : 4) * (size_t)dtrLocalFftFields(s), entry = s->realData ? real : 2 * real;
  /* The real side is the input of the forward real pass and the output of the inverse one. */
  const int realIn = s->real && direction == dtrFftForward, realOut = s->real && direction == dtrFftInverse;
  size_t inBytes = realIn ? (size_t)dtrLocalFftRealLength(s) * real : (size_t)dtrLocalFftComplexLength(s) * entry;
  size_t outBytes = realOut ? (size_t)dtrLocalFftRealLength(s) * real : (size_t)dtrLocalFftComplexLength(s) * entry;
  if (s->in_dist) inBytes = (size_t)s->in_dist * entry;
  if (s->out_dist) outBytes = (size_t)s->out_dist * entry;
  const char* src = (const char*)in + (size_t)first * inBytes;
  char* dst = (char*)out + (size_t)first * outBytes;
  /* The library's own kernels take the factor as they store. */
  if (f->axis || (factor != 1.0 && f->scaled))
    return dtrAxisPassRun(f->axis ? f->axis : f->scaled, direction, count, src, dst, factor, stream);
  if (f->gpu) return dtrCufftPassRun(f->cufft, direction, count, src, dst, stream);
  return dtrFftwPassRun(f->fftw, direction, count, src, dst);
}

int dtrLocalFftFoldsScale(const dtrLocalFft* f, int direction) {
  /* A 2-D pass by its parts: the second part of the direction takes the factor (runParts). */
  if (f->part[0]) return dtrLocalFftFoldsScale(direction == dtrFftForward ? f->part[1] : f->part[0], direction);
  return f->axis || f->scaled;
}

void dtrLocalFftDestroy(dtrLocalFft* f) {
  if (!f) return;
  if (f->cufft) dtrCufftPassDestroy(f->cufft);
  if (f->fftw) dtrFftwPassDestroy(f->fftw);
  if (f->axis) dtrAxisPassDestroy(f->axis);
  if (f->scaled) dtrAxisPassDestroy(f->scaled);
  dtrLocalFftDestroy(f->part[0]);
  dtrLocalFftDestroy(f->part[1]);
  free(f);
}
