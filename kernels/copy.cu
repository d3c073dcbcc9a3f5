/*
 * 2-D copies with the widest word every row allows (16-byte words shifted into place where source and
 * destination sit at different offsets): the unpack of received segments into their column blocks.
 */
#include <stdint.h>

#include "launch.h"
#include "shifted_word.h"
#include "variants.h"

namespace dtr {


/*
 * height rows of `width` words W from a pitch of spitch into a pitch of dpitch (pitches in words),
 * for each matrix z of a batch (blockIdx.z, strides sstride and dstride). A row gets `lanes` threads
 * (a power of two up to the block), so narrow rows share a block; block (x, y) copies word x * lanes
 * + lane of its rows, one word per thread and row, so that, as in the copy above, blocks are small
 * and the block scheduler hands them out (grid.y loops past 65535).
 */
template <typename W>
__global__ void copy2dKernel(W* __restrict__ dst, uint64_t dpitch, uint64_t dstride, const W* __restrict__ src,
                             uint64_t spitch, uint64_t sstride, uint64_t width, uint64_t height, uint32_t lanes) {
  dst += blockIdx.z * dstride;
  src += blockIdx.z * sstride;
  const uint32_t rowsPerBlock = blockDim.x / lanes;
  const uint64_t x = (uint64_t)blockIdx.x * lanes + threadIdx.x % lanes;
  if (x >= width) return;
  for (uint64_t r = (uint64_t)blockIdx.y * rowsPerBlock + threadIdx.x / lanes; r < height;
       r += (uint64_t)gridDim.y * rowsPerBlock)
    dst[r * dpitch + x] = src[r * spitch + x];
}

/*
 * The same copy for rows whose source and destination sit at different offsets within 16 bytes (odd
 * pitches of 1- and 2-byte entries, where a common word would be a byte or two): each thread stores
 * one aligned 16-byte word of a destination row, gathered from the two aligned 16-byte source words
 * under it by funnel shifts. Source words may reach past a row into its neighbours (reading them is
 * harmless) but never out of the source's rows as a whole; destination words that a row fills only in
 * part are stored byte by byte, so nothing outside the rows is written. Thread t of the grid takes word
 * t % words of row t / words (`words` a row at most, counted from the aligned word holding the row's
 * first byte; `inverse` = 1.0 / words): no thread idles beside a narrow row, as a power-of-two share of
 * a block would. Batches as above. The source's bounds are those of each matrix of the batch: the
 * matrices may sit apart in memory, like the rows of one.
 */
__global__ void __launch_bounds__(256, 8)
    copy2dShiftKernel(uint8_t* __restrict__ dst, uint64_t dpitch, uint64_t dstride, const uint8_t* __restrict__ src,
                      uint64_t spitch, uint64_t sstride, uint64_t width, uint64_t height, uint64_t words,
                      double inverse) {
  dst += blockIdx.z * dstride;
  src += blockIdx.z * sstride;
  const uintptr_t srcEnd = (uintptr_t)(src + (height - 1) * spitch + width);
  const uint64_t total = height * words;
  for (uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (uint64_t)gridDim.x * blockDim.x) {
    /* t / words by a multiplication, corrected by one where rounding missed. */
    uint64_t r = (uint64_t)((double)t * inverse);
    if (r * words > t) r--;
    else if ((r + 1) * words <= t) r++;
    const uint64_t x = t - r * words;
    uint8_t* d = dst + r * dpitch;
    const uint8_t* s = src + r * spitch;
    /* This thread's word: bytes [first, first + 16) of the row (first < 0 for the word holding the row's
     * first byte where the row starts inside it). */
    const int64_t first = (int64_t)(16 * x) - (int64_t)((uintptr_t)d & 15);
    if (first >= (int64_t)width) continue;
    const uintptr_t at = (uintptr_t)(s + first), base = at & ~(uintptr_t)15;
    const uint32_t shift = (uint32_t)(at & 15);
    if (base < (uintptr_t)src || base + (shift ? 32 : 16) > srcEnd) {
      /* At the very start or end of the source (its first or last row only). */
      for (int64_t i = first < 0 ? 0 : first; i < first + 16 && i < (int64_t)width; i++) d[i] = s[i];
      continue;
    }
    const uint4* w = reinterpret_cast<const uint4*>(base);
    const uint4 out = shift ? shiftedWord(w[0], w[1], shift) : w[0];
    if (first >= 0 && first + 16 <= (int64_t)width) {
      *reinterpret_cast<uint4*>(d + first) = out;
      continue;
    }
#pragma unroll
    for (int k = 0; k < 16; k++) {
      const int64_t i = first + k;
      if (i >= 0 && i < (int64_t)width) d[i] = byteOf(out, k);
    }
  }
}

/* Rows from this many bytes up take the shifted copy where no 16-byte word fits them all. */
constexpr size_t kShiftMinWidth = 64;

/* Threads per row: the least power of two covering `words` words, at most a block of 256. */
static uint32_t rowLanes(uint64_t words) {
  uint32_t lanes = 1;
  while (lanes < 256 && lanes < words) lanes *= 2;
  return lanes;
}

static dim3 copy2dGrid(uint64_t words, uint64_t height, uint32_t lanes, uint32_t threads) {
  const uint32_t rowsPerBlock = threads / lanes;
  const uint64_t bx = (words + lanes - 1) / lanes, by = (height + rowsPerBlock - 1) / rowsPerBlock;
  return dim3((unsigned)(bx < 0x7fffffffu ? bx : 0x7fffffffu), (unsigned)(by < 65535 ? by : 65535));
}

/* One matrix of a batched copy: pitches and strides in bytes. */
struct Copy2d {
  void* dst;
  size_t dpitch, dstride;
  const void* src;
  size_t spitch, sstride, width, height, batch;
};

static cudaError_t copy2dShift(const Copy2d& c, cudaStream_t stream) {
  const uint64_t words = (c.width + 30) / 16; /* the most aligned words a row of `width` bytes touches */
  const uint64_t blocks = (c.height * words + 255) / 256;
  copy2dShiftKernel<<<dim3((unsigned)(blocks < 0x7fffffffu ? blocks : 0x7fffffffu), 1, (unsigned)c.batch), 256, 0,
                      stream>>>(static_cast<uint8_t*>(c.dst), c.dpitch, c.dstride, static_cast<const uint8_t*>(c.src),
                                c.spitch, c.sstride, c.width, c.height, words, 1.0 / (double)words);
  return cudaGetLastError();
}

template <typename W>
static cudaError_t copy2d(const Copy2d& c, cudaStream_t stream) {
  const uint64_t w = c.width / sizeof(W);
  const uint32_t lanes = rowLanes(w), threads = 256;
  dim3 grid = copy2dGrid(w, c.height, lanes, threads);
  grid.z = (unsigned)c.batch;
  copy2dKernel<W><<<grid, threads, 0, stream>>>(static_cast<W*>(c.dst), c.dpitch / sizeof(W), c.dstride / sizeof(W),
                                                static_cast<const W*>(c.src), c.spitch / sizeof(W),
                                                c.sstride / sizeof(W), w, c.height, lanes);
  return cudaGetLastError();
}

static cudaError_t copy2dBatch(dtrCopy2dMethod method, const Copy2d& c, cudaStream_t stream) {
  /* The widest word that every row start and the width allow. */
  const uint64_t align = (uint64_t)(uintptr_t)c.dst | (uint64_t)(uintptr_t)c.src | c.dpitch | c.spitch | c.width |
                         (c.batch > 1 ? c.dstride | c.sstride : 0);
  if (method == dtrCopy2dAuto) method = (align & 15) && c.width >= kShiftMinWidth ? dtrCopy2dShifted : dtrCopy2dWords;
  if (method == dtrCopy2dShifted) return copy2dShift(c, stream);
  return withWidestWord(align, [&](auto word) { return copy2d<decltype(word)>(c, stream); });
}

}  // namespace dtr

using namespace dtr;

extern "C" cudaError_t dtrCopy2dLaunchWith(dtrCopy2dMethod method, void* dst, size_t dpitch, const void* src,
                                           size_t spitch, size_t width, size_t height, cudaStream_t stream) {
  if (!width || !height) return cudaSuccess;
  return copy2dBatch(method, Copy2d{dst, dpitch, 0, src, spitch, 0, width, height, 1}, stream);
}

extern "C" cudaError_t dtrCopy2dBatchLaunch(void* dst, size_t dpitch, size_t dstride, const void* src, size_t spitch,
                                            size_t sstride, size_t width, size_t height, size_t batch,
                                            cudaStream_t stream) {
  if (!width || !height) return cudaSuccess;
  for (size_t b0 = 0; b0 < batch; b0 += (size_t)kMaxBatch) {
    const size_t n = batch - b0 < (size_t)kMaxBatch ? batch - b0 : (size_t)kMaxBatch;
    const Copy2d c = {static_cast<uint8_t*>(dst) + b0 * dstride, dpitch, dstride,
                      static_cast<const uint8_t*>(src) + b0 * sstride, spitch, sstride, width, height, n};
    const cudaError_t err = copy2dBatch(dtrCopy2dAuto, c, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}
