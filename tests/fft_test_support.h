/*
 * What the FFT's tests (test_fft.c, test_fft_r2r.c) share: the input's values (a hash of the global
 * index, so that every rank makes the whole array's reference alone), the points of a box in memory
 * order, and buffers on the backend's kind of memory (host memory for the cpu backend, the rank's GPU
 * otherwise: `gpu` says which).
 */
#ifndef DTR_FFT_TEST_SUPPORT_H
#define DTR_FFT_TEST_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "disttranspose.h"
#include "support/pattern.h"

/* A value in [-1, 1) from a hash of the global index and the part (0 real, 1 imaginary); field f of
 * several at index + f 2^40 (field 0 the single field's). */
static inline uint64_t fftTestFieldIndex(uint64_t index, int64_t field) { return index + ((uint64_t)field << 40); }
static inline double fftTestValue(uint64_t index, int part) {
  return 2 * dtrUnitOf(dtrMix64(index * 2 + (uint64_t)part + 0x9e3779b97f4a7c15ull)) - 1;
}

/* The global (x, y, z) of the box's u-th point in memory order, and the box's points. */
static inline void fftTestCoords(const dtrBox_t* b, size_t u, int64_t c[3]) {
  for (int d = 0; d < 3; d++) {
    const int axis = b->order[d];
    c[axis] = b->start[axis] + (int64_t)(u % (size_t)b->size[axis]);
    u /= (size_t)b->size[axis];
  }
}
static inline size_t fftTestCount(const dtrBox_t* b) { return (size_t)(b->size[0] * b->size[1] * b->size[2]); }

/* Buffers of the backend's memory; 0 bytes gets 16 (an empty box still has an address). */
static inline void* fftTestAlloc(int gpu, size_t bytes) {
  void* p = NULL;
  if (!bytes) bytes = 16;
  if (gpu) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
  return malloc(bytes);
}
static inline void fftTestRelease(int gpu, void* p) {
  if (gpu) cudaFree(p);
  else free(p);
}
/* The legacy stream's copies and memsets from pageable memory may still be landing when cudaMemcpy
 * returns, and the executes run on a non-blocking stream that does not follow them: waited for. */
static inline void fftTestToDevice(int gpu, void* d, const void* h, size_t bytes) {
  if (gpu) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), cudaDeviceSynchronize();
  else memcpy(d, h, bytes);
}
static inline void fftTestToHost(int gpu, void* h, const void* d, size_t bytes) {
  if (gpu) cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  else memcpy(h, d, bytes);
}
/* All-ones bytes: NaNs in every float. */
static inline void fftTestPoison(int gpu, void* d, size_t bytes) {
  if (gpu) cudaMemset(d, 0xff, bytes), cudaDeviceSynchronize();
  else memset(d, 0xff, bytes);
}

/* The tests' FFT config: the defaults on the backend's kind of memory; on a GPU a rank that stalls
 * fails the case (the others time out) instead of hanging the test. */
static inline void fftTestConfig(int gpu, dtrFftConfig_t* cfg) {
  dtrFftConfigInit(cfg);
  if (!gpu) cfg->transpose.backend = dtrBackendCpu;
  if (gpu) cfg->transpose.timeout = 60;
}

/* A library call leaves the caller's current device as it found it. */
static inline void fftTestExpectDevice(int gpu, int device, const char* after) {
  if (!gpu) return;
  int d = -1;
  cudaGetDevice(&d);
  EXPECT(d == device, "after %s the current device is %d, not %d", after, d, device);
}

#endif
