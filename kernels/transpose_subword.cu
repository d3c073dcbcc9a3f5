/*
 * SIMT transpose of 1-, 2- and 4-byte entries at any pitch and any pointer alignment, moved as
 * aligned 4-byte words on the 32-byte sector grid.
 *
 * Why: the element-wise kernel moves a 1-byte entry with one load and one store of one byte each,
 * which makes it instruction-bound at about half of copy bandwidth. And words aligned to a row's
 * own start would split every request of a misaligned row over two sectors: that made the L2
 * handle three to four times the sectors and fetch partly written ones back from memory.
 *
 * So eight lanes take one row, each lane every eighth word of the sectors that cover it; each load
 * or store instruction then moves whole sectors, whatever the row's alignment. Funnel shifts with
 * the words of two other lanes of the group put a source row on the tile's word boundaries in
 * shared memory, and a result row back on the sector grid. In between, a thread transposes blocks
 * of 4 x 4 bytes (or 2 x 2 halves) in registers with byte permutes. Words that reach past the
 * matrix row are read byte by byte, so nothing outside the matrix is read; words that reach past
 * the tile's part of a result row are written in part, so a neighbour tile's bytes are never
 * overwritten.
 *
 * The tile is 128 source rows x W = 128 or 256 bytes (W / S entries); each warp loads 16 rows and
 * stores 4 word columns (4 E result rows) per 128 bytes of width. Shared rows are W / 4 words,
 * swizzled by tileSlot so that both the row-wise stores and the column-wise reads are free of bank
 * conflicts.
 */
#include <stdint.h>

#include "group.h"
#include "launch.h"
#include "tile_layout.h"
#include "variants.h"

namespace dtr {

constexpr int kSubwordThreads = 256;
constexpr int kSubwordRows = 128;      /* source rows per tile: one result row is 128 entries */
constexpr int kRowStoresWidth = 128;   /* the tile width, in bytes, that row stores stage (stagedSlot) */

/* The aligned word at p; bytes outside [lo, hi) read as zero and are not touched. */
__device__ __forceinline__ uint32_t loadWordClipped(const uint8_t* p, uintptr_t lo, uintptr_t hi) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a >= lo && a + 4 <= hi) return *reinterpret_cast<const uint32_t*>(p);
  uint32_t v = 0;
#pragma unroll
  for (int b = 0; b < 4; b++)
    if (a + b >= lo && a + b < hi) v |= (uint32_t)p[b] << (8 * b);
  return v;
}

/* Bytes from..to-1 of the aligned word v at p, as at most one byte and one aligned half. */
__device__ __forceinline__ void storeWordPart(uint8_t* p, uint32_t v, uint32_t from, uint32_t to) {
  if (from & 1) {
    p[from] = (uint8_t)(v >> (8 * from));
    from++;
  }
  if (from + 2 <= to) {
    *reinterpret_cast<uint16_t*>(p + from) = (uint16_t)(v >> (8 * from));
    from += 2;
  }
  if (from < to) p[from] = (uint8_t)(v >> (8 * from));
}

/* w[b] holds entries (row b, columns 0..E-1) of an E x E block; on return w[q] holds column q. */
template <int S>
__device__ __forceinline__ void transposeBlock(uint32_t (&w)[4 / S]) {
  if constexpr (S == 1) {
    const uint32_t t0 = __byte_perm(w[0], w[1], 0x5140), t1 = __byte_perm(w[0], w[1], 0x7362);
    const uint32_t t2 = __byte_perm(w[2], w[3], 0x5140), t3 = __byte_perm(w[2], w[3], 0x7362);
    w[0] = __byte_perm(t0, t2, 0x5410);
    w[1] = __byte_perm(t0, t2, 0x7632);
    w[2] = __byte_perm(t1, t3, 0x5410);
    w[3] = __byte_perm(t1, t3, 0x7632);
  } else if constexpr (S == 2) {
    const uint32_t a = w[0], b = w[1];
    w[0] = __byte_perm(a, b, 0x5410);
    w[1] = __byte_perm(a, b, 0x7632);
  }
}

__device__ __forceinline__ uint32_t sectorOffset(const void* p) {
  return (uint32_t)(reinterpret_cast<uintptr_t>(p) & (kSector - 1));
}

template <typename T>
__device__ __forceinline__ T* alignDownSector(T* p) {
  /* By pointer arithmetic: a pointer made from an integer loses its global address space, and
   * its loads compile to generic ones. */
  return p - sectorOffset(p);
}

/* Lane `part` (taken modulo 8) of the calling lane's group of eight. */
__device__ __forceinline__ uint32_t groupLane(uint32_t lane, uint32_t part) { return (lane & ~7u) | (part & 7); }

/*
 * Word `word` of tile row r in shared memory. The swizzle puts bits 2-3 of the row (which of the
 * four rows a load instruction covers) on bank bits 3-4, and the bits of the row that tell the
 * eight lanes of a result row apart on bank bits 0-2: both the row-wise stores and the column-wise
 * reads of the transpose then hit 32 distinct banks.
 */
template <int S>
__device__ __forceinline__ uint32_t tileSwizzle(uint32_t r) {
  constexpr int log2E = S == 1 ? 2 : S == 2 ? 1 : 0;
  return 8 * ((r >> 2) & 3) + ((r >> log2E) & 7);
}

template <int S, int W>
__device__ __forceinline__ uint32_t tileSlot(uint32_t r, uint32_t word) {
  return r * (W / 4) + (word ^ tileSwizzle<S>(r));
}

/*
 * Issues the loads of one source row's 128 bytes into v: lane `part` takes the words 8 i + part of
 * the 32-byte sectors that cover them (a fifth sector when the row does not start on one), so each
 * load instruction moves whole sectors. Checked: only words inside the matrix row [a, b) are read.
 */
template <bool Checked, int I>
__device__ __forceinline__ void fetchRow(uint32_t (&v)[I + 1], const uint8_t* seg, uint32_t part, uintptr_t a, uintptr_t b) {
  const uint8_t* base = alignDownSector(seg) + 4 * part;
  const bool more = 4 * part < sectorOffset(seg);
#pragma unroll
  for (int i = 0; i < I; i++)
    v[i] = Checked ? loadWordClipped(base + kSector * i, a, b) : *reinterpret_cast<const uint32_t*>(base + kSector * i);
  v[I] = 0;
  if (more) v[I] = Checked ? loadWordClipped(base + I * kSector, a, b) : *reinterpret_cast<const uint32_t*>(base + I * kSector);
}

/*
 * Stores the row fetched into v to tile row r on the tile's word boundaries. The row starts `off`
 * bytes into its first sector, so tile word 8 i + p is sector words 8 i + p + off / 4 and the one
 * after, shifted by off % 4 bytes. A lane sends what the lane that needs it asks for: its word i,
 * or i + 1 where the receiver's word lies a sector on. Three cases, each a straight run: rows on
 * sector boundaries, rows on word boundaries (one shuffle a word), and the rest (two shuffles and a
 * funnel shift). Every lane of the warp takes part (the shuffles); `use` says whether it stores.
 */
template <int S, int I>
__device__ __forceinline__ void placeRow(uint32_t* tile, const uint32_t (&v)[I + 1], uint32_t off, uint32_t r, bool use,
                                         uint32_t lane) {
  const uint32_t part = lane & 7, ow = off >> 2, sh = 8 * (off & 3);
  const bool aligned = !__any_sync(0xffffffffu, off != 0), shifted = __any_sync(0xffffffffu, sh != 0);
  uint32_t value[I];
  if (aligned) {
#pragma unroll
    for (int i = 0; i < I; i++) value[i] = v[i];
  } else {
    const uint32_t loLane = groupLane(lane, part + ow);
    const bool loLate = part < ow;
    if (!shifted) {
#pragma unroll
      for (int i = 0; i < I; i++) value[i] = __shfl_sync(0xffffffffu, loLate ? v[i + 1] : v[i], loLane);
    } else {
      const uint32_t hiLane = groupLane(lane, part + ow + 1);
      const bool hiLate = part <= ow;
#pragma unroll
      for (int i = 0; i < I; i++) {
        const uint32_t lo = __shfl_sync(0xffffffffu, loLate ? v[i + 1] : v[i], loLane);
        const uint32_t hi = __shfl_sync(0xffffffffu, hiLate ? v[i + 1] : v[i], hiLane);
        value[i] = __funnelshift_r(lo, hi, sh);
      }
    }
  }
  if (use) {
    /* tileSlot(r, 8 i + part) = r * 8 I + ((8 i + part) ^ z) = r * 8 I + 8 (i ^ (z / 8)) + (part ^ z % 8) */
    const uint32_t z = tileSwizzle<S>(r);
    uint32_t* row = tile + r * 8 * I + (part ^ (z & 7));
#pragma unroll
    for (int i = 0; i < I; i++) row[8 * (i ^ (z >> 3))] = value[i];
  }
}

/* Word `word` of result row r of a tile staged for row stores (r < 128 / S, word < 32 S). The
 * transpose's stores put the four quarters of a warp at rows 8 E apart and the row reads take 32
 * words in a row: swapping bits 3-4 of the word by the quarter gives both 32 distinct banks. */
template <int S>
__device__ __forceinline__ uint32_t stagedSlot(uint32_t r, uint32_t word) {
  constexpr uint32_t E = 4 / S;
  return r * 32 * S + (word ^ (8 * ((r / (8 * E)) & 3)));
}

/*
 * One tile: 128 source rows from row0, W bytes from entry col0. Interior: a tile that needs no checks
 * (subwordTileAt says which); inside: its loads need none.
 * pastRows: the source rows past the tile that its sector-aligned stores reach (subwordPastRows),
 * which are loaded too.
 */
template <int S, int W, bool Interior, bool RowStores>
__device__ __forceinline__ void subwordTile(const uint8_t* __restrict__ src, int64_t ldsBytes, uint8_t* __restrict__ dst,
                                            int64_t lddBytes, int64_t rows, int64_t cols, int64_t row0, int64_t col0,
                                            bool inside, uint32_t pastRows, uint32_t* tile) {
  static_assert(W == 128 || W == 256, "tiles are 128 or 256 bytes wide");
  static_assert(!RowStores || W == kRowStoresWidth, "row stores stage a 128-byte-wide tile");
  constexpr int E = 4 / S;                 /* entries per word */
  constexpr int C = W / S;                 /* tile columns, in entries */
  constexpr int I = W / kSector;           /* sectors of a source row's piece, a fifth aside */
  constexpr int N = 16 / E;                /* words of one result row per lane */
  /* Source rows loaded before the first is placed: all four (and the row past) for 128-byte rows,
   * two at a time for 256-byte ones, whose nine words a row would otherwise take 45 registers. */
  constexpr int Batch = W == 128 ? 4 : 2;
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t part = lane & 7, quarter = lane >> 3;
  const int64_t rowsLeft = rows - row0;
  /* The rows a lane loads: 16 w + 4 quarter + s, then 128 + 16 (w / 4) + 4 quarter + w % 4 while
   * below 128 + pastRows. Bits 2-3 of the row tell the four rows of one load instruction apart. */
  const uint32_t first = 16 * warp + 4 * quarter;
  const uint32_t extra = kSubwordRows + 16 * (warp >> 2) + 4 * quarter + (warp & 3);
  const bool extraUse = extra < kSubwordRows + pastRows;
  const bool loadExtra = pastRows && rowsLeft > kSubwordRows;
  const uint8_t* seg = src + (row0 + first) * ldsBytes + col0 * S;
  const uint8_t* segExtra = seg + (int64_t)(extra - first) * ldsBytes;
  /* The matrix row's bytes, for the checked loads of edge tiles. */
  const uintptr_t a = reinterpret_cast<uintptr_t>(seg) - (uintptr_t)(col0 * S), b = a + (uintptr_t)(cols * S);
  const uintptr_t aExtra = reinterpret_cast<uintptr_t>(segExtra) - (uintptr_t)(col0 * S), bExtra = aExtra + (uintptr_t)(cols * S);
#pragma unroll
  for (int s0 = 0; s0 < 4; s0 += Batch) {
    const bool last = s0 + Batch == 4;
    uint32_t v[Batch + 1][I + 1];
    /* Every load of a batch is issued before the first is used. */
#pragma unroll
    for (int k = 0; k < Batch; k++) {
      const int s = s0 + k;
      const uint8_t* p = seg + s * ldsBytes;
      if (Interior) fetchRow<false, I>(v[k], p, part, 0, 0);
      else {
#pragma unroll
        for (int i = 0; i <= I; i++) v[k][i] = 0;
        if (first + s < rowsLeft) {
          if (inside) fetchRow<false, I>(v[k], p, part, 0, 0);
          else fetchRow<true, I>(v[k], p, part, a + s * ldsBytes, b + s * ldsBytes);
        }
      }
    }
    if (last && loadExtra) {
#pragma unroll
      for (int i = 0; i <= I; i++) v[Batch][i] = 0;
      if (extraUse && (Interior || extra < rowsLeft)) {
        if (Interior || inside) fetchRow<false, I>(v[Batch], segExtra, part, 0, 0);
        else fetchRow<true, I>(v[Batch], segExtra, part, aExtra, bExtra);
      }
    }
#pragma unroll
    for (int k = 0; k < Batch; k++)
      placeRow<S, I>(tile, v[k], sectorOffset(seg + (s0 + k) * ldsBytes), first + s0 + k, true, lane);
    if (last && loadExtra) placeRow<S, I>(tile, v[Batch], sectorOffset(segExtra), extra, extraUse, lane);
  }
  __syncthreads();
  const int64_t colsIn = cols - col0 < C ? cols - col0 : C;
  /* Row stores: the words go to shared memory in result-row order first (once every warp is done
   * reading the tile), then each warp stores whole windows, 128 bytes an instruction. */
  constexpr bool staged = RowStores && Interior;
  const int64_t restBytes = rowsLeft * S;
#pragma unroll
  for (int half = 0; half < W / 128; half++) {
    /* Transpose: the lanes of a group take word column j = 8 quarter + w (+ 32 in a 256-byte tile's
     * second half), which is result rows E j ... E j + E - 1; lane `part` reads the E source rows
     * behind words 8 n + part of those rows and turns each E x E block into one word of each. n = N
     * is the rows past the tile. */
    const uint32_t j = 8 * quarter + warp + 32 * half;
    uint32_t o[E][N + 1];
#pragma unroll
    for (int n = 0; n <= N; n++) {
      /* Rows 128 + pastRows .. 128 + 32 / S - 1 are not loaded: what they put in o[][N] lands outside
       * every result row's window, which ends pastRows rows past the tile at most. */
      if (n == N && !pastRows) break;
      uint32_t x[E];
#pragma unroll
      for (int e = 0; e < E; e++) x[e] = tile[tileSlot<S, W>(E * (8 * n + part) + e, j)];
      transposeBlock<S>(x);
#pragma unroll
      for (int q = 0; q < E; q++) o[q][n] = x[q];
    }
    if constexpr (staged) __syncthreads();
    /*
     * Store: a tile writes each result row from the first sector boundary at or after its first
     * entry to 128 S bytes further (the first tile from the row's start, the last to its end), so
     * that no sector is written in part by two tiles, which would have the L2 fetch it back from
     * memory. Eight lanes write one result row, lane `part` words 8 n + part of those sectors:
     * with the row's window starting d bytes after the tile's first entry, sector word 8 n + p is
     * tile words 8 n + p + d / 4 and the one after, shifted by d % 4 bytes.
     */
    uint8_t* out = dst + (col0 + E * j) * lddBytes + row0 * S;
#pragma unroll
    for (int q = 0; q < E; q++, out += lddBytes) {
      const int32_t d = (int32_t)((kSector - sectorOffset(out)) & (kSector - 1));
      const uint32_t dw = d >> 2, sh = 8 * (d & 3);
      const bool aligned = !__any_sync(0xffffffffu, d != 0);
      /* value[n + 1] is sector word 8 n + part; n = -1 is the bytes before the first sector
       * boundary, which only the first tile writes. */
      uint32_t value[N + 1];
#pragma unroll
      for (int n = -1; n < N; n++) value[n + 1] = n >= 0 ? o[q][n] : 0;
      if (!aligned) {
        const int first = Interior || row0 != 0 ? 0 : -1;
        const uint32_t loLane = groupLane(lane, part + dw);
        const bool loLate = part < dw;
        if (!__any_sync(0xffffffffu, sh != 0)) {
#pragma unroll
          for (int n = -1; n < N; n++)
            if (n >= first) value[n + 1] = __shfl_sync(0xffffffffu, loLate ? o[q][n + 1] : (n >= 0 ? o[q][n] : 0), loLane);
        } else {
          const uint32_t hiLane = groupLane(lane, part + dw + 1);
          const bool hiLate = part <= dw;
#pragma unroll
          for (int n = -1; n < N; n++) {
            if (n < first) continue;
            const uint32_t cur = n >= 0 ? o[q][n] : 0;
            const uint32_t lo = __shfl_sync(0xffffffffu, loLate ? o[q][n + 1] : cur, loLane);
            const uint32_t hi = __shfl_sync(0xffffffffu, hiLate ? o[q][n + 1] : cur, hiLane);
            value[n + 1] = __funnelshift_r(lo, hi, sh);
          }
        }
      }
      uint8_t* word = out + d + 4 * part;
      if constexpr (staged) {
#pragma unroll
        for (int n = 0; n < N; n++) tile[stagedSlot<S>(E * j + q, 8 * n + part)] = value[n + 1];
        continue;
      }
      if ((int64_t)(E * j + q) >= colsIn) continue;
      if (Interior) {
        /* Every word of an interior tile's result rows lies in its window. */
#pragma unroll
        for (int n = 0; n < N; n++) *reinterpret_cast<uint32_t*>(word + kSector * n) = value[n + 1];
        continue;
      }
      const int32_t from = row0 == 0 ? 0 : d;
      const int32_t to = (int32_t)(restBytes < d + kSubwordRows * S ? restBytes : d + kSubwordRows * S);
#pragma unroll
      for (int n = -1; n < N; n++) {
        const int32_t pos = d + kSector * n + 4 * (int32_t)part; /* its first byte, from the tile's first entry */
        if (pos >= from && pos + 4 <= to) *reinterpret_cast<uint32_t*>(word + kSector * n) = value[n + 1];
        else if (pos + 4 > from && pos < to)
          storeWordPart(word + kSector * n, value[n + 1], pos < from ? from - pos : 0, to - pos < 4 ? to - pos : 4);
      }
    }
  }
  if constexpr (staged) {
    __syncthreads();
    for (uint32_t r = warp; r < (uint32_t)C; r += kSubwordThreads / 32) {
      uint8_t* row = dst + (col0 + r) * lddBytes + row0 * S;
      uint8_t* window = row + ((kSector - sectorOffset(row)) & (kSector - 1));
#pragma unroll
      for (int k = 0; k < S; k++)
        *reinterpret_cast<uint32_t*>(window + 4 * (32 * k + lane)) = tile[stagedSlot<S>(r, 32 * k + lane)];
    }
  }
}

/* Blocks per multiprocessor the kernel is compiled for: 4 (64 registers). 5 (48 registers) spilled
 * a little and measured the same or 1-3 points lower; 6 (40) spilled more and lost 2-13 points. */
constexpr int kSubwordBlocks = 4;

/*
 * Tile (tx, ty), on the checked path unless it is interior, and the barrier before the next.
 * Loads need no checks where the sectors around the tile's row pieces lie inside the matrix: its
 * columns keep a sector from either end of the rows, or its rows (the rows past included) keep a
 * sector of the matrix before the first and a tile's width and a sector after the last, so that
 * what a row piece reaches past its row's end holds later rows' bytes. The latter spares the tiles
 * at the left and right edges of all but the first and last tile rows the checked path (tall 1-byte
 * shapes, 1000 bytes wide, had two of their eight tile columns there). Stores need no checks but
 * the columns' where the tile's rows and the rows past exist and it is not in the first tile row;
 * row stores, which write every result row of the tile, need a full tile as well.
 */
template <int S, int W, bool RowStores>
__device__ __forceinline__ void subwordTileAt(const uint8_t* __restrict__ src, int64_t ldsBytes, uint8_t* __restrict__ dst,
                                              int64_t lddBytes, int64_t rows, int64_t cols, uint32_t tx, uint32_t ty,
                                              uint32_t pastRows, uint32_t* tile) {
  constexpr int C = W / S;
  constexpr int X = kSector / S;
  const int64_t row0 = (int64_t)ty * kSubwordRows, col0 = (int64_t)tx * C;
  const int64_t rowsAfter = rows - (row0 + kSubwordRows + X); /* rows of the matrix after the last one loaded */
  const bool unchecked = (col0 * S >= kSector && (col0 + C) * S + kSector <= cols * S) ||
                         (row0 != 0 && rowsAfter >= 0 && rowsAfter * ldsBytes >= W + kSector);
  if (unchecked && row0 != 0 && rowsAfter >= 0 && (!RowStores || cols - col0 >= C))
    subwordTile<S, W, true, RowStores>(src, ldsBytes, dst, lddBytes, rows, cols, row0, col0, true, pastRows, tile);
  else
    subwordTile<S, W, false, RowStores>(src, ldsBytes, dst, lddBytes, rows, cols, row0, col0, unchecked, pastRows, tile);
  __syncthreads();
}

/*
 * The source rows past a tile that its stores reach: a result row's window starts d bytes after the
 * tile's first entry, d the distance to the next sector boundary, and takes d / S rows past the tile.
 * Tiles start on multiples of 128 rows, so the result rows' offsets in their sectors are a + k g,
 * g the largest power of two (up to a sector) dividing the pitch (and the batch stride), a the
 * output's offset modulo g. None where every row starts on a boundary: the rows past cost a quarter
 * more reads for 1-byte entries, an eighth for 2-byte ones (docs/design.md#subword-past-rows); 24 of 32 where the pitch is a multiple of 8 bytes (1000 x n, 1 B).
 */
__host__ __device__ inline uint32_t subwordPastRows(const void* dst, int64_t lddBytes, int64_t dstBatchBytes,
                                                    int64_t batch, uint32_t entryBytes) {
  const uint64_t pitches = (uint64_t)lddBytes | (batch > 1 ? (uint64_t)dstBatchBytes : 0) | kSector;
  const uint64_t g = pitches & (~pitches + 1);
  const uint32_t a = (uint32_t)((uintptr_t)dst & (g - 1));
  const uint32_t reach = a ? kSector - a : kSector - (uint32_t)g;
  return (reach + entryBytes - 1) / entryBytes;
}

template <int S, int W>
__global__ void __launch_bounds__(kSubwordThreads, kSubwordBlocks)
    subwordKernel(const uint8_t* __restrict__ src, int64_t ldsBytes, uint8_t* __restrict__ dst, int64_t lddBytes,
                  int64_t rows, int64_t cols, uint32_t tilesX, uint32_t tilesY, uint32_t group, int64_t srcBatchBytes,
                  int64_t dstBatchBytes, uint32_t pastRows) {
  src += blockIdx.z * srcBatchBytes;
  dst += blockIdx.z * dstBatchBytes;
  __shared__ uint32_t tile[(kSubwordRows + kSector / S) * (W / 4)];
  const uint64_t tiles = (uint64_t)tilesX * tilesY;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    uint32_t tx, ty;
    dtrTileOrder(t, tilesX, tilesY, group, &tx, &ty);
    subwordTileAt<S, W, false>(src, ldsBytes, dst, lddBytes, rows, cols, tx, ty, pastRows, tile);
  }
}

/*
 * The grouped form (group.h): the p2p backend's members of 1- and 2-byte entries, and of 4-byte ones
 * off their alignment, all in one grid. From 2-byte entries up its interior tiles store by rows
 * (subwordTile's RowStores), each warp store a whole 128-byte window, which crosses NVLink as one or
 * two writes where the eight-lane sector stores made four of 32 bytes; 1-byte entries keep the
 * sector stores (the staging costs more than the kernel can spare there). docs/design.md#subword-group.
 */
template <int S, int W>
__global__ void __launch_bounds__(kSubwordThreads, kSubwordBlocks) subwordGroupKernel(const __grid_constant__ TransposeGroup g) {
  __shared__ uint32_t tile[(kSubwordRows + kSector / S) * (W / 4)];
  forEachGroupTile(g, [&](const TransposeGroupMember& m, uint64_t k, uint32_t tx, uint32_t ty) {
    subwordTileAt<S, W, (S >= 2)>(m.src + k * m.srcBatchBytes, m.ldsBytes, m.dst + k * m.dstBatchBytes, m.lddBytes,
                                  m.rows, m.cols, tx, ty, subwordPastRows(m.dst, m.lddBytes, m.dstBatchBytes, m.batch, S),
                                  tile);
  });
}

template <int S, int W>
static cudaError_t launchSubwordTyped(const dtrTransposeArgs* a, const KernelTuning& tune, cudaStream_t stream) {
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  constexpr int C = W / S;
  const uint32_t tilesX = (uint32_t)((a->cols + C - 1) / C);
  const uint32_t tilesY = (uint32_t)((a->rows + kSubwordRows - 1) / kSubwordRows);
  auto kernel = subwordKernel<S, W>;
  int perSm = 0;
  if ((err = residentBlocks((const void*)kernel, kSubwordThreads, 0, &perSm))) return err;
  const uint64_t resident = (uint64_t)perSm * d.sms;
  const unsigned grid = tileGrid((uint64_t)tilesX * tilesY, resident, tune.tilesPerCta);
  const uint32_t pastRows = subwordPastRows(a->dst, a->ldd * S, a->dst_stride * S, batchOf(a), S);
  /* 256-byte tiles go down the columns of tiles (group 1), or by whole tile rows where the columns
   * are long and the source is off its lines (tileGroupForShape). (docs/design.md#subword-tile-order) */
  const uint32_t group = W == 256 ? tileGroupForShape(a, 1, tilesX, tilesY, resident) : (uint32_t)tune.tileGroup;
  kernel<<<dim3(grid, 1, batchOf(a)), kSubwordThreads, 0, stream>>>(
      static_cast<const uint8_t*>(a->src), a->lds * S, static_cast<uint8_t*>(a->dst), a->ldd * S, a->rows, a->cols,
      tilesX, tilesY, group, a->src_stride * S, a->dst_stride * S, pastRows);
  return cudaGetLastError();
}

/*
 * Tiles 256 bytes wide where the source rows are off the sector grid, whose row pieces then touch
 * one sector more than they hold (nine for eight instead of five for four), and for 2-byte entries
 * throughout; else 128. dtrKernelTuningSet's boxes (1 or 2) choose instead. Taller tiles (256
 * rows) lost (docs/design.md#subword-tile-width).
 */
template <int S>
static cudaError_t launchSubwordTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  const KernelTuning tune = tuningFor(dtrKernelSimt, S);
  const bool offGrid = (sourceAlignment(a) & (kSector - 1)) != 0;
  const bool wide = tune.boxes ? tune.boxes == 2 : S == 2 || (S == 1 && offGrid);
  return wide ? launchSubwordTyped<S, 256>(a, tune, stream) : launchSubwordTyped<S, 128>(a, tune, stream);
}

template <int S, int W>
static cudaError_t launchSubwordGroupTyped(TransposeGroup& g, int ctas, cudaStream_t stream) {
  auto kernel = subwordGroupKernel<S, W>;
  for (int i = 0; i < g.count; i++) transposeGroupTiles(&g.m[i], kSubwordRows, W / S);
  cudaError_t err = groupBlocksPerMember((const void*)kernel, kSubwordThreads, 0, g,
                                         (kElementGroupBlocks + g.count - 1) / g.count, &ctas);
  if (err != cudaSuccess) return err;
  g.tileGroup = groupTileOrder(g, (uint32_t)tuningFor(dtrKernelSimt, S).tileGroup, ctas, W / S);
  kernel<<<(unsigned)(ctas * g.count), kSubwordThreads, 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t launchSubwordGroup(TransposeGroup& g, int ctas, cudaStream_t stream) {
  switch (g.m[0].entryBytes) {
    case 1: /* 256 bytes wide unless one box is asked for (see launchSubwordTyped) */
      if (tuningFor(dtrKernelSimt, 1).boxes == 1) return launchSubwordGroupTyped<1, 128>(g, ctas, stream);
      return launchSubwordGroupTyped<1, 256>(g, ctas, stream);
    case 2: /* stored by rows (subwordTileAt's RowStores) */
      return launchSubwordGroupTyped<2, kRowStoresWidth>(g, ctas, stream);
    case 4: return launchSubwordGroupTyped<4, kRowStoresWidth>(g, ctas, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launchSubword(const dtrTransposeArgs* a, cudaStream_t stream) {
  switch (a->entry_bytes) {
    case 1: return launchSubwordTyped<1>(a, stream);
    case 2: return launchSubwordTyped<2>(a, stream);
    case 4: return launchSubwordTyped<4>(a, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace dtr
