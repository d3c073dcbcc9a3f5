/* The CPU backend under mpiexec: every shape and type, out of place and in place, compared bit for bit
 * with the pattern. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "disttranspose.h"
#include "support/pattern_host.h"
#include "transpose_cases.h"

/* inplace: one buffer of max(in, out) bytes for A and B; A is filled again before each execute. */
static uint64_t runCase(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, int repeats, int stages,
                        int inplace) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = dtrBackendCpu;
  cfg.stages = stages;
  cfg.inplace = inplace;
  dtrPlan_t plan;
  dtrResult_t res = dtrPlanCreate(&plan, rows, cols, type, howmany, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrSuccess, "plan %lldx%lld %s x%lld: %s", (long long)rows, (long long)cols, dtrDataTypeName(type),
         (long long)howmany, dtrGetLastError());
  if (res != dtrSuccess) return 1;
  /* What the plan resolved: the CPU backend, no GPU, the stages asked for (one when left to it). */
  dtrBackend_t backend;
  dtrKernel_t kernel;
  int device = 0, got = 0;
  EXPECT(dtrPlanGetBackend(plan, &backend) == dtrSuccess && backend == dtrBackendCpu, "backend");
  EXPECT(dtrPlanGetKernel(plan, &kernel) == dtrSuccess && kernel == dtrKernelAuto, "kernel");
  EXPECT(dtrPlanGetDevice(plan, &device) == dtrSuccess && device == -1, "device");
  EXPECT(dtrPlanGetStages(plan, &got) == dtrSuccess && got == (stages ? stages : 1), "stages %d, asked %d", got, stages);
  EXPECT(dtrPlanGetStages(plan, NULL) == dtrInvalidArgument, "stages into NULL");
  dtrLocalSize_t ls;
  EXPECT(dtrLocalSize(rows, cols, type, howmany, MPI_COMM_WORLD, -1, &ls) == dtrSuccess, "local size");
  const size_t e = ls.entry_bytes;
  size_t workspace = 0;
  EXPECT(dtrPlanGetWorkspaceSize(plan, &workspace) == dtrSuccess, "workspace size");
  if (inplace) {
    /* The stash: this rank's own block, which the plan holds besides its exchange buffers. */
    const size_t own = (size_t)ls.in_rows * (size_t)ls.out_rows * e;
    EXPECT(workspace >= own, "in-place workspace %zu bytes < the own block's %zu", workspace, own);
    const size_t bytes = ls.in_bytes > ls.out_bytes ? ls.in_bytes : ls.out_bytes;
    uint8_t* buf = bytes ? malloc(bytes) : NULL;
    uint64_t wrong = 0;
    for (int i = 0; i < repeats; i++) {
      if (buf) dtrHostPatternPoison(buf, (int64_t)(bytes / e), 1, 0, 1, e);
      if (ls.in_bytes) dtrHostPatternFill(buf, ls.in_rows, cols, ls.in_row_start, e);
      res = dtrExecute(plan, buf, buf, NULL);
      EXPECT(res == dtrSuccess, "in-place execute: %s", dtrGetLastError());
      if (ls.out_bytes) wrong += dtrHostPatternCheck(buf, ls.out_rows, rows, ls.out_row_start, cols, e);
    }
    free(buf);
    EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy");
    return wrong;
  }
  uint8_t* a = ls.in_bytes ? malloc(ls.in_bytes) : NULL;
  uint8_t* b = ls.out_bytes ? malloc(ls.out_bytes) : NULL;
  uint8_t* a0 = ls.in_bytes ? malloc(ls.in_bytes) : NULL;
  if (a) dtrHostPatternFill(a, ls.in_rows, cols, ls.in_row_start, e);
  if (a) memcpy(a0, a, ls.in_bytes);
  uint64_t wrong = 0;
  for (int i = 0; i < repeats; i++) {
    if (b) dtrHostPatternPoison(b, ls.out_rows, rows, ls.out_row_start, cols, e);
    res = dtrExecute(plan, a, b, NULL);
    EXPECT(res == dtrSuccess, "execute: %s", dtrGetLastError());
    if (b) wrong += dtrHostPatternCheck(b, ls.out_rows, rows, ls.out_row_start, cols, e);
  }
  EXPECT(!a || memcmp(a, a0, ls.in_bytes) == 0, "%lldx%lld: the input was modified", (long long)rows, (long long)cols);
  free(a);
  free(a0);
  free(b);
  EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy");
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  dtrShape shapes[32];
  const int nshapes = dtrTestShapes(nranks, shapes);
  const int64_t howmanys[] = {1, 3};
  uint64_t wrongTotal = 0;
  int cases = 0;
  for (int s = 0; s < nshapes; s++)
    for (int t = 0; t < dtrNumTypes; t++)
      for (int h = 0; h < 2; h++) {
        /* Pipeline stages 1 (none), 2, 3 and 64 (more than most segments have rows) in turn. */
        const int stages[] = {0, 2, 3, 64};
        for (int inplace = 0; inplace < 2; inplace++) {
          uint64_t w = runCase(shapes[s].rows, shapes[s].cols, (dtrDataType_t)t, howmanys[h], 2,
                               stages[(s + t + inplace) % 4], inplace),
                   all = 0;
          MPI_Allreduce(&w, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
          if (all && rank == 0)
            fprintf(stderr, "FAIL %lld x %lld %s howmany %lld%s: %llu wrong entries\n", (long long)shapes[s].rows,
                    (long long)shapes[s].cols, dtrDataTypeName((dtrDataType_t)t), (long long)howmanys[h],
                    inplace ? " in place" : "", (unsigned long long)all);
          wrongTotal += all;
          cases++;
        }
      }
  /* A wide entry (howmany 37 of c128: 592 bytes) on an uneven split. */
  for (int inplace = 0; inplace < 2; inplace++) {
    uint64_t w = runCase(23, 19, dtrComplex128, 37, 1, 5, inplace), all = 0;
    MPI_Allreduce(&w, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    wrongTotal += all;
    cases++;
  }
  int failures = dtrTestFailures, anyFailures = 0;
  MPI_Allreduce(&failures, &anyFailures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%d ranks, %d cases (half in place): %llu wrong entries, %d failed checks\n", nranks, cases,
           (unsigned long long)wrongTotal, anyFailures);
  MPI_Finalize();
  return (wrongTotal || anyFailures) ? 1 : 0;
}
