#include "pencil_bench.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "internal.h"
#include "support/pattern_host.h"

int dtrPencilBenchDirections(int pr, dtrPencil_t from[6], dtrPencil_t to[6]) {
  static const dtrPencil_t pairs[6][2] = {{dtrPencilX, dtrPencilY}, {dtrPencilY, dtrPencilZ}, {dtrPencilZ, dtrPencilY},
                                          {dtrPencilY, dtrPencilX}, {dtrPencilX, dtrPencilZ}, {dtrPencilZ, dtrPencilX}};
  const int n = pr == 1 ? 6 : 4;
  for (int i = 0; i < n; i++) from[i] = pairs[i][0], to[i] = pairs[i][1];
  return n;
}

typedef struct {
  dtrPlan_t plan;
  int gpu;
  cudaStream_t stream;
  void *in, *out, *send, *recv;
  size_t peerBytes;
} Run;

static dtrResult_t runTranspose(void* ctx) {
  Run* r = ctx;
  return dtrExecute(r->plan, r->in, r->out, r->stream);
}

static dtrResult_t runAlltoall(void* ctx) {
  Run* r = ctx;
  return dtrPlanAlltoall(r->plan, r->send, r->recv, r->peerBytes, r->stream);
}

/* Fill, poison or check (adding to *wrong) a pencil box on the run's kind of memory. */
static dtrResult_t pattern(Run* r, dtrPatternRole role, void* data, const dtrBox_t* box, const int64_t shape[3],
                           unsigned long long* counter, uint64_t* wrong) {
  const dtrPatternBox p = dtrPatternBoxOfPencil(box, shape);
  CUDACHECK(dtrPatternApply(r->gpu, role, data, &p, box->entry_bytes, counter, r->stream, wrong));
  return dtrSuccess;
}

dtrResult_t dtrPencilBenchRun(const dtrCliOptions* o, dtrGrid_t grid, dtrPencil_t from, dtrPencil_t to,
                              dtrPencilBenchResult* res) {
  memset(res, 0, sizeof *res);
  dtrConfig_t cfg;
  dtrCliConfig(o, &cfg);
  Run r = {0};
  DTRCHECK(dtrPlanCreatePencil(&r.plan, grid, o->shape, from, to, o->type, o->howmany, &cfg));
  dtrPlanGetBackend(r.plan, &res->backend);
  dtrPlanGetKernel(r.plan, &res->kernel);
  dtrPlanGetStages(r.plan, &res->stages);
  dtrGridGetDims(grid, &res->pr, &res->pc, NULL, NULL);
  r.gpu = res->backend != dtrBackendCpu;
  dtrBox_t in, out;
  dtrPencilBox(grid, o->shape, from, o->type, o->howmany, -1, &in);
  dtrPencilBox(grid, o->shape, to, o->type, o->howmany, -1, &out);
  MPI_Comm group = dtrPlanComm(r.plan);
  MPI_Comm_size(group, &res->group);
  /* The bare all-to-all moves the group's mean bytes per rank, the same to every peer, in whole
   * 128-byte lines (its best layout, dtrBenchPeerBytes). */
  unsigned long long groupBytes = 0;
  dtrResult_t rc = dtrBenchSum(in.bytes, &groupBytes, group);
  if (rc != dtrSuccess) goto done;
  /* Where ranks share a GPU there is no bare all-to-all to compare with (NCCL refuses them). */
  r.peerBytes = dtrPlanSharesGpu(r.plan) ? 0 : dtrBenchPeerBytes(groupBytes / (unsigned long long)res->group, res->group);
  unsigned long long* counter = NULL;
  uint64_t wrong = 0;
  rc = dtrBenchCheckMemory(r.plan, r.gpu, in.bytes + out.bytes + 2 * r.peerBytes * (size_t)res->group);
  if (rc != dtrSuccess) goto done;
  if (r.gpu) CUDACHECKGOTO(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), rc, agree);
  if (r.gpu) CUDACHECKGOTO(cudaMalloc((void**)&counter, sizeof *counter), rc, agree);
  DTRCHECKGOTO(dtrBenchAlloc(r.gpu, &r.in, in.bytes, "the from-pencil"), rc, agree);
  DTRCHECKGOTO(dtrBenchAlloc(r.gpu, &r.out, out.bytes, "the to-pencil"), rc, agree);
  DTRCHECKGOTO(dtrBenchMessageAlloc(r.gpu, &r.send, r.peerBytes * res->group, "the all-to-all send buffer"), rc, agree);
  DTRCHECKGOTO(dtrBenchMessageAlloc(r.gpu, &r.recv, r.peerBytes * res->group, "the all-to-all receive buffer"), rc, agree);
agree:
  rc = dtrBenchAgree(MPI_COMM_WORLD, rc);
  if (rc != dtrSuccess) goto done;
  DTRCHECKGOTO(pattern(&r, dtrPatternFill, r.in, &in, o->shape, counter, NULL), rc, measured);
  for (int c = 0; c < o->check; c++) {
    DTRCHECKGOTO(pattern(&r, dtrPatternPoison, r.out, &out, o->shape, counter, NULL), rc, measured);
    DTRCHECKGOTO(runTranspose(&r), rc, measured);
    DTRCHECKGOTO(pattern(&r, dtrPatternCheck, r.out, &out, o->shape, counter, &wrong), rc, measured);
  }
  DTRCHECKGOTO(dtrBenchTime(runTranspose, &r, r.gpu, r.stream, o->warmup, o->iters, &res->time_us), rc, measured);
  res->shared_gpu = dtrPlanSharesGpu(r.plan);
  if (!res->shared_gpu)
    DTRCHECKGOTO(dtrBenchTime(runAlltoall, &r, r.gpu, r.stream, o->warmup, o->iters, &res->a2a_us), rc, measured);
measured:
  rc = dtrBenchAgree(MPI_COMM_WORLD, rc);
  if (rc != dtrSuccess) goto done;
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  unsigned long long total = 0;
  DTRCHECKGOTO(dtrBenchSum(wrong, &total, MPI_COMM_WORLD), rc, done);
  res->from = from, res->to = to;
  memcpy(res->shape, o->shape, sizeof res->shape);
  res->type = o->type;
  res->howmany = o->howmany;
  res->bytes_per_rank = (double)o->shape[0] * (double)o->shape[1] * (double)o->shape[2] * (double)in.entry_bytes / nranks;
  res->wrong = total;
  res->checked = o->check > 0;
  res->algbw = res->time_us > 0 ? res->bytes_per_rank / (res->time_us * 1e3) : 0;
  res->busbw = res->algbw * (res->group - 1) / res->group;
  res->ratio = res->a2a_us > 0 ? res->time_us / res->a2a_us : 0;
done:
  if (r.gpu && r.stream) cudaStreamSynchronize(r.stream);
  dtrBenchFree(r.gpu, r.in);
  dtrBenchFree(r.gpu, r.out);
  dtrBenchMessageFree(r.gpu, r.send);
  dtrBenchMessageFree(r.gpu, r.recv);
  if (counter) cudaFree(counter);
  if (r.stream) cudaStreamDestroy(r.stream);
  dtrPlanDestroy(r.plan);
  return rc;
}
