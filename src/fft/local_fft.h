/*
 * The FFT's local passes: batches of transforms along the contiguous axes of a pencil (its own axis,
 * or the two fastest: the (y, x) planes of a slab), by cuFFT on the GPU backends and by FFTW on the
 * cpu backend. A pass runs any contiguous range of its box's transforms (a chunk), in place or out of
 * place; its plans are made for the batch sizes its chunks take. Unnormalized in both directions.
 * Where its points hold several fields (transform_shape.h), a transform is a line of every field: the
 * fields' transforms of one line, which a chunk never separates.
 */
#ifndef DTR_FFT_LOCAL_FFT_H
#define DTR_FFT_LOCAL_FFT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"
#include "transform_shape.h"

typedef struct dtrLocalFft dtrLocalFft;

/* A pass of `shape`; on the GPU (the current device) with plans for each of the `nbatches` batch sizes
 * in `batches` (0s are skipped), on the host planned when a batch first runs. */
dtrResult_t dtrLocalFftCreate(const dtrLocalFftShape* shape, int gpu, const int64_t* batches, int nbatches,
                              dtrLocalFft** out);
/* Another pass of f's shape, with plans for `batches` (a pass to run beside f on a second stream: it
 * takes a work area of its own). */
dtrResult_t dtrLocalFftTwin(const dtrLocalFft* f, const int64_t* batches, int nbatches, dtrLocalFft** out);
/* GPU: bytes of work area its plans need (one area serves every pass that runs on one stream). */
size_t dtrLocalFftWorkBytes(const dtrLocalFft* f);
dtrResult_t dtrLocalFftSetWorkArea(dtrLocalFft* f, void* area);
/* Transforms [first, first + count) of in into out (in place where they are equal), direction
 * dtrFftForward or dtrFftInverse; on `stream` on the GPU. count 0 does nothing. */
dtrResult_t dtrLocalFftRun(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                           cudaStream_t stream);
/* Whether this pass folds a factor into its output in `direction` (shape.scaled, on GPUs, one kernel of
 * the library's for these transforms): always or never, per pass. Where it does not, the caller scales. */
int dtrLocalFftFoldsScale(const dtrLocalFft* f, int direction);
/* dtrLocalFftRun with the output times `factor` where the pass folds it in; else unscaled. */
dtrResult_t dtrLocalFftRunScaled(dtrLocalFft* f, int direction, int64_t first, int64_t count, const void* in, void* out,
                                 double factor, cudaStream_t stream);
void dtrLocalFftDestroy(dtrLocalFft* f);

#endif
