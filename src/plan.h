/*
 * The plan layer: a plan's life between the door (api.c), which checks and agrees on its arguments,
 * and the backends, which move its data. Here the backend and the pipeline stages are resolved (in
 * one place), an execute's checks agreed, run and waited for under a deadline, auto's p2p plans hand
 * buffers they cannot serve over to NCCL, and plans are freed.
 */
#ifndef DTR_PLAN_H
#define DTR_PLAN_H

#include "backends/backend.h"
#include "disttranspose.h"

/* The seconds of a plan's deadlines: config.timeout, else DTR_TIMEOUT (0: none). */
double dtrConfigTimeout(const dtrConfig_t* cfg);

/* Collective over comm (duplicated): a plan before its geometry is known. */
dtrResult_t dtrPlanNew(MPI_Comm comm, dtrPlan_t* out);

/* Collective: the plan's backend from config.backend (else DTR_BACKEND). Auto: p2p where every rank is
 * on one host with a GPU (always where ranks share a GPU, which NCCL refuses; for a transpose, unless
 * its shape suits NCCL better, p2p_rule.c), NCCL where they span hosts, the cpu where a rank has no
 * GPU. *tryP2p: p2p is auto's first choice, to be replaced by NCCL if it cannot serve. `transpose`: the
 * plan has a transpose's geometry (a halo plan's has none). */
dtrResult_t dtrPlanResolveBackend(dtrPlan_t plan, const dtrConfig_t* cfg, int transpose, int* tryP2p);

/* Collective: the rest of a plan whose arguments every rank has agreed on, on `grid`'s pool where the
 * config asks for it (grid NULL: a plan of its own). Frees it on failure. */
dtrResult_t dtrPlanFinish(dtrPlan_t plan, dtrGrid_t grid, const dtrGeometry* geo, dtrDataType_t type, int64_t howmany,
                          const dtrConfig_t* cfg, dtrPlan_t* out);

/* Collective: an execute whose local checks gave `checked` (agreed across the ranks here or by the
 * backend), run and, under a deadline, waited for. */
dtrResult_t dtrPlanRun(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream);

/*
 * Executes in chunks (geometry.h's dtrChunk*), for the FFT layer's overlap of its local passes with the
 * exchange. Begin: collective, once per execute of in -> out, whose buffers the caller has checked
 * (the FFT's door: the caller's; the rest are its own workspace) and whose result it agrees on across
 * its ranks afterwards: what the backend needs of the other ranks (p2p: their out pointers, agreed with
 * `checked`, this rank's result so far). The other backends need nothing of the other ranks and take
 * no collective. Run: chunk k of `chunks`, stream-ordered on the GPU backends (collective on the host
 * on the cpu backend); `ctas` blocks per peer of a one-pass kernel (0: the backend's default). Finish:
 * after the last chunk, on the chunks' stream, before anything reads out (p2p: a landing buffer
 * copied into an out that CUDA IPC cannot share). End: under a deadline, waits for `stream` (the last
 * chunk's), as dtrExecute does.
 */
dtrResult_t dtrPlanChunksBegin(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out);
dtrResult_t dtrPlanChunkRun(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream);
dtrResult_t dtrPlanChunksFinish(dtrPlan_t plan, cudaStream_t stream);
dtrResult_t dtrPlanChunksEnd(dtrPlan_t plan, cudaStream_t stream);

/* Collective (local once the plan timed out): frees the plan and its backend's state. */
void dtrPlanFree(dtrPlan_t plan);

/* Collective: the bare all-to-all of the plan's backend (the benchmark's reference), waited for under a
 * deadline. */
dtrResult_t dtrPlanRunAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream);

/* For the tools: the plan's communicator and hosts, and whether its ranks share a GPU. */
MPI_Comm dtrPlanComm(dtrPlan_t plan);
int dtrPlanHosts(dtrPlan_t plan);
int dtrPlanSharesGpu(dtrPlan_t plan);

#endif
