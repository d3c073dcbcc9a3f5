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
  uint32_t narrow;               /* its words and the grid's threads both number below 2^31 */
};

struct Batch {
  Item items[DTR_HALO_COPIES_PER_LAUNCH];
  int fence;
};

/* Word t of the box, in memory order, to its place. The index math is 32-bit where the box allows
 * (`narrow`): a 64-bit division costs several times a 32-bit one, and a face of a few entries a row
 * does little else per word. A box of one word a row (the wrap of a fastest axis) divides once. */
template <typename W, typename I>
__device__ __forceinline__ void copyBox(const Item& it, I first, I stride) {
  const W* __restrict__ src = static_cast<const W*>(it.src);
  W* __restrict__ dst = static_cast<W*>(it.dst);
  const I words = (I)it.words, rows = (I)it.rows, total = words * rows * (I)it.planes;
  for (I t = first; t < total; t += stride) {
    I x = 0, r = t;
    if (words != 1) x = t % words, r = t / words;
    const I y = r % rows, z = r / rows;
    dst[(uint64_t)z * it.dstPitch[1] + (uint64_t)y * it.dstPitch[0] + x] =
        src[(uint64_t)z * it.srcPitch[1] + (uint64_t)y * it.srcPitch[0] + x];
  }
}

template <typename W>
__device__ __forceinline__ void copyItem(const Item& it) {
  const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
  if (it.narrow) copyBox<W, uint32_t>(it, (uint32_t)first, (uint32_t)stride);
  else copyBox<W, uint64_t>(it, first, stride);
}

__global__ void __launch_bounds__(256) haloCopyKernel(const __grid_constant__ Batch batch) {
  const Item& it = batch.items[blockIdx.y];
  switch (it.shift) {
    case 4: copyItem<uint4>(it); break;
    case 3: copyItem<uint2>(it); break;
    case 2: copyItem<uint32_t>(it); break;
    case 1: copyItem<uint16_t>(it); break;
    default: copyItem<uint8_t>(it); break;
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
      const uint64_t total = it.words * it.rows * it.planes, want = (total + threads - 1) / threads;
      it.narrow = total < (1ull << 31);
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
