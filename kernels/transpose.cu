/* Which variant serves a transpose, and the launch through one entry point. */
#include <stdint.h>

#include "group.h"
#include "launch.h"
#include "tile_layout.h"
#include "variants.h"

namespace dtr {

cudaError_t deviceInfo(DeviceInfo* info) {
  static DeviceInfo cache[128];
  static bool known[128];
  int dev;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  if (dev < 0 || dev >= 128) return cudaErrorInvalidDevice;
  if (!known[dev]) {
    DeviceInfo d;
    if ((err = cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
    if ((err = cudaDeviceGetAttribute(&d.ccMajor, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess) return err;
    if ((err = cudaDeviceGetAttribute(&d.smemOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
      return err;
    cache[dev] = d;
    known[dev] = true;
  }
  *info = cache[dev];
  return cudaSuccess;
}

struct Occupancy {
  const void* kernel;
  int threads, dev, clusterDim, value;
  size_t smem;
};

/* A handful of kernels and shapes per process: a short list searched linearly is enough. */
static Occupancy occupancy[256];
static int occupancyCount = 0;

static cudaError_t cachedOccupancy(const void* kernel, int threads, size_t smem, const cudaLaunchConfig_t* cfg,
                                   int* value) {
  int dev;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const int clusterDim = cfg ? (int)cfg->attrs[0].val.clusterDim.x : 0;
  for (int i = 0; i < occupancyCount; i++) {
    const Occupancy& o = occupancy[i];
    if (o.kernel == kernel && o.threads == threads && o.smem == smem && o.dev == dev && o.clusterDim == clusterDim) {
      *value = o.value;
      return cudaSuccess;
    }
  }
  err = cfg ? cudaOccupancyMaxActiveClusters(value, kernel, cfg)
            : cudaOccupancyMaxActiveBlocksPerMultiprocessor(value, kernel, threads, smem);
  if (err == cudaSuccess && occupancyCount < 256) occupancy[occupancyCount++] = {kernel, threads, dev, clusterDim, *value, smem};
  return err;
}

/* The opt-in above 48 KB is per kernel and device; asked once for each pair. */
cudaError_t allowDynamicSmem(const void* kernel, int bytes) {
  static struct {
    const void* kernel;
    int dev, bytes;
  } done[256];
  static int count = 0;
  int dev;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  for (int i = 0; i < count; i++)
    if (done[i].kernel == kernel && done[i].dev == dev && done[i].bytes >= bytes) return cudaSuccess;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess && count < 256) done[count++] = {kernel, dev, bytes};
  return err;
}

static KernelTuning requested = {0, 0, 0, 0};

/*
 * Each kernel's defaults, as measured best: blocks that take one or two tiles each and leave the
 * hand-out to the block scheduler (as a copy does) rather than persistent blocks; the element-wise
 * kernel's tiles column by column, TMA's with small elements in groups of 4 and one box per stage;
 * multicast clusters persistent only with 1-byte elements (docs/design.md#kernel-defaults).
 */
static KernelTuning measuredBest(dtrKernel_t kernel, size_t s) {
  switch (kernel) {
    case dtrKernelTma:
      if (s <= 2) return {1, 4, 0, 1};
      if (s <= 8) return {2, 8, 0, 1};
      return {1, 8, 0, 2};
    case dtrKernelTmaMc2:
    case dtrKernelTmaMc4:
      return {0, 8, 0, s == 1 ? kPersistent : 1};
    case dtrKernelSimt16:
      return {0, 8, 0, 1};
    default: /* simt: 16-byte words take two tiles per block; the word-wide kernel of 1- and 2-byte
                entries a tile a block in groups of 8 (tall shapes, 1 B: group 4 70.1 %, 8 72.4 %;
                2 B, two tiles a block in groups of 4 77.1 %, one in groups of 8 79.2 %) */
      if (s <= 2) return {0, 8, 0, 1};
      return {0, 1, 0, s <= 8 ? 1 : 2};
  }
}

KernelTuning tuningFor(dtrKernel_t kernel, size_t entryBytes) {
  KernelTuning t = measuredBest(kernel, entryBytes);
  if (requested.boxes) t.boxes = requested.boxes;
  if (requested.tileGroup) t.tileGroup = requested.tileGroup;
  if (requested.streaming) t.streaming = requested.streaming;
  if (requested.tilesPerCta) t.tilesPerCta = requested.tilesPerCta;
  return t;
}

uint32_t tileGroupForShape(const dtrTransposeArgs* a, uint32_t group, uint32_t tilesX, uint32_t tilesY, uint64_t resident) {
  if (requested.tileGroup) return (uint32_t)requested.tileGroup;
  const bool offLines = (sourceAlignment(a) & 127) != 0;
  return offLines && tilesY > 2 * resident ? tilesX : group;
}

uint32_t groupTileOrder(const TransposeGroup& g, uint32_t group, int blocksPerMember, int64_t resultRowsPerTileColumn) {
  if (requested.tileGroup) return (uint32_t)requested.tileGroup;
  uint32_t tallest = 0;
  uint64_t span = 0;
  for (int i = 0; i < g.count; i++) {
    const uint64_t columnSpan = resultRowsPerTileColumn > 0 ? (uint64_t)resultRowsPerTileColumn * (uint64_t)g.m[i].lddBytes : 0;
    tallest = g.m[i].tilesY > tallest ? g.m[i].tilesY : tallest;
    span = columnSpan > span ? columnSpan : span;
  }
  return dtrGroupWidth(group, tallest, blocksPerMember > 0 ? (uint32_t)blocksPerMember : 1u, span, kGroupSpanBytes);
}

unsigned tileGrid(uint64_t tiles, uint64_t resident, int tilesPerCta) {
  if (resident < 1) resident = 1;
  uint64_t grid = tilesPerCta > 0 ? (tiles + tilesPerCta - 1) / tilesPerCta : (tiles < resident ? tiles : resident);
  const uint64_t limit = 0x7fffffffu; /* gridDim.x */
  return (unsigned)(grid < 1 ? 1 : grid > limit ? limit : grid);
}

cudaError_t residentBlocks(const void* kernel, int threads, size_t smem, int* perSm) {
  return cachedOccupancy(kernel, threads, smem, nullptr, perSm);
}

cudaError_t residentClusters(const void* kernel, const cudaLaunchConfig_t* cfg, int* clusters) {
  return cachedOccupancy(kernel, (int)cfg->blockDim.x, cfg->dynamicSmemBytes, cfg, clusters);
}

}  // namespace dtr

using namespace dtr;

/* Every matrix of a batch must meet the rules: the strides between them keep 16-byte alignment. */
static int vectorEligible(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  if (batchOf(a) > 1 && (((uint64_t)a->src_stride | (uint64_t)a->dst_stride) * s) & 15u) return 0;
  return dtrVectorEligible((uint64_t)(uintptr_t)a->src, (uint64_t)a->lds * s, (uint64_t)(uintptr_t)a->dst,
                           (uint64_t)a->ldd * s, (uint64_t)a->rows, (uint64_t)a->cols, s);
}

/* TMA also needs one whole 16-byte chunk in each result row: its store map stops at the last one.
 * Its tensor maps describe one matrix, so batches go to the SIMT kernels. */
static int tmaEligible(const dtrTransposeArgs* a) {
  return batchOf(a) == 1 && vectorEligible(a) && (uint64_t)a->rows * a->entry_bytes >= DTR_CHUNK && tmaAvailable();
}

extern "C" void dtrKernelTuningSet(int tma_boxes, int tile_group, int streaming, int tiles_per_cta) {
  requested = {tma_boxes, tile_group > 0 ? tile_group : 0, streaming, tiles_per_cta >= kPersistent ? tiles_per_cta : 0};
}

extern "C" int dtrTransposeSupported(dtrKernel_t kernel, const dtrTransposeArgs* a) {
  if (!a || a->rows < 0 || a->cols < 0 || a->entry_bytes == 0) return 0;
  if (kernel != dtrKernelAuto && kernel != dtrKernelSimt && thinServes(a)) return 0;
  switch (kernel) {
    case dtrKernelAuto:
    case dtrKernelSimt:
      return 1;
    case dtrKernelSimt16:
      return vectorEligible(a);
    case dtrKernelTma:
      return tmaEligible(a);
    case dtrKernelTmaMc2:
      return tmaEligible(a) && dtrMulticastClusterFits((uint32_t)a->entry_bytes, 2);
    case dtrKernelTmaMc4:
      return tmaEligible(a) && dtrMulticastClusterFits((uint32_t)a->entry_bytes, 4);
    default:
      return 0;
  }
}

extern "C" cudaError_t dtrTransposeLaunch(dtrKernel_t kernel, const dtrTransposeArgs* a, cudaStream_t stream,
                                          dtrKernel_t* ran) {
  if (!a || a->rows < 0 || a->cols < 0 || a->entry_bytes == 0) return cudaErrorInvalidValue;
  if (kernel == dtrKernelAuto) {
    kernel = dtrTransposeSupported(dtrKernelTma, a) ? dtrKernelTma
             : dtrTransposeSupported(dtrKernelSimt16, a) ? dtrKernelSimt16
                                                         : dtrKernelSimt;
  } else if (!dtrTransposeSupported(kernel, a)) {
    kernel = dtrKernelSimt;
  }
  if (ran) *ran = kernel;
  if (a->rows == 0 || a->cols == 0 || a->batch < 0) return cudaSuccess;
  const int64_t batch = a->batch > 1 ? a->batch : 1;
  for (int64_t b0 = 0; b0 < batch; b0 += kMaxBatch) {
    dtrTransposeArgs part = *a;
    part.src = static_cast<const uint8_t*>(a->src) + b0 * a->src_stride * (int64_t)a->entry_bytes;
    part.dst = static_cast<uint8_t*>(a->dst) + b0 * a->dst_stride * (int64_t)a->entry_bytes;
    part.batch = batch - b0 < kMaxBatch ? batch - b0 : kMaxBatch;
    cudaError_t err;
    switch (kernel) {
      case dtrKernelTma: err = launchTma(&part, 1, stream); break;
      case dtrKernelTmaMc2: err = launchTma(&part, 2, stream); break;
      case dtrKernelTmaMc4: err = launchTma(&part, 4, stream); break;
      case dtrKernelSimt16: err = launchSimt16(&part, stream); break;
      default: err = launchSimt(&part, stream);
    }
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}
