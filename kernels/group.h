/* The arguments of a grouped launch (dtrTransposeGroupLaunch), as its kernels read them. */
#ifndef DTR_GROUP_H
#define DTR_GROUP_H

#include <stdint.h>

#include "launch.h"
#ifdef __CUDACC__
#include "peer_sync.cuh"
#endif
#include "tile_layout.h"
#include "variants.h"

namespace dtr {

struct TransposeGroupMember {
  const uint8_t* src;
  uint8_t* dst;
  int64_t ldsBytes, lddBytes, rows, cols, srcBatchBytes, dstBatchBytes, batch;
  uint32_t entryBytes;
  uint32_t tilesX, tilesY;
  uint64_t work; /* tiles x batch */
};

/* Passed by value (__grid_constant__): 16 members and the flags stay below the 4 KB of kernel
 * parameters. */
struct TransposeGroup {
  TransposeGroupMember m[DTR_GROUP_MAX];
  int count;
  uint32_t tileGroup;
  int synced;        /* the launch carries the one-pass path's barriers (peer_sync.cuh) */
  dtrPeerFlags sync;
};

inline TransposeGroupMember transposeGroupMember(const dtrTransposeArgs* a) {
  const int64_t s = (int64_t)a->entry_bytes;
  TransposeGroupMember m = {};
  m.src = static_cast<const uint8_t*>(a->src);
  m.dst = static_cast<uint8_t*>(a->dst);
  m.ldsBytes = a->lds * s;
  m.lddBytes = a->ldd * s;
  m.rows = a->rows;
  m.cols = a->cols;
  m.srcBatchBytes = a->src_stride * s;
  m.dstBatchBytes = a->dst_stride * s;
  m.batch = a->batch > 1 ? a->batch : 1;
  m.entryBytes = (uint32_t)s;
  return m;
}

/* A kernel's tiles of tileRows source rows by tileCols source columns. */
inline void transposeGroupTiles(TransposeGroupMember* m, int64_t tileRows, int64_t tileCols) {
  m->tilesX = (uint32_t)((m->cols + tileCols - 1) / tileCols);
  m->tilesY = (uint32_t)((m->rows + tileRows - 1) / tileRows);
  m->work = (m->rows && m->cols) ? (uint64_t)m->tilesX * m->tilesY * (uint64_t)m->batch : 0;
}

#ifdef __CUDACC__
/* The loop of every grouped kernel: block b serves member b % count, taking that member's tiles (and
 * matrices of its batch) from b / count on in steps of the blocks it has; tile(m, k, tx, ty) does one
 * tile of matrix k. The closing fence makes the stores (into peer memory) visible before what follows.
 * Where the launch is synced, the blocks wait at the arrive barrier before their first tile and the
 * last of them holds the kernel until the finish barrier. */
template <typename Tile>
__device__ __forceinline__ void forEachGroupTile(const TransposeGroup& g, Tile tile) {
  if (!g.synced || peerFusedArrive(g.sync)) {
    const TransposeGroupMember& m = g.m[blockIdx.x % g.count];
    const uint32_t first = blockIdx.x / g.count, stride = gridDim.x / g.count;
    const uint64_t tiles = (uint64_t)m.tilesX * m.tilesY;
    for (uint64_t w = first; w < m.work; w += stride) {
      const uint64_t k = w / tiles;
      uint32_t tx, ty;
      dtrTileOrder(w - k * tiles, m.tilesX, m.tilesY, g.tileGroup, &tx, &ty);
      tile(m, k, tx, ty);
    }
  }
  __threadfence_system();
  if (g.synced) peerFusedFinish(g.sync);
}
#endif

/*
 * The tile order of a grouped launch (p2p, stores into the peers), from its members: the tallest
 * member's column of tiles (tilesY) and, where resultRowsPerTileColumn > 0, the most memory one tile
 * column's result rows span in any member's destination (columnSpan: those rows times the member's
 * lddBytes); the arithmetic is tile_layout.h's dtrGroupWidth. Measured on 2 H200s, ratio to the
 * all-to-all, by the width of the column groups (DTR_TILE_GROUP):
 * - Where every member's columns of tiles are so short (tallest tilesY) that one column group holds
 *   fewer tiles than the blocks serving a member, whole tile rows: peer blocks of few rows, such as
 *   1000 x N split over ranks (500 rows, four tiles). int8 1000 x 1073741 1.59 in groups of 8, 1.33 /
 *   1.35 in groups of 64 / whole rows; fp16 1000 x 536870 1.43, 1.21 / 1.21; fp32 1000 x 268435 (word
 *   group) 1.16 in groups of 1, 1.01 / 1.04 in groups of 64 / whole rows.
 * - Else groups of `group` (the launch's own width); where columnSpan > 0 (the word-wide group, the only one measured),
 *   halved while width x columnSpan, what the blocks in flight write into at once, exceeds
 *   kGroupSpanBytes. Tall shapes (long result rows) lose with wide groups: int8 268435 x 4000 in groups of 1 / 2 / 4 / 8 / 16 (33
 *   MiB a tile column): 1.22 / 1.22 / 1.29 / 1.35 / 1.64; int8 134217 x 8000 (16 MiB) 2 / 4 / 8 / 16: 1.16 /
 *   1.19 / 1.27 / 1.34; fp16 536870 x 1000 (66 MiB) 1 / 2 / 4 / 8: 1.17 / 1.18 / 1.25 / 1.44; int8 46341
 *   x 46337 (6 MiB) 2 / 4 / 8: 1.16 / 1.16 / 1.19, and whole rows 14.2; int8 1073741 x 1000 (131 MiB)
 *   1 / 2 / 4: 1.41 / 1.32 / 1.58. Square ones lose a little with narrow groups: int8 32749 x 31771 (4
 *   MiB) 2 / 4 / 8: 1.31 / 1.28 / 1.27, fp16 23170^2 (3 MiB) 1.07 / 1.06 / 1.08.
 * A group asked for by dtrKernelTuningSet stays.
 */
constexpr uint64_t kGroupSpanBytes = (uint64_t)40 << 20;
uint32_t groupTileOrder(const TransposeGroup& g, uint32_t group, int blocksPerMember, int64_t resultRowsPerTileColumn);

/* Blocks per member of a grouped launch (its members' tiles counted): `ctas` where given, else the
 * kernel's resident blocks on the device shared out evenly (at least one), no more than `cap` where
 * cap > 0, nor than the largest member's tiles, beyond which blocks would only wait at the barriers. */
cudaError_t groupBlocksPerMember(const void* kernel, int threads, size_t smem, const TransposeGroup& g, int cap,
                                 int* ctas);

/* The element-wise word kernel's grouped form (transpose_simt.cu): members of 4-, 8- or 16-byte
 * entries aligned to their size, at any pitch. Its tiles go in column groups of kWordGroupTiles (the
 * local kernel's are 1 wide). On 2 H200s, p2p, ratio to the all-to-all in groups of 1 / 4 / 8: fp32
 * 8191^2 1.11 / 0.97 / 0.98, 16381^2 1.06 / 1.00 / 1.00, 32749^2 1.03 / 1.00 / 1.01, 11585^2 0.99 /
 * 0.99 / 0.99, 23170^2 1.00 / 1.01 / 1.01, c64 5791^2 0.97 / 0.96 / 0.96, 11587^2 0.99 / 0.99 / 0.99,
 * 23159^2 1.00 / 1.00 / 1.00; fp32 46340^2 1.00 in groups of 1, 1.01 of 8. */
constexpr int kWordGroupTiles = 4;
int wordGroupEligible(const dtrTransposeArgs* a);
cudaError_t launchWordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

/* The word-wide kernel of 1- and 2-byte entries, and of 4-byte ones off their alignment (variants.h's
 * subwordServes), grouped (transpose_subword.cu). */
cudaError_t launchSubwordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

/* Blocks of the element-wise kernels' groups (word and word-wide), all members together, when not
 * set: what counts is the group's total. All resident blocks (264 on an H200) collapsed at 4 GiB per
 * rank on two H200s (fp32 46340^2 and 46344 x 46336 5.3-5.6 x the NCCL all-to-all), where 64 a member,
 * 128 in all, took 0.97-0.99 x in any tile order (256 in all: 1.0-2.3 x). On four H200s 64 a member
 * (256 in all) collapsed the same way (c64 23170^2 2.07 x, 46340^2 4.76 x, fp32 46340^2 5.81 x) and 32
 * a member (128 in all) took 0.99, 1.03 and 1.06 x (16 a member: 1.16-1.34 x). The word-wide group on
 * 2 H200s: 32 / 64 / 96 a member, int8 and fp16 at odd sides 1.67-2.34 / 1.16-1.56 / 1.20-1.53 x. */
constexpr int kElementGroupBlocks = 128;

}  // namespace dtr

#endif
