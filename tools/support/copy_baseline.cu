/*
 * Copies with 16-byte accesses: the bandwidth ceiling the transposes are judged by (transpose-bench,
 * test_gpu_kernels). The fastest on an H200 gives every block of 256 threads one 4 KB piece (one load
 * and one store per thread) and lets the block scheduler hand out the pieces.
 */
#include <stdint.h>

#include "support.h"
#include "tma_ptx.cuh"
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

/*
 * Copy through TMA bulk transfers: one thread per CTA keeps a ring of kBulkStages chunks of
 * kBulkChunk bytes in flight, global -> shared -> global. A probe of what SM-driven copies reach.
 */
constexpr uint32_t kBulkChunk = 32768, kBulkStages = 4;

__global__ void bulkCopyKernel(uint8_t* __restrict__ dst, const uint8_t* __restrict__ src, uint64_t bytes) {
  extern __shared__ __align__(128) uint8_t ring[];
  __shared__ __align__(8) uint64_t bars[kBulkStages];
  if (threadIdx.x != 0) return;
  const uint64_t chunks = (bytes + kBulkChunk - 1) / kBulkChunk;
  auto bar = [&](uint32_t i) { return smemAddr(&bars[i]); };
  for (uint32_t i = 0; i < kBulkStages; i++) mbarInit(bar(i), 1);
  fenceBarrierInit();
  auto load = [&](uint32_t st, uint64_t c) {
    const uint32_t n = (uint32_t)min((uint64_t)kBulkChunk, bytes - c * kBulkChunk);
    mbarArriveExpectTx(bar(st), n);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smemAddr(ring + st * kBulkChunk)),
                 "l"(src + c * kBulkChunk), "r"(n), "r"(bar(st))
                 : "memory");
  };
  uint64_t c = blockIdx.x;
  for (uint32_t i = 0; i < kBulkStages && c + (uint64_t)i * gridDim.x < chunks; i++) load(i, c + (uint64_t)i * gridDim.x);
  for (uint32_t it = 0; c < chunks; c += gridDim.x, it++) {
    const uint32_t st = it % kBulkStages;
    mbarWait(bar(st), (it / kBulkStages) & 1);
    const uint32_t n = (uint32_t)min((uint64_t)kBulkChunk, bytes - c * kBulkChunk);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * kBulkChunk),
                 "r"(smemAddr(ring + st * kBulkChunk)), "r"(n)
                 : "memory");
    bulkCommit();
    /* Refill the stage stored one step ago, once that store has read it. */
    if (it > 0) {
      bulkWaitRead<1>();
      const uint64_t next = c - gridDim.x + (uint64_t)kBulkStages * gridDim.x;
      if (next < chunks) load((it - 1) % kBulkStages, next);
    }
  }
  bulkWait<0>();
}

__global__ void copy1Kernel(uint8_t* __restrict__ dst, const uint8_t* __restrict__ src, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

}  // namespace dtr

using namespace dtr;

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
  if (body && unroll == 0) {
    static bool configured = false;
    const int smem = kBulkChunk * kBulkStages;
    if (!configured) {
      if ((err = cudaFuncSetAttribute(bulkCopyKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem))) return err;
      configured = true;
    }
    bulkCopyKernel<<<(unsigned)d.sms, 32, smem, stream>>>(out + head, in + head, body * 16);
  } else if (body && unroll == 4)
    copy16x4Kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<uint4*>(out + head),
                                                   reinterpret_cast<const uint4*>(in + head), body);
  else if (body) {
    const uint64_t pieces = (body + 255) / 256;
    copy16Kernel<<<(unsigned)(pieces < 0x7fffffffu ? pieces : 0x7fffffffu), 256, 0, stream>>>(
        reinterpret_cast<uint4*>(out + head), reinterpret_cast<const uint4*>(in + head), body);
  }
  if (tail) copy1Kernel<<<blocks, threads, 0, stream>>>(out + head + body * 16, in + head + body * 16, tail);
  return cudaGetLastError();
}
