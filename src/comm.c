#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

dtrResult_t dtrCommInit(MPI_Comm user, dtrComm* c) {
  int initialized = 0;
  memset(c, 0, sizeof *c);
  c->comm = c->local = MPI_COMM_NULL;
  MPI_Initialized(&initialized);
  if (!initialized) return dtrSetError(dtrInvalidArgument, "MPI is not initialized: call MPI_Init before creating a plan");
  if (user == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  MPICHECK(MPI_Comm_dup(user, &c->comm));
  MPICHECK(MPI_Comm_rank(c->comm, &c->rank));
  MPICHECK(MPI_Comm_size(c->comm, &c->nranks));
  MPICHECK(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &c->local));
  MPICHECK(MPI_Comm_rank(c->local, &c->local_rank));
  MPICHECK(MPI_Comm_size(c->local, &c->local_size));
  int leader = (c->local_rank == 0);
  MPICHECK(MPI_Allreduce(&leader, &c->nhosts, 1, MPI_INT, MPI_SUM, c->comm));
  return dtrSuccess;
}

void dtrCommFree(dtrComm* c) {
  if (c->local != MPI_COMM_NULL) MPI_Comm_free(&c->local);
  if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
}

dtrResult_t dtrEveryRankHasGpu(MPI_Comm comm, int* all) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); /* no driver or no device: this rank has none */
    count = 0;
  }
  int have = count > 0;
  MPICHECK(MPI_Allreduce(&have, all, 1, MPI_INT, MPI_MIN, comm));
  return dtrSuccess;
}

#define DTR_MSG_MAX 512

dtrResult_t dtrAgree(MPI_Comm comm, dtrResult_t local) {
  int rank;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Comm_rank failed in agreement");
  /* MAXLOC picks the largest result; ties go to the lowest rank. */
  struct { int value, rank; } in = {(int)local, rank}, out;
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Allreduce failed while agreeing on a result");
  if (out.value == dtrSuccess) return dtrSuccess;
  char msg[DTR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", dtrGetLastError());
  if (MPI_Bcast(msg, DTR_MSG_MAX, MPI_CHAR, out.rank, comm) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Bcast failed while agreeing on a result");
  msg[DTR_MSG_MAX - 1] = '\0';
  if (rank != out.rank || local == dtrSuccess) {
    char full[DTR_MSG_MAX + 32];
    snprintf(full, sizeof full, "rank %d: %s", out.rank, msg);
    dtrSetErrorQuiet(full);
  }
  return (dtrResult_t)out.value;
}

dtrResult_t dtrAgreeValues(MPI_Comm comm, const int64_t* values, const char* const* names, int n) {
  /* One reduction gives both the minimum and the maximum: max(v) and max(-v). */
  int64_t* both = calloc(4 * (size_t)n, sizeof *both);
  if (!both) return dtrSetError(dtrOutOfMemory, "host allocation failed while comparing arguments");
  for (int i = 0; i < n; i++) {
    both[i] = values[i];
    both[n + i] = -values[i];
  }
  if (MPI_Allreduce(both, both + 2 * n, 2 * n, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS) {
    free(both);
    return dtrSetError(dtrMpiError, "MPI_Allreduce failed while comparing arguments across ranks");
  }
  dtrResult_t res = dtrSuccess;
  for (int i = 0; i < n; i++) {
    int64_t hi = both[2 * n + i], lo = -both[3 * n + i];
    if (hi != lo) {
      res = dtrSetError(dtrMismatch, "argument '%s' differs between ranks (from %lld to %lld); it must be the same on every rank",
                        names[i], (long long)lo, (long long)hi);
      break;
    }
  }
  free(both);
  return res;
}
