/* Which variant serves a transpose, and the launch through one entry point. */
#include <stdint.h>

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

static KernelTuning tuning = {0, 8, 0};
KernelTuning kernelTuning() { return tuning; }

cudaError_t residentBlocks(const void* kernel, int threads, size_t smem, int* perSm) {
  return cachedOccupancy(kernel, threads, smem, nullptr, perSm);
}

cudaError_t residentClusters(const void* kernel, const cudaLaunchConfig_t* cfg, int* clusters) {
  return cachedOccupancy(kernel, (int)cfg->blockDim.x, cfg->dynamicSmemBytes, cfg, clusters);
}

}  // namespace dtr

using namespace dtr;

static int vectorEligible(const dtrTransposeArgs* a) {
  const uint64_t s = a->entry_bytes;
  return dtrVectorEligible((uint64_t)(uintptr_t)a->src, (uint64_t)a->lds * s, (uint64_t)(uintptr_t)a->dst,
                           (uint64_t)a->ldd * s, (uint64_t)a->rows, (uint64_t)a->cols, s);
}

/* TMA also needs one whole 16-byte chunk in each result row: its store map stops at the last one. */
static int tmaEligible(const dtrTransposeArgs* a) {
  return vectorEligible(a) && (uint64_t)a->rows * a->entry_bytes >= DTR_CHUNK && tmaAvailable();
}

extern "C" void dtrKernelTuningSet(int tma_boxes, int tile_group, int streaming) {
  tuning = {tma_boxes, tile_group > 0 ? tile_group : 1, streaming};
}

extern "C" int dtrTransposeSupported(dtrKernel_t kernel, const dtrTransposeArgs* a) {
  if (!a || a->rows < 0 || a->cols < 0 || a->entry_bytes == 0) return 0;
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
  if (a->rows == 0 || a->cols == 0) return cudaSuccess;
  switch (kernel) {
    case dtrKernelTma: return launchTma(a, 1, stream);
    case dtrKernelTmaMc2: return launchTma(a, 2, stream);
    case dtrKernelTmaMc4: return launchTma(a, 4, stream);
    case dtrKernelSimt16: return launchSimt16(a, stream);
    default: return launchSimt(a, stream);
  }
}
