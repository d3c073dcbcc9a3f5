/*
 * The halo plan behind dtrHaloPlan_t: its layout (halo_geometry.h), the communicators of its steps and
 * the backend's state. The halo wing sits on the grid, the geometry and the backends' shared GPU
 * pieces (device placement, NCCL communicators, peer memory and barriers); nothing below calls it.
 */
#ifndef DTR_HALO_PLAN_H
#define DTR_HALO_PLAN_H

#include "backends/backend.h"
#include "disttranspose.h"
#include "halo_geometry.h"

struct dtrHaloGpu;

struct dtrHaloPlan {
  dtrGrid_t grid;          /* a reference: its communicator agrees every execute */
  dtrPlan_t base;          /* the plan layer's view of the grid's ranks (comm, hosts, the GPU placement,
                              the backend, the device, the timeout); it moves nothing itself */
  int64_t shape[3];
  dtrPencil_t pencil;
  dtrDataType_t type;
  int64_t howmany;
  size_t entry;            /* bytes of an entry */
  dtrBox_t box, padded;
  dtrHaloLayout layout;
  MPI_Comm stepComm[3];    /* a duplicate of the grid group of each step (MPI_COMM_NULL: none) */
  void* cpu;               /* halo_cpu.c's state */
  struct dtrHaloGpu* gpu;  /* halo_gpu.c's */
};

/* Collective: the backend's state (the layout made). Returns an agreed result; frees nothing. */
dtrResult_t dtrHaloCpuCreate(struct dtrHaloPlan* h);
dtrResult_t dtrHaloGpuCreate(struct dtrHaloPlan* h, const dtrConfig_t* cfg);
/* Whether an execute's agreement is dtrHaloGpuAgree's (the p2p backend storing into the peers' arrays;
 * the adjoint's too, which stores into their receive buffers, so that a refusal agrees with either). */
int dtrHaloGpuAgrees(const struct dtrHaloPlan* h);
/* Collective: an execute's agreement on this rank's `checked` and its `direction` (as dtrAgreeWith's),
 * which also exchanges the ranks' descriptions of their padded arrays and maps the peers' here. */
dtrResult_t dtrHaloGpuAgree(struct dtrHaloPlan* h, dtrResult_t checked, const dtrAgreedValue* direction, void* buf);
/* Collective: one exchange whose checks every rank has agreed on, or its adjoint. */
dtrResult_t dtrHaloCpuExecute(struct dtrHaloPlan* h, char* buf);
dtrResult_t dtrHaloGpuExecute(struct dtrHaloPlan* h, char* buf, cudaStream_t stream);
dtrResult_t dtrHaloCpuAdjoint(struct dtrHaloPlan* h, char* buf);
dtrResult_t dtrHaloGpuAdjoint(struct dtrHaloPlan* h, char* buf, cudaStream_t stream);
/* Local, after a timeout: makes the device work that waits for other ranks return. */
void dtrHaloGpuAbort(struct dtrHaloPlan* h);
dtrResult_t dtrHaloGpuAsyncError(struct dtrHaloPlan* h);
void dtrHaloCpuDestroy(struct dtrHaloPlan* h);
void dtrHaloGpuDestroy(struct dtrHaloPlan* h);

/* Collective, for the benchmark: the bare exchange of the same bytes with the same peers on the plan's
 * transport (NCCL send/recv on the GPU backends, MPI on the cpu one): for each step, one message to
 * and from each peer of its segment's size, between `send` and `recv` (each of dtrHaloBareBytes). */
size_t dtrHaloBareBytes(struct dtrHaloPlan* h);
dtrResult_t dtrHaloBareExchange(struct dtrHaloPlan* h, void* send, void* recv, cudaStream_t stream);
dtrResult_t dtrHaloCpuBare(struct dtrHaloPlan* h, void* send, void* recv);
dtrResult_t dtrHaloGpuBare(struct dtrHaloPlan* h, void* send, void* recv, cudaStream_t stream);

#endif
