/* A pass along one axis on the GPU by the library's own kernels around cuFFT (local_fft.h's
 * implementation for a real-to-real kind, and for lines that lie in whole planes): see axis_pass.c. */
#ifndef DTR_FFT_AXIS_PASS_H
#define DTR_FFT_AXIS_PASS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"
#include "transform_shape.h"

typedef struct dtrAxisPass dtrAxisPass;
dtrResult_t dtrAxisPassCreate(const dtrLocalFftShape* shape, const int64_t* batches, int nbatches, dtrAxisPass** out);
size_t dtrAxisPassWorkBytes(const dtrAxisPass* p);
dtrResult_t dtrAxisPassSetWorkArea(dtrAxisPass* p, void* area);
/* factor: the output times it (a normalization folded into the pass; 1.0: none). */
dtrResult_t dtrAxisPassRun(dtrAxisPass* p, int direction, int64_t count, const void* in, void* out, double factor,
                           cudaStream_t stream);
/* Whether a pass of this shape runs in one trip through HBM (one kernel, no scratch). */
int dtrAxisPassOneTrip(const dtrLocalFftShape* shape);
void dtrAxisPassDestroy(dtrAxisPass* p);

#endif
