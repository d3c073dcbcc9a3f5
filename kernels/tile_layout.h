/*
 * Tile geometry shared by the GPU kernels and the CPU tests: the 128-byte swizzle, the shape of one
 * pipeline stage per element size, the assignment of 16-byte micro-blocks to threads, and the rules
 * a (pointer, pitch) pair must meet for TMA and 16-byte vector access. Plain C, so that the unit
 * tests emulate exactly what the kernels do.
 *
 * One stage, element size s (1, 2, 4, 8 or 16 bytes), m = 16/s elements per 16-byte chunk:
 *   source tile  : T rows x (nbox * 128) bytes, loaded as nbox boxes of T rows x 128 bytes,
 *                  each box a 1024-byte aligned region in SWIZZLE_128B layout;
 *   result tile  : (nbox * 128/s) rows x (T * s) bytes, stored as T*s/128 boxes of
 *                  (nbox * 128/s) rows x 128 bytes, same layout.
 * A micro-block is m source rows x one 16-byte chunk (m x m elements): a thread loads it with m
 * 16-byte shared loads, transposes it in registers and writes m 16-byte chunks of the result.
 */
#ifndef DTR_TILE_LAYOUT_H
#define DTR_TILE_LAYOUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define DTR_HD static inline __host__ __device__
#else
#define DTR_HD static inline
#endif

#define DTR_SWIZZLE_SPAN 128u /* bytes per swizzled row: SWIZZLE_128B */
#define DTR_CHUNK 16u         /* bytes per swizzle chunk and per vector access */

/* Source rows per stage: enough micro-blocks for 128 threads at every element size. */
DTR_HD uint32_t dtrTileRows(uint32_t s) { return s == 1 ? 256u : 128u; }
DTR_HD uint32_t dtrVecElems(uint32_t s) { return DTR_CHUNK / s; }
/* Elements of one source row per box (128 bytes). */
DTR_HD uint32_t dtrBoxElems(uint32_t s) { return DTR_SWIZZLE_SPAN / s; }

/* SWIZZLE_128B: 16-byte chunk `chunk` of row `row` of a 1024-byte aligned region. */
DTR_HD uint32_t dtrSwizzle128(uint32_t row, uint32_t chunk) {
  return row * DTR_SWIZZLE_SPAN + (((chunk ^ row) & 7u) << 4);
}

typedef struct {
  uint32_t a;    /* micro-row within the share: source rows a*m .. a*m+m-1 (from the share's start) */
  uint32_t c;    /* 16-byte chunk within the box's 128-byte row */
  uint32_t box;  /* which column box */
} dtrMicroBlock;

/*
 * Item w of a share with `na` micro-rows (a multiple of 8) and `nbox` boxes. Eight consecutive
 * items (one quarter-warp phase of 16-byte accesses) take eight different micro-rows and chunks
 * c = u ^ v, which makes both the loads (rows a*m+k, chunk c) and the stores (rows c*m+k',
 * chunk a % 8) hit eight different swizzled chunks: no bank conflicts. For s = 16 (m = 1) the
 * chunk is held fixed instead, since then the rows alone spread the accesses.
 */
DTR_HD dtrMicroBlock dtrMicroBlockOf(uint32_t w, uint32_t s, uint32_t na) {
  dtrMicroBlock mb;
  uint32_t u = w & 7u, v = (w >> 3) & 7u, rest = w >> 6, groups = na / 8u;
  mb.a = (rest % groups) * 8u + u;
  mb.box = rest / groups;
  mb.c = (s == 16u) ? v : (u ^ v);
  return mb;
}

/* Byte offset in the source stage of row k of micro-block mb, whose share starts at micro-row a0. */
DTR_HD uint32_t dtrSrcOffset(uint32_t s, uint32_t tile_rows, dtrMicroBlock mb, uint32_t a0, uint32_t k) {
  return mb.box * tile_rows * DTR_SWIZZLE_SPAN + dtrSwizzle128((a0 + mb.a) * dtrVecElems(s) + k, mb.c);
}

/* Byte offset in the result buffer of the chunk that holds source column (mb.c*m + k) of mb. */
DTR_HD uint32_t dtrDstOffset(uint32_t s, uint32_t nbox, dtrMicroBlock mb, uint32_t k) {
  uint32_t region_rows = nbox * dtrBoxElems(s);
  uint32_t row = mb.box * dtrBoxElems(s) + mb.c * dtrVecElems(s) + k;
  return (mb.a / 8u) * region_rows * DTR_SWIZZLE_SPAN + dtrSwizzle128(row, mb.a & 7u);
}

/* Micro-blocks per stage share: na micro-rows x 8 chunks x nbox boxes. */
DTR_HD uint32_t dtrShareItems(uint32_t na, uint32_t nbox) { return na * 8u * nbox; }

/*
 * Tensor-map and 16-byte-vector rules: both base addresses 16-byte aligned, both pitches multiples
 * of 16 bytes and below 2^40, an element size of 1..16 bytes that is a power of two, and every
 * dimension (inner ones in bytes) below 2^31, since TMA coordinates are signed 32-bit. Where these
 * fail the SIMT kernel serves instead.
 */
DTR_HD int dtrVectorEligible(uint64_t src, uint64_t lds_bytes, uint64_t dst, uint64_t ldd_bytes,
                             uint64_t rows, uint64_t cols, uint64_t s) {
  const uint64_t max_dim = (uint64_t)1 << 31, max_stride = (uint64_t)1 << 40;
  if (s != 1 && s != 2 && s != 4 && s != 8 && s != 16) return 0;
  if ((src | dst) & 15u) return 0;
  if ((lds_bytes | ldd_bytes) & 15u) return 0;
  if (lds_bytes >= max_stride || ldd_bytes >= max_stride) return 0;
  if (rows < 1 || cols < 1) return 0;
  if (rows * s >= max_dim || cols * s >= max_dim) return 0;
  return 1;
}

/*
 * The order in which a grid takes tiles. Tiles go in column groups `group` tiles wide: across a
 * group first, then down it, then to the next group. The CTAs in flight at once then cover a patch
 * that is wide in the source (long reads along its rows) and tall in the source, i.e. wide in the
 * result (long writes along its rows), rather than one thin band of either. With blocks of one
 * tile, group 1 (down one column of tiles: each result row written as one long run) measured best.
 */
DTR_HD void dtrTileOrder(uint64_t t, uint32_t tilesX, uint32_t tilesY, uint32_t group, uint32_t* tx, uint32_t* ty) {
  const uint32_t gx = group < tilesX ? (group ? group : 1) : tilesX;
  const uint64_t perGroup = (uint64_t)gx * tilesY;
  const uint32_t g = (uint32_t)(t / perGroup);
  const uint32_t width = (tilesX - g * gx) < gx ? (tilesX - g * gx) : gx;
  const uint64_t within = t - (uint64_t)g * perGroup;
  *ty = (uint32_t)(within / width);
  *tx = g * gx + (uint32_t)(within % width);
}

/*
 * The width of the column groups of a grouped launch (p2p: the kernels store into the peers;
 * group.h's groupTileOrder gives the measurements): whole tile rows (UINT32_MAX) where a
 * column group `group` tiles wide holds fewer tiles than the blocks serving a member (the tallest
 * member's tilesY), else `group` halved while group x columnSpan (the bytes of destination one tile
 * column's result rows span) exceeds spanLimit; columnSpan 0 halves nothing.
 */
DTR_HD uint32_t dtrGroupWidth(uint32_t group, uint32_t tallestTilesY, uint32_t blocksPerMember, uint64_t columnSpan,
                              uint64_t spanLimit) {
  if (group < 1) group = 1;
  if ((uint64_t)tallestTilesY * group < blocksPerMember) return UINT32_MAX;
  while (group > 1 && group * columnSpan > spanLimit) group /= 2;
  return group;
}

/* Cluster sizes the multicast variant can use: each CTA's share must fill whole 128-byte boxes. */
DTR_HD int dtrMulticastClusterFits(uint32_t s, uint32_t cluster) {
  return cluster >= 2 && (dtrTileRows(s) * s) % (cluster * DTR_SWIZZLE_SPAN) == 0 &&
         cluster * DTR_SWIZZLE_SPAN / s <= 256u;
}

#endif
