/*
 * Soak and leaks under mpiexec, on the backend named by argv[1] (cpu, nccl or p2p):
 *   - one plan executed --executes times (default 10000) back to back on the same buffers, the
 *     output poisoned and checked bit for bit every 100th execute;
 *   - --cycles plan create/destroy cycles (default 1000), each with one execute, and the memory
 *     they leave behind: the GPU's used bytes (cudaMemGetInfo) and the process's resident set back
 *     where they stood after the first cycles (the warm-up that loads libraries and caches).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core/names.h"
#include "disttranspose.h"
#include "support/pattern.h"
#include "support/pattern_host.h"
#include "harness.h"

static int rank, nranks, gpu;
static dtrBackend_t backend;
static dtrTestMemory mem;

static uint64_t residentBytes(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%llu %llu", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t gpuUsedBytes(void) {
  size_t fr = 0, total = 0;
  if (!gpu || cudaMemGetInfo(&fr, &total) != cudaSuccess) return 0;
  return (uint64_t)(total - fr);
}

static uint64_t sumRanks(uint64_t v) {
  uint64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static dtrConfig_t config(void) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  return cfg;
}

/* Another plan of the matrix, on its buffers. */
static dtrPlan_t makePlan(const dtrTestMatrix* m) {
  const dtrConfig_t cfg = config();
  dtrPlan_t plan = NULL;
  dtrResult_t res = dtrPlanCreate(&plan, m->rows, m->cols, m->type, m->howmany, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrSuccess, "plan: %s", dtrGetLastError());
  return res == dtrSuccess ? plan : NULL;
}

/* Executes back to back; every 100th output poisoned before and checked after. */
static uint64_t soak(const dtrTestMatrix* m, int executes) {
  dtrPlan_t plan = m->plan;
  if (!plan) return 1;
  uint64_t wrong = 0;
  int checks = 0;
  for (int i = 0; i < executes; i++) {
    const int check = i % 100 == 99;
    if (check) dtrTestPattern(&mem, dtrPatternPoison, m->b, &m->out, m->ls.entry_bytes);
    dtrResult_t res = dtrExecute(plan, m->a, m->b, mem.stream);
    if (res != dtrSuccess) {
      EXPECT(0, "execute %d: %s", i, dtrGetLastError());
      break;
    }
    if (check) {
      wrong += dtrTestPattern(&mem, dtrPatternCheck, m->b, &m->out, m->ls.entry_bytes);
      checks++;
    }
  }
  if (gpu) cudaStreamSynchronize(mem.stream);
  wrong = sumRanks(wrong);
  if (rank == 0)
    printf("soak: %d executes of %lld x %lld c64 on %d ranks (%s), %d checked: %llu wrong entries\n", executes,
           (long long)m->rows, (long long)m->cols, nranks, dtrBackendName(backend), checks, (unsigned long long)wrong);
  return wrong;
}

/* Create, execute once, destroy; memory measured after `warm` cycles and after the last. */
static uint64_t cycles(const dtrTestMatrix* m, int n) {
  const int warm = n < 20 ? 1 : 10;
  uint64_t wrong = 0, rss0 = 0, gpu0 = 0;
  for (int i = 0; i < n; i++) {
    if (i == warm) {
      MPI_Barrier(MPI_COMM_WORLD);
      rss0 = residentBytes();
      gpu0 = gpuUsedBytes();
    }
    dtrPlan_t plan = makePlan(m);
    if (!plan) return wrong + 1;
    dtrTestPattern(&mem, dtrPatternPoison, m->b, &m->out, m->ls.entry_bytes);
    EXPECT(dtrExecute(plan, m->a, m->b, mem.stream) == dtrSuccess, "execute in cycle %d: %s", i, dtrGetLastError());
    wrong += dtrTestPattern(&mem, dtrPatternCheck, m->b, &m->out, m->ls.entry_bytes);
    if (gpu) cudaStreamSynchronize(mem.stream);
    EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy in cycle %d", i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const uint64_t rss1 = residentBytes(), gpu1 = gpuUsedBytes();
  const double rssGrowth = ((double)rss1 - (double)rss0) / 1048576.0, gpuGrowth = ((double)gpu1 - (double)gpu0) / 1048576.0;
  double worst[2] = {rssGrowth, gpuGrowth}, all[2];
  MPI_Allreduce(worst, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  wrong = sumRanks(wrong);
  if (rank == 0)
    printf("cycles: %d plan create/execute/destroy (%s, %d ranks): %llu wrong; after cycle %d to the end, resident set "
           "%+.1f MiB, GPU memory in use %+.1f MiB (largest on any rank)\n",
           n, dtrBackendName(backend), nranks, (unsigned long long)wrong, warm, all[0], all[1]);
  /* A leak of a plan's workspace or state each cycle would grow by MiBs over the cycles; allocator
   * and driver caches settle within a few. */
  EXPECT(all[1] <= 2.0, "GPU memory grew by %.1f MiB over %d cycles", all[1], n - warm);
#ifdef __SANITIZE_ADDRESS__
  /* AddressSanitizer holds freed memory in its quarantine (256 MiB): the resident set says nothing. */
  if (rank == 0) printf("cycles: resident set not judged under AddressSanitizer\n");
#else
  EXPECT(all[0] <= 8.0, "resident set grew by %.1f MiB over %d cycles", all[0], n - warm);
#endif
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int executes = 10000, ncycles = 1000;
  if (argc < 2 || dtrParseBackend(argv[1], &backend) || backend == dtrBackendAuto) {
    if (rank == 0) fprintf(stderr, "usage: test_soak cpu|nccl|p2p [--executes N] [--cycles N]\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--executes")) executes = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--cycles")) ncycles = atoi(argv[i + 1]);
  }
  gpu = backend != dtrBackendCpu;
  if (dtrTestMemoryInit(&mem, backend) == DTR_TEST_SKIP) {
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  const dtrConfig_t cfg = config();
  dtrTestMatrix m;
  EXPECT(dtrTestMatrixInit(&m, &mem, MPI_COMM_WORLD, 1000 + 7 * nranks, 777 + 3 * nranks, dtrComplex64, 1, &cfg) ==
             dtrSuccess, "plan: %s", dtrGetLastError());
  uint64_t wrong = soak(&m, executes);
  dtrTestMatrixFree(&m, &mem);
  /* The cycles' own plans on buffers made again (the soak's plan gone, so that memory is measured alone). */
  EXPECT(dtrTestMatrixInit(&m, &mem, MPI_COMM_WORLD, 1000 + 7 * nranks, 777 + 3 * nranks, dtrComplex64, 1, &cfg) ==
             dtrSuccess, "plan: %s", dtrGetLastError());
  wrong += cycles(&m, ncycles);
  dtrTestMatrixFree(&m, &mem);
  dtrTestMemoryFree(&mem);
  int failures = dtrTestFailures, any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return (wrong || any) ? 1 : 0;
}
