/* One row of the benchmark: plan, verify, time the transpose and the bare all-to-all of the same
 * bytes per rank, in one run. */
#ifndef DTR_CLI_BENCH_H
#define DTR_CLI_BENCH_H

#include <stdint.h>

#include "disttranspose.h"
#include "options.h"

typedef struct {
  int64_t rows, cols;
  dtrDataType_t type;
  int64_t howmany;
  dtrBackend_t backend;
  dtrKernel_t kernel;
  int stages;
  int inplace;
  int nranks;
  double bytes_per_rank; /* rows * cols * entry / ranks */
  double time_us;        /* median over iterations of the slowest rank */
  double a2a_us;         /* 0: not run (ranks share a GPU, which NCCL refuses) */
  double algbw, busbw;   /* GB/s */
  double ratio;          /* time / a2a; 0 without one */
  int shared_gpu;        /* ranks share a GPU: the GPU time-slices them, timings are not representative */
  uint64_t wrong;        /* summed over ranks and check runs; 0 when not checked */
  int checked;
} dtrBenchResult;

/* Collective over MPI_COMM_WORLD; the same result on every rank. */
dtrResult_t dtrBenchRun(const dtrCliOptions* o, int64_t rows, int64_t cols, dtrBenchResult* r);

/* Collective over MPI_COMM_WORLD: the median over `iters` runs of fn(ctx) (after `warmup` more) of
 * the slowest rank's time, in microseconds; on `stream` with events on GPUs, by the host clock
 * otherwise. */
dtrResult_t dtrBenchTime(dtrResult_t (*fn)(void*), void* ctx, int gpu, cudaStream_t stream, int warmup, int iters,
                         double* us);
/* Collective over MPI_COMM_WORLD: refuses, on every rank, when the ranks of a host (GPU) cannot all
 * have `bytes` more of host memory (on the GPU: the plan's device) for the benchmark's buffers. */
dtrResult_t dtrBenchCheckMemory(dtrPlan_t plan, int gpu, uint64_t bytes);
/* The bytes the bare all-to-all sends each of `ranks` peers for `bytesPerRank`: rounded up to whole
 * 128-byte lines, its best layout (bench.c). */
size_t dtrBenchPeerBytes(unsigned long long bytesPerRank, int ranks);
/* A buffer on the GPU or the host, with a message naming `what` when it cannot be had. */
dtrResult_t dtrBenchAlloc(int gpu, void** p, size_t bytes, const char* what);
void dtrBenchFree(int gpu, void* p);
/* The same for the bare all-to-all's buffers: on GPUs message buffers like a plan's workspace
 * (dtrMessageAlloc, NCCL-registrable), so that it runs the way the exchange does. */
dtrResult_t dtrBenchMessageAlloc(int gpu, void** p, size_t bytes, const char* what);
void dtrBenchMessageFree(int gpu, void* p);

/* The benchmark's own collectives, waiting no longer than the library's (DTR_TIMEOUT; off by
 * default): dtrTimeout where a rank does not come. Agree passes a timeout through untouched (the
 * others cannot be reached to agree with). */
dtrResult_t dtrBenchAgree(MPI_Comm comm, dtrResult_t res);
dtrResult_t dtrBenchBarrier(void);
dtrResult_t dtrBenchSum(unsigned long long mine, unsigned long long* total, MPI_Comm comm);

#endif
