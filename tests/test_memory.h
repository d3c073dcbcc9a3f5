/*
 * Buffers on the backend's kind of memory for the MPI tests that run on any backend: host memory
 * for the CPU backend, the node-local rank's GPU otherwise, and the pattern (pattern.h) applied to
 * either, counting wrong entries.
 */
#ifndef DTR_TEST_MEMORY_H
#define DTR_TEST_MEMORY_H

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "disttranspose.h"
#include "node_local.h"
#include "support/pattern_host.h"

typedef struct {
  int gpu;
  cudaStream_t stream;
  unsigned long long* counter; /* the device's wrong-entry count */
} dtrTestMemory;

/* Collective. GPU backends: the node-local rank's GPU (shared where there are more ranks than GPUs),
 * a stream and a counter; returns 0, or DTR_TEST_SKIP on every rank (with the reason printed) where
 * a rank has no GPU, or where ranks would share one on the NCCL backend, which allows one rank per GPU. */
static inline int dtrTestMemoryInit(dtrTestMemory* m, dtrBackend_t backend) {
  const int gpu = backend != dtrBackendCpu;
  m->gpu = gpu;
  m->stream = NULL;
  m->counter = NULL;
  if (!gpu) return 0;
  int rank, shared = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int none = dtrTestPickGpu(&shared) == 0, anyNone = 0;
  MPI_Allreduce(&none, &anyNone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const char* why = anyNone ? "a rank sees no GPU"
                    : shared && backend == dtrBackendNccl ? "ranks would share a GPU, and NCCL allows one rank per GPU"
                                                          : NULL;
  if (why) {
    if (rank == 0) printf("SKIP: %s\n", why);
    return DTR_TEST_SKIP;
  }
  cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking);
  cudaMalloc((void**)&m->counter, sizeof *m->counter);
  return 0;
}

static inline void dtrTestMemoryFree(dtrTestMemory* m) {
  if (!m->gpu) return;
  cudaFree(m->counter);
  cudaStreamDestroy(m->stream);
}

static inline void* dtrTestAlloc(const dtrTestMemory* m, size_t bytes) {
  void* p = NULL;
  if (!bytes) return NULL;
  if (m->gpu) EXPECT(cudaMalloc(&p, bytes) == cudaSuccess, "cudaMalloc %zu", bytes);
  else p = malloc(bytes);
  return p;
}

static inline void dtrTestRelease(const dtrTestMemory* m, void* p) {
  if (m->gpu) cudaFree(p);
  else free(p);
}

/* Fill, poison or check a box; returns the wrong entries a check finds. */
static inline uint64_t dtrTestPattern(const dtrTestMemory* m, dtrPatternRole role, void* data, const dtrPatternBox* box,
                                      size_t e) {
  uint64_t w = 0;
  const cudaError_t err = dtrPatternApply(m->gpu, role, data, box, e, m->counter, m->stream, &w);
  EXPECT(err == cudaSuccess, "pattern: %s", cudaGetErrorString(err));
  return w;
}

#endif
