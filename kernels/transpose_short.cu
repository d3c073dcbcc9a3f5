/*
 * Transposes of matrices with few rows (at most kShortRows): a slab of a few rows per rank, the
 * planes of a 3-D array spread over many ranks, any matrix far wider than tall.
 *
 * Why: every tile kernel takes 64 to 256 source rows a tile. With 8 rows (16 over 2 ranks) the
 * tile is 1/8 to 1/32 full, so each block moves a few hundred bytes and the launch is bound by
 * blocks, not bytes. On 2 H200s, fp32 16 x 16777216 (512 MiB a rank) took 5.2 x the all-to-all of
 * the same bytes on p2p and 2.5 x on NCCL; 2 x 134217728 took 42 x and 24 x.
 *
 * So a tile here is every row of the matrix (up to kShortRows) by kShortRowBytes of each: the rows
 * are read as whole 512-byte runs into shared memory, and each result row, `rows` entries, is
 * written by consecutive threads, so that a warp's stores cover consecutive result rows (one run
 * where the output pitch is the row count, as in a pack). Entries move as k words W, the widest
 * word that the pointers, pitches and entry size allow (as the element-wise kernel does).
 */
#include <stdint.h>

#include "launch.h"
#include "variants.h"

namespace dtr {

constexpr int kShortThreads = 256;
constexpr int kShortRowBytes = 512; /* of each source row per tile */

template <typename W>
__global__ void __launch_bounds__(kShortThreads) shortRowsKernel(const W* __restrict__ src, int64_t ldsW,
                                                                 W* __restrict__ dst, int64_t lddW, uint32_t rows,
                                                                 int64_t cols, uint32_t logK, uint64_t tiles,
                                                                 int64_t srcBatchW, int64_t dstBatchW) {
  constexpr uint32_t TW = kShortRowBytes / sizeof(W); /* words of a source row per tile */
  constexpr uint32_t P = TW + 1;                       /* odd: a warp reading down a column hits distinct banks */
  __shared__ W tile[kShortRows * P];
  src += blockIdx.z * srcBatchW;
  dst += blockIdx.z * dstBatchW;
  const uint32_t k = 1u << logK, perTile = TW >> logK; /* entries of a source row per tile */
  const uint32_t rowWords = rows << logK;              /* words of a result row */
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t col0 = (int64_t)t * perTile;
    const uint32_t span = cols - col0 < perTile ? (uint32_t)(cols - col0) : perTile;
    const uint32_t spanWords = span << logK;
    const W* s = src + (col0 << logK);
    for (uint32_t i = threadIdx.x; i < rows * TW; i += kShortThreads) {
      const uint32_t r = i / TW, x = i % TW;
      if (x < spanWords) tile[r * P + x] = s[r * ldsW + x];
    }
    __syncthreads();
    W* d = dst + col0 * lddW;
    for (uint32_t i = threadIdx.x; i < span * rowWords; i += kShortThreads) {
      const uint32_t c = i / rowWords, x = i - c * rowWords;
      d[c * lddW + x] = tile[(x >> logK) * P + (c << logK) + (x & (k - 1))];
    }
    __syncthreads();
  }
}

template <typename W>
static cudaError_t launchShortTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  const uint32_t k = (uint32_t)(a->entry_bytes / sizeof(W));
  uint32_t logK = 0;
  while ((1u << logK) < k) logK++;
  const uint64_t perTile = (kShortRowBytes / sizeof(W)) >> logK;
  const uint64_t tiles = ((uint64_t)a->cols + perTile - 1) / perTile;
  const uint64_t limit = 0x7fffffffu; /* gridDim.x; larger matrices take several tiles a block */
  shortRowsKernel<W><<<dim3((unsigned)(tiles < limit ? tiles : limit), 1, batchOf(a)), kShortThreads, 0, stream>>>(
      static_cast<const W*>(a->src), a->lds * k, static_cast<W*>(a->dst), a->ldd * k, (uint32_t)a->rows, a->cols,
      logK, tiles, a->src_stride * k, a->dst_stride * k);
  return cudaGetLastError();
}

cudaError_t launchShort(const dtrTransposeArgs* a, cudaStream_t stream) {
  /* The widest word that divides the entry and keeps every access aligned. */
  const uint64_t align = accessAlignment(a) | a->entry_bytes;
  if (!(align & 15)) return launchShortTyped<uint4>(a, stream);
  if (!(align & 7)) return launchShortTyped<uint64_t>(a, stream);
  if (!(align & 3)) return launchShortTyped<uint32_t>(a, stream);
  if (!(align & 1)) return launchShortTyped<uint16_t>(a, stream);
  return launchShortTyped<uint8_t>(a, stream);
}

}  // namespace dtr
