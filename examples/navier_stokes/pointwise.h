/*
 * The solver's pointwise operations over a whole box (physics.h's functions at every point): loops on
 * the host, CUDA kernels on the GPU backends. The same functions at every point either way, so the two
 * can differ only in the order the points are visited, never in what is computed at a point.
 */
#ifndef NS_POINTWISE_H
#define NS_POINTWISE_H

#include <cuda_runtime_api.h>

#include "physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host loops over every point of the box. */
void nsHostInitial(const NsBox* phys, int dbl, void* u);
void nsHostCurl(const NsBox* spec, int dbl, const void* uh, void* wh);
void nsHostCross(const NsBox* phys, int dbl, const void* u, void* w);
void nsHostUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh, void* acc,
                  void* next);

/* The same as kernels on `stream` (device arrays). They return the launch's error: a kernel's own
 * failure shows at the stream's next synchronisation, as any stream-ordered work's does. */
cudaError_t nsGpuCurl(const NsBox* spec, int dbl, const void* uh, void* wh, cudaStream_t stream);
cudaError_t nsGpuCross(const NsBox* phys, int dbl, const void* u, void* w, cudaStream_t stream);
cudaError_t nsGpuUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh, void* acc,
                        void* next, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
