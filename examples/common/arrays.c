#include "arrays.h"

#include <stdlib.h>
#include <string.h>

void* exAllocate(int gpu, size_t bytes) {
  void* p = NULL;
  if (gpu) return cudaMalloc(&p, bytes ? bytes : 16) == cudaSuccess ? p : NULL;
  const size_t a = 64;
  return aligned_alloc(a, bytes ? (bytes + a - 1) / a * a : a);
}

int exRelease(int gpu, void* p) {
  if (!p) return 0;
  if (gpu) return cudaFree(p) == cudaSuccess ? 0 : -1;
  free(p);
  return 0;
}

int exCopy(int gpu, cudaStream_t stream, void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind) {
  if (!bytes) return 0;
  if (!gpu) {
    memcpy(dst, src, bytes);
    return 0;
  }
  return cudaMemcpyAsync(dst, src, bytes, kind, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess ? 0 : -1;
}
