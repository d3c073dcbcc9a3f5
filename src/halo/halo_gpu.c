/*
 * The halo exchange on GPUs, all of it ordered on the caller's stream (no host synchronisation; a CUDA
 * graph can capture it).
 *
 *   beside   the local wraps of the cells no step touches, on a side stream of the lowest priority
 *            forked once the first step's transfer is under way
 *   nccl     each step: one launch packs the pieces that are not contiguous in the padded array into
 *            the send buffer; one NCCL group on a communication stream of the highest priority sends
 *            and receives every piece (contiguous ones straight from and into the caller's array: a
 *            face of the slowest axis is whole planes) while the rank's own cells are copied on the
 *            caller's stream; one launch unpacks the rest
 *   p2p      each step: a barrier among the step's ranks (every rank's receive buffer free), one launch
 *            stores every piece into its receiver's receive buffer, mapped here through CUDA IPC at plan
 *            time, and copies the rank's own cells, while the copy engines carry the pieces that are
 *            whole planes; a barrier (every piece in); one launch unpacks
 *   after    the side stream joined, the remaining local wraps
 * The copies are one kernel (kernels/halo_copy.cu), many boxes a launch.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/device.h"
#include "backends/gpu/nccl_comms.h"
#include "backends/p2p/peer_memory.h"
#include "core/checks.h"
#include "core/timeout.h"
#include "halo_launch.h"
#include "grid.h"
#include "halo_plan.h"
#include "launch.h"

struct dtrHaloGpu {
  int p2p;
  char* send;                  /* nccl: the packed pieces */
  char* recv;                  /* the received pieces (p2p: the peers store into it) */
  ncclComm_t nccl[3];          /* a step's group (nccl; p2p: the benchmark's bare exchange, made on use) */
  cudaStream_t side, comm;
  cudaEvent_t fork, besideDone, packed[3], exchanged[3];
  dtrPeerFlags flags[3];       /* p2p: each step's barriers */
  char* peerRecv[3][DTR_GROUP_MAX];   /* p2p: the receive buffers of a step's ranks, mapped here */
  int mappings[3][2 * DTR_GROUP_MAX]; /* their mappings and the flags' (-1: none) */
  unsigned* abort;             /* pinned host word the barriers watch: set after a timeout */
  dtrHaloCopyArgs* copies;     /* room for the largest launch's boxes */
};

static char* at(char* base, int64_t entries, size_t e) { return base + (size_t)entries * e; }

static dtrHaloCopyArgs copyArgs(const char* src, char* dst, dtrHaloStrided c, size_t e) {
  dtrHaloCopyArgs a;
  a.src = src + (size_t)c.srcOffset * e;
  a.dst = dst + (size_t)c.dstOffset * e;
  a.width = (size_t)c.count[0] * e;
  a.rows = (size_t)c.count[1];
  a.planes = (size_t)c.count[2];
  for (int k = 0; k < 2; k++) a.srcPitch[k] = (size_t)c.srcPitch[k] * e, a.dstPitch[k] = (size_t)c.dstPitch[k] * e;
  return a;
}

void dtrHaloGpuDestroy(struct dtrHaloPlan* h) {
  struct dtrHaloGpu* s = h->gpu;
  if (!s) return;
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 2 * DTR_GROUP_MAX; k++)
      if (s->mappings[i][k] >= 0) dtrPeerBufferUnmap(s->mappings[i][k]);
    if (s->nccl[i]) dtrNcclCommRelease(s->nccl[i]);
    if (s->packed[i]) cudaEventDestroy(s->packed[i]);
    if (s->exchanged[i]) cudaEventDestroy(s->exchanged[i]);
  }
  /* The peers unmap this rank's buffers before they are freed; after a timeout they may never come, and
   * the buffers are left to the end of the process instead. */
  const int agreed = !s->p2p || (!h->base->broken && !dtrDeadlinePassed() &&
                                 dtrBarrier(h->grid->comm, "the peers to unmap the halo buffers") == dtrSuccess);
  if (agreed) {
    for (int i = 0; i < 3; i++)
      if (s->flags[i].nranks) cudaFree(s->flags[i].peer[s->flags[i].rank]);
    if (s->recv) cudaFree(s->recv);
  }
  if (s->send) cudaFree(s->send);
  if (s->abort) cudaFreeHost(s->abort);
  if (s->fork) cudaEventDestroy(s->fork);
  if (s->besideDone) cudaEventDestroy(s->besideDone);
  if (s->side) cudaStreamDestroy(s->side);
  if (s->comm) cudaStreamDestroy(s->comm);
  free(s->copies);
  free(s);
  h->gpu = NULL;
}

/* Local: the buffers, streams and events. */
static dtrResult_t createLocal(struct dtrHaloPlan* h, struct dtrHaloGpu* s) {
  const dtrHaloLayout* l = &h->layout;
  int64_t send = 0, recv = 0;
  int most = l->nbeside > l->nafter ? l->nbeside : l->nafter;
  for (int i = 0; i < l->nsteps; i++) {
    const dtrHaloStep* st = &l->steps[i];
    if (s->p2p && st->nranks > DTR_GROUP_MAX)
      return dtrSetError(dtrInvalidArgument, "the p2p backend's halo exchange serves groups of at most %d ranks; this grid's %s has %d",
                         DTR_GROUP_MAX, st->split == 1 ? "columns" : "rows", st->nranks);
    if (st->sendTotal > send) send = st->sendTotal;
    if (st->recvTotal > recv) recv = st->recvTotal;
    if (st->nsends + st->nselfs > most) most = st->nsends + st->nselfs;
    if (st->nrecvs > most) most = st->nrecvs;
  }
  if (!(s->copies = malloc((size_t)(most + 1) * sizeof *s->copies)))
    return dtrSetError(dtrOutOfMemory, "host allocation failed");
  /* Never empty: a p2p rank that receives nothing still has a buffer its peers map. */
  CUDACHECK(cudaMalloc((void**)&s->recv, (size_t)recv * h->entry + 256));
  if (!s->p2p && send) CUDACHECK(cudaMalloc((void**)&s->send, (size_t)send * h->entry));
  int lowest = 0, highest = 0;
  CUDACHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  CUDACHECK(cudaStreamCreateWithPriority(&s->side, cudaStreamNonBlocking, lowest));
  CUDACHECK(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, highest));
  CUDACHECK(cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&s->besideDone, cudaEventDisableTiming));
  for (int i = 0; i < l->nsteps; i++) {
    CUDACHECK(cudaEventCreateWithFlags(&s->packed[i], cudaEventDisableTiming));
    CUDACHECK(cudaEventCreateWithFlags(&s->exchanged[i], cudaEventDisableTiming));
  }
  if (s->p2p) {
    CUDACHECK(cudaHostAlloc((void**)&s->abort, sizeof *s->abort, cudaHostAllocMapped));
    *s->abort = 0;
    const volatile unsigned* abortOnDevice = NULL;
    CUDACHECK(cudaHostGetDevicePointer((void**)&abortOnDevice, s->abort, 0));
    for (int i = 0; i < l->nsteps; i++) {
      const dtrHaloStep* st = &l->steps[i];
      const size_t bytes = DTR_PEER_FLAG_WORDS(st->nranks) * sizeof(uint64_t);
      dtrPeerFlags* f = &s->flags[i];
      f->rank = st->rank, f->nranks = st->nranks, f->abort = abortOnDevice;
      CUDACHECK(cudaMalloc((void**)&f->peer[st->rank], bytes));
      CUDACHECK(cudaMemset(f->peer[st->rank], 0, bytes));
    }
    CUDACHECK(cudaDeviceSynchronize());
  }
  return dtrSuccess;
}

/* Collective over step i's group: every rank's flags and receive buffer, mapped here. */
static dtrResult_t mapPeers(struct dtrHaloPlan* h, int i) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloStep* st = &h->layout.steps[i];
  const int np = st->nranks, me = st->rank;
  dtrPeerBuffer* records = calloc(2 * (size_t)np, sizeof *records);
  dtrResult_t res = records ? dtrSuccess : dtrSetError(dtrOutOfMemory, "host allocation failed");
  if (res == dtrSuccess) res = dtrPeerBufferDescribe(s->flags[i].peer[me], 1, &records[2 * me]);
  if (res == dtrSuccess) res = dtrPeerBufferDescribe(s->recv, 1, &records[2 * me + 1]);
  res = dtrAgree(h->stepComm[i], res);
  if (res == dtrSuccess) res = dtrAllgather(records, 2 * (int)sizeof *records, h->stepComm[i], "the peers' halo buffers");
  for (int q = 0; q < np && res == dtrSuccess; q++) {
    if (q == me) {
      s->peerRecv[i][q] = s->recv;
      continue;
    }
    char* flags = NULL;
    res = dtrPeerBufferMap(&records[2 * q], h->base->device, &flags, &s->mappings[i][2 * q]);
    if (res == dtrSuccess) res = dtrPeerBufferMap(&records[2 * q + 1], h->base->device, &s->peerRecv[i][q], &s->mappings[i][2 * q + 1]);
    s->flags[i].peer[q] = (uint64_t*)flags;
  }
  free(records);
  return dtrAgree(h->stepComm[i], res);
}

dtrResult_t dtrHaloGpuCreate(struct dtrHaloPlan* h, const dtrConfig_t* cfg) {
  dtrPlan_t base = h->base;
  const int p2p = base->backend == dtrBackendP2p;
  dtrResult_t res = dtrSelectDevice(base, cfg, p2p ? "p2p" : "NCCL", !p2p, &base->device);
  if (res == dtrSuccess && p2p && base->comm.nhosts != 1)
    res = dtrSetError(dtrInvalidArgument, "the p2p backend needs every rank of the grid on one host; these %d ranks span %d hosts (use nccl)",
                      base->comm.nranks, base->comm.nhosts);
  DTRCHECK(dtrAgree(h->grid->comm, res));
  struct dtrHaloGpu* s = calloc(1, sizeof *s);
  DTRCHECK(dtrAgree(h->grid->comm, s ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate the halo exchange's state")));
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 2 * DTR_GROUP_MAX; k++) s->mappings[i][k] = -1;
  s->p2p = p2p;
  h->gpu = s;
  base->kernel = dtrKernelAuto; /* no transpose runs: the copies are the halo kernel's */
  res = dtrAgree(h->grid->comm, createLocal(h, s));
  for (int i = 0; i < h->layout.nsteps && res == dtrSuccess; i++)
    res = p2p ? mapPeers(h, i) : dtrNcclCommAcquire(h->stepComm[i], base->device, &s->nccl[i]);
  /* Each group agreed on its own: the grid agrees on them all. */
  res = dtrAgree(h->grid->comm, res);
  if (res != dtrSuccess) dtrHaloGpuDestroy(h);
  return res;
}

static dtrResult_t launch(struct dtrHaloGpu* s, int n, int fence, cudaStream_t stream) {
  CUDACHECK(dtrHaloCopyLaunch(s->copies, n, fence, stream));
  return dtrSuccess;
}

/* The local wraps that no step touches, on the side stream of the lowest priority, forked from `stream`
 * once the first step's transfer is under way: launched first, their blocks would hold every SM and
 * the transfer would wait for them. */
static dtrResult_t launchBeside(struct dtrHaloPlan* h, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  if (!l->nbeside) return dtrSuccess;
  CUDACHECK(cudaEventRecord(s->fork, stream));
  CUDACHECK(cudaStreamWaitEvent(s->side, s->fork, 0));
  int n = 0;
  for (int k = 0; k < l->nbeside; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &l->beside[k]), h->entry);
  DTRCHECK(launch(s, n, 0, s->side));
  CUDACHECK(cudaEventRecord(s->besideDone, s->side));
  return dtrSuccess;
}

static dtrResult_t ncclStep(struct dtrHaloPlan* h, int i, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  int n = 0;
  for (int k = 0; k < st->nsends; k++)
    if (!dtrHaloBoxContiguous(l, &st->sends[k].box))
      s->copies[n++] = copyArgs(buf, s->send, dtrHaloPackOf(l, &st->sends[k].box, st->sends[k].offset), e);
  DTRCHECK(launch(s, n, 0, stream));
  CUDACHECK(cudaEventRecord(s->packed[i], stream));
  CUDACHECK(cudaStreamWaitEvent(s->comm, s->packed[i], 0));
  if (i == 0) DTRCHECK(launchBeside(h, buf, stream));
  /* Pieces to one peer travel in order (NCCL's rule for one group): each rank lists them in the order
   * of the receiver's layout. */
  dtrResult_t res = dtrSuccess;
  NCCLCHECK(ncclGroupStart());
  for (int k = 0; k < st->nrecvs; k++) {
    const dtrHaloPiece* p = &st->recvs[k];
    char* ptr = dtrHaloBoxContiguous(l, &p->box) ? at(buf, dtrHaloOffset(l, p->box.start), e) : at(s->recv, p->offset, e);
    NCCLCHECKGOTO(ncclRecv(ptr, (size_t)p->entries * e, ncclUint8, p->peer, s->nccl[i], s->comm), res, group);
  }
  for (int k = 0; k < st->nsends; k++) {
    const dtrHaloPiece* p = &st->sends[k];
    const char* ptr = dtrHaloBoxContiguous(l, &p->box) ? at(buf, dtrHaloOffset(l, p->box.start), e) : at(s->send, p->offset, e);
    NCCLCHECKGOTO(ncclSend(ptr, (size_t)p->entries * e, ncclUint8, p->peer, s->nccl[i], s->comm), res, group);
  }
group:
  if (res != dtrSuccess) {
    (void)ncclGroupEnd();
    return res;
  }
  DTRCHECK(dtrNcclGroupEnd(s->nccl[i], "the halo step's group of sends and receives"));
  CUDACHECK(cudaEventRecord(s->exchanged[i], s->comm));
  /* Its own cells beside the messages: they read the interior along the axis, the messages the faces. */
  n = 0;
  for (int k = 0; k < st->nselfs; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &st->selfs[k]), e);
  DTRCHECK(launch(s, n, 0, stream));
  CUDACHECK(cudaStreamWaitEvent(stream, s->exchanged[i], 0));
  n = 0;
  for (int k = 0; k < st->nrecvs; k++)
    if (!dtrHaloBoxContiguous(l, &st->recvs[k].box))
      s->copies[n++] = copyArgs(s->recv, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, st->recvs[k].offset), e);
  return launch(s, n, 0, stream);
}

static dtrResult_t p2pStep(struct dtrHaloPlan* h, int i, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  CUDACHECK(dtrPeerBarrierLaunch(&s->flags[i], dtrPeerArrive, stream));
  if (i == 0) DTRCHECK(launchBeside(h, buf, stream));
  int n = 0, engines = 0;
  for (int k = 0; k < st->nsends; k++) {
    const dtrHaloPiece* p = &st->sends[k];
    /* Where the piece lands in its receiver's buffer: that receiver's segment from this rank. */
    const int64_t there = st->peerOffset[p->peer] + p->offset - st->sendOffset[p->peer];
    if (!dtrHaloBoxContiguous(l, &p->box)) {
      s->copies[n++] = copyArgs(buf, s->peerRecv[i][p->peer], dtrHaloPackOf(l, &p->box, there), e);
      continue;
    }
    /* A piece of whole planes goes by a copy engine (about 2.5 x what stores from SMs reach over
     * NVLink), on the communication stream beside the kernel's pieces. */
    if (!engines++) {
      CUDACHECK(cudaEventRecord(s->packed[i], stream));
      CUDACHECK(cudaStreamWaitEvent(s->comm, s->packed[i], 0));
    }
    CUDACHECK(cudaMemcpyAsync(at(s->peerRecv[i][p->peer], there, e), at(buf, dtrHaloOffset(l, p->box.start), e),
                              (size_t)p->entries * e, cudaMemcpyDeviceToDevice, s->comm));
  }
  for (int k = 0; k < st->nselfs; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &st->selfs[k]), e);
  DTRCHECK(launch(s, n, 1, stream));
  if (engines) {
    CUDACHECK(cudaEventRecord(s->exchanged[i], s->comm));
    CUDACHECK(cudaStreamWaitEvent(stream, s->exchanged[i], 0));
  }
  CUDACHECK(dtrPeerBarrierLaunch(&s->flags[i], dtrPeerFinish, stream));
  n = 0;
  for (int k = 0; k < st->nrecvs; k++)
    s->copies[n++] = copyArgs(s->recv, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, st->recvs[k].offset), e);
  return launch(s, n, 0, stream);
}

dtrResult_t dtrHaloGpuExecute(struct dtrHaloPlan* h, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const size_t e = h->entry;
  CUDACHECK(cudaSetDevice(h->base->device));
  if (!l->nsteps) DTRCHECK(launchBeside(h, buf, stream));
  for (int i = 0; i < l->nsteps; i++) DTRCHECK(s->p2p ? p2pStep(h, i, buf, stream) : ncclStep(h, i, buf, stream));
  if (l->nbeside) CUDACHECK(cudaStreamWaitEvent(stream, s->besideDone, 0));
  int n = 0;
  for (int k = 0; k < l->nafter; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &l->after[k]), e);
  return launch(s, n, 0, stream);
}

dtrResult_t dtrHaloGpuAsyncError(struct dtrHaloPlan* h) {
  for (int i = 0; h->gpu && i < 3; i++)
    if (h->gpu->nccl[i]) DTRCHECK(dtrNcclAsyncError(h->gpu->nccl[i]));
  return dtrSuccess;
}

void dtrHaloGpuAbort(struct dtrHaloPlan* h) {
  struct dtrHaloGpu* s = h->gpu;
  if (!s) return;
  if (s->abort) *(volatile unsigned*)s->abort = 1;
  for (int i = 0; i < 3; i++)
    if (s->nccl[i]) dtrNcclCommAbort(s->nccl[i]);
}

dtrResult_t dtrHaloGpuBare(struct dtrHaloPlan* h, void* send, void* recv, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const size_t e = h->entry;
  CUDACHECK(cudaSetDevice(h->base->device));
  for (int i = 0; i < h->layout.nsteps; i++) {
    const dtrHaloStep* st = &h->layout.steps[i];
    if (!s->nccl[i]) {
      if (h->base->gpu.shared)
        return dtrSetError(dtrInvalidArgument, "the bare NCCL exchange cannot run where ranks share a GPU (NCCL allows one rank per GPU)");
      DTRCHECK(dtrNcclCommAcquire(h->stepComm[i], h->base->device, &s->nccl[i]));
    }
    dtrResult_t res = dtrSuccess;
    NCCLCHECK(ncclGroupStart());
    for (int q = 0; q < st->nranks; q++) {
      if (st->recvCount[q])
        NCCLCHECKGOTO(ncclRecv(at(recv, st->recvOffset[q], e), (size_t)st->recvCount[q] * e, ncclUint8, q, s->nccl[i], stream), res, group);
      if (st->sendCount[q])
        NCCLCHECKGOTO(ncclSend(at(send, st->sendOffset[q], e), (size_t)st->sendCount[q] * e, ncclUint8, q, s->nccl[i], stream), res, group);
    }
  group:
    if (res != dtrSuccess) {
      (void)ncclGroupEnd();
      return res;
    }
    DTRCHECK(dtrNcclGroupEnd(s->nccl[i], "the bare halo exchange"));
  }
  return dtrSuccess;
}
