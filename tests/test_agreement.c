/*
 * A setting that differs between ranks (one DTR_* variable, set on the last rank only by
 * env_on_rank.sh, as one part of an MPMD launch would set it): every plan kind fails on every rank
 * with dtrMismatch naming the variable, before anything is exchanged, and nothing hangs (ctest's
 * timeout). Without the variable set anywhere, the same plans run exactly.
 *
 *   test_agreement BACKEND VARIABLE    (BACKEND cpu, nccl or p2p; VARIABLE the one that differs, or -)
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/names.h"
#include "disttranspose.h"
#include "harness.h"

static int rank, nranks;

/* Every rank got `expected`, and its message names `word`. */
static void expectAll(dtrResult_t got, dtrResult_t expected, const char* word, const char* what) {
  int mine[2] = {(int)got, -(int)got}, span[2];
  MPI_Allreduce(mine, span, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT(span[0] == -span[1], "%s: ranks disagree (results %d..%d)", what, -span[1], span[0]);
  EXPECT(got == expected, "%s: got %d (%s), expected %d: %s", what, (int)got, dtrGetErrorString(got), (int)expected,
         got ? dtrGetLastError() : "");
  EXPECT(!word || got == dtrSuccess || strstr(dtrGetLastError(), word), "%s: message '%s' does not name '%s'", what,
         dtrGetLastError(), word);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  dtrBackend_t backend;
  if (argc < 3 || dtrParseBackend(argv[1], &backend) || backend == dtrBackendAuto) {
    if (rank == 0) fprintf(stderr, "usage: test_agreement cpu|nccl|p2p VARIABLE|-\n");
    MPI_Finalize();
    return 2;
  }
  const char* variable = strcmp(argv[2], "-") ? argv[2] : NULL;
  dtrTestMemory mem;
  if (dtrTestMemoryInit(&mem, backend) == DTR_TEST_SKIP) {
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  const dtrResult_t expected = variable ? dtrMismatch : dtrSuccess;
  char word[128] = "";
  if (variable) snprintf(word, sizeof word, "%s differs between ranks", variable);
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;

  /* A matrix, executed where it may be made. */
  const int64_t rows = 37 * nranks + 3, cols = 29 * nranks + 1;
  dtrTestMatrix t;
  expectAll(dtrTestMatrixInit(&t, &mem, MPI_COMM_WORLD, rows, cols, dtrFloat32, 1, &cfg), expected, word, "2-D plan");
  if (t.plan) EXPECT(dtrTestMatrixRun(&t, &mem, NULL, 1) == 0, "wrong entries");
  dtrTestMatrixFree(&t, &mem);
  dtrPlan_t plan = NULL;
  dtrResult_t res;
  /* In place. */
  cfg.inplace = 1;
  res = dtrPlanCreate(&plan, rows, cols, dtrComplex64, 2, MPI_COMM_WORLD, &cfg);
  expectAll(res, expected, word, "in-place plan");
  if (res == dtrSuccess) dtrPlanDestroy(plan);
  cfg.inplace = 0;
  /* Pencils: the variable is agreed over the whole grid, whichever group a transpose runs in. */
  dtrGrid_t grid = NULL;
  expectAll(dtrGridCreate(&grid, MPI_COMM_WORLD, 0, 0), dtrSuccess, NULL, "grid");
  if (grid) {
    const int64_t shape[3] = {9, 7, 5};
    int pr = 1;
    dtrGridGetDims(grid, &pr, NULL, NULL, NULL);
    for (int to = dtrPencilY; to <= dtrPencilZ; to++) {
      res = dtrPlanCreatePencil(&plan, grid, shape, to == dtrPencilY ? dtrPencilX : dtrPencilY, (dtrPencil_t)to,
                                dtrComplex128, 1, &cfg);
      expectAll(res, expected, word, to == dtrPencilY ? "X->Y plan" : "Y->Z plan");
      if (res == dtrSuccess) dtrPlanDestroy(plan);
    }
    dtrGridDestroy(grid);
  }
  if (rank == 0 && variable) printf("%s on the last rank only, %s backend: '%s'\n", variable, argv[1], dtrGetLastError());
  dtrTestMemoryFree(&mem);
  int failures = dtrTestFailures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failed checks\n", all ? "FAILED" : "PASSED", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
