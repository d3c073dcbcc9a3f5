/*
 * The one-pass path's barrier between GPUs: each rank stores the epoch into a slot of every rank's
 * flags (release, system scope) and waits until its own slots hold the epoch (acquire). Epochs only
 * grow, one per execute, kept on the device so that a replayed CUDA graph counts too. A rank cannot
 * be two epochs ahead of another: it must first see every rank finish the epoch in between.
 */
#include <stdint.h>

#include "launch.h"

namespace {

__device__ __forceinline__ void storeRelease(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t loadAcquire(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

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
  const uint64_t e = epoch, slot = 1 + (uint64_t)phase * f.nranks;
  /* What this GPU stored before (the previous launch's tiles) is ordered before the signal. */
  __threadfence_system();
  storeRelease(f.peer[q] + slot + f.rank, e);
  /* The host's abort word crosses PCIe: read now and then, not on every spin. */
  for (unsigned spins = 1; loadAcquire(own + slot + q) < e; spins++) {
    if (f.abort && spins % 1024 == 0 && *f.abort) return;
    __nanosleep(32);
  }
}

}  // namespace

extern "C" cudaError_t dtrPeerBarrierLaunch(const dtrPeerFlags* flags, dtrPeerPhase phase, cudaStream_t stream) {
  if (!flags || flags->nranks < 1 || flags->nranks > DTR_GROUP_MAX || flags->rank < 0 || flags->rank >= flags->nranks)
    return cudaErrorInvalidValue;
  peerBarrierKernel<<<1, 32, 0, stream>>>(*flags, (int)phase);
  return cudaGetLastError();
}
