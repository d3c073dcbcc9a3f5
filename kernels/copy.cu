/* A plain grid-stride copy with 16-byte accesses: the bandwidth ceiling the transposes are judged by. */
#include <stdint.h>

#include "launch.h"
#include "variants.h"

namespace dtr {

__global__ void copy16Kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

/* Four independent loads in flight per thread, then four stores. */
__global__ void copy16x4Kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, uint64_t n) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a, dst[i + stride] = b, dst[i + 2 * stride] = c, dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__global__ void copy1Kernel(uint8_t* __restrict__ dst, const uint8_t* __restrict__ src, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

/*
 * height rows of `width` words W from a pitch of spitch into a pitch of dpitch (pitches in words).
 * A row gets `lanes` threads (a power of two up to the block), so narrow rows share a block.
 */
template <typename W>
__global__ void copy2dKernel(W* __restrict__ dst, uint64_t dpitch, const W* __restrict__ src, uint64_t spitch,
                             uint64_t width, uint64_t height, uint32_t lanes) {
  const uint32_t rowsPerBlock = blockDim.x / lanes, lane = threadIdx.x % lanes;
  for (uint64_t r = (uint64_t)blockIdx.x * rowsPerBlock + threadIdx.x / lanes; r < height;
       r += (uint64_t)gridDim.x * rowsPerBlock) {
    const W* s = src + r * spitch;
    W* d = dst + r * dpitch;
    for (uint64_t x = lane; x < width; x += lanes) d[x] = s[x];
  }
}

template <typename W>
static cudaError_t copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                          cudaStream_t stream, int sms) {
  const uint64_t w = width / sizeof(W);
  uint32_t lanes = 1;
  while (lanes < 256 && lanes < w) lanes *= 2;
  const uint32_t threads = 256, rowsPerBlock = threads / lanes;
  uint64_t blocks = (height + rowsPerBlock - 1) / rowsPerBlock;
  if (blocks > (uint64_t)sms * 8) blocks = (uint64_t)sms * 8;
  copy2dKernel<W><<<(unsigned)blocks, threads, 0, stream>>>(static_cast<W*>(dst), dpitch / sizeof(W),
                                                            static_cast<const W*>(src), spitch / sizeof(W), w, height,
                                                            lanes);
  return cudaGetLastError();
}

}  // namespace dtr

using namespace dtr;

extern "C" cudaError_t dtrCopy2dLaunch(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaStream_t stream) {
  if (!width || !height) return cudaSuccess;
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  /* The widest word that every row start and the width allow. */
  const uint64_t align = (uint64_t)(uintptr_t)dst | (uint64_t)(uintptr_t)src | dpitch | spitch | width;
  if (!(align & 15)) return copy2d<uint4>(dst, dpitch, src, spitch, width, height, stream, d.sms);
  if (!(align & 7)) return copy2d<uint64_t>(dst, dpitch, src, spitch, width, height, stream, d.sms);
  if (!(align & 3)) return copy2d<uint32_t>(dst, dpitch, src, spitch, width, height, stream, d.sms);
  if (!(align & 1)) return copy2d<uint16_t>(dst, dpitch, src, spitch, width, height, stream, d.sms);
  return copy2d<uint8_t>(dst, dpitch, src, spitch, width, height, stream, d.sms);
}

extern "C" cudaError_t dtrCopyLaunch(void* dst, const void* src, size_t bytes, int unroll, cudaStream_t stream) {
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
  if (body && unroll == 4)
    copy16x4Kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<uint4*>(out + head),
                                                   reinterpret_cast<const uint4*>(in + head), body);
  else if (body)
    copy16Kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<uint4*>(out + head),
                                                 reinterpret_cast<const uint4*>(in + head), body);
  if (tail) copy1Kernel<<<blocks, threads, 0, stream>>>(out + head + body * 16, in + head + body * 16, tail);
  return cudaGetLastError();
}
