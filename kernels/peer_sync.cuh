/*
 * The device side of the one-pass path's ordering between GPUs (launch.h's dtrPeerFlags): a barrier
 * is each rank storing the epoch into a slot of every rank's flags (release, system scope) and then
 * waiting until its own slots hold the epoch (acquire). Epochs only grow, one per execute, kept on
 * the device so that a replayed CUDA graph counts too. A rank cannot be two epochs ahead of another:
 * it must first see every rank finish the epoch in between.
 *
 * Used two ways: as kernels of their own around the pass (peer_sync.cu), and folded into the grouped
 * pass kernel itself (group.h's forEachGroupTile), which saves two launches and their gaps on the
 * stream per execute.
 */
#ifndef DTR_PEER_SYNC_CUH
#define DTR_PEER_SYNC_CUH

#include <stdint.h>

#include "launch.h"

namespace dtr {

__device__ __forceinline__ void storeRelease(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t loadAcquire(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/* Words of the flags array (DTR_PEER_FLAG_WORDS): the epoch, the arrive and finish slots, two counts
 * of a fused pass kernel's blocks (those that have begun and those that are done), and the chunk
 * slots. */
__device__ __forceinline__ uint64_t peerSlot(const dtrPeerFlags& f, dtrPeerPhase phase, int q) {
  return 1 + (uint64_t)phase * f.nranks + q;
}
__device__ __forceinline__ unsigned* peerBlockCounts(const dtrPeerFlags& f) {
  return reinterpret_cast<unsigned*>(f.peer[f.rank] + 1 + 2 * (uint64_t)f.nranks);
}
/* The chunk slots: rank q's last finished chunk of an epoch, as (epoch << 16) + chunk + 1. */
__device__ __forceinline__ uint64_t peerChunkSlot(const dtrPeerFlags& f, int q) { return 2 + 2 * (uint64_t)f.nranks + q; }
__device__ __forceinline__ uint64_t peerChunkValue(const dtrPeerFlags& f, int chunk) {
  return (*reinterpret_cast<volatile uint64_t*>(f.peer[f.rank]) << 16) + (uint64_t)chunk + 1;
}

/* Tells rank q that this rank reached `phase` of epoch e. */
__device__ __forceinline__ void peerSignal(const dtrPeerFlags& f, dtrPeerPhase phase, int q, uint64_t e) {
  storeRelease(f.peer[q] + peerSlot(f, phase, f.rank), e);
}

/* Waits until the slot `word` of this rank's flags holds at least v. Returns false once the host has
 * raised the abort word (a rank timed out: nothing is ordered then). */
__device__ __forceinline__ bool peerWaitWord(const dtrPeerFlags& f, uint64_t word, uint64_t v) {
  const uint64_t* own = f.peer[f.rank] + word;
  /* The host's abort word crosses PCIe: read now and then, not on every spin. */
  for (unsigned spins = 1; loadAcquire(own) < v; spins++) {
    if (f.abort && spins % 1024 == 0 && *f.abort) return false;
    __nanosleep(32);
  }
  return true;
}

/* Waits until rank q has signalled `phase` of epoch e here. */
__device__ __forceinline__ bool peerWait(const dtrPeerFlags& f, dtrPeerPhase phase, int q, uint64_t e) {
  return peerWaitWord(f, peerSlot(f, phase, q), e);
}

__device__ __forceinline__ bool firstThread() { return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0; }

/* This execute's epoch in a fused pass kernel: the one after the last finished (only its last
 * block moves it on, once every block has read it). */
__device__ __forceinline__ uint64_t peerFusedEpoch(const dtrPeerFlags& f) {
  return *reinterpret_cast<volatile uint64_t*>(f.peer[f.rank]) + 1;
}

/*
 * A fused pass kernel's start, in every block: the arrive barrier. The first block to begin signals
 * every rank, so that a rank arrives as soon as any of its blocks runs, with one store into each
 * peer rather than one a block; every block then waits for every rank's signal. Returns whether the
 * block may store into the peers (false after an abort).
 */
__device__ __forceinline__ bool peerFusedArrive(const dtrPeerFlags& f) {
  __shared__ int go;
  if (firstThread()) {
    const uint64_t e = peerFusedEpoch(f);
    if (atomicAdd(&peerBlockCounts(f)[0], 1u) == 0)
      for (int q = 0; q < f.nranks; q++) peerSignal(f, dtrPeerArrive, q, e);
    int ok = 1;
    for (int q = 0; q < f.nranks && ok; q++) ok = peerWait(f, dtrPeerArrive, q, e);
    go = ok;
  }
  __syncthreads();
  return go != 0;
}

/*
 * A fused pass kernel's end, in every block once each thread has fenced its stores: the last block
 * to get here (all the others' stores then precede it) signals the finish barrier to every rank and
 * waits for theirs, so that the kernel, and with it this rank's execute on its stream, ends only
 * once B is complete. It then closes the epoch and resets the counts for the next execute.
 */
__device__ __forceinline__ void peerFusedFinish(const dtrPeerFlags& f) {
  __syncthreads();
  if (!firstThread()) return;
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  if (atomicAdd(&peerBlockCounts(f)[1], 1u) != blocks - 1) return;
  __threadfence_system();
  const uint64_t e = peerFusedEpoch(f);
  for (int q = 0; q < f.nranks; q++) peerSignal(f, dtrPeerFinish, q, e);
  for (int q = 0; q < f.nranks; q++)
    if (!peerWait(f, dtrPeerFinish, q, e)) break;
  peerBlockCounts(f)[0] = 0;
  peerBlockCounts(f)[1] = 0;
  *reinterpret_cast<volatile uint64_t*>(f.peer[f.rank]) = e;
}

}  // namespace dtr

#endif
