/*
 * Bad input under mpiexec: every rank must get the same non-zero result and a message naming the
 * problem, without a hang, and nothing may be written to the output.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "disttranspose.h"
#include "support/pattern_host.h"

static int rank, nranks;

/* Every rank got `expected`, and its message mentions `word`. */
static void expectAll(dtrResult_t got, dtrResult_t expected, const char* word, const char* what) {
  int mine[2] = {(int)got, -(int)got}, span[2];
  MPI_Allreduce(mine, span, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT(span[0] == -span[1], "%s: ranks disagree (results %d..%d)", what, -span[1], span[0]);
  EXPECT(got == expected, "%s: got %d (%s), expected %d", what, (int)got, dtrGetErrorString(got), (int)expected);
  EXPECT(!word || strstr(dtrGetLastError(), word), "%s: message '%s' does not mention '%s'", what, dtrGetLastError(), word);
}

static dtrConfig_t cpuConfig(void) {
  dtrConfig_t c;
  dtrConfigInit(&c);
  c.backend = dtrBackendCpu;
  return c;
}

static void badPlans(void) {
  dtrConfig_t cfg = cpuConfig();
  dtrPlan_t plan = (dtrPlan_t)0x1;
  expectAll(dtrPlanCreate(&plan, 0, 5, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrInvalidArgument, "rows", "rows = 0");
  EXPECT(plan == NULL, "a failed create must leave the plan NULL");
  expectAll(dtrPlanCreate(&plan, 5, -2, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrInvalidArgument, "cols", "cols < 0");
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 0, MPI_COMM_WORLD, &cfg), dtrInvalidArgument, "howmany", "howmany = 0");
  expectAll(dtrPlanCreate(&plan, 5, 5, (dtrDataType_t)42, 1, MPI_COMM_WORLD, &cfg), dtrInvalidArgument, "data type",
            "unknown type");
  expectAll(dtrPlanCreate(&plan, (int64_t)1 << 40, (int64_t)1 << 40, dtrFloat64, 1, MPI_COMM_WORLD, &cfg),
            dtrInvalidArgument, "overflows", "overflowing size");
  expectAll(dtrPlanCreate(NULL, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrInvalidArgument, "plan", "NULL plan");

  /* Arguments that differ between ranks: found collectively, the same failure everywhere. */
  if (nranks > 1) {
    expectAll(dtrPlanCreate(&plan, rank == 0 ? 10 : 11, 5, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrMismatch, "rows",
              "rows differ");
    expectAll(dtrPlanCreate(&plan, 10, 5, rank == nranks - 1 ? dtrFloat64 : dtrFloat32, 1, MPI_COMM_WORLD, &cfg),
              dtrMismatch, "type", "types differ");
    /* A bad argument on one rank only fails every rank, with that rank's message. */
    expectAll(dtrPlanCreate(&plan, 10, 5, dtrFloat32, rank == nranks - 1 ? 0 : 1, MPI_COMM_WORLD, &cfg),
              dtrInvalidArgument, "howmany", "bad howmany on one rank");
    dtrConfig_t mixed = cfg;
    if (rank == 0) mixed.backend = dtrBackendNccl;
    expectAll(dtrPlanCreate(&plan, 10, 5, dtrFloat32, 1, MPI_COMM_WORLD, &mixed), dtrMismatch, "backend",
              "backends differ");
    mixed = cfg;
    mixed.stages = rank == nranks - 1 ? 3 : 2;
    expectAll(dtrPlanCreate(&plan, 10, 5, dtrFloat32, 1, MPI_COMM_WORLD, &mixed), dtrMismatch, "stages",
              "stages differ");
    mixed = cfg;
    mixed.inplace = rank == 0;
    expectAll(dtrPlanCreate(&plan, 10, 5, dtrFloat32, 1, MPI_COMM_WORLD, &mixed), dtrMismatch, "inplace",
              "inplace differs");
    /* A timeout on some ranks only: their first collectives take another form (polled under a
     * deadline), which MPI would not match; refused on every rank instead of a hang. */
    mixed = cfg;
    mixed.timeout = rank == nranks - 1 ? 5 : 0;
    expectAll(dtrPlanCreate(&plan, 10, 5, dtrFloat32, 1, MPI_COMM_WORLD, &mixed), dtrMismatch,
              "the timeout (config.timeout, else DTR_TIMEOUT) differs between ranks: 0 ms on rank 0, 5000 ms", "timeouts differ");
  }
  /* GPU settings beside the CPU backend: refused, naming both. */
  dtrConfig_t gpuish = cfg;
  gpuish.kernel = dtrKernelTma;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &gpuish), dtrInvalidArgument,
            "config.kernel = tma applies to the GPU backends; the cpu backend (config.backend)", "a kernel on the cpu backend");
  gpuish = cfg;
  gpuish.device = 0;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &gpuish), dtrInvalidArgument,
            "config.device = 0 applies to the GPU backends", "a device on the cpu backend");
  dtrConfig_t bad = cfg;
  bad.backend = (dtrBackend_t)9;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "backend", "bad backend");
  bad = cfg;
  bad.kernel = (dtrKernel_t)-3;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "kernel", "bad kernel");
  bad = cfg;
  bad.stages = DTR_MAX_STAGES + 1;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "stages", "too many stages");
  bad.stages = -1;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "stages", "negative stages");
  bad = cfg;
  bad.inplace = 2;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "inplace", "bad inplace");
  bad = cfg;
  bad.device = -7;
  expectAll(dtrPlanCreate(&plan, 5, 5, dtrFloat32, 1, MPI_COMM_WORLD, &bad), dtrInvalidArgument, "device", "bad device");

  /* A 3-D array too large: the message speaks of the array's sides, not of rows and columns. */
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, 1, nranks) == dtrSuccess) {
    const int64_t huge[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 2};
    expectAll(dtrPlanCreatePencil(&plan, grid, huge, dtrPencilX, dtrPencilY, dtrComplex128, 1, &cfg), dtrInvalidArgument,
              "nx x ny x nz x entry = 1099511627776 x 1099511627776 x 2 x 16 bytes overflows", "3-D overflow");
    dtrGridDestroy(grid);
  }

  dtrLocalSize_t ls;
  EXPECT(dtrLocalSize(5, 5, dtrFloat32, 1, MPI_COMM_WORLD, nranks, &ls) == dtrInvalidArgument, "local size of rank P");
  EXPECT(dtrLocalSize(5, 0, dtrFloat32, 1, MPI_COMM_WORLD, -1, &ls) == dtrInvalidArgument, "local size of 0 cols");
  EXPECT(dtrPlanDestroy(NULL) == dtrInvalidArgument, "destroy NULL");
  EXPECT(dtrExecute(NULL, NULL, NULL, NULL) == dtrInvalidArgument, "execute NULL plan");
}

/* The NCCL backend where it cannot run (no GPU, or more ranks on the node than GPUs). */
static void ncclWithoutGpus(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  MPI_Comm local;
  int localSize;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &localSize);
  MPI_Comm_free(&local);
  /* NCCL needs a GPU of its own for each rank; p2p serves ranks that share one, but needs one. */
  int cannot[2] = {count == 0 || localSize > count, count == 0}, all[2] = {0, 0};
  MPI_Allreduce(cannot, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!all[0]) return;
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = dtrBackendNccl;
  dtrPlan_t plan;
  expectAll(dtrPlanCreate(&plan, 64, 64, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrNoDevice, "GPU", "NCCL without GPUs");
  if (rank == 0) printf("NCCL backend without enough GPUs: '%s'\n", dtrGetLastError());
  if (!all[1]) return;
  cfg.backend = dtrBackendP2p;
  expectAll(dtrPlanCreate(&plan, 64, 64, dtrFloat32, 1, MPI_COMM_WORLD, &cfg), dtrNoDevice, "p2p backend", "p2p without GPUs");
  if (rank == 0) printf("p2p backend without enough GPUs: '%s'\n", dtrGetLastError());
}

static void badExecutes(void) {
  dtrConfig_t cfg = cpuConfig();
  dtrPlan_t plan;
  const int64_t rows = 3 * nranks + 1, cols = 2 * nranks + 5;
  dtrResult_t res = dtrPlanCreate(&plan, rows, cols, dtrFloat64, 2, MPI_COMM_WORLD, &cfg);
  expectAll(res, dtrSuccess, NULL, "good plan");
  if (res != dtrSuccess) return;
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, dtrFloat64, 2, MPI_COMM_WORLD, -1, &ls);
  uint8_t* a = malloc(ls.in_bytes);
  uint8_t* b = malloc(ls.out_bytes);
  uint8_t* poisoned = malloc(ls.out_bytes);
  dtrHostPatternFill(a, ls.in_rows, cols, ls.in_row_start, ls.entry_bytes);
  dtrHostPatternPoison(b, ls.out_rows, rows, ls.out_row_start, cols, ls.entry_bytes);
  memcpy(poisoned, b, ls.out_bytes);
  /* NULL input on the last rank only: every rank fails, no rank writes its output. */
  expectAll(dtrExecute(plan, rank == nranks - 1 ? NULL : a, b, NULL), dtrInvalidArgument, "in is NULL", "NULL in");
  EXPECT(memcmp(b, poisoned, ls.out_bytes) == 0, "output written after a failed execute");
  expectAll(dtrExecute(plan, a, NULL, NULL), dtrInvalidArgument, "out is NULL", "NULL out");
  expectAll(dtrExecute(plan, a, a, NULL), dtrInvalidArgument, "config.inplace", "in-place on a plan made without it");
  /* Buffers that overlap without being one (out starts one entry into in), on one rank only. */
  uint8_t* both = malloc(ls.in_bytes + ls.out_bytes);
  memcpy(both, a, ls.in_bytes);
  expectAll(dtrExecute(plan, both, rank == 0 ? both + ls.entry_bytes : b, NULL), dtrInvalidArgument, "overlap",
            "overlapping buffers");
  EXPECT(memcmp(b, poisoned, ls.out_bytes) == 0, "output written after a failed execute");
  free(both);
  /* Device memory handed to the CPU backend. */
  void* dev = NULL;
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaMalloc(&dev, ls.out_bytes) == cudaSuccess) {
    expectAll(dtrExecute(plan, a, dev, NULL), dtrInvalidArgument, "device memory", "device buffer on the CPU backend");
    cudaFree(dev);
  }
  /* The plan still works after all that. */
  expectAll(dtrExecute(plan, a, b, NULL), dtrSuccess, NULL, "good execute");
  uint64_t wrong = dtrHostPatternCheck(b, ls.out_rows, rows, ls.out_row_start, cols, ls.entry_bytes);
  EXPECT(wrong == 0, "%llu wrong entries after the failures", (unsigned long long)wrong);
  free(a);
  free(b);
  free(poisoned);
  dtrPlanDestroy(plan);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  badPlans();
  ncclWithoutGpus();
  badExecutes();
  int failures = dtrTestFailures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks: %d failed checks\n", nranks, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
