/* The arguments of a grouped launch (dtrTransposeGroupLaunch), as its kernels read them. */
#ifndef DTR_GROUP_H
#define DTR_GROUP_H

#include <stdint.h>

#include "launch.h"
#include "tile_layout.h"

namespace dtr {

struct TransposeGroupMember {
  const uint8_t* src;
  uint8_t* dst;
  int64_t ldsBytes, lddBytes, rows, cols, srcBatchBytes, dstBatchBytes, batch;
  uint32_t entryBytes;
  uint32_t tilesX, tilesY;
  uint64_t work; /* tiles x batch */
};

/* Passed by value (__grid_constant__): 16 members stay far below the 4 KB of kernel parameters. */
struct TransposeGroup {
  TransposeGroupMember m[DTR_GROUP_MAX];
  int count;
  uint32_t tileGroup;
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
 * tile of matrix k. The closing fence makes the stores (into peer memory) visible before what follows. */
template <typename Tile>
__device__ __forceinline__ void forEachGroupTile(const TransposeGroup& g, Tile tile) {
  const TransposeGroupMember& m = g.m[blockIdx.x % g.count];
  const uint32_t first = blockIdx.x / g.count, stride = gridDim.x / g.count;
  const uint64_t tiles = (uint64_t)m.tilesX * m.tilesY;
  for (uint64_t w = first; w < m.work; w += stride) {
    const uint64_t k = w / tiles;
    uint32_t tx, ty;
    dtrTileOrder(w - k * tiles, m.tilesX, m.tilesY, g.tileGroup, &tx, &ty);
    tile(m, k, tx, ty);
  }
  __threadfence_system();
}
#endif

/* Blocks per member of a grouped launch: `ctas` where given, else the kernel's resident blocks on the
 * device shared out evenly (at least one), and no more than `cap` where cap > 0. */
cudaError_t groupBlocksPerMember(const void* kernel, int threads, size_t smem, int count, int cap, int* ctas);

/* The element-wise word kernel's grouped form (transpose_simt.cu): members of 4-, 8- or 16-byte
 * entries aligned to their size, at any pitch. */
int wordGroupEligible(const dtrTransposeArgs* a);
cudaError_t launchWordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

/* The word-wide kernel of 1- and 2-byte entries, and of 4-byte ones off their alignment, grouped
 * (transpose_subword.cu). */
int subwordGroupEligible(const dtrTransposeArgs* a);
cudaError_t launchSubwordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

}  // namespace dtr

#endif
