/*
 * Transposes of thin matrices: at most kThinSide rows or at most kThinSide columns (half that for 1-
 * and 2-byte entries). Few rows: a slab of a few rows per rank, the planes of a 3-D array spread over
 * many ranks, any matrix far wider than tall. Few columns: the same seen from the other side (a
 * tall, skinny slab whose result has a few rows per rank).
 *
 * Why: every tile kernel takes 64 to 256 rows and 32 to 256 columns a tile. With 8 rows (16 over 2
 * ranks) the tile is 1/8 to 1/32 full, so each block moves a few hundred bytes and the launch is
 * bound by blocks, not bytes. (docs/design.md#thin-why)
 *
 * So a tile here is every row (or column) of the thin side by kThinRunBytes along the long one.
 * Few rows: the source rows are read as whole 512-byte runs into shared memory, and each result row,
 * `rows` entries, is written by consecutive threads, so that a warp's stores cover consecutive
 * result rows (one run where the output pitch is the row count, as in a pack). Few columns: the
 * mirror image, whole source rows read by consecutive threads and each of the few result rows
 * written as a 512-byte run. Entries of 4, 8 and 16 bytes move as k words W, the widest word that the
 * pointers, pitches and entry size allow (as the element-wise kernel does); entries of 1 and 2 bytes
 * as shifted 16-byte words along the long side and whole chunks of the thin one (thin_pack.h).
 */
#include <stdint.h>

#include "launch.h"
#include "thin_pack.h"
#include "variants.h"

namespace dtr {

constexpr int kThinThreads = 256;
constexpr int kThinRunBytes = 512; /* along the long side, per tile */
/* The two ways a tile meets memory. Runs: `lines` lines of the tile, each the same words of memory
 * (up to spanWords of TW). Crossed: `lines` lines of memory of `thinWords` words each, entry e of a
 * line at tile line e, so that memory line l is the tile's column l. kToTile moves memory into the
 * tile, else the tile into memory; G is W or const W. */
template <bool kToTile, typename W, typename G>
__device__ __forceinline__ void tileRuns(W* tile, uint32_t P, G* __restrict__ g, int64_t ld, uint32_t lines, uint32_t spanWords) {
  constexpr uint32_t TW = kThinRunBytes / sizeof(W);
  for (uint32_t i = threadIdx.x; i < lines * TW; i += kThinThreads) {
    const uint32_t l = i / TW, x = i % TW;
    if (x >= spanWords) continue;
    if constexpr (kToTile) tile[l * P + x] = g[l * ld + x];
    else g[l * ld + x] = tile[l * P + x];
  }
}

template <bool kToTile, typename W, typename G>
__device__ __forceinline__ void tileCrossed(W* tile, uint32_t P, G* __restrict__ g, int64_t ld, uint32_t lines, uint32_t thinWords,
                                            uint32_t logK) {
  const uint32_t k = 1u << logK;
  for (uint32_t i = threadIdx.x; i < lines * thinWords; i += kThinThreads) {
    const uint32_t l = i / thinWords, x = i - l * thinWords;
    const uint32_t t = (x >> logK) * P + (l << logK) + (x & (k - 1));
    if constexpr (kToTile) tile[t] = g[l * ld + x];
    else g[l * ld + x] = tile[t];
  }
}

/* `thin` (at most kThinSide) rows of the source (kFewCols false) or columns (true); `longSide` the
 * other. A tile is every thin line by kThinRunBytes of the long side: read as runs and written crossed
 * with few rows, read crossed and written as runs with few columns. */
template <typename W, bool kFewCols>
__global__ void __launch_bounds__(kThinThreads) thinKernel(const W* __restrict__ src, int64_t ldsW, W* __restrict__ dst,
                                                           int64_t lddW, uint32_t thin, int64_t longSide, uint32_t logK,
                                                           uint64_t tiles, int64_t srcBatchW, int64_t dstBatchW) {
  constexpr uint32_t TW = kThinRunBytes / sizeof(W); /* words of the long side per tile */
  /* Odd: a warp crossing the tile's lines hits distinct banks. A pad of 32 / n words (n the thin
   * side's words) would spread such accesses over distinct banks where the odd pitch puts them on
   * n + 32 / n - 1, but its larger tile ran
   * slower (docs/design.md#thin-pad). */
  constexpr uint32_t P = TW + 1;
  __shared__ W tile[kThinSide * P];
  src += blockIdx.z * srcBatchW;
  dst += blockIdx.z * dstBatchW;
  const uint32_t perTile = TW >> logK; /* entries of the long side per tile */
  const uint32_t thinWords = thin << logK;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t at = (int64_t)t * perTile;
    const uint32_t span = longSide - at < perTile ? (uint32_t)(longSide - at) : perTile;
    if constexpr (!kFewCols) {
      tileRuns<true>(tile, P, src + (at << logK), ldsW, thin, span << logK);
      __syncthreads();
      tileCrossed<false>(tile, P, dst + at * lddW, lddW, span, thinWords, logK);
    } else {
      tileCrossed<true>(tile, P, src + at * ldsW, ldsW, span, thinWords, logK);
      __syncthreads();
      tileRuns<false>(tile, P, dst + (at << logK), lddW, thin, span << logK);
    }
    __syncthreads();
  }
}

/* Entries of 1, 2 and 4 bytes (thin_pack.h): the tiles of one matrix of the batch after another. */
template <int E, typename CW, bool kFewCols>
__global__ void __launch_bounds__(kPackThreads) thinPackKernel(ThinPack p, uint64_t tiles, int64_t srcBatchB,
                                                                int64_t dstBatchB) {
  extern __shared__ __align__(16) uint8_t packTile[];
  p.src += blockIdx.z * srcBatchB;
  p.dst += blockIdx.z * dstBatchB;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    thinPackStep<E, CW, kFewCols>(0, threadIdx.x, packTile, p, t);
    __syncthreads();
    thinPackStep<E, CW, kFewCols>(1, threadIdx.x, packTile, p, t);
    __syncthreads();
  }
}

template <int E, typename CW>
static cudaError_t launchThinPackTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  const bool fewRows = thinRows(a);
  const ThinPack p = {static_cast<const uint8_t*>(a->src),
                      a->lds * E,
                      static_cast<uint8_t*>(a->dst),
                      a->ldd * E,
                      (uint32_t)(fewRows ? a->rows : a->cols),
                      fewRows ? a->cols : a->rows,
                      (uint64_t)((a->rows - 1) * a->lds + a->cols) * E};
  const uint64_t tiles = ((uint64_t)p.longSide + kPackRun / E - 1) / (kPackRun / E);
  const uint64_t limit = 0x7fffffffu; /* gridDim.x; larger matrices take several tiles a block */
  const dim3 grid((unsigned)(tiles < limit ? tiles : limit), 1, batchOf(a));
  auto kernel = fewRows ? thinPackKernel<E, CW, false> : thinPackKernel<E, CW, true>;
  kernel<<<grid, kPackThreads, p.thin * kPackPitch, stream>>>(p, tiles, a->src_stride * E, a->dst_stride * E);
  return cudaGetLastError();
}

/* The chunk width of the memory lines of the thin side (thinPackChunk). */
template <int E>
static cudaError_t launchThinPack(const dtrTransposeArgs* a, cudaStream_t stream) {
  const bool fewRows = thinRows(a);
  const uint32_t chunk = thinPackChunk((uintptr_t)(fewRows ? a->dst : a->src), (uint64_t)(fewRows ? a->ldd : a->lds) * E,
                                       batchOf(a) > 1 ? (uint64_t)(fewRows ? a->dst_stride : a->src_stride) * E : 0,
                                       (uint64_t)(fewRows ? a->rows : a->cols) * E);
  return withWidestWord(chunk, [&](auto word) { return launchThinPackTyped<E, decltype(word)>(a, stream); });
}

template <typename W>
static cudaError_t launchThinTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  const uint32_t k = (uint32_t)(a->entry_bytes / sizeof(W));
  uint32_t logK = 0;
  while ((1u << logK) < k) logK++;
  const bool fewRows = thinRows(a);
  const int64_t longSide = fewRows ? a->cols : a->rows;
  const uint64_t perTile = (kThinRunBytes / sizeof(W)) >> logK;
  const uint64_t tiles = ((uint64_t)longSide + perTile - 1) / perTile;
  const uint64_t limit = 0x7fffffffu; /* gridDim.x; larger matrices take several tiles a block */
  const dim3 grid((unsigned)(tiles < limit ? tiles : limit), 1, batchOf(a));
  const uint32_t thin = (uint32_t)(fewRows ? a->rows : a->cols);
  auto kernel = fewRows ? thinKernel<W, false> : thinKernel<W, true>;
  kernel<<<grid, kThinThreads, 0, stream>>>(static_cast<const W*>(a->src), a->lds * k, static_cast<W*>(a->dst),
                                            a->ldd * k, thin, longSide, logK, tiles, a->src_stride * k,
                                            a->dst_stride * k);
  return cudaGetLastError();
}

cudaError_t launchThin(const dtrTransposeArgs* a, cudaStream_t stream) {
  /* 4-byte entries stay on the word kernel (docs/design.md#thin-pack-4) until the pack
   * kernel, whose result lines of 32-128 bytes take two to eight chunks, has been measured against it. */
  if (a->entry_bytes == 1) return launchThinPack<1>(a, stream);
  if (a->entry_bytes == 2) return launchThinPack<2>(a, stream);
  /* The widest word that divides the entry and keeps every access aligned. */
  return withWidestWord(accessAlignment(a) | a->entry_bytes,
                        [&](auto word) { return launchThinTyped<decltype(word)>(a, stream); });
}

}  // namespace dtr
