/*
 * The one-pass path's barriers as kernels of their own (peer_sync.cuh has the protocol): the pass
 * runs between them where it takes more than one launch, or where DTR_PERF_REPORT marks the waits
 * apart from the pass. And the signals of single chunks inside an epoch, for stores that others than
 * this library's kernels make (the FFT's slab route, whose copy engines move the chunks).
 */
#include <stdint.h>

#include "launch.h"
#include "peer_sync.cuh"

namespace {

__global__ void peerBarrierKernel(dtrPeerFlags f, int phase) {
  __shared__ uint64_t epoch;
  uint64_t* own = f.peer[f.rank];
  if (threadIdx.x == 0) {
    uint64_t e = own[0];
    if (phase == dtrPeerArrive) own[0] = ++e;
    epoch = e;
  }
  __syncthreads();
  const int q = threadIdx.x;
  if (q >= f.nranks) return;
  /* What this GPU stored before (the previous launch's tiles) is ordered before the signal. */
  __threadfence_system();
  dtr::peerSignal(f, (dtrPeerPhase)phase, q, epoch);
  dtr::peerWait(f, (dtrPeerPhase)phase, q, epoch);
}

/* Thread q signals rank q where `peers` names it. The stores before this kernel on its stream (copy
 * engines' included) are complete when it starts; the fence orders them before the signal. */
__global__ void peerChunkSignalKernel(dtrPeerFlags f, unsigned peers, int chunk) {
  const int q = threadIdx.x;
  if (q >= f.nranks || !((peers >> q) & 1u)) return;
  __threadfence_system();
  dtr::storeRelease(f.peer[q] + dtr::peerChunkSlot(f, f.rank), dtr::peerChunkValue(f, chunk));
}

__global__ void peerChunkWaitKernel(dtrPeerFlags f, int chunk) {
  const int q = threadIdx.x;
  if (q >= f.nranks || q == f.rank) return;
  dtr::peerWaitWord(f, dtr::peerChunkSlot(f, q), dtr::peerChunkValue(f, chunk));
}

bool validFlags(const dtrPeerFlags* flags) {
  return flags && flags->nranks >= 1 && flags->nranks <= DTR_GROUP_MAX && flags->rank >= 0 && flags->rank < flags->nranks;
}

}  // namespace

extern "C" cudaError_t dtrPeerChunkSignalLaunch(const dtrPeerFlags* flags, unsigned peers, int chunk, cudaStream_t stream) {
  if (!validFlags(flags) || chunk < 0 || chunk >= (1 << 16)) return cudaErrorInvalidValue;
  peerChunkSignalKernel<<<1, 32, 0, stream>>>(*flags, peers, chunk);
  return cudaGetLastError();
}

extern "C" cudaError_t dtrPeerChunkWaitLaunch(const dtrPeerFlags* flags, int chunk, cudaStream_t stream) {
  if (!validFlags(flags) || chunk < 0 || chunk >= (1 << 16)) return cudaErrorInvalidValue;
  peerChunkWaitKernel<<<1, 32, 0, stream>>>(*flags, chunk);
  return cudaGetLastError();
}

extern "C" cudaError_t dtrPeerBarrierLaunch(const dtrPeerFlags* flags, dtrPeerPhase phase, cudaStream_t stream) {
  if (!validFlags(flags)) return cudaErrorInvalidValue;
  peerBarrierKernel<<<1, 32, 0, stream>>>(*flags, (int)phase);
  return cudaGetLastError();
}
