/* A result the library must give on every rank alike: a bad argument of one rank's is refused on all
 * of them, with the same code, so that no rank goes on into a collective the others left. */
#ifndef DTR_TEST_EXPECT_EVERYWHERE_H
#define DTR_TEST_EXPECT_EVERYWHERE_H

#include <mpi.h>

#include "check.h"
#include "disttranspose.h"

/* Collective over MPI_COMM_WORLD: `got` is `want` on this rank, and on every other one. */
static inline void dtrTestExpectEverywhere(dtrResult_t got, dtrResult_t want, const char* what) {
  int mine = got == want, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT(mine, "%s: got %s (%s), expected %s", what, dtrGetErrorString(got), dtrGetLastError(), dtrGetErrorString(want));
  EXPECT(all, "%s: another rank did not get %s", what, dtrGetErrorString(want));
}

#endif
