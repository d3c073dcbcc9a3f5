/*
 * The exchange buffers of a plan (send segments, then receive segments). A plan owns its own, or,
 * where its config asks for it, takes one from the pool of its grid: pencil plans whose executes
 * never overlap (an FFT's transposes on one stream) then hold one set between them instead of one
 * each. A pooled buffer is never moved or grown while a plan holds it, so captured graphs stay valid.
 */
#ifndef DTR_WORKSPACE_H
#define DTR_WORKSPACE_H

#include <stddef.h>

#include "disttranspose.h"

typedef struct dtrWorkspace {
  void* ptr;
  size_t bytes;
  int device;  /* -1: host memory */
  int refs;
  struct dtrWorkspace* next;
} dtrWorkspace;

/*
 * Device memory that messages are sent from and received into, on the current device. Under
 * DTR_NCCL_REGISTER=1 (the default) from ncclMemAlloc (cuMem), which NCCL registers (ncclCommRegister) for moving
 * messages straight between the ranks' buffers instead of through its own staging buffers (cudaMalloc
 * memory it registers only under NCCL_LEGACY_CUDA_REGISTER=1); else from cudaMalloc. Zeroed. `what`
 * names the buffer in the error message.
 */
dtrResult_t dtrMessageAlloc(void** ptr, size_t bytes, const char* what);
void dtrMessageFree(void* ptr);

/* Where the receive segments start: after the send segments, 256-byte aligned. */
size_t dtrWorkspaceRecvOffset(size_t send_bytes);

/* Local. `pool` NULL: a buffer of its own. Otherwise the pool's largest buffer on `device` when it
 * holds `bytes`, else a new one added to the pool. *ws is NULL when bytes is 0. */
dtrResult_t dtrWorkspaceAcquire(dtrWorkspace** pool, int device, size_t bytes, dtrWorkspace** ws);
/* Local: the bytes dtrWorkspaceAcquire would allocate anew (0 where the pool's buffer serves). */
size_t dtrWorkspaceToAllocate(dtrWorkspace** pool, int device, size_t bytes);
/* Local: drops the reference; the last one frees the buffer (on its device, which stays current). */
void dtrWorkspaceRelease(dtrWorkspace** pool, dtrWorkspace* ws);

/* Collective: a plan's exchange buffers on `device` (-1: host memory), from its pool or its own
 * (plan->pool), with `stash_bytes` more for in-place executes; *send, *recv and *stash point into them
 * (NULL when empty; stash may be NULL where none is asked). Checked against the memory free first;
 * returns an agreed result. */
dtrResult_t dtrPlanWorkspaceAcquire(dtrPlan_t plan, int device, size_t stash_bytes, char** send, char** recv,
                                    char** stash);
/* Local: gives the plan's exchange buffers back (to its grid's pool where they came from one). */
void dtrPlanWorkspaceRelease(dtrPlan_t plan);

#endif
