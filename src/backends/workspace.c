#include "workspace.h"

#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/gpu/nccl_comms.h"
#include "backends/gpu/nccl_loader.h"
#include "core/checks.h"
#include "core/comm.h"
#include "core/memory.h"
#include "core/params.h"

size_t dtrWorkspaceRecvOffset(size_t send_bytes) { return (send_bytes + 255) / 256 * 256; }

/* Whether message buffers come from ncclMemAlloc: only where they are to be registered, and where
 * NCCL loads (a p2p plan does without it). Constant once asked: the load is tried once. */
static int fromNccl(void) { return dtrEnvParamsGet()->nccl_register && dtrNcclAvailable(); }

dtrResult_t dtrMessageAlloc(void** ptr, size_t bytes, const char* what) {
  *ptr = NULL;
  int device = -1;
  (void)cudaGetDevice(&device);
  const char* failed = NULL;
  if (fromNccl()) {
    const ncclResult_t got = ncclMemAlloc(ptr, bytes);
    if (got != ncclSuccess) failed = ncclGetErrorString(got), *ptr = NULL;
  } else {
    const cudaError_t got = cudaMalloc(ptr, bytes);
    if (got != cudaSuccess) failed = cudaGetErrorString(got), *ptr = NULL;
  }
  /* Zeroed once: the padding of aligned segments is sent but never written by a pack, and should
   * carry defined bytes (compute-sanitizer's initcheck reads the messages whole). Waited for here:
   * the memset runs on the legacy stream, which a caller's non-blocking stream does not follow, so
   * it could otherwise land after the first execute's packs or in-place copy and wipe them. */
  if (!failed) {
    cudaError_t zeroed = cudaMemset(*ptr, 0, bytes);
    if (zeroed == cudaSuccess) zeroed = cudaStreamSynchronize(cudaStreamLegacy);
    if (zeroed != cudaSuccess) failed = cudaGetErrorString(zeroed);
  }
  if (!failed) return dtrSuccess;
  (void)cudaGetLastError();
  dtrMessageFree(*ptr);
  *ptr = NULL;
  return dtrSetError(dtrOutOfMemory, "cannot allocate %zu bytes for %s on GPU %d: %s", bytes, what, device, failed);
}

void dtrMessageFree(void* ptr) {
  if (!ptr) return;
  dtrNcclForgetBuffer(ptr);
  /* cudaFree waits for the device to finish what may still use the buffer; cuMem's unmap does not,
   * so wait first, as cudaFree would (a plan may be destroyed with its last execute in flight). */
  if (fromNccl()) {
    (void)cudaDeviceSynchronize();
    ncclMemFree(ptr);
  } else {
    cudaFree(ptr);
  }
}

static dtrResult_t allocate(int device, size_t bytes, void** ptr) {
  if (device < 0) {
    if (!(*ptr = malloc(bytes)))
      return dtrSetError(dtrOutOfMemory, "cannot allocate %zu bytes of host workspace", bytes);
    /* Touched now, so that the memory checked before is taken here, not found missing later. */
    memset(*ptr, 0, bytes);
    return dtrSuccess;
  }
  return dtrMessageAlloc(ptr, bytes, "the plan's workspace");
}

/* The pool's largest buffer on `device`, if any. */
static dtrWorkspace* largest(dtrWorkspace** pool, int device) {
  dtrWorkspace* best = NULL;
  if (pool)
    for (dtrWorkspace* w = *pool; w; w = w->next)
      if (w->device == device && (!best || w->bytes > best->bytes)) best = w;
  return best;
}

size_t dtrWorkspaceToAllocate(dtrWorkspace** pool, int device, size_t bytes) {
  const dtrWorkspace* best = largest(pool, device);
  return best && best->bytes >= bytes ? 0 : bytes;
}

dtrResult_t dtrWorkspaceAcquire(dtrWorkspace** pool, int device, size_t bytes, dtrWorkspace** out) {
  *out = NULL;
  if (!bytes) return dtrSuccess;
  dtrWorkspace* best = largest(pool, device);
  if (best && best->bytes >= bytes) {
    best->refs++;
    *out = best;
    return dtrSuccess;
  }
  dtrWorkspace* w = calloc(1, sizeof *w);
  if (!w) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  dtrResult_t res = allocate(device, bytes, &w->ptr);
  if (res != dtrSuccess) {
    free(w);
    return res;
  }
  w->bytes = bytes;
  w->device = device;
  w->refs = 1;
  if (pool) {
    w->next = *pool;
    *pool = w;
  }
  *out = w;
  return dtrSuccess;
}

void dtrWorkspaceRelease(dtrWorkspace** pool, dtrWorkspace* ws) {
  if (!ws || --ws->refs > 0) return;
  if (pool)
    for (dtrWorkspace** p = pool; *p; p = &(*p)->next)
      if (*p == ws) {
        *p = ws->next;
        break;
      }
  if (ws->device < 0) free(ws->ptr);
  else dtrMessageFree(ws->ptr);
  free(ws);
}

void dtrPlanWorkspaceRelease(dtrPlan_t plan) {
  dtrWorkspaceRelease(plan->pool, plan->workspace);
  plan->workspace = NULL;
}

dtrResult_t dtrPlanWorkspaceAcquire(dtrPlan_t plan, int device, size_t stash_bytes, char** send, char** recv,
                                    char** stash) {
  const size_t e = plan->geo.entry_bytes;
  const size_t sendBytes = send ? (size_t)plan->layout.send_total * e : 0;
  const size_t recvBytes = recv ? (size_t)plan->layout.recv_total * e : 0;
  /* Every part rounded up: a transpose and its inverse (sends and receives swapped) then need the
   * same bytes and can share one pooled buffer. */
  const size_t at = dtrWorkspaceRecvOffset(sendBytes), stashAt = at + dtrWorkspaceRecvOffset(recvBytes);
  const size_t bytes = stashAt + dtrWorkspaceRecvOffset(stash_bytes);
  dtrWorkspace** pool = plan->pool;
  DTRCHECK(dtrMemoryCheck(plan->comm.comm, plan->comm.local, device, dtrWorkspaceToAllocate(pool, device, bytes), "the plan's workspace"));
  DTRCHECK(dtrAgree(plan->comm.comm, dtrWorkspaceAcquire(pool, device, bytes, &plan->workspace)));
  char* base = plan->workspace ? plan->workspace->ptr : NULL;
  if (send) *send = sendBytes ? base : NULL;
  if (recv) *recv = recvBytes ? base + at : NULL;
  if (stash) *stash = stash_bytes ? base + stashAt : NULL;
  return dtrSuccess;
}

