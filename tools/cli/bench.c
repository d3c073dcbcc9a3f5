#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support/pattern_host.h"
#include "support/support.h"

/* The buffers of one row, on the GPU (NCCL backend) or the host (CPU backend). */
typedef struct {
  int gpu;
  int inplace;           /* b is a: one buffer of the larger slab */
  cudaStream_t stream;
  void *a, *b, *send, *recv;
  unsigned long long* wrong; /* device counter */
} Buffers;

dtrResult_t dtrBenchAgree(MPI_Comm comm, dtrResult_t res) {
  if (res == dtrTimeout) return res;
  const dtrDeadline saved = dtrDeadlineEnter(dtrEnvParamsGet()->timeout);
  res = dtrAgree(comm, res);
  dtrDeadlineLeave(saved);
  return res;
}

dtrResult_t dtrBenchBarrier(void) {
  const dtrDeadline saved = dtrDeadlineEnter(dtrEnvParamsGet()->timeout);
  const dtrResult_t res = dtrBarrier(MPI_COMM_WORLD, "the other ranks at the benchmark's barrier");
  dtrDeadlineLeave(saved);
  return res;
}

dtrResult_t dtrBenchSum(unsigned long long mine, unsigned long long* total, MPI_Comm comm) {
  const dtrDeadline saved = dtrDeadlineEnter(dtrEnvParamsGet()->timeout);
  const dtrResult_t res = dtrAllreduce(&mine, total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm, "the benchmark's sums");
  dtrDeadlineLeave(saved);
  return res;
}

static dtrResult_t slowestTimes(double* t, int iters) {
  const dtrDeadline saved = dtrDeadlineEnter(dtrEnvParamsGet()->timeout);
  const dtrResult_t res = dtrAllreduce(t, t + iters, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, "the other ranks' timings");
  dtrDeadlineLeave(saved);
  return res;
}

dtrResult_t dtrBenchAlloc(int gpu, void** p, size_t bytes, const char* what) {
  *p = NULL;
  if (!bytes) return dtrSuccess;
  if (gpu) {
    cudaError_t err = cudaMalloc(p, bytes);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return dtrSetError(DTR_CUDA_RESULT(err), "cannot allocate %zu bytes for %s on the GPU: %s", bytes, what,
                         cudaGetErrorString(err));
    }
  } else if (!(*p = malloc(bytes))) {
    return dtrSetError(dtrOutOfMemory, "cannot allocate %zu bytes for %s on the host", bytes, what);
  }
  return dtrSuccess;
}

dtrResult_t dtrBenchMessageAlloc(int gpu, void** p, size_t bytes, const char* what) {
  *p = NULL;
  if (gpu && bytes) return dtrMessageAlloc(p, bytes, what);
  return dtrBenchAlloc(gpu, p, bytes, what);
}

void dtrBenchMessageFree(int gpu, void* p) {
  if (gpu) dtrMessageFree(p);
  else free(p);
}

dtrResult_t dtrBenchCheckMemory(dtrPlan_t plan, int gpu, uint64_t bytes) {
  int device = -1;
  if (gpu) DTRCHECK(dtrPlanGetDevice(plan, &device));
  return dtrMemoryCheck(MPI_COMM_WORLD, MPI_COMM_NULL, device, bytes, "the benchmark's buffers (in, out and the bare all-to-all's)");
}

void dtrBenchFree(int gpu, void* p) {
  if (gpu) cudaFree(p);
  else free(p);
}

static dtrResult_t allocOne(const Buffers* m, void** p, size_t bytes, const char* what) {
  return dtrBenchAlloc(m->gpu, p, bytes, what);
}

static void freeOne(const Buffers* m, void* p) { dtrBenchFree(m->gpu, p); }

static void freeBuffers(Buffers* m) {
  freeOne(m, m->a);
  if (!m->inplace) freeOne(m, m->b);
  dtrBenchMessageFree(m->gpu, m->send);
  dtrBenchMessageFree(m->gpu, m->recv);
  if (m->wrong) cudaFree(m->wrong);
  if (m->stream) cudaStreamDestroy(m->stream);
}

/* A and B: two buffers, or in place one of the larger slab. */
static size_t slabBytes(int inplace, const dtrLocalSize_t* ls) {
  if (!inplace) return ls->in_bytes + ls->out_bytes;
  return ls->in_bytes > ls->out_bytes ? ls->in_bytes : ls->out_bytes;
}

static dtrResult_t allocBuffers(Buffers* m, const dtrLocalSize_t* ls, size_t a2aBytes) {
  if (m->gpu) {
    CUDACHECK(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking));
    CUDACHECK(cudaMalloc((void**)&m->wrong, sizeof *m->wrong));
  }
  if (m->inplace) {
    DTRCHECK(allocOne(m, &m->a, slabBytes(1, ls), "A and B (in place)"));
    m->b = m->a;
  } else {
    DTRCHECK(allocOne(m, &m->a, ls->in_bytes, "A"));
    DTRCHECK(allocOne(m, &m->b, ls->out_bytes, "B"));
  }
  DTRCHECK(dtrBenchMessageAlloc(m->gpu, &m->send, a2aBytes, "the all-to-all send buffer"));
  DTRCHECK(dtrBenchMessageAlloc(m->gpu, &m->recv, a2aBytes, "the all-to-all receive buffer"));
  if (m->gpu && a2aBytes) CUDACHECK(cudaMemsetAsync(m->send, 0x3c, a2aBytes, m->stream));
  else if (a2aBytes) memset(m->send, 0x3c, a2aBytes);
  return dtrSuccess;
}

typedef struct {
  dtrPlan_t plan;
  Buffers* m;
  size_t peerBytes;
} Op;

static dtrResult_t runTranspose(void* ctx) {
  const Op* op = ctx;
  return dtrExecute(op->plan, op->m->a, op->m->b, op->m->stream);
}
static dtrResult_t runAlltoall(void* ctx) {
  const Op* op = ctx;
  return dtrPlanAlltoall(op->plan, op->m->send, op->m->recv, op->peerBytes, op->m->stream);
}

/*
 * The bare all-to-all in its best layout: every message whole 128-byte lines, which rounds the bytes
 * up by less than 128 per peer. NCCL slows down on messages that are not 16-byte multiples, and a
 * little on 16, 32 and 64 x an odd number (docs/design.md#a2a-lines).
 */
size_t dtrBenchPeerBytes(unsigned long long bytesPerRank, int ranks) {
  const size_t line = 128;
  return ((size_t)(bytesPerRank / (unsigned long long)ranks) + line - 1) / line * line;
}

dtrResult_t dtrBenchTime(dtrResult_t (*fn)(void*), void* ctx, int gpu, cudaStream_t stream, int warmup, int iters,
                         double* us) {
  double* t = calloc(2 * (size_t)iters, sizeof *t);
  cudaEvent_t* ev = gpu ? calloc((size_t)iters + 1, sizeof *ev) : NULL;
  dtrResult_t res = dtrSuccess;
  if (!t || (gpu && !ev)) {
    res = dtrSetError(dtrOutOfMemory, "host allocation for timings failed");
    goto done;
  }
  for (int i = 0; i < warmup; i++) DTRCHECKGOTO(fn(ctx), res, done);
  if (gpu) {
    for (int i = 0; i <= iters; i++) CUDACHECKGOTO(cudaEventCreate(&ev[i]), res, done);
    CUDACHECKGOTO(cudaStreamSynchronize(stream), res, done);
    DTRCHECKGOTO(dtrBenchBarrier(), res, done);
    CUDACHECKGOTO(cudaEventRecord(ev[0], stream), res, done);
    for (int i = 0; i < iters; i++) {
      DTRCHECKGOTO(fn(ctx), res, done);
      CUDACHECKGOTO(cudaEventRecord(ev[i + 1], stream), res, done);
    }
    CUDACHECKGOTO(cudaEventSynchronize(ev[iters]), res, done);
    for (int i = 0; i < iters; i++) {
      float ms;
      CUDACHECKGOTO(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), res, done);
      t[i] = ms * 1e3;
    }
  } else {
    for (int i = 0; i < iters; i++) {
      DTRCHECKGOTO(dtrBenchBarrier(), res, done);
      double t0 = MPI_Wtime();
      DTRCHECKGOTO(fn(ctx), res, done);
      t[i] = (MPI_Wtime() - t0) * 1e6;
    }
  }
  DTRCHECKGOTO(slowestTimes(t, iters), res, done);
  *us = dtrMedian(t + iters, iters);
done:
  if (ev)
    for (int i = 0; i <= iters; i++)
      if (ev[i]) cudaEventDestroy(ev[i]);
  free(ev);
  free(t);
  return res;
}

/* A filled with the pattern (in place: again, since the last execute wrote over it). */
static dtrResult_t fillA(Buffers* m, const dtrLocalSize_t* ls, int64_t cols) {
  if (m->gpu) CUDACHECK(dtrPatternFillLaunch(m->a, ls->in_rows, cols, ls->in_row_start, ls->entry_bytes, m->stream));
  else if (m->a) dtrHostPatternFill(m->a, ls->in_rows, cols, ls->in_row_start, ls->entry_bytes);
  return dtrSuccess;
}

/* Poison B (in place, then A over it), transpose, count B's wrong entries on this rank. */
static dtrResult_t checkOnce(Op* op, const dtrLocalSize_t* ls, int64_t rows, int64_t cols, uint64_t* wrong) {
  Buffers* m = op->m;
  const size_t e = ls->entry_bytes;
  if (m->gpu) {
    CUDACHECK(dtrPatternPoisonLaunch(m->b, ls->out_rows, rows, ls->out_row_start, cols, e, m->stream));
    if (m->inplace) DTRCHECK(fillA(m, ls, cols));
    DTRCHECK(runTranspose(op));
    unsigned long long w = 0;
    CUDACHECK(cudaMemsetAsync(m->wrong, 0, sizeof w, m->stream));
    CUDACHECK(dtrPatternCheckLaunch(m->b, ls->out_rows, rows, ls->out_row_start, cols, e, m->wrong, m->stream));
    CUDACHECK(cudaMemcpyAsync(&w, m->wrong, sizeof w, cudaMemcpyDeviceToHost, m->stream));
    CUDACHECK(cudaStreamSynchronize(m->stream));
    *wrong += w;
  } else {
    if (m->b) dtrHostPatternPoison(m->b, ls->out_rows, rows, ls->out_row_start, cols, e);
    if (m->inplace) DTRCHECK(fillA(m, ls, cols));
    DTRCHECK(runTranspose(op));
    if (m->b) *wrong += dtrHostPatternCheck(m->b, ls->out_rows, rows, ls->out_row_start, cols, e);
  }
  return dtrSuccess;
}

dtrResult_t dtrBenchRun(const dtrCliOptions* o, int64_t rows, int64_t cols, dtrBenchResult* r) {
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  memset(r, 0, sizeof *r);
  dtrConfig_t cfg;
  dtrCliConfig(o, &cfg);
  dtrPlan_t plan = NULL;
  DTRCHECK(dtrPlanCreate(&plan, rows, cols, o->type, o->howmany, MPI_COMM_WORLD, &cfg));
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, o->type, o->howmany, MPI_COMM_WORLD, -1, &ls);
  dtrPlanGetBackend(plan, &r->backend);
  dtrPlanGetKernel(plan, &r->kernel);
  dtrPlanGetStages(plan, &r->stages);

  Buffers m = {0};
  m.gpu = (r->backend != dtrBackendCpu);
  m.inplace = o->inplace;
  const double totalBytes = (double)rows * (double)cols * (double)ls.entry_bytes;
  /* Where ranks share a GPU there is no bare all-to-all to compare with (NCCL refuses them). */
  const size_t peerBytes = dtrPlanSharesGpu(plan) ? 0 : dtrBenchPeerBytes((unsigned long long)(totalBytes / nranks), nranks);
  Op op = {plan, &m, peerBytes};
  uint64_t wrong = 0;
  dtrResult_t res = dtrBenchCheckMemory(plan, m.gpu, slabBytes(o->inplace, &ls) + 2 * peerBytes * (size_t)nranks);
  if (res == dtrSuccess) res = dtrAgree(dtrPlanComm(plan), allocBuffers(&m, &ls, peerBytes * (size_t)nranks));
  if (res != dtrSuccess) goto done;

  DTRCHECKGOTO(fillA(&m, &ls, cols), res, agree);
  for (int c = 0; c < o->check; c++) DTRCHECKGOTO(checkOnce(&op, &ls, rows, cols, &wrong), res, agree);
  DTRCHECKGOTO(dtrBenchTime(runTranspose, &op, m.gpu, m.stream, o->warmup, o->iters, &r->time_us), res, agree);
  r->shared_gpu = dtrPlanSharesGpu(plan);
  if (!r->shared_gpu) DTRCHECKGOTO(dtrBenchTime(runAlltoall, &op, m.gpu, m.stream, o->warmup, o->iters, &r->a2a_us), res, agree);
agree:
  res = dtrBenchAgree(dtrPlanComm(plan), res);
  if (res != dtrSuccess) goto done;
  unsigned long long total = 0;
  DTRCHECKGOTO(dtrBenchSum(wrong, &total, MPI_COMM_WORLD), res, done);

  r->rows = rows;
  r->cols = cols;
  r->type = o->type;
  r->howmany = o->howmany;
  r->inplace = o->inplace;
  r->nranks = nranks;
  r->bytes_per_rank = totalBytes / nranks;
  r->wrong = total;
  r->checked = o->check > 0;
  r->algbw = r->time_us > 0 ? r->bytes_per_rank / (r->time_us * 1e3) : 0;
  r->busbw = r->algbw * (nranks - 1) / nranks;
  r->ratio = r->a2a_us > 0 ? r->time_us / r->a2a_us : 0;
done:
  if (m.gpu) cudaStreamSynchronize(m.stream);
  freeBuffers(&m);
  dtrPlanDestroy(plan);
  return res;
}
