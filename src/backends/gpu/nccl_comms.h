/*
 * NCCL communicators shared between plans: creating one costs far more than a plan's other setup,
 * and pipelines create several plans over the same ranks. A communicator is reused when every
 * rank has one for a congruent MPI communicator on the same device (decided collectively, so no
 * rank starts an NCCL initialisation the others skip).
 */
#ifndef DTR_NCCL_COMMS_H
#define DTR_NCCL_COMMS_H

#include <nccl.h>

#include "disttranspose.h"

/* Collective over comm. Returns an agreed result (but dtrTimeout alone, where a rank does not come). */
dtrResult_t dtrNcclCommAcquire(MPI_Comm comm, int device, ncclComm_t* nccl);
/* Local: drops this plan's reference. Idle communicators are kept until MPI_Finalize. */
void dtrNcclCommRelease(ncclComm_t nccl);

/* Local: ends a group of sends and receives on nccl, with NCCL's last error in the message where it
 * fails. `what` names the group in messages. */
dtrResult_t dtrNcclGroupEnd(ncclComm_t nccl, const char* what);
/* Local: NCCL's asynchronous error of nccl (an exchange in flight that failed), as ours. */
dtrResult_t dtrNcclAsyncError(ncclComm_t nccl);
/* Local: ncclCommAbort, once: kernels waiting for a peer that never comes return. Every plan on the
 * communicator can then only be destroyed; new plans get a new one. */
void dtrNcclCommAbort(ncclComm_t nccl);
/* Local: dtrTimeout where the communicator has been aborted. */
dtrResult_t dtrNcclCommUsable(ncclComm_t nccl);

/* Local: whether the ranks of nccl register their message buffers with it (DTR_NCCL_REGISTER, agreed
 * when the communicator was made). */
int dtrNcclRegisters(ncclComm_t nccl);

/* Local: ncclCommDeregister of a plan's handle (NULL: none), unless the communicator was aborted (its
 * registrations went with it). */
void dtrNcclDeregister(ncclComm_t nccl, void* handle);

/* Local: drops every communicator's registration of the bare all-to-all's buffers where one of them is
 * `ptr`: before that buffer is freed. A registration left behind outlives the memory, and NCCL then
 * matches a later buffer at the same address to it: on 2 H200s every message of the pencil
 * transposes after the first went to the freed memory (the received blocks all wrong). */
void dtrNcclForgetBuffer(const void* ptr);

/* The bare all-to-all: `bytes_per_peer` from send + q * bytes_per_peer to every rank q (itself
 * included), one NCCL group of sends and receives on `stream`; send and recv registered with nccl
 * where dtrNcclRegisters (kept registered until other buffers come, dtrNcclForgetBuffer or MPI_Finalize). */
dtrResult_t dtrNcclAlltoall(ncclComm_t nccl, int nranks, const void* send, void* recv, size_t bytes_per_peer,
                            cudaStream_t stream);

#endif
