/*
 * SIMT transposes.
 *
 * simt16: the vector kernels' shared-memory step (tile_transpose.cuh) fed by ordinary 16-byte
 *   loads and drained by 16-byte stores instead of TMA: for pitches and pointers that are 16-byte
 *   aligned, and a contender in its own right.
 * simt: element-wise, for any pitch and alignment and for entries that are tuples of words
 *   (howmany > 1); 1- and 2-byte entries, and 4-byte entries off their alignment, go to the
 *   word-wide kernel of transpose_subword.cu instead. Single words go through 64 x 64 (or 32 x 32) padded shared tiles; tuples under
 *   32 bytes through a 32 x 32 tile whose rows are padded by one entry, which keeps a warp's words
 *   in distinct banks; entries of 32 bytes or more are whole sectors, so they are copied directly,
 *   coalesced on the write side.
 */
#include <stdint.h>

#include "launch.h"
#include "tile_layout.h"
#include "group.h"
#include "simt16_tile.cuh"
#include "tile_transpose.cuh"
#include "variants.h"

namespace dtr {

/* ---- simt16 ----------------------------------------------------------------------------------- */

template <int S>
__global__ void __launch_bounds__(kSimt16Threads) simt16Kernel(const uint8_t* __restrict__ src, int64_t ldsBytes,
                                                               uint8_t* __restrict__ dst, int64_t lddBytes,
                                                               int64_t rows, int64_t cols, uint32_t tilesX,
                                                               uint32_t tilesY, uint32_t group, int64_t srcBatchBytes,
                                                               int64_t dstBatchBytes) {
  constexpr uint32_t T = (S == 1) ? 256 : 128;
  src += blockIdx.z * srcBatchBytes;
  dst += blockIdx.z * dstBatchBytes;
  uint8_t* stage = simt16Stage();
  const uint64_t tiles = (uint64_t)tilesX * tilesY;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    uint32_t tx, ty;
    dtrTileOrder(t, tilesX, tilesY, group, &tx, &ty);
    simt16Tile<S>(src, ldsBytes, dst, lddBytes, rows, cols, tx, ty, stage, stage + T * 128);
  }
}

template <int S>
static cudaError_t launchSimt16Typed(const dtrTransposeArgs* a, cudaStream_t stream) {
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  constexpr uint32_t T = (S == 1) ? 256 : 128, box = 128 / S;
  const uint32_t tilesX = (uint32_t)((a->cols + box - 1) / box), tilesY = (uint32_t)((a->rows + T - 1) / T);
  const uint64_t tiles = (uint64_t)tilesX * tilesY;
  const size_t smem = 1024 + 2 * T * 128;
  if ((err = allowDynamicSmem((const void*)simt16Kernel<S>, (int)smem))) return err;
  int perSm = 0;
  if ((err = residentBlocks((const void*)simt16Kernel<S>, kSimt16Threads, smem, &perSm))) return err;
  const KernelTuning tune = tuningFor(dtrKernelSimt16, S);
  const unsigned grid = tileGrid(tiles, (uint64_t)perSm * d.sms, tune.tilesPerCta);
  simt16Kernel<S><<<dim3(grid, 1, batchOf(a)), kSimt16Threads, smem, stream>>>(
      static_cast<const uint8_t*>(a->src), a->lds * S, static_cast<uint8_t*>(a->dst), a->ldd * S, a->rows, a->cols,
      tilesX, tilesY, (uint32_t)tune.tileGroup, a->src_stride * S, a->dst_stride * S);
  return cudaGetLastError();
}

cudaError_t launchSimt16(const dtrTransposeArgs* a, cudaStream_t stream) {
  switch (a->entry_bytes) {
    case 1: return launchSimt16Typed<1>(a, stream);
    case 2: return launchSimt16Typed<2>(a, stream);
    case 4: return launchSimt16Typed<4>(a, stream);
    case 8: return launchSimt16Typed<8>(a, stream);
    case 16: return launchSimt16Typed<16>(a, stream);
    default: return cudaErrorInvalidValue;
  }
}

/* ---- simt: element-wise --------------------------------------------------------------------- */

constexpr int kTile = 32, kTileRowsPerPass = 8;

/* Entries are k words of type W; pitches in words. Shared tile rows are 33 entries (32 + 1 pad). */
template <typename W>
__global__ void __launch_bounds__(kTile * kTileRowsPerPass) simtTileKernel(const W* __restrict__ src, int64_t ldsW,
                                                                        W* __restrict__ dst, int64_t lddW,
                                                                        int64_t rows, int64_t cols, uint32_t k,
                                                                        uint64_t tilesX, uint64_t tiles, int64_t srcBatchW,
                                                                        int64_t dstBatchW) {
  extern __shared__ __align__(16) uint8_t tileRaw[];
  src += blockIdx.z * srcBatchW;
  dst += blockIdx.z * dstBatchW;
  W* tile = reinterpret_cast<W*>(tileRaw);
  const uint32_t pitch = (kTile + 1) * k;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t row0 = (int64_t)(t / tilesX) * kTile, col0 = (int64_t)(t % tilesX) * kTile;
    const uint32_t spanIn = (uint32_t)((cols - col0 < kTile ? cols - col0 : kTile) * k);
    const uint32_t spanOut = (uint32_t)((rows - row0 < kTile ? rows - row0 : kTile) * k);
    for (uint32_t r = threadIdx.y; r < kTile && row0 + r < rows; r += kTileRowsPerPass) {
      const W* s = src + (row0 + r) * ldsW + col0 * k;
      for (uint32_t x = threadIdx.x; x < spanIn; x += kTile) tile[r * pitch + x] = s[x];
    }
    __syncthreads();
    for (uint32_t c = threadIdx.y; c < kTile && col0 + c < cols; c += kTileRowsPerPass) {
      W* d = dst + (col0 + c) * lddW + row0 * k;
      for (uint32_t x = threadIdx.x; x < spanOut; x += kTile) {
        const uint32_t r = x / k, w = x - r * k;
        d[x] = tile[r * pitch + c * k + w];
      }
    }
    __syncthreads();
  }
}

/*
 * Entries of one word W of 4 bytes or more (any pitch, any alignment of W): 64 x 64 tiles for
 * 4- and 8-byte words, 32 x 32 for 16-byte ones (64 x 64 would pass the 48 KB of static shared
 * memory), every thread's loads issued before the first shared store. Rows of the shared tile are
 * padded by one word, so a warp reading a column hits 32 banks.
 */
template <typename W>
struct WordTile {
  /* A warp's row access spans 128, 256 or 512 bytes. */
  static constexpr int T = sizeof(W) >= 16 ? 32 : 64;
  static constexpr int pitch = T + 1;
};

/* The resident blocks per multiprocessor the word kernels are compiled for: 4 leaves 64
 * registers, enough for 4- and 16-byte words without spills; 8-byte words' 64 x 64 tiles take 80. */
template <typename W>
struct WordBlocks {
  static constexpr int value = sizeof(W) == 8 ? 3 : 4;
};

/* Loads and stores that may bypass caching: the data is touched once (ld/st .cs, evict first). */
template <typename W, bool Streaming>
__device__ __forceinline__ W loadWord(const W* p) {
  if constexpr (Streaming) return __ldcs(p);
  else return *p;
}
template <typename W, bool Streaming>
__device__ __forceinline__ void storeWord(W* p, W v) {
  if constexpr (Streaming) __stcs(p, v);
  else *p = v;
}

/* Rows past the tile: where result rows do not start on a boundary of `Window` bytes (a sector, or a
 * 128-byte line), a tile writes them from one boundary to the next (see wordTile), which reaches up
 * to X entries into the next tile's rows. */
template <typename W, int Window = kSector>
struct WordTileRows {
  static constexpr int X = Window / (int)sizeof(W);
  static constexpr int RX = (X + kTileRowsPerPass - 1) / kTileRowsPerPass;
  static constexpr int words = (WordTile<W>::T + RX * kTileRowsPerPass) * WordTile<W>::pitch;
};

/* One T x T tile (tx, ty) through the shared `tile`; every thread of the (32, 8) block takes part.
 * Interior: the tile, and the rows past it that its stores may reach, lie inside the matrix, and it
 * is not in the first tile row, so no load or store needs a check (see wordTileInterior). */
template <typename W, bool Streaming, bool Interior, int Window>
__device__ __forceinline__ void wordTile(const W* __restrict__ src, int64_t lds, W* __restrict__ dst, int64_t ldd,
                                         int64_t rows, int64_t cols, uint32_t tx, uint32_t ty, W* tile) {
  constexpr int T = WordTile<W>::T, P = WordTile<W>::pitch, R = T / kTileRowsPerPass, C = T / kTile;
  constexpr int X = WordTileRows<W, Window>::X, RX = WordTileRows<W, Window>::RX;
  const bool shifted = ((reinterpret_cast<uintptr_t>(dst) | (uintptr_t)ldd * sizeof(W)) & (Window - 1));
  const int64_t row0 = (int64_t)ty * T, col0 = (int64_t)tx * T;
  W v[R + RX][C];
#pragma unroll
  for (int i = 0; i < R + RX; i++)
#pragma unroll
    for (int j = 0; j < C; j++) {
      const int64_t r = row0 + threadIdx.y + i * kTileRowsPerPass, c = col0 + threadIdx.x + j * kTile;
      const bool row = i < R || (shifted && threadIdx.y + (i - R) * kTileRowsPerPass < X);
      if (row && (Interior || (r < rows && c < cols))) v[i][j] = loadWord<W, Streaming>(src + r * lds + c);
    }
#pragma unroll
  for (int i = 0; i < R + RX; i++)
#pragma unroll
    for (int j = 0; j < C; j++) tile[(threadIdx.y + i * kTileRowsPerPass) * P + threadIdx.x + j * kTile] = v[i][j];
  __syncthreads();
  /* Each result row is written from the first boundary of `Window` bytes (a sector; a line in the
   * grouped form, see kGroupWindow) at or after the tile's first entry, d entries on, to T entries
   * further (the first tile from the row's start, the last to its end): no sector is then written
   * in part by two tiles, which would have the L2 fetch it
   * back from memory (4-byte entries, 268435 x 1000: 66 % of copy before, 82 % so; 8-byte,
   * 134217 x 1000: 76 %, 89 %). j = -1 is the entries before the boundary, which only the first
   * tile writes; an interior tile's window [d, d + T) lies inside the matrix. */
#pragma unroll
  for (int i = 0; i < R; i++) {
    const int64_t c = col0 + threadIdx.y + i * kTileRowsPerPass;
    W* out = dst + c * ldd + row0;
    const int64_t d =
        shifted ? (int64_t)((Window - (reinterpret_cast<uintptr_t>(out) & (Window - 1))) & (Window - 1)) / (int64_t)sizeof(W) : 0;
    const int64_t from = row0 == 0 ? 0 : d, to = rows - row0 < T + d ? rows - row0 : T + d;
#pragma unroll
    for (int j = Interior ? 0 : -1; j < C; j++) {
      const int64_t r = d + threadIdx.x + j * kTile; /* within the tile */
      if (Interior || (c < cols && r >= from && r < to))
        storeWord<W, Streaming>(out + r, tile[r * P + threadIdx.y + i * kTileRowsPerPass]);
    }
  }
  __syncthreads();
}

/* Whether tile (tx, ty) is interior in wordTile's sense. */
template <typename W, int Window>
__device__ __forceinline__ bool wordTileInterior(int64_t rows, int64_t cols, uint32_t tx, uint32_t ty) {
  constexpr int T = WordTile<W>::T, X = WordTileRows<W, Window>::X;
  return ty > 0 && ((int64_t)ty + 1) * T + X <= rows && ((int64_t)tx + 1) * T <= cols;
}

template <typename W, bool Streaming, int Window = kSector>
__device__ __forceinline__ void wordTileAny(const W* __restrict__ src, int64_t lds, W* __restrict__ dst, int64_t ldd,
                                            int64_t rows, int64_t cols, uint32_t tx, uint32_t ty, W* tile) {
  if (wordTileInterior<W, Window>(rows, cols, tx, ty))
    wordTile<W, Streaming, true, Window>(src, lds, dst, ldd, rows, cols, tx, ty, tile);
  else
    wordTile<W, Streaming, false, Window>(src, lds, dst, ldd, rows, cols, tx, ty, tile);
}

template <typename W, bool Streaming>
__global__ void __launch_bounds__(kTile * kTileRowsPerPass, WordBlocks<W>::value)
    simtWordKernel(const W* __restrict__ src, int64_t lds, W* __restrict__ dst, int64_t ldd, int64_t rows, int64_t cols,
                   uint32_t tilesX, uint32_t tilesY, uint32_t group, int64_t srcBatch, int64_t dstBatch) {
  src += blockIdx.z * srcBatch;
  dst += blockIdx.z * dstBatch;
  __shared__ W tile[WordTileRows<W>::words];
  const uint64_t tiles = (uint64_t)tilesX * tilesY;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    uint32_t tx, ty;
    dtrTileOrder(t, tilesX, tilesY, group, &tx, &ty);
    wordTileAny<W, Streaming>(src, lds, dst, ldd, rows, cols, tx, ty, tile);
  }
}

/*
 * The grouped form (group.h), which the p2p backend runs with the members' B in the peers' memory.
 * Its result rows are written from one 128-byte line boundary to the next rather than one sector
 * boundary to the next: a warp's store of 32 words then fills one whole line, which crosses NVLink
 * as one write instead of two partial ones, and the rows past the tile this takes are read from
 * local memory, which has bandwidth to spare beside NVLink. (docs/design.md#line-windows)
 */
constexpr int kGroupWindow = 128;

template <typename W, int Window>
__global__ void __launch_bounds__(kTile * kTileRowsPerPass, WordBlocks<W>::value) wordGroupKernel(const __grid_constant__ TransposeGroup g) {
  __shared__ W tile[WordTileRows<W, Window>::words];
  forEachGroupTile(g, [&](const TransposeGroupMember& m, uint64_t k, uint32_t tx, uint32_t ty) {
    wordTileAny<W, false, Window>(reinterpret_cast<const W*>(m.src + k * m.srcBatchBytes), m.ldsBytes / (int64_t)sizeof(W),
                          reinterpret_cast<W*>(m.dst + k * m.dstBatchBytes), m.lddBytes / (int64_t)sizeof(W), m.rows,
                          m.cols, tx, ty, tile);
  });
}

/* Entries of 32 bytes or more: each result row is written contiguously, each entry read whole. */
template <typename W>
__global__ void simtDirectKernel(const W* __restrict__ src, int64_t ldsW, W* __restrict__ dst, int64_t lddW,
                                 int64_t rows, int64_t cols, uint32_t k, int64_t srcBatchW, int64_t dstBatchW) {
  const int64_t words = rows * k;
  src += blockIdx.z * srcBatchW;
  dst += blockIdx.z * dstBatchW;
  for (int64_t c = blockIdx.y; c < cols; c += gridDim.y) {
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < words; x += (int64_t)gridDim.x * blockDim.x) {
      const int64_t r = x / k, w = x - r * k;
      dst[c * lddW + x] = src[r * ldsW + c * k + w];
    }
  }
}

template <typename W, bool Streaming>
static cudaError_t launchWord(const dtrTransposeArgs* a, cudaStream_t stream, const DeviceInfo& d,
                              const KernelTuning& tune) {
  constexpr int T = WordTile<W>::T;
  auto kernel = simtWordKernel<W, Streaming>;
  const uint32_t tilesX = (uint32_t)((a->cols + T - 1) / T), tilesY = (uint32_t)((a->rows + T - 1) / T);
  int perSm = 0;
  cudaError_t err = residentBlocks((const void*)kernel, kTile * kTileRowsPerPass, 0, &perSm);
  if (err) return err;
  const uint64_t resident = (uint64_t)perSm * d.sms;
  kernel<<<dim3(tileGrid((uint64_t)tilesX * tilesY, resident, tune.tilesPerCta), 1, batchOf(a)), dim3(kTile, kTileRowsPerPass),
           0, stream>>>(static_cast<const W*>(a->src), a->lds, static_cast<W*>(a->dst), a->ldd, a->rows, a->cols, tilesX,
                        tilesY, tileGroupForShape(a, (uint32_t)tune.tileGroup, tilesX, tilesY, resident),
                        a->src_stride, a->dst_stride);
  return cudaGetLastError();
}

template <typename W>
static cudaError_t launchSimtTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  const uint32_t k = (uint32_t)(a->entry_bytes / sizeof(W));
  const int64_t ldsW = a->lds * k, lddW = a->ldd * k, sbW = a->src_stride * k, dbW = a->dst_stride * k;
  const W* src = static_cast<const W*>(a->src);
  W* dst = static_cast<W*>(a->dst);
  if (a->entry_bytes >= 32) {
    const int threads = 256;
    const int64_t words = a->rows * k;
    uint64_t bx = (uint64_t)((words + threads - 1) / threads), by = (uint64_t)a->cols;
    if (bx > 1024) bx = 1024;
    if (by > 65535) by = 65535;
    simtDirectKernel<W><<<dim3((unsigned)bx, (unsigned)by, batchOf(a)), threads, 0, stream>>>(src, ldsW, dst, lddW,
                                                                                              a->rows, a->cols, k, sbW, dbW);
    return cudaGetLastError();
  }
  /* Entries of 1 and 2 bytes are launchSubword's. */
  if constexpr (sizeof(W) >= 4) {
    if (k == 1) {
      const KernelTuning tune = tuningFor(dtrKernelSimt, sizeof(W));
      if (tune.streaming) return launchWord<W, true>(a, stream, d, tune);
      return launchWord<W, false>(a, stream, d, tune);
    }
  }
  const size_t smem = (size_t)kTile * (kTile + 1) * k * sizeof(W);
  const uint64_t tilesX = (a->cols + kTile - 1) / kTile, tiles = tilesX * ((a->rows + kTile - 1) / kTile);
  int perSm = 0;
  if ((err = residentBlocks((const void*)simtTileKernel<W>, kTile * kTileRowsPerPass, smem, &perSm)))
    return err;
  /* Tuples stay persistent: the one-tile-per-block grid was measured on single words only. */
  const unsigned grid = tileGrid(tiles, (uint64_t)perSm * d.sms, kPersistent);
  simtTileKernel<W><<<dim3(grid, 1, batchOf(a)), dim3(kTile, kTileRowsPerPass), smem, stream>>>(
      src, ldsW, dst, lddW, a->rows, a->cols, k, tilesX, tiles, sbW, dbW);
  return cudaGetLastError();
}

template <typename W>
static cudaError_t launchWordGroupTyped(TransposeGroup& g, int ctas, cudaStream_t stream) {
  constexpr int T = WordTile<W>::T;
  auto kernel = wordGroupKernel<W, kGroupWindow>;
  for (int i = 0; i < g.count; i++) transposeGroupTiles(&g.m[i], T, T);
  cudaError_t err = groupBlocksPerMember((const void*)kernel, kTile * kTileRowsPerPass, 0, g,
                                         (kElementGroupBlocks + g.count - 1) / g.count, &ctas);
  if (err != cudaSuccess) return err;
  /* Not tileGroupForShape's whole tile rows: with the stores going to peers over NVLink, they
   * collapsed. Only where the columns of tiles are short
   * (docs/design.md#word-group-order). */
  g.tileGroup = groupTileOrder(g, kWordGroupTiles, ctas, 0);
  kernel<<<(unsigned)(ctas * g.count), dim3(kTile, kTileRowsPerPass), 0, stream>>>(g);
  return cudaGetLastError();
}

int wordGroupEligible(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  return (s == 4 || s == 8 || s == 16) && !(accessAlignment(a) & (s - 1));
}

cudaError_t launchWordGroup(TransposeGroup& g, int ctas, cudaStream_t stream) {
  switch (g.m[0].entryBytes) {
    case 4: return launchWordGroupTyped<uint32_t>(g, ctas, stream);
    case 8: return launchWordGroupTyped<uint64_t>(g, ctas, stream);
    case 16: return launchWordGroupTyped<uint4>(g, ctas, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launchSimt(const dtrTransposeArgs* a, cudaStream_t stream) {
  if (thinServes(a)) return launchThin(a, stream);
  /* 1- and 2-byte entries, and 4-byte ones off their alignment: aligned words and shifts. */
  if (subwordServes(a)) return launchSubword(a, stream);
  /* The widest word that divides the entry and keeps every access aligned. */
  return withWidestWord(accessAlignment(a) | a->entry_bytes,
                        [&](auto word) { return launchSimtTyped<decltype(word)>(a, stream); });
}

}  // namespace dtr
