/*
 * The halo exchange on GPUs, ordered on the caller's stream (no host synchronisation; a CUDA graph can
 * capture it): the steps and the last wraps run on a work stream of the highest priority forked from
 * it and joined back, so that the block scheduler starts their kernels ahead of the wraps beside them
 * (and of the caller's other work), whose blocks would otherwise hold the SMs first.
 *
 *   beside   the local wraps of the cells no step touches, on a side stream of the lowest priority
 *            forked once the first step's transfer is under way
 *   nccl     each step: one launch packs the pieces that are not contiguous in the padded array into
 *            the send buffer; one NCCL group on a communication stream of the highest priority sends
 *            and receives every piece (contiguous ones straight from and into the caller's array: a
 *            face of the slowest axis is whole planes) while the rank's own cells are copied on the
 *            work stream; one launch unpacks the rest
 *   p2p      each step: a barrier among the step's ranks (every rank's array free), one launch stores
 *            every piece straight into its receiver's padded array and copies the rank's own cells,
 *            while the copy engines carry the pieces that are whole planes; a barrier (every piece in).
 *            The arrays are mapped through CUDA IPC as the executes bring them, their descriptions
 *            exchanged in the execute's agreement (one allgather with its checks and its direction, no
 *            collective of its own). A receiver whose array CUDA IPC cannot share (DTR_HALO_DIRECT=0:
 *            every one) gets its pieces in its receive buffer, mapped at plan time, and unpacks them
 *            after the barrier
 *   after    the side stream joined, the remaining local wraps
 * The copies are one kernel (kernels/halo_copy.cu), many boxes a launch.
 *
 * The adjoint runs the same pieces backwards on the same streams: the last wraps' cells added into
 * their sources; each step from the last, its halo pieces sent back to their owners (nccl: packed into
 * the receive buffer, received into the send buffer; p2p: stored into the owners' receive buffers, the
 * peers' arrays never written) and added there after the exchange; the wraps beside on the side stream.
 * Its sums (the kernel's other half) run in dtrHaloSumOrder's order: a launch takes as many as share
 * no cell of the array, the next sum that does starts the next launch, so that no add races and each
 * cell's sums come in the same order as on the host.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/device.h"
#include "backends/gpu/nccl_comms.h"
#include "backends/p2p/peer_book.h"
#include "backends/p2p/peer_memory.h"
#include "core/checks.h"
#include "core/params.h"
#include "core/timeout.h"
#include "halo_launch.h"
#include "grid.h"
#include "halo_plan.h"
#include "halo_sum.h"
#include "launch.h"

/* A rank's record in an execute's agreement (p2p): its padded array as it describes it (its result
 * inside), and the direction it was called for. */
typedef struct {
  dtrPeerBuffer array;
  int64_t direction;
} HaloRecord;

struct dtrHaloGpu {
  int p2p;
  char* send;                  /* nccl: the packed pieces */
  char* recv;                  /* the received pieces (p2p: the peers store into it) */
  ncclComm_t nccl[3];          /* a step's group (nccl; p2p: the benchmark's bare exchange, made on use) */
  cudaStream_t work, side, comm;
  cudaEvent_t start, done, fork, besideDone, packed[3], exchanged[3];
  dtrPeerFlags flags[3];       /* p2p: each step's barriers */
  char* peerRecv[3][DTR_GROUP_MAX];   /* p2p: the receive buffers of a step's ranks, mapped here */
  int mappings[3][2 * DTR_GROUP_MAX]; /* their mappings and the flags' (-1: none) */
  int direct;                         /* p2p and DTR_HALO_DIRECT: pieces into the receivers' arrays */
  int gridRank[3][DTR_GROUP_MAX];     /* a step's group ranks in the grid's communicator */
  HaloRecord* records;                /* [grid ranks] an execute's arrays as their owners describe them */
  dtrPeerBook book;                   /* this rank's arrays the peers have mapped; the peers' held here */
  char* peerArray[3][DTR_GROUP_MAX];  /* this execute: each receiver's padded array as mapped here (NULL:
                                         its receive buffer takes its pieces) */
  int unpack;                         /* this execute: the peers store into this rank's receive buffer */
  unsigned* abort;             /* pinned host word the barriers watch: set after a timeout */
  dtrHaloCopyArgs* copies;     /* room for the largest launch's boxes */
  struct HaloSum* sums;        /* room for the adjoint's largest pass or step of sums */
  dtrHaloSumArgs* sumArgs;     /* and for its launches' */
};

/* One of the adjoint's sums and the cells of the padded array it reads or writes. */
typedef struct HaloSum {
  dtrHaloSumArgs args;
  dtrHaloBox cells[2];
  int ncells;
} HaloSum;

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

/* src NULL: the box zeroed. */
static HaloSum sumOf(char* src, char* dst, dtrHaloStrided c, size_t e, int move, const dtrHaloBox* cells, int ncells) {
  const dtrHaloCopyArgs a = copyArgs(src ? src : dst, dst, c, e);
  HaloSum m;
  memset(&m, 0, sizeof m);
  m.args.src = src ? (char*)a.src : NULL;
  m.args.dst = a.dst;
  m.args.width = a.width, m.args.rows = a.rows, m.args.planes = a.planes;
  memcpy(m.args.srcPitch, a.srcPitch, sizeof a.srcPitch);
  memcpy(m.args.dstPitch, a.dstPitch, sizeof a.dstPitch);
  m.args.move = move;
  for (int k = 0; k < ncells; k++) m.cells[k] = cells[k];
  m.ncells = ncells;
  return m;
}

/* A copy's cells added back into its source, its destination zeroed. */
static HaloSum sumBackOf(const dtrHaloLayout* l, char* buf, const dtrHaloCopy* copy, size_t e) {
  const dtrHaloBox cells[2] = {copy->dst, dtrHaloSourceOf(copy)};
  return sumOf(buf, buf, dtrHaloCopyBackOf(l, copy), e, 1, cells, 2);
}

void dtrHaloGpuDestroy(struct dtrHaloPlan* h) {
  struct dtrHaloGpu* s = h->gpu;
  if (!s) return;
  /* The streams that store into the peers' arrays are done before those arrays are unmapped. */
  if (!h->base->broken)
    for (int k = 0; k < 3; k++) {
      cudaStream_t st = k == 0 ? s->work : k == 1 ? s->comm : s->side;
      if (st) cudaStreamSynchronize(st);
    }
  if (!h->base->broken) dtrPeerBookClear(&s->book); /* after a timeout: left to the end of the process */
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
  if (s->start) cudaEventDestroy(s->start);
  if (s->done) cudaEventDestroy(s->done);
  if (s->fork) cudaEventDestroy(s->fork);
  if (s->besideDone) cudaEventDestroy(s->besideDone);
  if (s->work) cudaStreamDestroy(s->work);
  if (s->side) cudaStreamDestroy(s->side);
  if (s->comm) cudaStreamDestroy(s->comm);
  free(s->copies);
  free(s->sums);
  free(s->sumArgs);
  free(s->records);
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
    /* The adjoint's sums of a step: its halo zeroed, then the pieces and its own cells added. */
    if (st->nsends + st->nselfs + st->nrecvs > most) most = st->nsends + st->nselfs + st->nrecvs;
  }
  s->copies = malloc((size_t)(most + 1) * sizeof *s->copies);
  s->sums = malloc((size_t)(most + 1) * sizeof *s->sums);
  s->sumArgs = malloc((size_t)(most + 1) * sizeof *s->sumArgs);
  if (!s->copies || !s->sums || !s->sumArgs) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  /* Never empty: a p2p rank that receives nothing still has a buffer its peers map. The p2p adjoint's
   * pieces come back into it: its send layout's size too. */
  if (s->p2p && send > recv) recv = send;
  CUDACHECK(cudaMalloc((void**)&s->recv, (size_t)recv * h->entry + 256));
  if (!s->p2p && send) CUDACHECK(cudaMalloc((void**)&s->send, (size_t)send * h->entry));
  int lowest = 0, highest = 0;
  CUDACHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  CUDACHECK(cudaStreamCreateWithPriority(&s->side, cudaStreamNonBlocking, lowest));
  CUDACHECK(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, highest));
  CUDACHECK(cudaStreamCreateWithPriority(&s->work, cudaStreamNonBlocking, highest));
  CUDACHECK(cudaEventCreateWithFlags(&s->start, cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming));
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
  if (s->direct) {
    if (!(s->records = calloc((size_t)h->base->comm.nranks, sizeof *s->records)))
      return dtrSetError(dtrOutOfMemory, "host allocation failed");
    MPI_Group grid, group;
    MPICHECK(MPI_Comm_group(h->grid->comm, &grid));
    for (int i = 0; i < l->nsteps; i++) {
      int mine[DTR_GROUP_MAX];
      for (int q = 0; q < l->steps[i].nranks; q++) mine[q] = q;
      MPICHECK(MPI_Comm_group(h->stepComm[i], &group));
      const int rc = MPI_Group_translate_ranks(group, l->steps[i].nranks, mine, grid, s->gridRank[i]);
      MPI_Group_free(&group);
      if (rc != MPI_SUCCESS) {
        MPI_Group_free(&grid);
        return dtrSetError(dtrMpiError, "MPI_Group_translate_ranks of a halo step's group failed");
      }
    }
    MPI_Group_free(&grid);
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
  s->direct = p2p && dtrEnvParamsGet()->halo_direct;
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

/* Whether sum k shares a cell of the array with one of sums[first, k). */
static int meetsOne(const HaloSum* sums, int first, int k) {
  for (int j = first; j < k; j++)
    for (int a = 0; a < sums[k].ncells; a++)
      for (int b = 0; b < sums[j].ncells; b++)
        if (dtrHaloBoxesMeet(&sums[k].cells[a], &sums[j].cells[b])) return 1;
  return 0;
}

/* The pending sums s->sums[0, n) in order, each launch as many as share no cell of the array. */
static dtrResult_t launchSums(struct dtrHaloPlan* h, int n, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloScalar scalar = dtrHaloScalarOf(h->type);
  for (int first = 0; first < n;) {
    int end = first + 1;
    while (end < n && !meetsOne(s->sums, first, end)) end++;
    for (int k = first; k < end; k++) s->sumArgs[k - first] = s->sums[k].args;
    CUDACHECK(dtrHaloSumLaunch(s->sumArgs, end - first, scalar, stream));
    first = end;
  }
  return dtrSuccess;
}

/* The local wraps that no step touches (back: their adjoint), on the side stream of the lowest priority,
 * forked from `stream` once the first step's transfer is under way: launched first, their blocks would
 * hold every SM and the transfer would wait for them. */
static dtrResult_t launchBeside(struct dtrHaloPlan* h, char* buf, int back, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  if (!l->nbeside) return dtrSuccess;
  CUDACHECK(cudaEventRecord(s->fork, stream));
  CUDACHECK(cudaStreamWaitEvent(s->side, s->fork, 0));
  if (back) {
    for (int k = 0; k < l->nbeside; k++) s->sums[k] = sumBackOf(l, buf, &l->beside[k], h->entry);
    DTRCHECK(launchSums(h, l->nbeside, s->side));
  } else {
    for (int k = 0; k < l->nbeside; k++) s->copies[k] = copyArgs(buf, buf, dtrHaloCopyOf(l, &l->beside[k]), h->entry);
    DTRCHECK(launch(s, l->nbeside, 0, s->side));
  }
  CUDACHECK(cudaEventRecord(s->besideDone, s->side));
  return dtrSuccess;
}

/* Step i over NCCL, from `stream`: the `out` pieces not contiguous in the array packed into outBuffer
 * at their offsets; at the first step the wraps beside forked (back: their adjoint); then one NCCL
 * group on the communication stream, exchanged[i] recorded after: `in` received into inBuffer at their
 * offsets (or straight into the array where contiguous there, if `inArray`), `out` sent (straight out of
 * the array where contiguous). Pieces to one peer travel in order (NCCL's rule for one group): each
 * rank lists them in the order of the receiver's layout. */
static dtrResult_t ncclPieces(struct dtrHaloPlan* h, int i, char* buf, const dtrHaloPiece* in, int nin, char* inBuffer,
                              int inArray, const dtrHaloPiece* out, int nout, char* outBuffer, int first, int back,
                              cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const size_t e = h->entry;
  int n = 0;
  for (int k = 0; k < nout; k++)
    if (!dtrHaloBoxContiguous(l, &out[k].box)) s->copies[n++] = copyArgs(buf, outBuffer, dtrHaloPackOf(l, &out[k].box, out[k].offset), e);
  DTRCHECK(launch(s, n, 0, stream));
  CUDACHECK(cudaEventRecord(s->packed[i], stream));
  CUDACHECK(cudaStreamWaitEvent(s->comm, s->packed[i], 0));
  if (first) DTRCHECK(launchBeside(h, buf, back, stream));
  dtrResult_t res = dtrSuccess;
  NCCLCHECK(ncclGroupStart());
  for (int k = 0; k < nin; k++) {
    const dtrHaloPiece* p = &in[k];
    char* ptr = inArray && dtrHaloBoxContiguous(l, &p->box) ? at(buf, dtrHaloOffset(l, p->box.start), e) : at(inBuffer, p->offset, e);
    NCCLCHECKGOTO(ncclRecv(ptr, (size_t)p->entries * e, ncclUint8, p->peer, s->nccl[i], s->comm), res, group);
  }
  for (int k = 0; k < nout; k++) {
    const dtrHaloPiece* p = &out[k];
    const char* ptr = dtrHaloBoxContiguous(l, &p->box) ? at(buf, dtrHaloOffset(l, p->box.start), e) : at(outBuffer, p->offset, e);
    NCCLCHECKGOTO(ncclSend(ptr, (size_t)p->entries * e, ncclUint8, p->peer, s->nccl[i], s->comm), res, group);
  }
group:
  if (res != dtrSuccess) {
    (void)ncclGroupEnd();
    return res;
  }
  DTRCHECK(dtrNcclGroupEnd(s->nccl[i], "the halo step's group of sends and receives"));
  CUDACHECK(cudaEventRecord(s->exchanged[i], s->comm));
  return dtrSuccess;
}

static dtrResult_t ncclStep(struct dtrHaloPlan* h, int i, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  DTRCHECK(ncclPieces(h, i, buf, st->recvs, st->nrecvs, s->recv, 1, st->sends, st->nsends, s->send, i == 0, 0, stream));
  /* Its own cells beside the messages: they read the interior along the axis, the messages the faces. */
  int n = 0;
  for (int k = 0; k < st->nselfs; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &st->selfs[k]), e);
  DTRCHECK(launch(s, n, 0, stream));
  CUDACHECK(cudaStreamWaitEvent(stream, s->exchanged[i], 0));
  n = 0;
  for (int k = 0; k < st->nrecvs; k++)
    if (!dtrHaloBoxContiguous(l, &st->recvs[k].box))
      s->copies[n++] = copyArgs(s->recv, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, st->recvs[k].offset), e);
  return launch(s, n, 0, stream);
}

int dtrHaloGpuAgrees(const struct dtrHaloPlan* h) { return h->gpu && h->gpu->direct; }

/* Local: this rank's record of buf for its peers (its result `checked` inside): its id, and its handle
 * where the peers have not mapped it yet; no id where CUDA IPC cannot share it (or the box is empty). */
static void describeArray(struct dtrHaloPlan* h, dtrResult_t checked, void* buf, dtrPeerBuffer* mine) {
  struct dtrHaloGpu* s = h->gpu;
  memset(mine, 0, sizeof *mine);
  dtrResult_t res = checked;
  if (res == dtrSuccess && h->padded.bytes) {
    res = dtrPeerBufferDescribe(buf, 0, mine);
    if (res == dtrSuccess && dtrPeerBookCannotShare(&s->book, buf, mine->buffer_id)) mine->buffer_id = 0;
    else if (res == dtrSuccess && !dtrPeerBookPublished(&s->book, mine->buffer_id)) res = dtrPeerBufferDescribe(buf, 1, mine);
  }
  mine->result = (int32_t)res;
}

/* Local, on the records every rank gathered alike: dtrAgreeWith's mismatch where the ranks' directions
 * differ, the same on every rank without a collective of its own. */
static dtrResult_t sameDirection(const HaloRecord* records, int nranks, const dtrAgreedValue* direction) {
  int least = 0, greatest = 0;
  for (int q = 1; q < nranks; q++) {
    if (records[q].direction < records[least].direction) least = q;
    if (records[q].direction > records[greatest].direction) greatest = q;
  }
  if (records[least].direction == records[greatest].direction) return dtrSuccess;
  return dtrValueDiffers(direction, records[least].direction, least, records[greatest].direction, greatest);
}

dtrResult_t dtrHaloGpuAgree(struct dtrHaloPlan* h, dtrResult_t checked, const dtrAgreedValue* direction, void* buf) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrComm* c = &h->base->comm;
  dtrPeerBuffer* mine = &s->records[c->rank].array;
  const cudaError_t err = cudaSetDevice(h->base->device); /* the mappings are the plan's device's */
  if (err != cudaSuccess && checked == dtrSuccess)
    checked = dtrSetError(DTR_CUDA_RESULT(err), "cudaSetDevice(%d) failed: %s", h->base->device, cudaGetErrorString(err));
  describeArray(h, checked, buf, mine);
  s->records[c->rank].direction = direction->value;
  DTRCHECK(dtrAllgather(s->records, (int)sizeof *s->records, h->grid->comm, "the other ranks' padded arrays"));
  int failed = 0, fresh = 0;
  for (int q = 0; q < c->nranks; q++) {
    failed |= s->records[q].array.result != dtrSuccess;
    fresh |= s->records[q].array.has_handle;
  }
  /* Every rank saw the same records: a failure anywhere is every rank's, with its message; then a
   * difference of direction, before anything is mapped. */
  if (failed) return dtrAgree(h->grid->comm, (dtrResult_t)mine->result);
  DTRCHECK(sameDirection(s->records, c->nranks, direction));
  dtrResult_t res = dtrSuccess;
  s->unpack = !mine->buffer_id;
  for (int i = 0; i < h->layout.nsteps; i++) {
    const dtrHaloStep* st = &h->layout.steps[i];
    int mappings[DTR_GROUP_MAX];
    for (int q = 0; q < st->nranks; q++) {
      const dtrPeerBuffer* theirs = &s->records[s->gridRank[i][q]].array;
      mappings[q] = -1;
      s->peerArray[i][q] = NULL;
      if (q == st->rank || !theirs->buffer_id || res != dtrSuccess) continue;
      res = dtrPeerBufferMap(theirs, h->base->device, &s->peerArray[i][q], &mappings[q]);
    }
    if (res == dtrSuccess) res = dtrPeerBookHold(&s->book, mappings, st->nranks);
    else
      for (int q = 0; q < st->nranks; q++)
        if (mappings[q] >= 0) dtrPeerBufferUnmap(mappings[q]);
  }
  if (res == dtrSuccess && mine->has_handle) res = dtrPeerBookPublish(&s->book, mine->buffer_id);
  /* Arrays every rank has mapped before map again by reference (nothing to fail but a host allocation):
   * only an execute that brings a new handle agrees on the mappings. */
  return fresh ? dtrAgree(h->grid->comm, res) : res;
}

/* Step i's stores into its peers' memory between the two barriers, from `stream`: each piece where it
 * lands (forward: the sends, into the receiver's array or its receive buffer; back: the halo pieces,
 * into their owners' receive buffers), by one launch with the rank's own copies (forward) where it is
 * not contiguous in the array, by a copy engine where it is; at the first step the wraps beside forked. */
static dtrResult_t p2pStores(struct dtrHaloPlan* h, int i, char* buf, int first, int back, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  CUDACHECK(dtrPeerBarrierLaunch(&s->flags[i], dtrPeerArrive, stream));
  if (first) DTRCHECK(launchBeside(h, buf, back, stream));
  int n = 0, engines = 0;
  for (int k = 0; k < (back ? st->nrecvs : st->nsends); k++) {
    const dtrHaloPiece* p = back ? &st->recvs[k] : &st->sends[k];
    char* array = !back && s->direct ? s->peerArray[i][p->peer] : NULL;
    /* Where the piece lands: its cells of the receiver's array, else the segment from this rank in the
     * peer's receive buffer (by receiver in its owner's send layout, going back). */
    const int64_t segment = back ? st->ownerOffset[p->peer] + p->offset - st->recvOffset[p->peer]
                                 : st->peerOffset[p->peer] + p->offset - st->sendOffset[p->peer];
    const dtrHaloStrided to = array ? dtrHaloRemoteOf(l, st, p) : dtrHaloPackOf(l, &p->box, segment);
    char* dst = array ? array : s->peerRecv[i][p->peer];
    if (!dtrHaloBoxContiguous(l, &p->box)) {
      s->copies[n++] = copyArgs(buf, dst, to, e);
      continue;
    }
    /* A piece of whole planes goes by a copy engine (about 2.5 x what stores from SMs reach over
     * NVLink), on the communication stream beside the kernel's pieces. */
    if (!engines++) {
      CUDACHECK(cudaEventRecord(s->packed[i], stream));
      CUDACHECK(cudaStreamWaitEvent(s->comm, s->packed[i], 0));
    }
    CUDACHECK(cudaMemcpyAsync(at(dst, to.dstOffset, e), at(buf, to.srcOffset, e), (size_t)p->entries * e,
                              cudaMemcpyDeviceToDevice, s->comm));
  }
  for (int k = 0; k < st->nselfs && !back; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &st->selfs[k]), e);
  DTRCHECK(launch(s, n, 1, stream));
  if (engines) {
    CUDACHECK(cudaEventRecord(s->exchanged[i], s->comm));
    CUDACHECK(cudaStreamWaitEvent(stream, s->exchanged[i], 0));
  }
  CUDACHECK(dtrPeerBarrierLaunch(&s->flags[i], dtrPeerFinish, stream));
  return dtrSuccess;
}

static dtrResult_t p2pStep(struct dtrHaloPlan* h, int i, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  DTRCHECK(p2pStores(h, i, buf, i == 0, 0, stream));
  int n = 0;
  for (int k = 0; k < st->nrecvs && (!s->direct || s->unpack); k++)
    s->copies[n++] = copyArgs(s->recv, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, st->recvs[k].offset), h->entry);
  return launch(s, n, 0, stream);
}

/* The adjoint's sums of step i once its pieces are in `back` (at the offsets of the step's sends): the
 * halo this rank sent zeroed, then the pieces and its own cells added in dtrHaloSumOrder's order. */
static dtrResult_t sumStepBack(struct dtrHaloPlan* h, int i, char* buf, char* back, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  int n = 0;
  for (int k = 0; k < st->nrecvs; k++)
    s->sums[n++] = sumOf(NULL, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, 0), e, 0, &st->recvs[k].box, 1);
  for (int k = 0; k < st->nsends + st->nselfs; k++) {
    const int v = dtrHaloSumOrder(st, k);
    const dtrHaloPiece* p = v < st->nsends ? &st->sends[v] : NULL;
    s->sums[n++] = p ? sumOf(back, buf, dtrHaloUnpackOf(l, &p->box, p->offset), e, 0, &p->box, 1)
                     : sumBackOf(l, buf, &st->selfs[v - st->nsends], e);
  }
  return launchSums(h, n, stream);
}

/* nccl, backwards: the halo pieces packed into the receive buffer (those not contiguous in the array)
 * and sent to their owners, the owners' pieces received into the send buffer. */
static dtrResult_t ncclStepBack(struct dtrHaloPlan* h, int i, char* buf, int first, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloStep* st = &h->layout.steps[i];
  DTRCHECK(ncclPieces(h, i, buf, st->sends, st->nsends, s->send, 0, st->recvs, st->nrecvs, s->recv, first, 1, stream));
  CUDACHECK(cudaStreamWaitEvent(stream, s->exchanged[i], 0));
  return sumStepBack(h, i, buf, s->send, stream);
}

/* p2p, backwards: each halo piece stored into its owner's receive buffer, where the owner's send
 * layout puts it; the owners add them after. */
static dtrResult_t p2pStepBack(struct dtrHaloPlan* h, int i, char* buf, int first, cudaStream_t stream) {
  DTRCHECK(p2pStores(h, i, buf, first, 1, stream));
  return sumStepBack(h, i, buf, h->gpu->recv, stream);
}

dtrResult_t dtrHaloGpuAdjoint(struct dtrHaloPlan* h, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  CUDACHECK(cudaSetDevice(h->base->device));
  CUDACHECK(cudaEventRecord(s->start, stream));
  CUDACHECK(cudaStreamWaitEvent(s->work, s->start, 0));
  for (int k = 0; k < l->nafter; k++) s->sums[k] = sumBackOf(l, buf, &l->after[k], h->entry);
  DTRCHECK(launchSums(h, l->nafter, s->work));
  if (!l->nsteps) DTRCHECK(launchBeside(h, buf, 1, s->work));
  for (int i = l->nsteps - 1; i >= 0; i--) {
    const int first = i == l->nsteps - 1;
    DTRCHECK(s->p2p ? p2pStepBack(h, i, buf, first, s->work) : ncclStepBack(h, i, buf, first, s->work));
  }
  if (l->nbeside) CUDACHECK(cudaStreamWaitEvent(s->work, s->besideDone, 0));
  CUDACHECK(cudaEventRecord(s->done, s->work));
  CUDACHECK(cudaStreamWaitEvent(stream, s->done, 0));
  return dtrSuccess;
}

dtrResult_t dtrHaloGpuExecute(struct dtrHaloPlan* h, char* buf, cudaStream_t stream) {
  struct dtrHaloGpu* s = h->gpu;
  const dtrHaloLayout* l = &h->layout;
  const size_t e = h->entry;
  CUDACHECK(cudaSetDevice(h->base->device));
  CUDACHECK(cudaEventRecord(s->start, stream));
  CUDACHECK(cudaStreamWaitEvent(s->work, s->start, 0));
  if (!l->nsteps) DTRCHECK(launchBeside(h, buf, 0, s->work));
  for (int i = 0; i < l->nsteps; i++) DTRCHECK(s->p2p ? p2pStep(h, i, buf, s->work) : ncclStep(h, i, buf, s->work));
  if (l->nbeside) CUDACHECK(cudaStreamWaitEvent(s->work, s->besideDone, 0));
  int n = 0;
  for (int k = 0; k < l->nafter; k++) s->copies[n++] = copyArgs(buf, buf, dtrHaloCopyOf(l, &l->after[k]), e);
  DTRCHECK(launch(s, n, 0, s->work));
  CUDACHECK(cudaEventRecord(s->done, s->work));
  CUDACHECK(cudaStreamWaitEvent(stream, s->done, 0));
  return dtrSuccess;
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
