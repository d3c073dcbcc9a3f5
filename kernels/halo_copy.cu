/*
 * The halo exchange's copies: boxes of a padded array to and from dense segments and within the array.
 * A face a few entries wide in the fastest axis is many short rows: one thread a word, the words of the
 * whole box numbered in memory order, so that the dense side of a pack or unpack is read or written in
 * whole sectors and the strided side in as few as its rows allow (a 2-D copy per row would take one
 * transaction, or one launch, per row). Each box of a launch is one row of the grid.
 */
#include <stdint.h>

#include "halo_launch.h"

namespace {

struct Item {
  const void* src;
  void* dst;
  uint64_t words, rows, planes;  /* the box in words of (1 << shift) bytes */
  uint64_t srcPitch[2], dstPitch[2];
  uint32_t shift;
};

struct Batch {
  Item items[DTR_HALO_COPIES_PER_LAUNCH];
  int fence;
};

template <typename W>
__device__ __forceinline__ void copyBox(const Item& it, uint64_t first, uint64_t stride) {
  const W* __restrict__ src = static_cast<const W*>(it.src);
  W* __restrict__ dst = static_cast<W*>(it.dst);
  const uint64_t total = it.words * it.rows * it.planes;
  for (uint64_t t = first; t < total; t += stride) {
    const uint64_t x = t % it.words, r = t / it.words, y = r % it.rows, z = r / it.rows;
    dst[z * it.dstPitch[1] + y * it.dstPitch[0] + x] = src[z * it.srcPitch[1] + y * it.srcPitch[0] + x];
  }
}

__global__ void __launch_bounds__(256) haloCopyKernel(const __grid_constant__ Batch batch) {
  const Item& it = batch.items[blockIdx.y];
  const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
  switch (it.shift) {
    case 4: copyBox<uint4>(it, first, stride); break;
    case 3: copyBox<uint2>(it, first, stride); break;
    case 2: copyBox<uint32_t>(it, first, stride); break;
    case 1: copyBox<uint16_t>(it, first, stride); break;
    default: copyBox<uint8_t>(it, first, stride); break;
  }
  if (batch.fence) __threadfence_system();
}

/* The widest word (log2 of its bytes, at most 4) that divides every address and length of a copy. */
uint32_t wordShift(const dtrHaloCopyArgs& c) {
  const uint64_t all = (uint64_t)(uintptr_t)c.src | (uint64_t)(uintptr_t)c.dst | c.width | c.srcPitch[0] | c.srcPitch[1] |
                       c.dstPitch[0] | c.dstPitch[1];
  uint32_t s = 0;
  while (s < 4 && !(all & ((2ull << s) - 1))) s++;
  return s;
}

}  // namespace

extern "C" cudaError_t dtrHaloCopyLaunch(const dtrHaloCopyArgs* copies, int count, int fence, cudaStream_t stream) {
  const unsigned threads = 256, mostBlocks = 2048;
  for (int first = 0; first < count; first += DTR_HALO_COPIES_PER_LAUNCH) {
    Batch batch;
    unsigned n = 0, blocks = 1;
    for (int i = first; i < count && i < first + DTR_HALO_COPIES_PER_LAUNCH; i++) {
      const dtrHaloCopyArgs& c = copies[i];
      if (!c.width || !c.rows || !c.planes) continue;
      Item& it = batch.items[n++];
      it.shift = wordShift(c);
      it.src = c.src, it.dst = c.dst;
      it.words = c.width >> it.shift, it.rows = c.rows, it.planes = c.planes;
      for (int k = 0; k < 2; k++) it.srcPitch[k] = c.srcPitch[k] >> it.shift, it.dstPitch[k] = c.dstPitch[k] >> it.shift;
      const uint64_t want = (it.words * it.rows * it.planes + threads - 1) / threads;
      if (want > blocks) blocks = want > mostBlocks ? mostBlocks : (unsigned)want;
    }
    if (!n) continue;
    batch.fence = fence;
    haloCopyKernel<<<dim3(blocks, n), threads, 0, stream>>>(batch);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}
