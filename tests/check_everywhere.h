/* Checks over every rank of MPI_COMM_WORLD: a result the library must give on every rank alike (a bad
 * argument of one rank's is refused on all of them, with the same code, so that no rank goes on into a
 * collective the others left), and a test program's end, whose exit status is the same on every rank. */
#ifndef DTR_TEST_CHECK_EVERYWHERE_H
#define DTR_TEST_CHECK_EVERYWHERE_H

#include <mpi.h>
#include <stdio.h>

#include "check.h"
#include "disttranspose.h"

/* Collective: `got` is `want` on this rank, and on every other one. */
static inline void dtrTestExpectEverywhere(dtrResult_t got, dtrResult_t want, const char* what) {
  int mine = got == want, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT(mine, "%s: got %s (%s), expected %s", what, dtrGetErrorString(got), dtrGetLastError(), dtrGetErrorString(want));
  EXPECT(all, "%s: another rank did not get %s", what, dtrGetErrorString(want));
}

/* Collective: the program's cases counted on rank 0, this rank's verdict (dtrTestEnd), and 1 on every
 * rank where any rank failed a check, else 0. */
static inline int dtrTestEndEverywhere(const char* program, int gpu, int cases) {
  int failures = dtrTestFailures, total = 0, rank = 0, ranks = 1;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (rank == 0) printf("%s %s: %d cases on %d ranks\n", program, gpu ? "gpu" : "cpu", cases, ranks);
  return dtrTestEnd(program) || total ? 1 : 0;
}

#endif
