/*
 * NCCL backend: one GPU per rank, device buffers, everything ordered on the caller's stream.
 *
 *   pack      each peer's block of A, transposed into its contiguous send segment
 *   exchange  one NCCL group of ncclSend/ncclRecv, on a communication stream of the highest
 *             priority that forks from and joins the caller's
 *   unpack    each received segment copied into its column block of B, by a 2-D copy kernel (faster than
 *             cudaMemcpy2DAsync: docs/design.md#unpack-copy)
 *   (with a batch in the middle layout, geometry.h, the pack copies and the unpack transposes)
 *   self      the rank's own block transposed straight from A into B, on a side stream that forks
 *             from the caller's once the (first) packs are done and joins it at the end, so it
 *             overlaps the exchange; from kSelfLastRanks ranks up, in one stage, after the unpacks
 *             on the caller's stream instead
 *
 * A small execute (one stage, up to kOneStreamBytes a rank) runs all of this on the caller's stream,
 * the packs and the self block in one launch (executeOnOneStream).
 *
 * With several pipeline stages (plan->stages, geometry.h's dtr*Stage) the exchange runs in rounds
 * on a communication stream: round s's messages wait only for round s's packs, and round s's
 * unpacks only for its messages, so on the caller's stream the packs of round s + 1 and the unpacks
 * of round s - 1 run while round s is on the wire.
 *
 * The workspace, the streams and their events are made at plan time; execute allocates nothing
 * and never waits on the host, so it can be captured into a CUDA graph. With DTR_PERF_REPORT=1 the
 * phases above are marked on their streams (timeline.h) and summarized when the plan is destroyed.
 */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/gpu/device.h"
#include "backends/gpu/nccl_comms.h"
#include "backends/gpu/timeline.h"
#include "backends/workspace.h"
#include "core/checks.h"
#include "core/params.h"
#include "launch.h"
#include "nccl.h"
#include "tune.h"

typedef struct {
  ncclComm_t nccl;
  char* send;  /* in the plan's workspace */
  char* recv;
  char* stash; /* the own block of an in-place execute (config.inplace) */
  void* sendHandle; /* registrations of send and recv with nccl (DTR_NCCL_REGISTER), or NULL */
  void* recvHandle;
  cudaStream_t side;
  cudaEvent_t join;                    /* the self block is done (on the side stream) */
  cudaStream_t comm;                   /* the messages, where there are peers */
  cudaEvent_t packed[DTR_MAX_STAGES];  /* round s's packs are done (recorded on the caller's stream);
                                          packed[0] also forks the side stream */
  cudaEvent_t arrived[DTR_MAX_STAGES]; /* round s's messages are done (on the communication stream) */
  dtrTimeline* timeline;               /* DTR_PERF_REPORT, else NULL */
  dtrRange* pieces;                    /* [2 nranks]: one group's sends to and receives from each rank
                                          (entries into the send and receive buffers) */
} NcclState;

/* From this many ranks up, a one-stage execute transposes the self block after the unpacks rather
 * than beside the messages: beside NCCL it takes memory bandwidth and SMs the messages need
 * (docs/design.md#self-last). */
static const int kSelfLastRanks = 4;

/* Up to this many bytes a rank, a one-stage execute runs on the caller's stream alone
 * (executeOnOneStream). */
static const double kOneStreamBytes = 4.0 * 1048576;

static void ncclStateFree(NcclState* s) {
  if (!s) return;
  dtrTimelineDestroy(s->timeline);
  dtrNcclDeregister(s->nccl, s->sendHandle);
  dtrNcclDeregister(s->nccl, s->recvHandle);
  if (s->nccl) dtrNcclCommRelease(s->nccl);
  if (s->join) cudaEventDestroy(s->join);
  if (s->side) cudaStreamDestroy(s->side);
  for (int i = 0; i < DTR_MAX_STAGES; i++) {
    if (s->packed[i]) cudaEventDestroy(s->packed[i]);
    if (s->arrived[i]) cudaEventDestroy(s->arrived[i]);
  }
  if (s->comm) cudaStreamDestroy(s->comm);
  free(s->pieces);
  free(s);
}

static dtrResult_t createStreams(dtrPlan_t plan, NcclState* s) {
  CUDACHECK(cudaStreamCreateWithFlags(&s->side, cudaStreamNonBlocking));
  CUDACHECK(cudaEventCreateWithFlags(&s->join, cudaEventDisableTiming));
  for (int i = 0; i < plan->stages; i++) {
    CUDACHECK(cudaEventCreateWithFlags(&s->packed[i], cudaEventDisableTiming));
    CUDACHECK(cudaEventCreateWithFlags(&s->arrived[i], cudaEventDisableTiming));
  }
  if (plan->comm.nranks > 1) {
    /* The highest priority: the block scheduler then starts NCCL's blocks ahead of the rest of a
     * pack or unpack that is already queued, instead of after it. */
    int lowest = 0, highest = 0;
    CUDACHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    CUDACHECK(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, highest));
  }
  return dtrSuccess;
}

/* The send and receive workspace registered with the communicator, so that NCCL can move each message
 * from the sender's segment straight into the receiver's (DTR_NCCL_REGISTER). */
static dtrResult_t registerWorkspace(dtrPlan_t plan, NcclState* s) {
  const size_t e = plan->geo.entry_bytes;
  const size_t sendBytes = (size_t)plan->layout.send_total * e, recvBytes = (size_t)plan->layout.recv_total * e;
  if (sendBytes) NCCLCHECK(ncclCommRegister(s->nccl, s->send, sendBytes, &s->sendHandle));
  if (recvBytes) NCCLCHECK(ncclCommRegister(s->nccl, s->recv, recvBytes, &s->recvHandle));
  return dtrSuccess;
}

static dtrResult_t ncclCreate(dtrPlan_t plan, const dtrConfig_t* config) {
  NcclState* s = calloc(1, sizeof *s);
  if (s && !(s->pieces = calloc(2 * (size_t)plan->comm.nranks, sizeof *s->pieces))) {
    free(s);
    s = NULL;
  }
  dtrResult_t res = s ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate the NCCL backend state");
  if (res == dtrSuccess) res = dtrSelectDevice(plan, config, "NCCL", 1, &plan->device);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, res), res, fail);
  DTRCHECKGOTO(dtrPlanWorkspaceAcquire(plan, plan->device, dtrOwnBlockStashBytes(plan), &s->send, &s->recv, &s->stash), res, fail);
  DTRCHECKGOTO(dtrNcclCommAcquire(plan->comm.comm, plan->device, &s->nccl), res, fail);
  const dtrEnvParams* env = dtrEnvParamsGet();
  const int registered = plan->comm.nranks > 1 && dtrNcclRegisters(s->nccl);
  if (registered) DTRCHECKGOTO(dtrAgree(plan->comm.comm, registerWorkspace(plan, s)), res, fail);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, createStreams(plan, s)), res, fail);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, dtrTimelineCreate(plan->stages, &s->timeline)), res, fail);
  dtrKernelTuningSet(env->tma_boxes, env->tile_group, env->streaming, env->tiles_per_cta);
  DTRCHECKGOTO(dtrTuneKernel(plan, config->kernel, &plan->kernel), res, fail);
  plan->state = s;
  return dtrSuccess;
fail:
  ncclStateFree(s);
  return res;
}

/* Block k's transpose from src into dst, as the kernels take it. */
static dtrTransposeArgs transposeArgs(dtrPlan_t plan, const char* src, char* dst, dtrBlock k) {
  const size_t e = plan->geo.entry_bytes;
  const dtrTransposeArgs args = {src + k.src_offset * e, k.src_ld, dst + k.dst_offset * e, k.dst_ld, k.rows, k.cols,
                                 e, k.batch, k.src_stride, k.dst_stride};
  return args;
}

/* One local step: a (batched) transpose by the plan's kernel, or a 2-D copy (the unpack of the outer
 * batch layout, the pack of the middle one). */
static dtrResult_t runBlock(dtrPlan_t plan, const char* src, char* dst, dtrBlock k, cudaStream_t stream) {
  if (!k.rows || !k.cols || !k.batch) return dtrSuccess;
  const size_t e = plan->geo.entry_bytes;
  if (k.transpose) {
    const dtrTransposeArgs args = transposeArgs(plan, src, dst, k);
    CUDACHECK(dtrTransposeLaunch(plan->kernel, &args, stream, NULL));
    return dtrSuccess;
  }
  CUDACHECK(dtrCopy2dBatchLaunch(dst + k.dst_offset * e, (size_t)k.dst_ld * e, (size_t)k.dst_stride * e,
                                 src + k.src_offset * e, (size_t)k.src_ld * e, (size_t)k.src_stride * e,
                                 (size_t)k.cols * e, (size_t)k.rows, (size_t)k.batch, stream));
  return dtrSuccess;
}

/* One NCCL group of the non-empty pieces of s->pieces: [q] sent to rank q (from `send`), [nranks + q]
 * received from it (into `recv`). */
static dtrResult_t sendAndReceive(dtrPlan_t plan, const char* send, char* recv, cudaStream_t comm, const char* what) {
  NcclState* s = plan->state;
  const int p = plan->comm.nranks;
  const size_t e = plan->geo.entry_bytes;
  dtrResult_t res = dtrSuccess;
  NCCLCHECK(ncclGroupStart());
  for (int q = 0; q < p; q++) {
    const dtrRange sp = s->pieces[q], rp = s->pieces[p + q];
    if (sp.count)
      NCCLCHECKGOTO(ncclSend(send + (size_t)sp.start * e, (size_t)sp.count * e, ncclUint8, q, s->nccl, comm), res,
                    group);
    if (rp.count)
      NCCLCHECKGOTO(ncclRecv(recv + (size_t)rp.start * e, (size_t)rp.count * e, ncclUint8, q, s->nccl, comm), res,
                    group);
  }
group:
  if (res != dtrSuccess) {
    (void)ncclGroupEnd();
    return res;
  }
  return dtrNcclGroupEnd(s->nccl, what);
}

/* Round st's messages. */
static dtrResult_t exchangeStage(dtrPlan_t plan, int st, cudaStream_t comm) {
  NcclState* s = plan->state;
  const int r = plan->comm.rank, n = plan->stages, p = plan->comm.nranks;
  for (int q = 0; q < p; q++) {
    s->pieces[q] = dtrSendStage(&plan->geo, &plan->layout, r, q, n, st);
    s->pieces[p + q] = dtrRecvStage(&plan->geo, &plan->layout, r, q, n, st);
  }
  return sendAndReceive(plan, s->send, s->recv, comm, "the exchange's group of sends and receives");
}

/* Round st's received pieces into B, on the caller's stream once they have arrived. */
static dtrResult_t unpackStage(dtrPlan_t plan, char* b, int st, cudaStream_t stream) {
  NcclState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank, n = plan->stages;
  if (s->comm) CUDACHECK(cudaStreamWaitEvent(stream, s->arrived[st], 0));
  dtrTimelineMark(s->timeline, dtrMarkUnpackBegin, st, stream);
  for (int q = 0; q < plan->comm.nranks; q++) DTRCHECK(runBlock(plan, s->recv, b, dtrUnpackStage(g, &plan->layout, r, q, n, st), stream));
  dtrTimelineMark(s->timeline, dtrMarkUnpackEnd, st, stream);
  return dtrSuccess;
}

/* Round st's packs, on the caller's stream, and its messages once they are packed: on the
 * high-priority communication stream where there are peers, so that NCCL's blocks start as soon as
 * their packs are done instead of queueing behind the blocks of a transpose launched earlier (the
 * self block's, or the next round's packs). */
static dtrResult_t packAndSend(dtrPlan_t plan, const char* a, int st, cudaStream_t stream) {
  NcclState* s = plan->state;
  const int r = plan->comm.rank, n = plan->stages;
  dtrTimelineMark(s->timeline, dtrMarkPackBegin, st, stream);
  for (int q = 0; q < plan->comm.nranks; q++)
    DTRCHECK(runBlock(plan, a, s->send, dtrPackStage(&plan->geo, &plan->layout, r, q, n, st), stream));
  dtrTimelineMark(s->timeline, dtrMarkPackEnd, st, stream);
  CUDACHECK(cudaEventRecord(s->packed[st], stream));
  cudaStream_t comm = s->comm ? s->comm : stream;
  if (s->comm) CUDACHECK(cudaStreamWaitEvent(comm, s->packed[st], 0));
  dtrTimelineMark(s->timeline, dtrMarkSendBegin, st, comm);
  DTRCHECK(exchangeStage(plan, st, comm));
  dtrTimelineMark(s->timeline, dtrMarkArrived, st, comm);
  if (s->comm) CUDACHECK(cudaEventRecord(s->arrived[st], comm));
  return dtrSuccess;
}

/*
 * In place (one buffer for A and B): everything of A is read before the first unpack writes over it.
 * Every round's packs come first (the rounds' messages overlap the later packs); the own block is
 * copied into the stash on the side stream beside the messages, as the self block is out of place;
 * the unpacks wait for both (each round's receive pieces are its own), and the own block is
 * transposed from the stash last.
 */
static dtrResult_t executeInPlace(dtrPlan_t plan, char* buf, cudaStream_t stream) {
  NcclState* s = plan->state;
  const int r = plan->comm.rank, n = plan->stages;
  const dtrBlock stash = dtrStashBlock(&plan->geo, r);
  const int hasSelf = stash.rows && stash.cols && stash.batch;
  for (int st = 0; st < n; st++) {
    DTRCHECK(packAndSend(plan, buf, st, stream));
    if (st == 0 && hasSelf) {
      CUDACHECK(cudaStreamWaitEvent(s->side, s->packed[0], 0));
      dtrTimelineMark(s->timeline, dtrMarkOwnBegin, 0, s->side);
      DTRCHECK(runBlock(plan, buf, s->stash, stash, s->side));
      dtrTimelineMark(s->timeline, dtrMarkOwnEnd, 0, s->side);
      CUDACHECK(cudaEventRecord(s->join, s->side));
    }
  }
  if (hasSelf) CUDACHECK(cudaStreamWaitEvent(stream, s->join, 0));
  for (int st = 0; st < n; st++) DTRCHECK(unpackStage(plan, buf, st, stream));
  dtrTimelineMark(s->timeline, dtrMarkUnstashBegin, 0, stream);
  DTRCHECK(runBlock(plan, s->stash, buf, dtrUnstashBlock(&plan->geo, r), stream));
  dtrTimelineMark(s->timeline, dtrMarkUnstashEnd, 0, stream);
  return dtrSuccess;
}

/*
 * A small execute (one stage, at most kOneStreamBytes a rank): the packs and the own block in one
 * launch, then the messages and the unpacks, all on the caller's stream. Beside messages this short
 * nothing is worth overlapping, and the other streams' forks and joins, a launch apiece, cost more
 * than they hide (docs/design.md#nccl-small).
 */
static dtrResult_t executeOnOneStream(dtrPlan_t plan, const char* a, char* b, cudaStream_t stream) {
  NcclState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  dtrTransposeArgs members[DTR_GROUP_MAX];
  int count = 0, grouped = p <= DTR_GROUP_MAX;
  for (int q = 0; q < p && grouped; q++) { /* A's block for q: packed into q's segment, or r's own into B */
    const dtrBlock k = q == r ? dtrSelfBlock(g, r) : dtrPackBlock(g, &plan->layout, r, q);
    if (k.rows && k.cols && k.batch) members[count++] = transposeArgs(plan, a, q == r ? b : s->send, k);
    grouped = k.transpose;
  }
  dtrTimelineMark(s->timeline, dtrMarkPackBegin, 0, stream);
  if (grouped) CUDACHECK(dtrTransposeGroupLaunch(plan->kernel, members, count, 0, NULL, stream));
  else
    for (int q = 0; q < p; q++)
      DTRCHECK(runBlock(plan, a, q == r ? b : s->send, q == r ? dtrSelfBlock(g, r) : dtrPackBlock(g, &plan->layout, r, q), stream));
  dtrTimelineMark(s->timeline, dtrMarkPackEnd, 0, stream);
  dtrTimelineMark(s->timeline, dtrMarkSendBegin, 0, stream);
  DTRCHECK(exchangeStage(plan, 0, stream));
  dtrTimelineMark(s->timeline, dtrMarkArrived, 0, stream);
  dtrTimelineMark(s->timeline, dtrMarkUnpackBegin, 0, stream);
  for (int q = 0; q < p; q++) DTRCHECK(runBlock(plan, s->recv, b, dtrUnpackBlock(g, &plan->layout, r, q), stream));
  dtrTimelineMark(s->timeline, dtrMarkUnpackEnd, 0, stream);
  return dtrSuccess;
}

/* Rounds of packs and messages, the own block beside them (or last), the unpacks (file comment). */
static dtrResult_t executeOutOfPlace(dtrPlan_t plan, const char* a, char* b, cudaStream_t stream) {
  NcclState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  const dtrBlock self = dtrSelfBlock(g, r);
  const int hasSelf = self.rows && self.cols && self.batch;
  const int n = plan->stages;
  const int selfLast = hasSelf && n == 1 && p >= kSelfLastRanks;
  for (int st = 0; st < n; st++) {
    DTRCHECK(packAndSend(plan, a, st, stream));
    /* The self block forks once the first round is packed: beside the messages, not beside the
     * packs that the first messages wait for. */
    if (st == 0 && hasSelf && !selfLast) {
      CUDACHECK(cudaStreamWaitEvent(s->side, s->packed[0], 0));
      dtrTimelineMark(s->timeline, dtrMarkOwnBegin, 0, s->side);
      DTRCHECK(runBlock(plan, a, b, self, s->side));
      dtrTimelineMark(s->timeline, dtrMarkOwnEnd, 0, s->side);
      CUDACHECK(cudaEventRecord(s->join, s->side));
    }
    if (st > 0) DTRCHECK(unpackStage(plan, b, st - 1, stream));
  }
  DTRCHECK(unpackStage(plan, b, n - 1, stream));
  if (selfLast) {
    dtrTimelineMark(s->timeline, dtrMarkOwnBegin, 0, stream);
    DTRCHECK(runBlock(plan, a, b, self, stream));
    dtrTimelineMark(s->timeline, dtrMarkOwnEnd, 0, stream);
  } else if (hasSelf) CUDACHECK(cudaStreamWaitEvent(stream, s->join, 0));
  return dtrSuccess;
}

static dtrResult_t ncclExecute(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream) {
  (void)checked; /* agreed by dtrExecute */
  NcclState* s = plan->state;
  DTRCHECK(dtrNcclCommUsable(s->nccl));
  CUDACHECK(cudaSetDevice(plan->device));
  dtrTimelineBegin(s->timeline, stream);
  const int small = plan->stages == 1 && dtrBytesPerRank(&plan->geo) <= kOneStreamBytes;
  const dtrResult_t res = dtrExecuteInPlace(plan, in, out) ? executeInPlace(plan, out, stream)
                          : small                         ? executeOnOneStream(plan, in, out, stream)
                                                          : executeOutOfPlace(plan, in, out, stream);
  if (res == dtrSuccess) dtrTimelineEnd(s->timeline, stream);
  return res;
}

static dtrResult_t ncclChunksBegin(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out) {
  (void)checked, (void)in, (void)out; /* the caller agrees; every rank knows every chunk's sizes */
  NcclState* s = plan->state;
  return dtrNcclCommUsable(s->nccl);
}

/* Chunk k, all on `stream` (the FFT's exchange stream, beside its local passes): the chunk's pieces
 * of A packed into compact segments, one NCCL group of their messages, the own block, the unpacks. */
static dtrResult_t ncclChunkRun(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream) {
  (void)ctas;
  NcclState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const dtrExchangeLayout* l = &plan->layout;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  const size_t e = g->entry_bytes;
  CUDACHECK(cudaSetDevice(plan->device));
  for (int q = 0; q < p; q++)
    if (q != r)
      DTRCHECK(runBlock(plan, plan->chunk_in, s->send + (size_t)l->send_offset[q] * e, dtrChunkPackBlock(g, r, q, chunks, k),
                        stream));
  for (int q = 0; q < p; q++) {
    /* A chunk's segments are parts of the whole exchange's. */
    const dtrRange out = {l->send_offset[q], q == r ? 0 : dtrChunkSegmentEntries(g, r, q, chunks, k)};
    const dtrRange in = {l->recv_offset[q], q == r ? 0 : dtrChunkSegmentEntries(g, q, r, chunks, k)};
    s->pieces[q] = out;
    s->pieces[p + q] = in;
  }
  if (p > 1) DTRCHECK(sendAndReceive(plan, s->send, s->recv, stream, "a chunk's group of sends and receives"));
  DTRCHECK(runBlock(plan, plan->chunk_in, plan->chunk_out, dtrChunkDirectBlock(g, r, r, chunks, k), stream));
  for (int q = 0; q < p; q++)
    if (q != r)
      DTRCHECK(runBlock(plan, s->recv + (size_t)l->recv_offset[q] * e, plan->chunk_out, dtrChunkUnpackBlock(g, q, r, chunks, k),
                        stream));
  return dtrSuccess;
}

dtrResult_t dtrNcclMessageBufferCreate(dtrPlan_t plan, size_t bytes, const char* what, char** ptr, void** handle) {
  NcclState* s = plan->state;
  *ptr = NULL, *handle = NULL;
  if (plan->backend != dtrBackendNccl || !s) return dtrSetError(dtrInternalError, "%s: the plan is not on the nccl backend", what);
  if (!bytes) return dtrSuccess;
  CUDACHECK(cudaSetDevice(plan->device));
  DTRCHECK(dtrMessageAlloc((void**)ptr, bytes, what));
  if (plan->comm.nranks > 1 && dtrNcclRegisters(s->nccl)) {
    const ncclResult_t got = ncclCommRegister(s->nccl, *ptr, bytes, handle);
    if (got != ncclSuccess) {
      dtrMessageFree(*ptr);
      *ptr = NULL, *handle = NULL;
      return dtrSetError(dtrNcclError, "ncclCommRegister of %s (%zu bytes) failed: %s", what, bytes, ncclGetErrorString(got));
    }
  }
  return dtrSuccess;
}

void dtrNcclMessageBufferDestroy(dtrPlan_t plan, char* ptr, void* handle) {
  NcclState* s = plan->state;
  if (s && handle) dtrNcclDeregister(s->nccl, handle);
  dtrMessageFree(ptr);
}

dtrResult_t dtrNcclPiecesExchange(dtrPlan_t plan, const char* send, char* recv, const dtrRange* pieces, cudaStream_t stream,
                                  const char* what) {
  NcclState* s = plan->state;
  memcpy(s->pieces, pieces, 2 * (size_t)plan->comm.nranks * sizeof *pieces);
  CUDACHECK(cudaSetDevice(plan->device));
  return sendAndReceive(plan, send, recv, stream, what);
}

static void ncclDestroy(dtrPlan_t plan) {
  NcclState* s = plan->state;
  if (s && plan->device >= 0) cudaSetDevice(plan->device);
  if (s) dtrTimelineReport(s->timeline, plan);
  ncclStateFree(s);
  plan->state = NULL;
}

static dtrResult_t ncclAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer,
                                cudaStream_t stream) {
  NcclState* s = plan->state;
  CUDACHECK(cudaSetDevice(plan->device));
  DTRCHECK(dtrNcclCommUsable(s->nccl));
  return dtrNcclAlltoall(s->nccl, plan->comm.nranks, send, recv, bytes_per_peer, stream);
}

static dtrResult_t ncclAsyncError(dtrPlan_t plan) {
  NcclState* s = plan->state;
  return dtrNcclAsyncError(s->nccl);
}

static void ncclAbort(dtrPlan_t plan) {
  NcclState* s = plan->state;
  dtrNcclCommAbort(s->nccl);
}

const dtrBackendOps dtrNcclBackend = {"nccl",  ncclCreate, dtrCheckDeviceBuffers, ncclExecute, ncclDestroy, ncclAlltoall, 0,
                                      ncclAsyncError, ncclAbort, ncclChunksBegin, ncclChunkRun, NULL};
