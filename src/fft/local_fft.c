/* A local pass: the offsets of a chunk's transforms on each side (each transform one of every field),
 * and the implementation that runs them. */
#include "local_fft.h"

#include <stdlib.h>

#include "core/checks.h"
#include "cufft_pass.h"
#include "fftw_pass.h"

struct dtrLocalFft {
  dtrLocalFftShape shape;
  int gpu;
  dtrCufftPass* cufft;
  dtrFftwPass* fftw;
};

dtrResult_t dtrLocalFftCreate(const dtrLocalFftShape* shape, int gpu, const int64_t* batches, int nbatches,
                              dtrLocalFft** out) {
  *out = NULL;
  dtrLocalFft* f = calloc(1, sizeof *f);
  if (!f) return dtrSetError(dtrOutOfMemory, "cannot allocate a local FFT pass");
  f->shape = *shape;
  f->gpu = gpu;
  const dtrResult_t res = gpu ? dtrCufftPassCreate(shape, batches, nbatches, &f->cufft) : dtrFftwPassCreate(shape, &f->fftw);
  if (res != dtrSuccess) {
    free(f);
    return res;
  }
  *out = f;
  return dtrSuccess;
}

size_t dtrLocalFftWorkBytes(const dtrLocalFft* f) { return f->gpu ? dtrCufftPassWorkBytes(f->cufft) : 0; }

dtrResult_t dtrLocalFftSetWorkArea(dtrLocalFft* f, void* area) {
  return f->gpu ? dtrCufftPassSetWorkArea(f->cufft, area) : dtrSuccess;
}

dtrResult_t dtrLocalFftRun(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                           cudaStream_t stream) {
  if (count <= 0) return dtrSuccess;
  const dtrLocalFftShape* s = &f->shape;
  /* Every number below counts points, each holding one of every field. */
  const size_t real = (s->dbl ? 8 : 4) * (size_t)dtrLocalFftFields(s), complex = 2 * real;
  /* The real side is the input of the forward real pass and the output of the inverse one. */
  const int realIn = s->real && direction == dtrFftForward, realOut = s->real && direction == dtrFftInverse;
  size_t inBytes = realIn ? (size_t)dtrLocalFftRealLength(s) * real : (size_t)dtrLocalFftComplexLength(s) * complex;
  size_t outBytes = realOut ? (size_t)dtrLocalFftRealLength(s) * real : (size_t)dtrLocalFftComplexLength(s) * complex;
  if (s->in_dist) inBytes = (size_t)s->in_dist * complex;
  if (s->out_dist) outBytes = (size_t)s->out_dist * complex;
  const char* src = (const char*)in + (size_t)first * inBytes;
  char* dst = (char*)out + (size_t)first * outBytes;
  if (f->gpu) return dtrCufftPassRun(f->cufft, direction, count, src, dst, stream);
  return dtrFftwPassRun(f->fftw, direction, count, src, dst);
}

void dtrLocalFftDestroy(dtrLocalFft* f) {
  if (!f) return;
  if (f->cufft) dtrCufftPassDestroy(f->cufft);
  if (f->fftw) dtrFftwPassDestroy(f->fftw);
  free(f);
}
