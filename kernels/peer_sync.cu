/*
 * The one-pass path's barriers as kernels of their own (peer_sync.cuh has the protocol): the pass
 * runs between them where it takes more than one launch, or where DTR_PERF_REPORT marks the waits
 * apart from the pass.
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

}  // namespace

extern "C" cudaError_t dtrPeerBarrierLaunch(const dtrPeerFlags* flags, dtrPeerPhase phase, cudaStream_t stream) {
  if (!flags || flags->nranks < 1 || flags->nranks > DTR_GROUP_MAX || flags->rank < 0 || flags->rank >= flags->nranks)
    return cudaErrorInvalidValue;
  peerBarrierKernel<<<1, 32, 0, stream>>>(*flags, (int)phase);
  return cudaGetLastError();
}
