/* The kernel variants behind dtrTransposeLaunch, and what they need to know about the device. */
#ifndef DTR_VARIANTS_H
#define DTR_VARIANTS_H

#include <cuda_runtime_api.h>

#include "launch.h"
#include "widest_word.h"

namespace dtr {

/* Bytes of an L2 sector: the unit in which loads and stores reach memory. */
constexpr int kSector = 32;

struct DeviceInfo {
  int sms;
  int ccMajor;
  int smemOptin;  /* largest dynamic shared memory one block may ask for */
};

/* Cached per device; queried on first use of each device. */
cudaError_t deviceInfo(DeviceInfo* info);

/* Resident blocks per multiprocessor (clusters per device when cfg has a cluster dimension) for a
 * kernel, block size and shared memory: asked once per device and kept, since the query costs
 * microseconds on every launch otherwise. */
cudaError_t residentBlocks(const void* kernel, int threads, size_t smem, int* perSm);
cudaError_t residentClusters(const void* kernel, const cudaLaunchConfig_t* cfg, int* clusters);

/* Whether the driver offers cuTensorMapEncodeTiled and the device is a Hopper (sm_90) or later. */
bool tmaAvailable();

/* The knobs of one launch: boxes per TMA stage (1 or 2), the tile-order group width (dtrTileOrder),
 * evict-first loads and stores in the element-wise kernel, and tiles per block (kPersistent: as many
 * blocks as fit at once, each looping over tiles). */
struct KernelTuning {
  int boxes;
  int tileGroup;
  int streaming;
  int tilesPerCta;
};
constexpr int kPersistent = -1;

/* What dtrKernelTuningSet asked for, each knob left at 0 replaced by the value measured best for
 * this kernel and entry size. */
KernelTuning tuningFor(dtrKernel_t kernel, size_t entryBytes);

/*
 * The tile group for tilesX x tilesY tiles with `resident` blocks at once: where the tiles start off
 * the 128-byte lines of a's source (its pointer, pitch or batch stride is not a multiple of 128 bytes)
 * and a column of tiles is more than two waves of blocks long, whole tile rows (tilesX) instead of
 * `group`, the kernel's own. Neighbouring tiles of a source row share the lines at their border; taken column by column,
 * the second tile of a pair comes a whole column later and finds the shared lines evicted, so they
 * come from memory twice (docs/design.md#tile-group-shape). A group asked for by
 * dtrKernelTuningSet stays.
 */
uint32_t tileGroupForShape(const dtrTransposeArgs* a, uint32_t group, uint32_t tilesX, uint32_t tilesY, uint64_t resident);

/* The grid for `tiles` tiles when `resident` blocks fit on the device at once: at most `resident`
 * when persistent, else about tilesPerCta tiles per block. Every tile kernel strides its tiles by
 * gridDim, so either serves. */
unsigned tileGrid(uint64_t tiles, uint64_t resident, int tilesPerCta);

/* Lets `kernel` have `bytes` of dynamic shared memory on the current device (once per device). */
cudaError_t allowDynamicSmem(const void* kernel, int bytes);

/* Matrices of one launch (the grid's third dimension, at most kMaxBatch; dtrTransposeLaunch cuts
 * larger batches). */
constexpr int64_t kMaxBatch = 65535;
inline unsigned batchOf(const dtrTransposeArgs* a) { return a->batch > 1 ? (unsigned)a->batch : 1u; }

/* The source's pointer, pitch and (for batches) stride, in bytes, or-ed: the boundaries all its row
 * starts lie on are the powers of two that divide it. */
inline uint64_t sourceAlignment(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  return (uint64_t)(uintptr_t)a->src | (uint64_t)a->lds * s | (batchOf(a) > 1 ? (uint64_t)a->src_stride * s : 0);
}

/* The same for source and destination together: the aligned accesses that every row start allows
 * are those whose size divides it. */
inline uint64_t accessAlignment(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  return sourceAlignment(a) | (uint64_t)(uintptr_t)a->dst | (uint64_t)a->ldd * s |
         (batchOf(a) > 1 ? (uint64_t)a->dst_stride * s : 0);
}

/* Whether the word-wide kernel (launchSubword) serves a: 1- and 2-byte entries, and 4-byte ones off
 * their alignment. */
inline bool subwordServes(const dtrTransposeArgs* a) {
  return a->entry_bytes <= 2 || (a->entry_bytes == 4 && (accessAlignment(a) & 3));
}

/* Thin matrices, at most 32 rows or at most 32 columns (16 for 1- and 2-byte entries), go to the
 * thin kernels (transpose_thin.cu) whatever the kernel asked for: the tile kernels' tiles of 64-256
 * rows and 32-256 columns would run nearly empty. Entries of 1 to 16 bytes, powers of two (tuples
 * keep the element-wise tiles). 1- and 2-byte entries leave the word-wide kernel only where its
 * 128-row tiles are at most an eighth full (docs/design.md#few-rows-limit). */
constexpr int kThinSide = 32;
inline int64_t thinLimit(const dtrTransposeArgs* a) { return a->entry_bytes >= 4 ? kThinSide : kThinSide / 2; }
/* The few-rows kernel; else, where thinServes, the few-columns one. */
inline bool thinRows(const dtrTransposeArgs* a) { return a->rows <= thinLimit(a); }
inline bool thinServes(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  return (thinRows(a) || a->cols <= thinLimit(a)) && s <= 16 && (s & (s - 1)) == 0;
}

/* Each assumes its eligibility was checked (tile_layout.h's rules). cluster = 1 for plain TMA. */
cudaError_t launchTma(const dtrTransposeArgs* a, int cluster, cudaStream_t stream);
cudaError_t launchSimt16(const dtrTransposeArgs* a, cudaStream_t stream);
cudaError_t launchSimt(const dtrTransposeArgs* a, cudaStream_t stream);
/* Entries of 1, 2 or 4 bytes at any pitch and alignment (transpose_subword.cu). */
cudaError_t launchSubword(const dtrTransposeArgs* a, cudaStream_t stream);
/* Matrices that thinServes (transpose_thin.cu). */
cudaError_t launchThin(const dtrTransposeArgs* a, cudaStream_t stream);

}  // namespace dtr

#endif
