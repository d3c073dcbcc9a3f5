/*
 * What a backend is and what it sees of a plan. The plan layer (plan.c) resolves everything here
 * before a backend's create runs: the geometry and exchange layout, the backend, the pipeline stages,
 * where the workspace comes from. A backend reads it, keeps its own state in `state`, and calls
 * nothing above it.
 */
#ifndef DTR_BACKEND_H
#define DTR_BACKEND_H

#include "core/comm.h"
#include "core/geometry.h"
#include "disttranspose.h"

typedef struct dtrBackendOps dtrBackendOps;
struct dtrWorkspace;

/* Where the plan's ranks sit on GPUs (gpu/device.c's dtrGpuPlacementFind). */
typedef struct {
  int shared;      /* agreed: two ranks of the plan on one host use the same GPU */
  int shares_with; /* the lowest other rank of the plan on this rank's GPU; -1: none */
  int sharers;     /* ranks of the plan on this rank's GPU, where it shares it */
  char bus[32];    /* this rank's GPU's PCI bus id ("" without one) */
} dtrGpuPlacement;

struct dtrPlan {
  dtrComm comm;
  dtrGeometry geo;
  dtrDataType_t type;
  int64_t howmany;
  dtrBackend_t backend;  /* resolved: never Auto */
  dtrKernel_t kernel;    /* resolved for the packs: never Auto on the NCCL backend */
  int device;            /* -1 on the CPU backend */
  dtrGpuPlacement gpu;   /* found where a GPU backend is a candidate */
  int stages;            /* pipeline stages of the exchange (geometry.h's dtr*Stage), >= 1 */
  int inplace;           /* config.inplace: executes may pass in == out */
  dtrExchangeLayout layout;
  const dtrBackendOps* ops;
  void* state;           /* the backend's own */
  dtrGrid_t grid;        /* the grid of a pencil plan (a reference held), else NULL */
  struct dtrWorkspace** pool;      /* its grid's pool (config.workspace grid), else NULL: its own */
  struct dtrWorkspace* workspace;  /* the exchange buffers: send segments, then receive segments */
  double timeout;        /* seconds of each collective call's deadline (timeout.h); 0: none */
  int broken;            /* a call of this plan timed out (or NCCL failed under way): it can only be
                            destroyed, without the other ranks */
  const char* chunk_in;  /* the buffers of the execute begun in chunks */
  char* chunk_out;
};

/* A backend: one table of functions (cuDecomp's and NCCL's way of keeping transports apart). */
struct dtrBackendOps {
  const char* name;
  /* Collective; returns an agreed result. On failure it leaves nothing allocated. */
  dtrResult_t (*create)(dtrPlan_t plan, const dtrConfig_t* config);
  /* Local: the buffers have the kind of memory this backend moves (host or device) and room. */
  dtrResult_t (*checkBuffers)(dtrPlan_t plan, const void* in, void* out);
  /* Collective. `checked`: this rank's result of the execute's local checks. Unless the backend
   * agrees on it itself (agrees_on_checks), the plan layer has agreed on it before (DTR_EXECUTE_AGREE)
   * and it is dtrSuccess. in == out (dtrExecuteInPlace) only on plans made with config.inplace. */
  dtrResult_t (*execute)(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream);
  void (*destroy)(dtrPlan_t plan);
  /* The bare all-to-all of `bytes_per_peer` to every rank (itself included), on the backend's
   * transport: the reference the benchmark compares the transpose with. */
  dtrResult_t (*alltoall)(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream);
  /* The backend's execute agrees across the ranks on `checked` within a collective it makes anyway. */
  int agrees_on_checks;
  /* Local, polled while an execute under a deadline runs on the device: an error the transport has
   * seen meanwhile (NULL: none to ask). */
  dtrResult_t (*asyncError)(dtrPlan_t plan);
  /* Local, after a timeout: makes this plan's work on the device that waits for other ranks return,
   * so that the stream drains and the plan can be destroyed (NULL: nothing waits on the device). */
  void (*abort)(dtrPlan_t plan);
  /* An execute in chunks (geometry.h's dtrChunk*: the FFT's overlap of its local passes with the
   * exchange). On the host, once before the chunks: what every chunk needs of the other ranks (p2p:
   * their out pointers, collectively, agreed with `checked`, this rank's result so far; the others
   * need nothing of them and leave the agreement to the caller). */
  dtrResult_t (*chunksBegin)(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out);
  /* Chunk k of `chunks` of the execute begun: stream-ordered work only on the GPU backends (the cpu
   * backend's runs on the host, collectively). Every rank runs every chunk in order, empty ones too.
   * `ctas`: blocks per peer of a one-pass kernel (0: the backend's default). */
  dtrResult_t (*chunkRun)(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream);
  /* After the last chunk, on the chunks' stream: what completes out (p2p: its landing buffer copied
   * in); NULL: nothing. */
  dtrResult_t (*chunksFinish)(dtrPlan_t plan, cudaStream_t stream);
};

/* Workspace bytes for setting the own block aside in in-place executes (the NCCL and CPU backends;
 * dtrStashBlock); 0 on a plan made without config.inplace. */
static inline size_t dtrOwnBlockStashBytes(dtrPlan_t plan) {
  return plan->inplace ? (size_t)dtrStashEntries(&plan->geo, plan->comm.rank) * plan->geo.entry_bytes : 0;
}

/* Whether an execute runs in place: one buffer for A and B on a rank that holds both. */
static inline int dtrExecuteInPlace(dtrPlan_t plan, const void* in, const void* out) {
  const int r = plan->comm.rank;
  return in == out && dtrInEntries(&plan->geo, r) > 0 && dtrOutEntries(&plan->geo, r) > 0;
}

extern const dtrBackendOps dtrNcclBackend;
extern const dtrBackendOps dtrCpuBackend;
extern const dtrBackendOps dtrP2pBackend;

#endif
