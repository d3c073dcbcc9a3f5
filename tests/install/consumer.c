/*
 * A program outside the project, built against an installed disttranspose (find_package or
 * pkg-config): a transpose on the CPU backend over MPI_COMM_WORLD, checked entry by entry, and an
 * in-place one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <disttranspose.h>

static uint64_t value(int64_t i, int64_t j) { return (uint64_t)i * 1000003u + (uint64_t)j * 7919u + 1; }

/* Rows of A on this rank filled; returns the wrong entries of B after the transpose. */
static long run(int64_t rows, int64_t cols, int inplace) {
  dtrLocalSize_t ls;
  if (dtrLocalSize(rows, cols, dtrFloat64, 1, MPI_COMM_WORLD, -1, &ls) != dtrSuccess) return -1;
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = dtrBackendCpu;
  cfg.inplace = inplace;
  dtrPlan_t plan;
  if (dtrPlanCreate(&plan, rows, cols, dtrFloat64, 1, MPI_COMM_WORLD, &cfg) != dtrSuccess) {
    fprintf(stderr, "consumer: %s\n", dtrGetLastError());
    return -1;
  }
  const size_t bytes = ls.in_bytes > ls.out_bytes ? ls.in_bytes : ls.out_bytes;
  uint64_t* a = malloc(bytes + 8);
  uint64_t* b = inplace ? a : malloc(ls.out_bytes + 8);
  for (int64_t i = 0; i < ls.in_rows; i++)
    for (int64_t j = 0; j < cols; j++) a[i * cols + j] = value(ls.in_row_start + i, j);
  long wrong = 0;
  if (dtrExecute(plan, a, b, NULL) != dtrSuccess) {
    fprintf(stderr, "consumer: %s\n", dtrGetLastError());
    wrong = -1;
  } else {
    for (int64_t j = 0; j < ls.out_rows; j++)
      for (int64_t i = 0; i < rows; i++) wrong += b[j * rows + i] != value(i, ls.out_row_start + j);
  }
  dtrPlanDestroy(plan);
  if (!inplace) free(b);
  free(a);
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long local = run(37, 23, 0), inplace = run(23, 41, 1), mine[2] = {local, inplace}, all[2];
  if (local < 0 || inplace < 0) mine[0] = mine[1] = 1L << 40;
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("disttranspose %s from the installed package: %ld wrong, in place %ld wrong\n", DTR_VERSION_STRING, all[0], all[1]);
  MPI_Finalize();
  return all[0] || all[1];
}
