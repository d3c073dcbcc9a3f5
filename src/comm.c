#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "timeout.h"

dtrResult_t dtrWait(MPI_Request* request, const char* what) {
  int done = 0;
  if (!dtrDeadlineSet()) {
    if (MPI_Wait(request, MPI_STATUS_IGNORE) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Wait for %s failed", what);
    return dtrSuccess;
  }
  for (long polls = 0;; polls++) {
    if (MPI_Test(request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return dtrSetError(dtrMpiError, "MPI_Test for %s failed", what);
    if (done) return dtrSuccess;
    /* The request stays with MPI: a collective cannot be cancelled, and a rank that wakes up late
     * may still complete it. */
    if (dtrDeadlinePassed()) return dtrDeadlineMissed(what);
    dtrPollPause(polls);
  }
}

/* The collectives below block when no deadline is open (the tuned blocking algorithms), and are
 * nonblocking ones waited for by dtrWait under a deadline. */
dtrResult_t dtrAllreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         const char* what) {
  if (!dtrDeadlineSet()) {
    if (MPI_Allreduce(send, recv, count, type, op, comm) != MPI_SUCCESS)
      return dtrSetError(dtrMpiError, "MPI_Allreduce for %s failed", what);
    return dtrSuccess;
  }
  MPI_Request req;
  if (MPI_Iallreduce(send, recv, count, type, op, comm, &req) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Iallreduce for %s failed", what);
  return dtrWait(&req, what);
}

dtrResult_t dtrBcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* what) {
  if (!dtrDeadlineSet()) {
    if (MPI_Bcast(buf, count, type, root, comm) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Bcast for %s failed", what);
    return dtrSuccess;
  }
  MPI_Request req;
  if (MPI_Ibcast(buf, count, type, root, comm, &req) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Ibcast for %s failed", what);
  return dtrWait(&req, what);
}

dtrResult_t dtrAllgather(void* buf, int bytes_per_rank, MPI_Comm comm, const char* what) {
  if (!dtrDeadlineSet()) {
    if (MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, bytes_per_rank, MPI_BYTE, comm) != MPI_SUCCESS)
      return dtrSetError(dtrMpiError, "MPI_Allgather for %s failed", what);
    return dtrSuccess;
  }
  MPI_Request req;
  if (MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, bytes_per_rank, MPI_BYTE, comm, &req) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Iallgather for %s failed", what);
  return dtrWait(&req, what);
}

dtrResult_t dtrBarrier(MPI_Comm comm, const char* what) {
  if (!dtrDeadlineSet()) {
    if (MPI_Barrier(comm) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Barrier for %s failed", what);
    return dtrSuccess;
  }
  MPI_Request req;
  if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Ibarrier for %s failed", what);
  return dtrWait(&req, what);
}

dtrResult_t dtrCommInit(MPI_Comm user, dtrComm* c) {
  int initialized = 0;
  memset(c, 0, sizeof *c);
  c->comm = c->local = MPI_COMM_NULL;
  MPI_Initialized(&initialized);
  if (!initialized) return dtrSetError(dtrInvalidArgument, "MPI is not initialized: call MPI_Init before creating a plan");
  if (user == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  /* The first collective of a plan: where a rank that never comes is noticed under a deadline. */
  if (dtrDeadlineSet()) {
    MPI_Request req;
    MPICHECK(MPI_Comm_idup(user, &c->comm, &req));
    dtrResult_t res = dtrWait(&req, "the other ranks to create the plan (MPI_Comm_idup)");
    if (res != dtrSuccess) {
      c->comm = MPI_COMM_NULL; /* not usable until the request completes, which it may never */
      return res;
    }
  } else {
    MPICHECK(MPI_Comm_dup(user, &c->comm));
  }
  /* A rank that timed out leaves collectives behind on this communicator; one that wakes up late then
   * meets mismatched ones. Errors come back as results here instead of ending the job. */
  MPICHECK(MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN));
  MPICHECK(MPI_Comm_rank(c->comm, &c->rank));
  MPICHECK(MPI_Comm_size(c->comm, &c->nranks));
  MPICHECK(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &c->local));
  MPICHECK(MPI_Comm_rank(c->local, &c->local_rank));
  MPICHECK(MPI_Comm_size(c->local, &c->local_size));
  int leader = (c->local_rank == 0);
  return dtrAllreduce(&leader, &c->nhosts, 1, MPI_INT, MPI_SUM, c->comm, "the count of hosts");
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
  DTRCHECK(dtrAllreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm, "the other ranks to agree on a result"));
  if (out.value == dtrSuccess) return dtrSuccess;
  char msg[DTR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", dtrGetLastError());
  DTRCHECK(dtrBcast(msg, DTR_MSG_MAX, MPI_CHAR, out.rank, comm, "the failing rank's message"));
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
  dtrResult_t res = dtrAllreduce(both, both + 2 * n, 2 * n, MPI_INT64_T, MPI_MAX, comm, "the other ranks' arguments");
  if (res != dtrSuccess) {
    free(both);
    return res;
  }
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
