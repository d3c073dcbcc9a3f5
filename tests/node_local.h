/* The node-local rank and the ranks on this node (the tests pick their GPU by it, as programs do). */
#ifndef DTR_TEST_NODE_LOCAL_H
#define DTR_TEST_NODE_LOCAL_H

#include <mpi.h>

static inline void dtrTestNodeLocal(int* localRank, int* localSize) {
  int rank;
  MPI_Comm local;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, localRank);
  MPI_Comm_size(local, localSize);
  MPI_Comm_free(&local);
}

#endif
