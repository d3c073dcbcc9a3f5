#include "memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "checks.h"
#include "comm.h"
#include "debug.h"
#include "params.h"

/* The first number after `key` in a text file, or 0. */
static uint64_t readNumber(const char* path, const char* key) {
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  uint64_t v = 0;
  const size_t klen = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen)) continue;
    v = strtoull(line + klen, NULL, 10);
    break;
  }
  fclose(f);
  return v;
}

/* The memory limit of this process's cgroup (v2) and what the group holds that cannot be reclaimed
 * (its use less the file cache it could drop); 0 for no limit ("max") or no cgroup v2. */
static uint64_t cgroupLimit(uint64_t* held) {
  char group[512] = "", line[512];
  FILE* f = fopen("/proc/self/cgroup", "r");
  if (f) {
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "0::", 3)) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(group, sizeof group, "%s", line + 3);
      }
    fclose(f);
  }
  char path[600];
  uint64_t limit = 0;
  /* The process's own group, else the root of the cgroup namespace (a container's). */
  for (int i = 0; i < 2 && !limit; i++) {
    const char* dir = i == 0 ? group : "";
    if (i == 0 && (!*group || !strcmp(group, "/"))) continue;
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", dir);
    limit = readNumber(path, "");
    if (!limit) continue;
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", dir);
    const uint64_t used = readNumber(path, "");
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.stat", dir);
    const uint64_t cache = readNumber(path, "inactive_file ");
    *held = used > cache ? used - cache : 0;
  }
  return limit;
}

uint64_t dtrHostMemoryAvailable(void) {
  uint64_t avail = readNumber("/proc/meminfo", "MemAvailable:") * 1024, held = 0;
  const uint64_t limit = cgroupLimit(&held);
  if (limit > 0) {
    const uint64_t left = limit > held ? limit - held : 0;
    if (!avail || left < avail) avail = left;
  }
  const uint64_t cap = dtrEnvParamsGet()->host_memory;
  if (cap && (!avail || cap < avail)) avail = cap;
  return avail;
}

/* "12.3 GB" (decimal units, as free(1) and nvidia-smi print them). */
static const char* formatBytes(uint64_t bytes, char* buf, size_t len) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1000.0 && u < 5) {
    v /= 1000.0;
    u++;
  }
  if (u == 0) snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
  else snprintf(buf, len, "%.1f %s", v, units[u]);
  return buf;
}

/* Free bytes of `device`, asked on it and the caller's device restored. */
static dtrResult_t gpuFree(int device, uint64_t* free_bytes) {
  int current = -1;
  CUDACHECK(cudaGetDevice(&current));
  size_t fr = 0, total = 0;
  cudaError_t err = cudaSetDevice(device);
  if (err == cudaSuccess) err = cudaMemGetInfo(&fr, &total);
  cudaSetDevice(current);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return dtrSetError(DTR_CUDA_RESULT(err), "cannot read the free memory of GPU %d: %s", device, cudaGetErrorString(err));
  }
  *free_bytes = fr;
  return dtrSuccess;
}

dtrResult_t dtrMemoryCheck(MPI_Comm comm, MPI_Comm host, int device, uint64_t bytes, const char* what) {
  int rank;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  /* The ranks that draw on one pool: one host's memory, or one GPU of one host. */
  MPI_Comm own = MPI_COMM_NULL, gpuPool = MPI_COMM_NULL;
  if (host == MPI_COMM_NULL) {
    MPICHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &own));
    host = own;
  }
  if (device >= 0) MPICHECK(MPI_Comm_split(host, device, rank, &gpuPool));
  const MPI_Comm pool = device >= 0 ? gpuPool : host;
  uint64_t available = 0;
  dtrResult_t res = device < 0 ? dtrSuccess : gpuFree(device, &available);
  if (device < 0) available = dtrHostMemoryAvailable();
  /* What the pool's ranks need together and how many they are, and the least any of them sees available. */
  uint64_t mine[2] = {bytes, 1}, sums[2] = {0, 0};
  dtrResult_t reduced = dtrAllreduce(mine, sums, 2, MPI_UINT64_T, MPI_SUM, pool, "the memory check");
  if (reduced == dtrSuccess)
    reduced = dtrAllreduce(MPI_IN_PLACE, &available, 1, MPI_UINT64_T, MPI_MIN, pool, "the memory check");
  if (reduced != dtrSuccess) res = reduced;
  const uint64_t need = sums[0];
  const int ranks = (int)sums[1];
  if (gpuPool != MPI_COMM_NULL) MPI_Comm_free(&gpuPool);
  if (own != MPI_COMM_NULL) MPI_Comm_free(&own);
  /* 0 available: nothing could be read (no /proc): the allocation itself will tell. */
  if (res == dtrSuccess && available && need > available) {
    char host_name[MPI_MAX_PROCESSOR_NAME] = "";
    char n[32], a[32], each[32];
    int len = 0;
    MPI_Get_processor_name(host_name, &len);
    formatBytes(need, n, sizeof n);
    formatBytes(available, a, sizeof a);
    formatBytes(bytes, each, sizeof each);
    char where[64];
    if (device < 0) snprintf(where, sizeof where, "host memory");
    else snprintf(where, sizeof where, "memory on GPU %d", device);
    res = dtrSetError(dtrOutOfMemory, "not enough %s on %s for %s: %d rank%s there need %s (%s on this one), %s available",
                      where, host_name, what, ranks, ranks == 1 ? "" : "s", n, each, a);
  }
  if (res == dtrSuccess && bytes) {
    char n[32];
    TRACE("memory check: %s on %s %d, %s", what, device < 0 ? "host" : "GPU", device, formatBytes(bytes, n, sizeof n));
  }
  return dtrAgree(comm, res);
}
