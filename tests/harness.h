/*
 * The shared harness of the MPI tests that run on any backend: buffers on the backend's kind of
 * memory (host memory for the CPU backend, the node-local rank's GPU otherwise), the pattern
 * (pattern.h) applied to either, counting wrong entries, and a matrix case: its plan, local sizes,
 * buffers and one run of poison, execute, check.
 */
#ifndef DTR_TEST_HARNESS_H
#define DTR_TEST_HARNESS_H

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

/* Collective over MPI_COMM_WORLD: whether `ok` holds on every rank. A test branches on this where a
 * branch skips collective calls and its condition is not one the library agreed over the world (a
 * check of this rank's, a result agreed on a sub-communicator only): a rank that left early would
 * leave the others waiting in the calls it skipped. */
static inline int dtrTestAll(int ok) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

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

/* A rows x cols matrix of `type` entries on `comm`: what this rank owns, the pattern's boxes of its
 * slabs of A and B, buffers holding A (filled) and B, and a plan. */
typedef struct {
  int64_t rows, cols;
  dtrDataType_t type;
  int64_t howmany;
  MPI_Comm comm;
  dtrLocalSize_t ls;
  dtrPatternBox in, out;
  void *a, *b;
  dtrPlan_t plan; /* NULL where its creation failed (counted as a failure) */
} dtrTestMatrix;

/* Collective over comm: the matrix's sizes and buffers on m's memory, A filled with the pattern, and a
 * plan made with cfg (NULL: the defaults). Returns the plan's result (t->plan NULL where it failed). */
static inline dtrResult_t dtrTestMatrixInit(dtrTestMatrix* t, const dtrTestMemory* m, MPI_Comm comm, int64_t rows,
                                     int64_t cols, dtrDataType_t type, int64_t howmany, const dtrConfig_t* cfg) {
  t->rows = rows, t->cols = cols, t->type = type, t->howmany = howmany, t->comm = comm;
  EXPECT(dtrLocalSize(rows, cols, type, howmany, comm, -1, &t->ls) == dtrSuccess, "local size: %s", dtrGetLastError());
  t->in = dtrPatternSlabA(t->ls.in_rows, cols, t->ls.in_row_start);
  t->out = dtrPatternSlabB(t->ls.out_rows, rows, t->ls.out_row_start, cols);
  t->a = dtrTestAlloc(m, t->ls.in_bytes);
  t->b = dtrTestAlloc(m, t->ls.out_bytes);
  dtrTestPattern(m, dtrPatternFill, t->a, &t->in, t->ls.entry_bytes);
  t->plan = NULL;
  const dtrResult_t res = dtrPlanCreate(&t->plan, rows, cols, type, howmany, comm, cfg);
  if (res != dtrSuccess) t->plan = NULL;
  return res;
}

/* B poisoned (where `poison`), the plan executed on `stream` (the harness's where NULL), B checked:
 * this rank's wrong entries, counting a failed execute as one. */
static inline uint64_t dtrTestMatrixRun(dtrTestMatrix* t, const dtrTestMemory* m, cudaStream_t stream, int poison) {
  if (!t->plan) return 1;
  if (poison) dtrTestPattern(m, dtrPatternPoison, t->b, &t->out, t->ls.entry_bytes);
  const dtrResult_t res = dtrExecute(t->plan, t->a, t->b, stream ? stream : m->stream);
  EXPECT(res == dtrSuccess, "execute %lld x %lld: %s", (long long)t->rows, (long long)t->cols, dtrGetLastError());
  return dtrTestPattern(m, dtrPatternCheck, t->b, &t->out, t->ls.entry_bytes) + (res != dtrSuccess);
}

/* Collective: the plan destroyed and the buffers freed. */
static inline void dtrTestMatrixFree(dtrTestMatrix* t, const dtrTestMemory* m) {
  if (t->plan) EXPECT(dtrPlanDestroy(t->plan) == dtrSuccess, "destroy: %s", dtrGetLastError());
  dtrTestRelease(m, t->a);
  dtrTestRelease(m, t->b);
  t->plan = NULL;
  t->a = t->b = NULL;
}

#endif
