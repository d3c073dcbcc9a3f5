/*
 * A plan's book of the buffers it exchanges with its peers execute by execute (the p2p transposes'
 * out, a halo exchange's padded array): which of this rank's allocations the peers have mapped (their
 * handles need not travel again), which ones CUDA IPC cannot share (asked of the driver once), and the
 * mappings of the peers' allocations the plan holds until it is destroyed, so that an execute on
 * buffers seen before maps nothing new. Allocations are known by the driver's ids, never reused.
 */
#ifndef DTR_PEER_BOOK_H
#define DTR_PEER_BOOK_H

#include <stdint.h>

#include "disttranspose.h"

typedef struct {
  uint64_t* published;   /* this rank's allocations whose handles the peers have */
  int npublished;
  uint64_t* unshareable; /* this rank's allocations CUDA IPC cannot share */
  int nunshareable;
  int* held;             /* mappings of the peers' allocations (peer_memory.h) */
  int nheld, heldCapacity;
} dtrPeerBook;

int dtrPeerBookPublished(const dtrPeerBook* b, uint64_t id);
/* Local: whether CUDA IPC cannot share the allocation `id` of device pointer p. */
int dtrPeerBookCannotShare(dtrPeerBook* b, const void* p, uint64_t id);
dtrResult_t dtrPeerBookPublish(dtrPeerBook* b, uint64_t id);
/* Keeps `n` mappings (-1: none), dropping the reference of one the book already holds. */
dtrResult_t dtrPeerBookHold(dtrPeerBook* b, const int* mappings, int n);
/* Unmaps every mapping held (nothing on the device may still use them) and empties the book. */
void dtrPeerBookClear(dtrPeerBook* b);

#endif
