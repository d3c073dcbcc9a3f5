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

/* Collective over comm. Returns an agreed result. */
dtrResult_t dtrNcclCommAcquire(MPI_Comm comm, int device, ncclComm_t* nccl);
/* Local: drops this plan's reference. Idle communicators are kept until MPI_Finalize. */
void dtrNcclCommRelease(ncclComm_t nccl);

/* The bare all-to-all: `bytes_per_peer` from send + q * bytes_per_peer to every rank q (itself
 * included), one NCCL group of sends and receives on `stream`. */
dtrResult_t dtrNcclAlltoall(ncclComm_t nccl, int nranks, const void* send, void* recv, size_t bytes_per_peer,
                            cudaStream_t stream);

#endif
