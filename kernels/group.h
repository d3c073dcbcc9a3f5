/* The arguments of a grouped launch (dtrTransposeGroupLaunch), as its kernels read them. */
#ifndef DTR_GROUP_H
#define DTR_GROUP_H

#include <stdint.h>

#include "launch.h"

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

/* The element-wise word kernel's grouped form (transpose_simt.cu): members of 4-, 8- or 16-byte
 * entries aligned to their size, at any pitch. */
int wordGroupEligible(const dtrTransposeArgs* a);
cudaError_t launchWordGroup(TransposeGroup& g, int ctas, cudaStream_t stream);

}  // namespace dtr

#endif
