/*
 * CPU backend: host buffers, the same pack / exchange / unpack as the NCCL backend, with the
 * cache-blocked host transpose and copy (dtrHostBlock) and MPI_Alltoallv. It runs the distributed algorithm where there
 * is no GPU, and it is what the CPU tests exercise under mpiexec. With several pipeline stages it
 * runs them one after the other (MPI_Alltoallv blocks, so they overlap nothing here), which checks
 * the stage geometry the NCCL backend overlaps.
 */
#include <limits.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "backends/workspace.h"
#include "core/checks.h"
#include "core/timeout.h"
#include "host_transpose.h"

typedef struct {
  char* send;
  char* recv;
  char* stash; /* the own block of an in-place execute (config.inplace) */
  MPI_Datatype entry;  /* entry_bytes contiguous bytes: keeps the int counts of MPI in entries */
  int *scount, *sdispl, *rcount, *rdispl;
} CpuState;

static void cpuFree(CpuState* s) {
  if (!s) return;
  if (s->entry != MPI_DATATYPE_NULL) MPI_Type_free(&s->entry);
  free(s->scount);
  free(s);
}

static dtrResult_t cpuCreateLocal(dtrPlan_t plan, CpuState** out) {
  const dtrExchangeLayout* l = &plan->layout;
  const int p = plan->comm.nranks;
  CpuState* s = calloc(1, sizeof *s);
  if (!s) return dtrSetError(dtrOutOfMemory, "cannot allocate the CPU backend state");
  s->entry = MPI_DATATYPE_NULL;
  *out = s;
  s->scount = calloc(4 * (size_t)p, sizeof(int));
  if (!s->scount) return dtrSetError(dtrOutOfMemory, "cannot allocate the MPI_Alltoallv counts");
  s->sdispl = s->scount + p;
  s->rcount = s->scount + 2 * p;
  s->rdispl = s->scount + 3 * p;
  /* MPI_Alltoallv takes int counts and displacements, in units of one entry. */
  if (l->send_total > INT_MAX || l->recv_total > INT_MAX)
    return dtrSetError(dtrInvalidArgument,
                       "the CPU backend exchanges at most %d entries per rank (MPI int counts); this plan needs %lld",
                       INT_MAX, (long long)(l->send_total > l->recv_total ? l->send_total : l->recv_total));
  const size_t e = plan->geo.entry_bytes;
  if (e > INT_MAX) return dtrSetError(dtrInvalidArgument, "entry of %zu bytes is too large for an MPI datatype", e);
  MPICHECK(MPI_Type_contiguous((int)e, MPI_BYTE, &s->entry));
  MPICHECK(MPI_Type_commit(&s->entry));
  return dtrSuccess;
}

static dtrResult_t cpuCreate(dtrPlan_t plan, const dtrConfig_t* config) {
  (void)config;
  CpuState* s = NULL;
  dtrResult_t res = dtrAgree(plan->comm.comm, cpuCreateLocal(plan, &s));
  if (res == dtrSuccess) res = dtrPlanWorkspaceAcquire(plan, -1, dtrOwnBlockStashBytes(plan), &s->send, &s->recv, &s->stash);
  if (res != dtrSuccess) {
    cpuFree(s);
    return res;
  }
  plan->state = s;
  plan->kernel = dtrKernelAuto; /* no GPU kernel runs on this backend */
  return dtrSuccess;
}

static dtrResult_t cpuCheckBuffers(dtrPlan_t plan, const void* in, void* out) {
  /* Device memory would crash the host copies: refuse it by name. */
  const void* ptrs[2] = {in, out};
  const char* names[2] = {"in", "out"};
  for (int i = 0; i < 2; i++) {
    struct cudaPointerAttributes attr;
    if (!ptrs[i]) continue;
    if (cudaPointerGetAttributes(&attr, ptrs[i]) == cudaSuccess && attr.type == cudaMemoryTypeDevice)
      return dtrSetError(dtrInvalidArgument, "%s is device memory; the CPU backend needs host buffers", names[i]);
    (void)cudaGetLastError();
  }
  (void)plan;
  return dtrSuccess;
}

/* The exchange of the counts and displacements set in the state: blocking, or polled under a deadline. */
static dtrResult_t alltoallv(dtrPlan_t plan, const char* what) {
  CpuState* s = plan->state;
  if (!dtrDeadlineSet()) {
    MPICHECK(MPI_Alltoallv(s->send, s->scount, s->sdispl, s->entry, s->recv, s->rcount, s->rdispl, s->entry,
                           plan->comm.comm));
    return dtrSuccess;
  }
  MPI_Request req;
  MPICHECK(MPI_Ialltoallv(s->send, s->scount, s->sdispl, s->entry, s->recv, s->rcount, s->rdispl, s->entry,
                          plan->comm.comm, &req));
  return dtrWait(&req, what);
}

/* Stage st's packs and messages: A's pieces into the send segments, through MPI_Alltoallv. */
static dtrResult_t exchangeStage(dtrPlan_t plan, const char* a, int st) {
  CpuState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const dtrExchangeLayout* l = &plan->layout;
  const int r = plan->comm.rank, p = plan->comm.nranks, n = plan->stages;
  for (int q = 0; q < p; q++) {
    dtrHostBlock(a, s->send, dtrPackStage(g, l, r, q, n, st), g->entry_bytes);
    /* Counts and displacements fit in int: create checked the totals. */
    const dtrRange sp = dtrSendStage(g, l, r, q, n, st), rp = dtrRecvStage(g, l, r, q, n, st);
    s->scount[q] = (int)sp.count;
    s->sdispl[q] = (int)sp.start;
    s->rcount[q] = (int)rp.count;
    s->rdispl[q] = (int)rp.start;
  }
  return alltoallv(plan, "the exchange (MPI_Ialltoallv)");
}

static void unpackStage(dtrPlan_t plan, char* b, int st) {
  CpuState* s = plan->state;
  for (int q = 0; q < plan->comm.nranks; q++)
    dtrHostBlock(s->recv, b, dtrUnpackStage(&plan->geo, &plan->layout, plan->comm.rank, q, plan->stages, st),
                 plan->geo.entry_bytes);
}

static dtrResult_t cpuExecute(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream) {
  (void)stream;
  (void)checked; /* agreed by dtrExecute */
  CpuState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank, n = plan->stages;
  const size_t e = g->entry_bytes;
  const char* a = in;
  char* b = out;
  if (dtrExecuteInPlace(plan, in, out)) {
    /* Everything of A is read (the own block into the stash, the rest into the send segments)
     * before the first unpack writes over it. A stage's receive pieces are its own, so each stage
     * is unpacked once all stages have been exchanged. */
    dtrHostBlock(a, s->stash, dtrStashBlock(g, r), e);
    for (int st = 0; st < n; st++) DTRCHECK(exchangeStage(plan, a, st));
    for (int st = 0; st < n; st++) unpackStage(plan, b, st);
    dtrHostBlock(s->stash, b, dtrUnstashBlock(g, r), e);
    return dtrSuccess;
  }
  dtrHostBlock(a, b, dtrSelfBlock(g, r), e);
  for (int st = 0; st < n; st++) {
    DTRCHECK(exchangeStage(plan, a, st));
    unpackStage(plan, b, st);
  }
  return dtrSuccess;
}

static dtrResult_t cpuChunksBegin(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out) {
  (void)plan, (void)checked, (void)in, (void)out; /* the caller agrees; nothing to learn of the others */
  return dtrSuccess;
}

/* Chunk k: its pieces of A packed into compact segments, exchanged, unpacked; its own block straight. */
static dtrResult_t cpuChunkRun(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream) {
  (void)ctas, (void)stream;
  CpuState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const dtrExchangeLayout* l = &plan->layout;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  const size_t e = g->entry_bytes;
  for (int q = 0; q < p; q++) {
    s->scount[q] = s->rcount[q] = 0;
    s->sdispl[q] = (int)l->send_offset[q];
    s->rdispl[q] = (int)l->recv_offset[q];
    if (q == r) continue;
    /* A chunk's segment is a part of the whole exchange's (create checked those fit in int). */
    dtrHostBlock(plan->chunk_in, s->send + (size_t)l->send_offset[q] * e, dtrChunkPackBlock(g, r, q, chunks, k), e);
    s->scount[q] = (int)dtrChunkSegmentEntries(g, r, q, chunks, k);
    s->rcount[q] = (int)dtrChunkSegmentEntries(g, q, r, chunks, k);
  }
  DTRCHECK(alltoallv(plan, "a chunk's exchange (MPI_Ialltoallv)"));
  dtrHostBlock(plan->chunk_in, plan->chunk_out, dtrChunkDirectBlock(g, r, r, chunks, k), e);
  for (int q = 0; q < p; q++)
    if (q != r)
      dtrHostBlock(s->recv + (size_t)l->recv_offset[q] * e, plan->chunk_out, dtrChunkUnpackBlock(g, q, r, chunks, k), e);
  return dtrSuccess;
}

static void cpuDestroy(dtrPlan_t plan) {
  cpuFree(plan->state);
  plan->state = NULL;
}

static dtrResult_t cpuAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer,
                               cudaStream_t stream) {
  (void)stream;
  if (bytes_per_peer > INT_MAX)
    return dtrSetError(dtrInvalidArgument, "MPI_Alltoall of %zu bytes per peer exceeds int counts", bytes_per_peer);
  if (!dtrDeadlineSet()) {
    MPICHECK(MPI_Alltoall(send, (int)bytes_per_peer, MPI_BYTE, recv, (int)bytes_per_peer, MPI_BYTE, plan->comm.comm));
    return dtrSuccess;
  }
  MPI_Request req;
  MPICHECK(MPI_Ialltoall(send, (int)bytes_per_peer, MPI_BYTE, recv, (int)bytes_per_peer, MPI_BYTE, plan->comm.comm, &req));
  return dtrWait(&req, "the bare all-to-all (MPI_Ialltoall)");
}

/* Its exchange runs on the host (under a deadline, polled by dtrWait): nothing waits on a device. */
const dtrBackendOps dtrCpuBackend = {"cpu", cpuCreate, cpuCheckBuffers, cpuExecute, cpuDestroy, cpuAlltoall, 0, NULL, NULL,
                                     cpuChunksBegin, cpuChunkRun, NULL};
