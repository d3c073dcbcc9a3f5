/*
 * The FFT's local passes: batches of transforms along the contiguous axes of a pencil (its own axis,
 * or the two fastest: the (y, x) planes of a slab), by cuFFT on the GPU backends and by FFTW on the
 * cpu backend. A pass runs any contiguous range of its box's transforms (a chunk), in place or out of
 * place; its plans are made for the batch sizes its chunks take. Unnormalized in both directions.
 */
#ifndef DTR_FFT_LOCAL_FFT_H
#define DTR_FFT_LOCAL_FFT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"

typedef struct {
  int dims;     /* 1 or 2 */
  int64_t n[2]; /* logical sizes, slowest first (n[dims - 1] is the contiguous one; a real pass's is the
                   real length, whose complex side holds n / 2 + 1) */
  int real;     /* the real pass: R2C forward, C2R inverse; else complex to complex */
  int dbl;      /* double precision */
  /* A 1-D complex pass in another layout than packed transforms (0: packed): entries between a
   * transform's points and between transforms, on each side. The slab route's pass along z reads the
   * planes of a [z][y][x] array and writes the Z-pencil (or the other way round), a transpose for free. */
  int64_t in_stride, in_dist, out_stride, out_dist;
} dtrLocalFftShape;

/* Entries of one transform: complex ones (the complex side), and real ones (a real pass's real side). */
static inline int64_t dtrLocalFftComplexLength(const dtrLocalFftShape* s) {
  const int64_t last = s->real ? s->n[s->dims - 1] / 2 + 1 : s->n[s->dims - 1];
  return s->dims == 2 ? s->n[0] * last : last;
}
static inline int64_t dtrLocalFftRealLength(const dtrLocalFftShape* s) {
  return s->dims == 2 ? s->n[0] * s->n[1] : s->n[0];
}

typedef struct dtrLocalFft dtrLocalFft;

/* A pass of `shape`; on the GPU (the current device) with plans for each of the `nbatches` batch sizes
 * in `batches` (0s are skipped), on the host planned when a batch first runs. */
dtrResult_t dtrLocalFftCreate(const dtrLocalFftShape* shape, int gpu, const int64_t* batches, int nbatches,
                              dtrLocalFft** out);
/* GPU: bytes of work area its plans need (one area serves every pass that runs on one stream). */
size_t dtrLocalFftWorkBytes(const dtrLocalFft* f);
dtrResult_t dtrLocalFftSetWorkArea(dtrLocalFft* f, void* area);
/* Transforms [first, first + count) of in into out (in place where they are equal), direction
 * dtrFftForward or dtrFftInverse; on `stream` on the GPU. count 0 does nothing. */
dtrResult_t dtrLocalFftRun(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                           cudaStream_t stream);
void dtrLocalFftDestroy(dtrLocalFft* f);

/* The implementations (local_fft_gpu.c: cuFFT; local_fft_host.c: FFTW, where the build has it). */
typedef struct dtrCufftPass dtrCufftPass;
dtrResult_t dtrCufftPassCreate(const dtrLocalFftShape* shape, const int64_t* batches, int nbatches, dtrCufftPass** out);
size_t dtrCufftPassWorkBytes(const dtrCufftPass* p);
dtrResult_t dtrCufftPassSetWorkArea(dtrCufftPass* p, void* area);
dtrResult_t dtrCufftPassRun(dtrCufftPass* p, int direction, int64_t count, const void* in, void* out, cudaStream_t stream);
void dtrCufftPassDestroy(dtrCufftPass* p);

typedef struct dtrFftwPass dtrFftwPass;
int dtrFftwAvailable(void);
dtrResult_t dtrFftwPassCreate(const dtrLocalFftShape* shape, dtrFftwPass** out);
dtrResult_t dtrFftwPassRun(dtrFftwPass* p, int direction, int64_t count, const void* in, void* out);
void dtrFftwPassDestroy(dtrFftwPass* p);

#endif
