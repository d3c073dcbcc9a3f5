/*
 * What the nccl backend lends the FFT's slab route over NCCL (src/fft/slab_messages.c), which lays out
 * its own messages rather than running this backend's packs and unpacks: message buffers registered
 * with the plan's communicator (where the ranks register theirs, so that a message goes straight from
 * one rank's buffer into the other's) and one group of sends and receives between them.
 */
#ifndef DTR_NCCL_H
#define DTR_NCCL_H

#include "backends/backend.h"

/* Local: `bytes` of message memory (dtrMessageAlloc's: zeroed, from ncclMemAlloc where the ranks
 * register their buffers) on the plan's device, registered with its communicator where they do
 * (*handle NULL where not); `what` names it in messages. Its release: deregistered, then freed. */
dtrResult_t dtrNcclMessageBufferCreate(dtrPlan_t plan, size_t bytes, const char* what, char** ptr, void** handle);
void dtrNcclMessageBufferDestroy(dtrPlan_t plan, char* ptr, void* handle);

/* One group on `stream` over the plan's communicator: pieces[q] (entries of the plan's entry bytes,
 * from `send`) sent to rank q and pieces[nranks + q] (into `recv`) received from it; empty pieces are
 * skipped. Every rank of the plan makes its group (NCCL pairs a rank's n-th message to a peer with
 * the peer's n-th from it). `what` names the group in messages. */
dtrResult_t dtrNcclPiecesExchange(dtrPlan_t plan, const char* send, char* recv, const dtrRange* pieces, cudaStream_t stream,
                                  const char* what);

#endif
