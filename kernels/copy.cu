/* A plain grid-stride copy with 16-byte accesses: the bandwidth ceiling the transposes are judged by. */
#include <stdint.h>

#include "launch.h"
#include "variants.h"

namespace dtr {

__global__ void copy16Kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__global__ void copy1Kernel(uint8_t* __restrict__ dst, const uint8_t* __restrict__ src, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

}  // namespace dtr

using namespace dtr;

extern "C" cudaError_t dtrCopyLaunch(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  if (bytes == 0) return cudaSuccess;
  uint8_t* out = static_cast<uint8_t*>(dst);
  const uint8_t* in = static_cast<const uint8_t*>(src);
  /* Vectors only where both sides share the same offset within 16 bytes. */
  size_t head = 0, body = 0;
  if ((((uintptr_t)out ^ (uintptr_t)in) & 15) == 0) {
    head = (16 - ((uintptr_t)out & 15)) & 15;
    if (head > bytes) head = bytes;
    body = (bytes - head) / 16;
  } else {
    head = bytes;
  }
  const size_t tail = bytes - head - body * 16;
  const unsigned blocks = (unsigned)d.sms * 4, threads = 512;
  if (head) copy1Kernel<<<body ? 1 : blocks, body ? 32 : threads, 0, stream>>>(out, in, head);
  if (body)
    copy16Kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<uint4*>(out + head),
                                                 reinterpret_cast<const uint4*>(in + head), body);
  if (tail) copy1Kernel<<<blocks, threads, 0, stream>>>(out + head + body * 16, in + head + body * 16, tail);
  return cudaGetLastError();
}
