/*
 * The example's pointwise operations over a whole box (problem.h's functions at every point): loops on
 * the host for the cpu backend, CUDA kernels on the GPU backends. The same function at every point
 * either way, so the two can differ only in the order the points are visited.
 */
#ifndef PS_POINTWISE_H
#define PS_POINTWISE_H

#include <cuda_runtime_api.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f at every point of the physical box; every spectral point of `spec` divided or multiplied by -lap's
 * eigenvalue (in place). */
void psHostRhs(const PsDomain* d, const ExBox* phys, int dbl, void* f);
void psHostScale(const PsDomain* d, const ExBox* spec, int dbl, PsScaling how, void* uh);

/* The same as kernels on `stream` (device arrays). They return the launch's error: a kernel's own
 * failure shows at the stream's next synchronisation, as any stream-ordered work's does. */
cudaError_t psGpuRhs(const PsDomain* d, const ExBox* phys, int dbl, void* f, cudaStream_t stream);
cudaError_t psGpuScale(const PsDomain* d, const ExBox* spec, int dbl, PsScaling how, void* uh, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
