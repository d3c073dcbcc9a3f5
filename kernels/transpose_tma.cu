/*
 * TMA tile transpose, plain (CS = 1) and with .multicast::cluster loads (CS = 2 or 4).
 *
 * CTAs of 5 warps, each taking tiles t, t + grid, ... (one or two in all by default, or as many as
 * a persistent grid needs). Warp 4's first lane is the producer: it fills a ring of shared-memory
 * stages (as deep as the CTA has tiles, up to four) with TMA loads that complete on the stage's
 * "full" mbarrier. Warps 0-3 consume: they transpose a stage through registers
 * (tile_transpose.cuh) into a result buffer (two when the CTA has more than one tile, so that a
 * store overlaps the next transpose) and release the stage on its "empty" mbarrier; one thread
 * then stores the result with TMA.
 *
 * With clusters, a stage holds CS column boxes; CTA q of the cluster loads box q and multicasts it
 * to every CTA, and each CTA transposes and stores its 1/CS share of the rows of all boxes. A
 * stage is free for reloading only when every CTA of the cluster has released it, so the empty
 * barriers count the consumer warps of the whole cluster.
 *
 * Edges need no code: loads beyond the matrix fill zeros, stores beyond it are clipped.
 */
#include <cuda.h>
#include <stdint.h>

#include "launch.h"
#include "tile_layout.h"
#include "tile_transpose.cuh"
#include "tma_ptx.cuh"
#include "variants.h"

namespace dtr {

constexpr int kConsumerWarps = 4;
constexpr int kConsumers = kConsumerWarps * 32;
constexpr int kThreads = kConsumers + 32;
constexpr int kMaxStages = 4;

struct TmaLayout {
  uint32_t tileRows, stageBytes, resultBytes, regionBytes, stages, results, smemBytes;
};

/* A stage holds nb column boxes (nb = cs with clusters); each CTA keeps a 1/cs share of its rows.
 * Two result buffers let a tile's store overlap the next tile's transpose; a block that takes one
 * tile needs one. */
__host__ __device__ inline TmaLayout tmaLayout(uint32_t s, uint32_t cs, uint32_t nb, uint32_t stages,
                                               uint32_t results) {
  TmaLayout l;
  l.tileRows = dtrTileRows(s);
  l.stageBytes = nb * l.tileRows * DTR_SWIZZLE_SPAN;
  l.resultBytes = l.stageBytes / cs;
  l.regionBytes = nb * dtrBoxElems(s) * DTR_SWIZZLE_SPAN;
  l.stages = stages;
  l.results = results;
  /* 1024 bytes of slack to align the base for the swizzle, then the barriers. */
  l.smemBytes = 1024 + stages * l.stageBytes + results * l.resultBytes + 2 * stages * 8;
  return l;
}

struct TmaParams {
  uint8_t* dst;         /* for the sub-16-byte tail of each result row, which TMA must not store */
  uint64_t lddBytes;
  uint32_t rows, cols;  /* of the source */
  uint32_t rowsFull;    /* source rows whose result bytes fill whole 16-byte chunks: the map's extent */
  uint32_t tilesX, tilesY, group, stages, results;
};

template <int S, int CS, int NB>
__global__ void __launch_bounds__(kThreads) tmaTransposeKernel(const __grid_constant__ CUtensorMap srcMap,
                                                               const __grid_constant__ CUtensorMap dstMap,
                                                               const TmaParams p) {
  static_assert(CS == 1 || NB == CS, "with clusters, each CTA loads one box of the stage");
  extern __shared__ uint8_t smemRaw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  const TmaLayout L = tmaLayout(S, CS, NB, p.stages, p.results);
  constexpr uint32_t m = 16 / S, colsPerTile = NB * (128 / S);
  const uint32_t na = L.tileRows / (m * CS); /* micro-rows of this CTA's share */
  const uint32_t stages = p.stages;
  uint8_t* stageBase = smem;
  uint8_t* resultBase = smem + stages * L.stageBytes;
  const uint32_t barBase = smemAddr(resultBase + L.results * L.resultBytes);
  auto full = [&](uint32_t i) { return barBase + 8 * i; };
  auto empty = [&](uint32_t i) { return barBase + 8 * (stages + i); };

  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t q = (CS > 1) ? clusterCtaRank() : 0;

  if (threadIdx.x == 0) {
    for (uint32_t i = 0; i < stages; i++) {
      mbarInit(full(i), 1);
      mbarInit(empty(i), kConsumerWarps * CS);
    }
    fenceBarrierInit();
  }
  if (CS > 1) clusterSync();
  else __syncthreads();

  const uint64_t tiles = (uint64_t)p.tilesX * p.tilesY;
  const uint32_t cluster = blockIdx.x / CS, clusters = gridDim.x / CS;

  if (warp == kConsumerWarps) {
    if (lane == 0) {
      prefetchTensorMap(&srcMap);
      uint32_t it = 0;
      for (uint64_t t = cluster; t < tiles; t += clusters, it++) {
        const uint32_t st = it % stages, ph = (it / stages) & 1;
        uint32_t tx, ty;
        dtrTileOrder(t, p.tilesX, p.tilesY, p.group, &tx, &ty);
        mbarWait<(CS > 1)>(empty(st), ph ^ 1);
        mbarArriveExpectTx(full(st), L.stageBytes);
        const int32_t y = (int32_t)(ty * L.tileRows);
        const uint32_t stage = smemAddr(stageBase + st * L.stageBytes);
        if (CS > 1) {
          const int32_t x = (int32_t)((tx * NB + q) * DTR_SWIZZLE_SPAN);
          tmaLoad2dMulticast(stage + q * L.tileRows * DTR_SWIZZLE_SPAN, &srcMap, full(st), x, y, (uint16_t)((1u << CS) - 1));
        } else {
#pragma unroll
          for (uint32_t b = 0; b < NB; b++)
            tmaLoad2d(stage + b * L.tileRows * DTR_SWIZZLE_SPAN, &srcMap, full(st), (int32_t)((tx * NB + b) * DTR_SWIZZLE_SPAN), y);
        }
      }
    }
  } else {
    const uint32_t tid = threadIdx.x;
    if (tid == 0) prefetchTensorMap(&dstMap);
    uint32_t it = 0;
    for (uint64_t t = cluster; t < tiles; t += clusters, it++) {
      const uint32_t st = it % stages, ph = (it / stages) & 1;
      uint32_t tx, ty;
      dtrTileOrder(t, p.tilesX, p.tilesY, p.group, &tx, &ty);
      uint8_t* result = resultBase + (it % L.results) * L.resultBytes;
      /* The result buffer was last stored `results` tiles ago: that store must have read it. */
      if (tid == 0) {
        if (L.results == 2) bulkWaitRead<1>();
        else bulkWaitRead<0>();
      }
      namedBarrierSync(1, kConsumers);
      mbarWait(full(st), ph);
      transposeShare<S>(stageBase + st * L.stageBytes, result, L.tileRows, na, q * na, NB, tid, kConsumers);
      fenceProxyAsyncShared();
      __syncwarp();
      if (lane == 0) {
        if (CS > 1)
          for (uint32_t c = 0; c < CS; c++) mbarArriveCluster(empty(st), c);
        else
          mbarArrive(empty(st));
      }
      namedBarrierSync(1, kConsumers);
      const uint32_t col0 = tx * colsPerTile, shareRow0 = ty * L.tileRows + q * na * m;
      if (tid == 0) {
        for (uint32_t b = 0; b < na / 8; b++)
          tmaStore2d(&dstMap, smemAddr(result + b * L.regionBytes), (int32_t)((shareRow0 + b * 8 * m) * S), (int32_t)col0);
        bulkCommit();
      }
      /* TMA stores whole 16-byte chunks, so the map stops at rowsFull; the chunk that holds the
       * last rows of each result row is written here, element by element. */
      if (p.rowsFull < p.rows && p.rowsFull >= shareRow0 && p.rowsFull < shareRow0 + na * m) {
        const uint32_t aT = (p.rowsFull - shareRow0) / m, tailBytes = (p.rows - p.rowsFull) * S;
        const uint32_t nrows = min(colsPerTile, p.cols - col0);
        for (uint32_t j = tid; j < nrows; j += kConsumers) {
          const uint8_t* from = result + (aT / 8) * L.regionBytes + dtrSwizzle128(j, aT & 7);
          uint8_t* to = p.dst + (uint64_t)(col0 + j) * p.lddBytes + (uint64_t)p.rowsFull * S;
          for (uint32_t x = 0; x < tailBytes; x++) to[x] = from[x];
        }
      }
    }
    if (tid == 0) bulkWait<0>();
  }
  /* Cluster peers may still multicast into this CTA's stages or arrive on its barriers. */
  if (CS > 1) clusterSync();
}

/* cuTensorMapEncodeTiled, reached through the runtime so that nothing links libcuda. */
typedef CUresult (*EncodeTiledFn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                  const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static EncodeTiledFn encodeTiled() {
  static EncodeTiledFn fn = reinterpret_cast<EncodeTiledFn>(dtrDriverEntryPoint("cuTensorMapEncodeTiled"));
  return fn;
}

bool tmaAvailable() {
  DeviceInfo d;
  if (deviceInfo(&d) != cudaSuccess) return false;
  return d.ccMajor >= 9 && encodeTiled() != nullptr;
}

/* A 2-D byte-typed map of `rows` rows of `rowBytes` bytes, pitch `pitch`, boxes of 128 x boxRows. */
static cudaError_t encodeMap(CUtensorMap* map, const void* base, uint64_t rowBytes, uint64_t rows, uint64_t pitch,
                             uint32_t boxRows) {
  const cuuint64_t dims[2] = {rowBytes, rows};
  const cuuint64_t strides[1] = {pitch};
  const cuuint32_t box[2] = {DTR_SWIZZLE_SPAN, boxRows};
  const cuuint32_t elemStrides[2] = {1, 1};
  CUresult r = encodeTiled()(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box,
                             elemStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <int S, int CS, int NB>
static cudaError_t launchTmaTyped(const dtrTransposeArgs* a, cudaStream_t stream) {
  if (CS > 1 && !dtrMulticastClusterFits(S, CS)) return cudaErrorInvalidValue;
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  /* Deepest ring (up to kMaxStages) that fits in the shared memory one block may have; a block that
   * takes only a few tiles needs no deeper ring than that, and smaller blocks fit more per SM. */
  const KernelTuning tune = tuningFor(CS == 1 ? dtrKernelTma : CS == 2 ? dtrKernelTmaMc2 : dtrKernelTmaMc4, S);
  const int tpc = tune.tilesPerCta;
  uint32_t stages = tpc > 0 && tpc < kMaxStages ? (uint32_t)tpc : kMaxStages;
  const uint32_t results = tpc == 1 ? 1 : 2;
  while (stages > 1 && tmaLayout(S, CS, NB, stages, results).smemBytes > (uint32_t)d.smemOptin) stages--;
  const TmaLayout L = tmaLayout(S, CS, NB, stages, results);
  if (L.smemBytes > (uint32_t)d.smemOptin) return cudaErrorInvalidConfiguration;

  TmaParams p;
  p.dst = static_cast<uint8_t*>(a->dst);
  p.lddBytes = (uint64_t)a->ldd * S;
  p.rows = (uint32_t)a->rows;
  p.cols = (uint32_t)a->cols;
  p.rowsFull = (uint32_t)((uint64_t)a->rows * S / DTR_CHUNK * DTR_CHUNK / S);
  const uint64_t colsPerTile = (uint64_t)NB * dtrBoxElems(S);
  p.tilesX = (uint32_t)((a->cols + colsPerTile - 1) / colsPerTile);
  p.tilesY = (uint32_t)((a->rows + L.tileRows - 1) / L.tileRows);
  p.group = tune.tileGroup;
  p.stages = stages;
  p.results = results;
  const uint64_t tiles = (uint64_t)p.tilesX * p.tilesY;

  CUtensorMap srcMap, dstMap;
  if ((err = encodeMap(&srcMap, a->src, (uint64_t)a->cols * S, (uint64_t)a->rows, (uint64_t)a->lds * S, L.tileRows)))
    return err;
  if ((err = encodeMap(&dstMap, a->dst, (uint64_t)p.rowsFull * S, (uint64_t)a->cols, p.lddBytes, NB * dtrBoxElems(S))))
    return err;

  auto kernel = tmaTransposeKernel<S, CS, NB>;
  if ((err = allowDynamicSmem((const void*)kernel, d.smemOptin))) return err;

  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = L.smemBytes;
  cfg.stream = stream;
  uint64_t grid;
  if (CS > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CS;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(CS * d.sms);
    int clusters = 0;
    if ((err = residentClusters((const void*)kernel, &cfg, &clusters))) return err;
    if (clusters < 1) return cudaErrorInvalidConfiguration;
    grid = (uint64_t)tileGrid(tiles, (uint64_t)clusters, tpc) * CS;
  } else {
    int perSm = 0;
    if ((err = residentBlocks((const void*)kernel, kThreads, L.smemBytes, &perSm))) return err;
    if (perSm < 1) return cudaErrorInvalidConfiguration;
    grid = tileGrid(tiles, (uint64_t)perSm * d.sms, tpc);
  }
  cfg.gridDim = dim3((unsigned)grid);
  return cudaLaunchKernelEx(&cfg, kernel, srcMap, dstMap, p);
}

/* Boxes per stage as tuningFor says (two give longer reads along source rows); one-byte elements
 * always take one: their box is already the largest stage that leaves room for a ring. */
template <int S>
static cudaError_t launchTmaPlain(const dtrTransposeArgs* a, cudaStream_t stream) {
  if (S > 1 && tuningFor(dtrKernelTma, S).boxes == 2) return launchTmaTyped<S, 1, 2>(a, stream);
  return launchTmaTyped<S, 1, 1>(a, stream);
}

template <int CS>
static cudaError_t launchTmaCluster(const dtrTransposeArgs* a, cudaStream_t stream) {
  switch (a->entry_bytes) {
    case 1: return CS == 1 ? launchTmaPlain<1>(a, stream) : launchTmaTyped<1, CS, CS>(a, stream);
    case 2: return CS == 1 ? launchTmaPlain<2>(a, stream) : launchTmaTyped<2, CS, CS>(a, stream);
    case 4: return CS == 1 ? launchTmaPlain<4>(a, stream) : launchTmaTyped<4, CS, CS>(a, stream);
    case 8: return CS == 1 ? launchTmaPlain<8>(a, stream) : launchTmaTyped<8, CS, CS>(a, stream);
    case 16: return CS == 1 ? launchTmaPlain<16>(a, stream) : launchTmaTyped<16, CS, CS>(a, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launchTma(const dtrTransposeArgs* a, int cluster, cudaStream_t stream) {
  switch (cluster) {
    case 1: return launchTmaCluster<1>(a, stream);
    case 2: return launchTmaCluster<2>(a, stream);
    case 4: return launchTmaCluster<4>(a, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace dtr
