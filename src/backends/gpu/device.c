/* The GPU of a rank and the device buffers it is given: what every GPU backend checks alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/checks.h"
#include "device.h"
#include "launch.h"

enum { kBusIdBytes = 32 };

/* The GPU this rank would take: config->device, else the current one (as NCCL and cuFFT take it);
 * -1 where it has none. *count: the GPUs it sees. */
static int candidateDevice(const dtrConfig_t* config, int* count, cudaError_t* err) {
  *count = 0;
  *err = cudaGetDeviceCount(count);
  if (*err != cudaSuccess) {
    (void)cudaGetLastError();
    *count = 0;
    return -1;
  }
  int device = config->device;
  if (*count > 0 && device < 0 && cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    device = 0;
  }
  return device >= 0 && device < *count ? device : -1;
}

dtrResult_t dtrGpuPlacementFind(dtrPlan_t plan, const dtrConfig_t* config) {
  const dtrComm* c = &plan->comm;
  dtrGpuPlacement* g = &plan->gpu;
  memset(g, 0, sizeof *g);
  g->shares_with = -1;
  int count = 0;
  cudaError_t err;
  const int device = candidateDevice(config, &count, &err);
  /* Each node-local rank's rank in the plan and the bus id of its GPU ("" for none). */
  typedef struct {
    int rank;
    char bus[kBusIdBytes];
  } Seat;
  Seat* seats = calloc((size_t)c->local_size, sizeof *seats);
  if (!seats) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  Seat* mine = &seats[c->local_rank];
  mine->rank = c->rank;
  if (device >= 0 && cudaDeviceGetPCIBusId(mine->bus, kBusIdBytes, device) != cudaSuccess) {
    (void)cudaGetLastError();
    mine->bus[0] = '\0';
  }
  dtrResult_t res = dtrAllgather(seats, (int)sizeof *seats, c->local, "the node-local ranks' GPUs");
  int shared = 0;
  for (int i = 0; i < c->local_size && res == dtrSuccess; i++) {
    if (!seats[i].bus[0]) continue;
    int first = -1, here = 0;
    for (int j = 0; j < c->local_size; j++)
      if (!strcmp(seats[j].bus, seats[i].bus)) {
        here++;
        if (first < 0 || seats[j].rank < first) first = seats[j].rank;
      }
    if (here > 1) shared = 1;
    if (i == c->local_rank && here > 1) {
      g->sharers = here;
      for (int j = 0; j < c->local_size && g->shares_with < 0; j++)
        if (j != i && !strcmp(seats[j].bus, mine->bus)) g->shares_with = seats[j].rank;
    }
  }
  snprintf(g->bus, sizeof g->bus, "%s", mine->bus);
  free(seats);
  DTRCHECK(res);
  /* Agreed over every host: the backend chosen from it must be the same on every rank. */
  DTRCHECK(dtrAllreduce(&shared, &g->shared, 1, MPI_INT, MPI_MAX, c->comm, "whether ranks share a GPU"));
  return dtrSuccess;
}

dtrResult_t dtrSelectDevice(dtrPlan_t plan, const dtrConfig_t* config, const char* backend, int ownGpu, int* device) {
  const dtrComm* c = &plan->comm;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  int count = 0;
  cudaError_t err;
  const int candidate = candidateDevice(config, &count, &err);
  const dtrGpuPlacement* g = &plan->gpu;
  dtrResult_t res = dtrSuccess;
  *device = -1;
  if (count == 0)
    res = dtrSetError(dtrNoDevice, "the %s backend needs a GPU, but rank %d on %s sees none (%s)", backend, c->rank, host,
                      err == cudaSuccess ? "no CUDA devices" : cudaGetErrorString(err));
  else if (config->device >= count)
    res = dtrSetError(dtrNoDevice, "config.device = %d, but rank %d on %s sees only %d GPUs", config->device, c->rank, host,
                      count);
  else if (ownGpu && g->shares_with >= 0)
    /* NCCL refuses two ranks on one GPU, obscurely (ncclCommInitRank: invalid usage): name it here. */
    res = dtrSetError(dtrNoDevice,
                      "the %s backend needs a GPU of its own for each rank (NCCL allows one rank per GPU), but ranks %d "
                      "and %d on %s share GPU %d [%s] (%d ranks there); the p2p backend serves ranks that share GPUs "
                      "on one host, the cpu backend host memory",
                      backend, g->shares_with < c->rank ? g->shares_with : c->rank,
                      g->shares_with < c->rank ? c->rank : g->shares_with, host, candidate, g->bus, g->sharers);
  if (res == dtrSuccess) {
    *device = candidate;
    CUDACHECK(cudaSetDevice(*device));
  }
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
