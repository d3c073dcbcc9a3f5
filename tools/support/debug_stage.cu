/* One stage of the vector kernels' shared-memory step, exposed so that a GPU test can compare the
 * raw swizzled result with the CPU emulation of tile_layout.h. */
#include <stdint.h>

#include "launch.h"
#include "support.h"
#include "tile_transpose.cuh"
#include "variants.h"

namespace dtr {

template <int S>
__global__ void debugStageKernel(const uint8_t* stageIn, uint8_t* resultOut) {
  constexpr uint32_t T = (S == 1) ? 256 : 128, m = 16 / S;
  extern __shared__ uint8_t smemRaw[];
  uint8_t* stage = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  uint8_t* result = stage + T * 128;
  for (uint32_t i = threadIdx.x; i < T * 8; i += blockDim.x)
    reinterpret_cast<uint4*>(stage)[i] = reinterpret_cast<const uint4*>(stageIn)[i];
  __syncthreads();
  transposeShare<S>(stage, result, T, T / m, 0, 1, threadIdx.x, blockDim.x);
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < T * 8; i += blockDim.x)
    reinterpret_cast<uint4*>(resultOut)[i] = reinterpret_cast<const uint4*>(result)[i];
}

template <int S>
static cudaError_t launchDebug(const void* stage, void* result, cudaStream_t stream) {
  constexpr uint32_t T = (S == 1) ? 256 : 128;
  const int smem = 1024 + 2 * T * 128;
  cudaError_t err = allowDynamicSmem((const void*)debugStageKernel<S>, smem);
  if (err != cudaSuccess) return err;
  debugStageKernel<S><<<1, 128, smem, stream>>>(static_cast<const uint8_t*>(stage), static_cast<uint8_t*>(result));
  return cudaGetLastError();
}

}  // namespace dtr

extern "C" cudaError_t dtrDebugStageTranspose(const void* stage, void* result, uint32_t element_bytes,
                                              cudaStream_t stream) {
  switch (element_bytes) {
    case 1: return dtr::launchDebug<1>(stage, result, stream);
    case 2: return dtr::launchDebug<2>(stage, result, stream);
    case 4: return dtr::launchDebug<4>(stage, result, stream);
    case 8: return dtr::launchDebug<8>(stage, result, stream);
    case 16: return dtr::launchDebug<16>(stage, result, stream);
    default: return cudaErrorInvalidValue;
  }
}
