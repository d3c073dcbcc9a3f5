/* A local pass by cuFFT (local_fft.h's GPU implementation): one plan per batch size, made at plan time. */
#ifndef DTR_FFT_CUFFT_PASS_H
#define DTR_FFT_CUFFT_PASS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"
#include "transform_shape.h"

typedef struct dtrCufftPass dtrCufftPass;
dtrResult_t dtrCufftPassCreate(const dtrLocalFftShape* shape, const int64_t* batches, int nbatches, dtrCufftPass** out);
size_t dtrCufftPassWorkBytes(const dtrCufftPass* p);
dtrResult_t dtrCufftPassSetWorkArea(dtrCufftPass* p, void* area);
dtrResult_t dtrCufftPassRun(dtrCufftPass* p, int direction, int64_t count, const void* in, void* out, cudaStream_t stream);
void dtrCufftPassDestroy(dtrCufftPass* p);

#endif
