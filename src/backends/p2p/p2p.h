/*
 * What the p2p backend lends the FFT's slab route (src/fft/slab_copies.c), which moves its chunks by
 * the copy engines rather than by this backend's pass kernel: the buffers of an execute begun in
 * chunks (dtrPlanChunksBegin: every rank's out, mapped here), the two barriers between the GPUs, and
 * the signals of single chunks between them.
 */
#ifndef DTR_P2P_H
#define DTR_P2P_H

#include "backends/backend.h"
#include "launch.h"

/* [q]: rank q's out of the execute begun, as mapped here (its own at [rank]); NULL where this plan is
 * not a p2p plan, or where this rank's out is one CUDA IPC cannot share (the route needs its own). */
char* const* dtrP2pChunkOuts(dtrPlan_t plan);

/* The barrier that begins an epoch (no rank writes into another's out before its owner's stream got
 * here), or the one that ends it (every rank's writes into this rank's out are done), on `stream`. */
dtrResult_t dtrP2pBarrier(dtrPlan_t plan, dtrPeerPhase phase, cudaStream_t stream);

/* Inside an epoch: this rank's writes of chunk `chunk` into the outs of the ranks in `peers` (a bit a
 * rank) are done (those before on `stream`); and, on `stream`, every other rank's writes of it into
 * this rank's out are (launch.h's dtrPeerChunk*). */
dtrResult_t dtrP2pChunkSignal(dtrPlan_t plan, unsigned peers, int chunk, cudaStream_t stream);
dtrResult_t dtrP2pChunkWait(dtrPlan_t plan, int chunk, cudaStream_t stream);

#endif
