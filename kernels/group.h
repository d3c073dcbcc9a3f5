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
 * lddBytes); the arithmetic is tile_layout.h's dtrGroupWidth.
 * - Where every member's columns of tiles are so short (tallest tilesY) that one column group holds
 *   fewer tiles than the blocks serving a member, whole tile rows (peer blocks of few rows).
 * - Else groups of `group` (the launch's own width); where columnSpan > 0, halved while width x
 *   columnSpan, what the blocks in flight write into at once, exceeds kGroupSpanBytes: tall shapes
 *   lose with wide groups, square ones a little with narrow ones.
 * A group asked for by dtrKernelTuningSet stays. Measurements: docs/design.md#column-groups.
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
 * local kernel's are 1 wide): over NVLink, single columns were slower at odd sides
 * (docs/design.md#word-group-tiles). */
constexpr int kWordGroupTiles = 4;
int wordGroupEligible(const dtrTransposeArgs* a);
cudaError_t launchWordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

/* The word-wide kernel of 1- and 2-byte entries, and of 4-byte ones off their alignment (variants.h's
 * subwordServes), grouped (transpose_subword.cu). */
cudaError_t launchSubwordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

/* Blocks of the element-wise kernels' groups (word and word-wide), all members together, when not
 * set: what counts is the group's total. All resident blocks storing into the peers at once
 * collapsed; 128 in all held on 2 and 4 GPUs (docs/design.md#element-group-blocks). */
constexpr int kElementGroupBlocks = 128;

}  // namespace dtr

#endif
