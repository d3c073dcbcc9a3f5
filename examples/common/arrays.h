/*
 * Where an example's arrays live: device memory on the GPU backends, host memory on the cpu backend,
 * and the copies between them and the host, ordered on the example's stream.
 */
#ifndef EX_ARRAYS_H
#define EX_ARRAYS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

/* Device memory where gpu; else host memory 64-byte aligned (FFTW runs a plan on other arrays only of
 * the alignment it was made on, so every host array is aligned alike). Never zero bytes (an empty box
 * still gets a pointer). NULL where it cannot be had. */
void* exAllocate(int gpu, size_t bytes);

/* Releases exAllocate's array (NULL: nothing). 0, or -1 where cudaFree failed (a kernel's failure
 * surfacing late). */
int exRelease(int gpu, void* p);

/* A copy between the host and an array of exAllocate's (memcpy on the host), ordered on `stream` and
 * finished on return: that stream does not wait for the legacy default stream (cudaStreamNonBlocking),
 * and cudaMemcpy from pageable memory may return before its copy has landed, so a plain cudaMemcpy
 * could race the work around it. 0, or -1 where the copy failed. */
int exCopy(int gpu, cudaStream_t stream, void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind);

#endif
