/*
 * p2p backend: the one-pass path inside a host. Each rank's GPU reaches every peer's memory (NVLink
 * or PCIe peer-to-peer), so one grouped kernel per rank reads its slab of A once, transposes each
 * peer's block in shared memory and stores it straight into that peer's B (its own block into its
 * own B): no pack, no staging buffer, no message, no unpack.
 *
 * An execute, all on the caller's stream:
 *   arrive    a barrier between the GPUs: no rank stores into a B before its owner's stream has
 *             finished what came before the execute (which may still read the previous result)
 *   transpose dtrTransposeGroupLaunch with every rank's dtrDirectBlock
 *   finish    a barrier: B is complete once every rank's stores into it are
 * The barriers are flags in each rank's device memory, mapped into every peer at plan time (see
 * peer_sync.cuh); nothing waits on the host. By default they run inside the pass kernel, which
 * makes an execute one launch (DTR_P2P_FUSED_BARRIERS). With DTR_PERF_REPORT=1 they run as kernels
 * of their own, so that the three can be marked apart (timeline.h) and summarized when the plan is
 * destroyed.
 *
 * The peers' B: each execute the ranks exchange a description of their out pointer over MPI (a
 * few dozen bytes; the IPC handle only the first time a plan sees an allocation), and map the ones
 * new to this process (peer_memory.c). An execute is capturable into a CUDA graph once its buffers
 * have been through one execute outside the capture.
 *
 * A B that CUDA IPC cannot share (a stream-ordered pool's, or a framework allocator's such as XLA's):
 * its rank describes its landing buffer instead, an allocation of the plan's own that the peers map
 * once, and copies it into B after the finishing barrier. The choice is each rank's own (the peers map
 * whatever pointer they are given), so it needs no agreement; the cost is one local copy of B.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/gpu/device.h"
#include "backends/gpu/nccl_comms.h"
#include "backends/gpu/timeline.h"
#include "backends/workspace.h"
#include "core/checks.h"
#include "core/params.h"
#include "core/timeout.h"
#include "launch.h"
#include "p2p.h"
#include "peer_book.h"
#include "peer_memory.h"

typedef struct {
  dtrPeerFlags flags;             /* flags.peer[rank] is this rank's own array */
  int flag_mappings[DTR_GROUP_MAX]; /* the peers' arrays as mapped here (-1: own) */
  dtrPeerBook book;               /* this rank's B allocations the peers have mapped, those CUDA IPC
                                     cannot share, and the mappings of the peers' B held */
  dtrPeerBuffer* records;         /* [nranks]: one execute's exchange */
  int ctas;
  int fused;                      /* the barriers inside the pass kernel */
  char* stash;                    /* a copy of A for in-place executes (config.inplace) */
  unsigned* abort;                /* pinned host word the barriers watch (flags.abort): set after a timeout */
  char* chunk_outs[DTR_GROUP_MAX]; /* every rank's B as mapped here, for the chunks of an execute begun */
  void* chunk_landed;             /* that execute's B where its landing stands in for it, else NULL */
  char* landing;                  /* this rank's stand-in for a B that CUDA IPC cannot share (on first need) */
  ncclComm_t nccl;                /* only for the benchmark's bare all-to-all, made on first use */
  dtrTimeline* timeline;          /* DTR_PERF_REPORT, else NULL */
} P2pState;

static void p2pStateFree(dtrPlan_t plan, P2pState* s) {
  if (!s) return;
  dtrPeerBookClear(&s->book);
  for (int q = 0; q < plan->comm.nranks && q < DTR_GROUP_MAX; q++)
    if (q != plan->comm.rank) dtrPeerBufferUnmap(s->flag_mappings[q]);
  /* The peers have unmapped this rank's flags before they are freed; after a timeout they may never
   * come, and the flags are left to the end of the process instead. */
  const int agreed = !plan->broken && !dtrDeadlinePassed() && dtrBarrier(plan->comm.comm, "the peers to unmap the p2p flags") == dtrSuccess;
  if (agreed && plan->comm.rank < DTR_GROUP_MAX && s->flags.peer[plan->comm.rank]) cudaFree(s->flags.peer[plan->comm.rank]);
  if (agreed && s->landing) cudaFree(s->landing);
  if (s->abort) cudaFreeHost(s->abort);
  if (s->nccl) dtrNcclCommRelease(s->nccl);
  dtrTimelineDestroy(s->timeline);
  free(s->records);
  free(s);
}

/* Every rank's GPU must be visible here and reachable from this rank's: checked on every rank. */
static dtrResult_t checkPeers(dtrPlan_t plan) {
  const dtrComm* c = &plan->comm;
  if (c->nhosts != 1)
    return dtrSetError(dtrInvalidArgument,
                       "the p2p backend needs every rank of the communicator on one host; these %d ranks span %d hosts "
                       "(use nccl)",
                       c->nranks, c->nhosts);
  if (c->nranks > DTR_GROUP_MAX)
    return dtrSetError(dtrInvalidArgument, "the p2p backend serves at most %d ranks; this communicator has %d",
                       DTR_GROUP_MAX, c->nranks);
  enum { kBusId = 32 };
  char* bus = calloc((size_t)c->nranks, kBusId);
  if (!bus) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  dtrResult_t res = dtrSuccess;
  if (cudaDeviceGetPCIBusId(bus + (size_t)c->rank * kBusId, kBusId, plan->device) != cudaSuccess) {
    (void)cudaGetLastError();
    res = dtrSetError(dtrCudaError, "cannot read the PCI bus id of GPU %d", plan->device);
  }
  dtrResult_t gathered = dtrAllgather(bus, kBusId, c->comm, "the GPUs' bus ids");
  if (gathered != dtrSuccess) res = gathered;
  for (int q = 0; q < c->nranks && res == dtrSuccess; q++) {
    if (q == c->rank) continue;
    const char* id = bus + (size_t)q * kBusId;
    int dev = -1, can = 0;
    if (cudaDeviceGetByPCIBusId(&dev, id) != cudaSuccess) {
      (void)cudaGetLastError();
      res = dtrSetError(dtrInvalidArgument,
                        "rank %d's GPU (%s) is not visible to rank %d: the p2p backend needs every rank to see every "
                        "GPU (CUDA_VISIBLE_DEVICES)",
                        q, id, c->rank);
    } else if (dev == plan->device) {
      continue; /* ranks that share a GPU: CUDA IPC maps the other process's memory on the same device */
    } else if (cudaDeviceCanAccessPeer(&can, plan->device, dev) != cudaSuccess || !can) {
      (void)cudaGetLastError();
      res = dtrSetError(dtrInvalidArgument,
                        "GPU %d (rank %d) cannot access the memory of GPU %d (rank %d, %s): no peer-to-peer path; use nccl",
                        plan->device, c->rank, dev, q, id);
    }
  }
  free(bus);
  return res;
}

/*
 * Collective: every rank's description of `p` (with its handle where the peers have not had it);
 * maps the peers' ones here into ptrs[q] (ptrs[rank] = p). `described`: p's description without its
 * handle where the caller has it (NULL: described here). `publish` tells whether p's allocation is new
 * to this plan's peers (-1: look it up). Returns an agreed result.
 */
static dtrResult_t exchangePointers(dtrPlan_t plan, P2pState* s, dtrResult_t checked, void* p,
                                    const dtrPeerBuffer* described, int publish, char** ptrs, int* mappings,
                                    uint64_t* id) {
  const dtrComm* c = &plan->comm;
  dtrPeerBuffer* mine = &s->records[c->rank];
  memset(mine, 0, sizeof *mine);
  dtrResult_t res = checked;
  if (res == dtrSuccess && described) *mine = *described;
  else if (res == dtrSuccess) res = dtrPeerBufferDescribe(p, 0, mine);
  if (res == dtrSuccess && publish < 0) publish = !dtrPeerBookPublished(&s->book, mine->buffer_id);
  if (res == dtrSuccess && publish) res = dtrPeerBufferDescribe(p, 1, mine);
  mine->result = (int32_t)res;
  DTRCHECK(dtrAllgather(s->records, (int)sizeof *mine, c->comm, "the other ranks' out buffers"));
  int failed = 0, fresh = 0;
  for (int q = 0; q < c->nranks; q++) {
    failed |= s->records[q].result != dtrSuccess;
    fresh |= s->records[q].has_handle;
  }
  /* Every rank saw the same records: a failure anywhere is every rank's. */
  if (failed) return dtrAgree(c->comm, res);
  *id = mine->buffer_id;
  for (int q = 0; q < c->nranks && res == dtrSuccess; q++) {
    mappings[q] = -1;
    if (q == c->rank) ptrs[q] = p;
    else res = dtrPeerBufferMap(&s->records[q], plan->device, &ptrs[q], &mappings[q]);
  }
  if (res != dtrSuccess)
    for (int q = 0; q < c->nranks; q++)
      if (q != c->rank && mappings[q] >= 0) dtrPeerBufferUnmap(mappings[q]);
  /* Allocations every rank has mapped before map again by reference (nothing to fail but a host
   * allocation): only an execute that brings a new handle agrees on the mappings. */
  if (!fresh) return res;
  return dtrAgree(c->comm, res);
}

/* Keeps the new mappings (dropping those of allocations already held) and the published id. */
static dtrResult_t keepMappings(dtrPlan_t plan, P2pState* s, const int* mappings, uint64_t id, int published) {
  DTRCHECK(dtrPeerBookHold(&s->book, mappings, plan->comm.nranks));
  return published ? dtrPeerBookPublish(&s->book, id) : dtrSuccess;
}

static dtrResult_t createFlags(dtrPlan_t plan, P2pState* s) {
  const int p = plan->comm.nranks, r = plan->comm.rank;
  const size_t bytes = DTR_PEER_FLAG_WORDS(p) * sizeof(uint64_t);
  s->flags.rank = r;
  s->flags.nranks = p;
  dtrResult_t res = dtrSuccess;
  void* own = NULL;
  cudaError_t err = cudaHostAlloc((void**)&s->abort, sizeof *s->abort, cudaHostAllocMapped);
  if (err == cudaSuccess) {
    *s->abort = 0;
    err = cudaHostGetDevicePointer((void**)&s->flags.abort, s->abort, 0);
  }
  if (err == cudaSuccess) err = cudaMalloc(&own, bytes);
  if (err == cudaSuccess) err = cudaMemset(own, 0, bytes);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    res = dtrSetError(DTR_CUDA_RESULT(err), "cannot allocate the p2p backend's flags: %s", cudaGetErrorString(err));
  }
  s->flags.peer[r] = own;
  DTRCHECK(dtrAgree(plan->comm.comm, res));
  char* ptrs[DTR_GROUP_MAX];
  uint64_t id = 0;
  DTRCHECK(exchangePointers(plan, s, dtrSuccess, own, NULL, 1, ptrs, s->flag_mappings, &id));
  for (int q = 0; q < p; q++) s->flags.peer[q] = (uint64_t*)ptrs[q];
  return dtrSuccess;
}

static dtrResult_t p2pCreate(dtrPlan_t plan, const dtrConfig_t* config) {
  const int p = plan->comm.nranks;
  P2pState* s = calloc(1, sizeof *s);
  dtrResult_t res = s ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate the p2p backend state");
  if (s) {
    for (int q = 0; q < DTR_GROUP_MAX; q++) s->flag_mappings[q] = -1;
    s->records = calloc((size_t)p, sizeof *s->records);
    if (!s->records) res = dtrSetError(dtrOutOfMemory, "cannot allocate the p2p backend state");
  }
  if (res == dtrSuccess) res = dtrSelectDevice(plan, config, "p2p", 0, &plan->device);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, res), res, fail);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, checkPeers(plan)), res, fail);
  DTRCHECKGOTO(createFlags(plan, s), res, fail);
  if (plan->inplace)
    DTRCHECKGOTO(dtrPlanWorkspaceAcquire(plan, plan->device,
                                         (size_t)dtrInEntries(&plan->geo, plan->comm.rank) * plan->geo.entry_bytes, NULL,
                                         NULL, &s->stash),
                 res, fail);
  const dtrEnvParams* env = dtrEnvParamsGet();
  dtrKernelTuningSet(env->tma_boxes, env->tile_group, env->streaming, env->tiles_per_cta);
  s->ctas = env->p2p_ctas;
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, dtrTimelineCreate(1, &s->timeline)), res, fail);
  /* The same on every rank: the environment is the job's, and so is the report. */
  s->fused = env->p2p_fused_barriers && !s->timeline;
  /* The grouped kernel is the 16-byte one where pitches and pointers allow, else element-wise. */
  plan->kernel = config->kernel == dtrKernelSimt ? dtrKernelSimt : dtrKernelSimt16;
  plan->state = s;
  return dtrSuccess;
fail:
  if (s) p2pStateFree(plan, s);
  dtrPlanWorkspaceRelease(plan); /* auto may go on to NCCL with this plan */
  return res;
}

/* Local: the landing buffer, made on first need (the room of this rank's B). */
static dtrResult_t landingGet(dtrPlan_t plan, P2pState* s) {
  if (s->landing) return dtrSuccess;
  const size_t bytes = (size_t)dtrOutEntries(&plan->geo, plan->comm.rank) * plan->geo.entry_bytes;
  const cudaError_t err = cudaMalloc((void**)&s->landing, bytes);
  if (err == cudaSuccess) return dtrSuccess;
  (void)cudaGetLastError();
  s->landing = NULL;
  return dtrSetError(DTR_CUDA_RESULT(err),
                     "cannot allocate the p2p backend's landing buffer (%zu bytes) for an out buffer CUDA IPC cannot "
                     "share: %s",
                     bytes, cudaGetErrorString(err));
}

/* Collective: every rank's B (out) mapped here into outs[]; *landed where this rank's landing buffer
 * stands in for an out that CUDA IPC cannot share (the caller copies it into out afterwards). */
static dtrResult_t mapOuts(dtrPlan_t plan, dtrResult_t checked, void* out, char** outs, int* landed) {
  P2pState* s = plan->state;
  const int r = plan->comm.rank;
  /* A rank that owns no B still takes part: it has nothing to map, so it stands in its flags. */
  void* mine = dtrOutEntries(&plan->geo, r) > 0 ? out : (void*)s->flags.peer[r];
  *landed = 0;
  /* Described once an execute: where that fails, exchangePointers describes it again and reports why. */
  dtrPeerBuffer d;
  const int described = checked == dtrSuccess && dtrPeerBufferDescribe(mine, 0, &d) == dtrSuccess;
  if (described && mine == out && dtrPeerBookCannotShare(&s->book, out, d.buffer_id)) {
    checked = landingGet(plan, s);
    *landed = checked == dtrSuccess;
    if (*landed) mine = s->landing;
  }
  int mappings[DTR_GROUP_MAX];
  uint64_t id = 0;
  DTRCHECK(exchangePointers(plan, s, checked, mine, described && !*landed ? &d : NULL, -1, outs, mappings, &id));
  return keepMappings(plan, s, mappings, id, s->records[r].has_handle);
}

/* The one pass over `blocks` ([q]: r's block for rank q, into outs[q]), between the two barriers;
 * marked on `marks` (an execute's timeline, or NULL). */
static dtrResult_t launchPass(dtrPlan_t plan, const char* a, char** outs, const dtrBlock* blocks, int ctas,
                              dtrTimeline* marks, cudaStream_t stream) {
  P2pState* s = plan->state;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  const size_t e = plan->geo.entry_bytes;
  dtrTransposeArgs members[DTR_GROUP_MAX];
  int n = 0;
  for (int i = 1; i <= p; i++) {
    /* Peers in a staggered order (rank r starts with r + 1), its own block last. */
    const int q = (r + i) % p;
    const dtrBlock k = blocks[q];
    if (!k.rows || !k.cols || !k.batch) continue;
    members[n++] = (dtrTransposeArgs){a + k.src_offset * e, k.src_ld, outs[q] + k.dst_offset * e,
                                      k.dst_ld, k.rows, k.cols, e, k.batch, k.src_stride, k.dst_stride};
  }
  if (s->fused) {
    CUDACHECK(dtrTransposeGroupLaunch(plan->kernel, members, n, ctas, &s->flags, stream));
  } else {
    CUDACHECK(dtrPeerBarrierLaunch(&s->flags, dtrPeerArrive, stream));
    dtrTimelineMark(marks, dtrMarkPeersReady, 0, stream);
    CUDACHECK(dtrTransposeGroupLaunch(plan->kernel, members, n, ctas, NULL, stream));
    dtrTimelineMark(marks, dtrMarkPassEnd, 0, stream);
    CUDACHECK(dtrPeerBarrierLaunch(&s->flags, dtrPeerFinish, stream));
  }
  return dtrSuccess;
}

static dtrResult_t p2pExecute(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream) {
  P2pState* s = plan->state;
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  CUDACHECK(cudaSetDevice(plan->device));
  char* outs[DTR_GROUP_MAX];
  int landed = 0;
  DTRCHECK(mapOuts(plan, checked, out, outs, &landed));
  /* In place, the peers store into this rank's A: the kernel reads a copy of it, made before this
   * rank arrives at the barrier that lets them start. */
  const char* a = in;
  dtrTimelineBegin(s->timeline, stream);
  if (dtrExecuteInPlace(plan, in, out)) {
    CUDACHECK(cudaMemcpyAsync(s->stash, in, (size_t)dtrInEntries(g, r) * g->entry_bytes, cudaMemcpyDeviceToDevice, stream));
    a = s->stash;
  }
  dtrBlock blocks[DTR_GROUP_MAX];
  for (int q = 0; q < p; q++) blocks[q] = dtrDirectBlock(g, r, q);
  DTRCHECK(launchPass(plan, a, outs, blocks, s->ctas, s->timeline, stream));
  if (landed) CUDACHECK(cudaMemcpyAsync(out, s->landing, (size_t)dtrOutEntries(g, r) * g->entry_bytes, cudaMemcpyDeviceToDevice, stream));
  dtrTimelineEnd(s->timeline, stream);
  return dtrSuccess;
}

static dtrResult_t p2pChunksBegin(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out) {
  (void)in;
  P2pState* s = plan->state;
  CUDACHECK(cudaSetDevice(plan->device));
  int landed = 0;
  s->chunk_landed = NULL;
  DTRCHECK(mapOuts(plan, checked, out, s->chunk_outs, &landed));
  if (landed) s->chunk_landed = out;
  return dtrSuccess;
}

/* Chunk k: one pass over the chunk's blocks, with its own two barriers (an epoch per chunk). */
static dtrResult_t p2pChunkRun(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream) {
  P2pState* s = plan->state;
  const int r = plan->comm.rank, p = plan->comm.nranks;
  CUDACHECK(cudaSetDevice(plan->device));
  dtrBlock blocks[DTR_GROUP_MAX];
  for (int q = 0; q < p; q++) blocks[q] = dtrChunkDirectBlock(&plan->geo, r, q, chunks, k);
  return launchPass(plan, plan->chunk_in, s->chunk_outs, blocks, ctas > 0 ? ctas : s->ctas, NULL, stream);
}

/* After the last chunk: a landed B copied into the caller's. */
static dtrResult_t p2pChunksFinish(dtrPlan_t plan, cudaStream_t stream) {
  P2pState* s = plan->state;
  if (!s->chunk_landed) return dtrSuccess;
  CUDACHECK(cudaSetDevice(plan->device));
  CUDACHECK(cudaMemcpyAsync(s->chunk_landed, s->landing,
                            (size_t)dtrOutEntries(&plan->geo, plan->comm.rank) * plan->geo.entry_bytes,
                            cudaMemcpyDeviceToDevice, stream));
  s->chunk_landed = NULL;
  return dtrSuccess;
}

char* const* dtrP2pChunkOuts(dtrPlan_t plan) {
  if (plan->backend != dtrBackendP2p || !plan->state || ((P2pState*)plan->state)->chunk_landed) return NULL;
  return ((P2pState*)plan->state)->chunk_outs;
}

dtrResult_t dtrP2pBarrier(dtrPlan_t plan, dtrPeerPhase phase, cudaStream_t stream) {
  P2pState* s = plan->state;
  CUDACHECK(dtrPeerBarrierLaunch(&s->flags, phase, stream));
  return dtrSuccess;
}

dtrResult_t dtrP2pChunkSignal(dtrPlan_t plan, unsigned peers, int chunk, cudaStream_t stream) {
  P2pState* s = plan->state;
  CUDACHECK(dtrPeerChunkSignalLaunch(&s->flags, peers, chunk, stream));
  return dtrSuccess;
}

dtrResult_t dtrP2pChunkWait(dtrPlan_t plan, int chunk, cudaStream_t stream) {
  P2pState* s = plan->state;
  CUDACHECK(dtrPeerChunkWaitLaunch(&s->flags, chunk, stream));
  return dtrSuccess;
}

static void p2pDestroy(dtrPlan_t plan) {
  if (plan->device >= 0) cudaSetDevice(plan->device);
  P2pState* s = plan->state;
  if (s) dtrTimelineReport(s->timeline, plan);
  p2pStateFree(plan, plan->state);
  plan->state = NULL;
}

/* The reference of the benchmarks is NCCL's all-to-all on the same ranks. */
static dtrResult_t p2pAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer,
                               cudaStream_t stream) {
  P2pState* s = plan->state;
  if (plan->gpu.shared)
    return dtrSetError(dtrInvalidArgument, "the bare NCCL all-to-all cannot run where ranks share a GPU (NCCL allows one rank per GPU)");
  CUDACHECK(cudaSetDevice(plan->device));
  if (!s->nccl) DTRCHECK(dtrNcclCommAcquire(plan->comm.comm, plan->device, &s->nccl));
  return dtrNcclAlltoall(s->nccl, plan->comm.nranks, send, recv, bytes_per_peer, stream);
}

static void p2pAbort(dtrPlan_t plan) {
  P2pState* s = plan->state;
  if (s->abort) *(volatile unsigned*)s->abort = 1;
  if (s->nccl) dtrNcclCommAbort(s->nccl);
}

const dtrBackendOps dtrP2pBackend = {"p2p", p2pCreate, dtrCheckDeviceBuffers, p2pExecute, p2pDestroy, p2pAlltoall, 1,
                                     NULL, p2pAbort, p2pChunksBegin, p2pChunkRun, p2pChunksFinish};
