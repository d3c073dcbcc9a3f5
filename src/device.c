/* The GPU of a rank and the device buffers it is given: what every GPU backend checks alike. */
#include <stdlib.h>
#include <unistd.h>

#include "checks.h"
#include "device.h"
#include "launch.h"

/* Which GPU this rank takes, and whether it can: checked on every rank before a transport is touched. */
dtrResult_t dtrSelectDevice(dtrPlan_t plan, const dtrConfig_t* config, const char* backend, int* device) {
  const dtrComm* c = &plan->comm;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  dtrResult_t res = dtrSuccess;
  /* By default the caller's current device, as NCCL and cuFFT take it. */
  *device = config->device;
  if (count > 0 && *device < 0 && cudaGetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    *device = 0;
  }
  if (count == 0)
    res = dtrSetError(dtrNoDevice, "the %s backend needs a GPU, but rank %d on %s sees none (%s)", backend, c->rank, host,
                      err == cudaSuccess ? "no CUDA devices" : cudaGetErrorString(err));
  else if (config->device >= count)
    res = dtrSetError(dtrNoDevice, "config.device = %d, but rank %d on %s sees only %d GPUs", config->device, c->rank, host,
                      count);
  else if (c->local_size > count)
    res = dtrSetError(dtrNoDevice, "%d ranks run on %s but it has only %d GPUs: the %s backend needs one GPU per rank",
                      c->local_size, host, count, backend);
  if (res != dtrSuccess) *device = -1;

  /* Two ranks on one GPU is an error NCCL would report obscurely (or hang on): name it here. */
  int* all = malloc((size_t)c->local_size * sizeof *all);
  if (!all) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  all[c->local_rank] = *device;
  dtrResult_t gathered = dtrAllgather(all, (int)sizeof *all, c->local, "the node-local ranks' GPUs");
  if (gathered != dtrSuccess) {
    free(all);
    return gathered;
  }
  for (int i = 0; i < c->local_size && res == dtrSuccess; i++)
    if (i != c->local_rank && all[i] == *device && *device >= 0)
      res = dtrSetError(dtrInvalidArgument, "node-local ranks %d and %d on %s both chose GPU %d: the %s backend needs one GPU per rank",
                        i < c->local_rank ? i : c->local_rank, i < c->local_rank ? c->local_rank : i, host, *device, backend);
  free(all);
  if (res == dtrSuccess) CUDACHECK(cudaSetDevice(*device));
  return res;
}

/* The range [p, p + bytes) must be device memory of one allocation (cuMemGetAddressRange's view,
 * through the runtime's pointer attributes and a driver entry point). */
dtrResult_t dtrCheckDeviceBuffer(dtrPlan_t plan, const void* p, size_t bytes, const char* name) {
  if (!bytes) return dtrSuccess;
  struct cudaPointerAttributes attr;
  cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return dtrSetError(dtrInvalidArgument, "%s = %p is not memory CUDA knows (%s)", name, p, cudaGetErrorString(err));
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    return dtrSetError(dtrInvalidArgument, "%s = %p is host memory; a GPU backend needs device buffers", name, p);
  if (attr.type == cudaMemoryTypeDevice && attr.device != plan->device)
    return dtrSetError(dtrInvalidArgument, "%s = %p is on GPU %d, but this rank's plan runs on GPU %d", name, p,
                       attr.device, plan->device);
  if ((uintptr_t)p % dtrDataTypeSize(plan->type))
    return dtrSetError(dtrInvalidArgument, "%s = %p is not aligned to its element size (%zu bytes)", name, p,
                       dtrDataTypeSize(plan->type));
  uintptr_t base = 0;
  size_t size = 0;
  if (dtrAllocationRange(p, &base, &size) == 0 && (uintptr_t)p + bytes > base + size)
    return dtrSetError(dtrInvalidArgument, "%s = %p has %zu bytes to the end of its allocation; this rank needs %zu",
                       name, p, (size_t)(base + size - (uintptr_t)p), bytes);
  return dtrSuccess;
}

int dtrAllocationRange(const void* p, uintptr_t* base, size_t* size) {
  typedef int (*GetRangeFn)(uintptr_t*, size_t*, uintptr_t);
  static GetRangeFn getRange = NULL;
  static int tried = 0;
  if (!tried) {
    tried = 1;
    getRange = (GetRangeFn)dtrDriverEntryPoint("cuMemGetAddressRange");
  }
  return getRange && getRange(base, size, (uintptr_t)p) == 0 ? 0 : -1;
}

dtrResult_t dtrCheckDeviceBuffers(dtrPlan_t plan, const void* in, void* out) {
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank;
  DTRCHECK(dtrCheckDeviceBuffer(plan, in, (size_t)dtrInEntries(g, r) * g->entry_bytes, "in"));
  DTRCHECK(dtrCheckDeviceBuffer(plan, out, (size_t)dtrOutEntries(g, r) * g->entry_bytes, "out"));
  return dtrSuccess;
}
