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

/* An all-reduce in its nonblocking form whether or not a deadline is open: MPI does not match a
 * blocking collective with a nonblocking one, so the collectives that run before the ranks have
 * agreed on their deadline must take the same form on every rank. */
static dtrResult_t allreduceEitherWay(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm, const char* what) {
  MPI_Request req;
  if (MPI_Iallreduce(send, recv, count, type, op, comm, &req) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Iallreduce for %s failed", what);
  return dtrWait(&req, what);
}

dtrResult_t dtrCommInit(MPI_Comm user, dtrComm* c) {
  int initialized = 0;
  memset(c, 0, sizeof *c);
  c->comm = c->local = MPI_COMM_NULL;
  MPI_Initialized(&initialized);
  if (!initialized) return dtrSetError(dtrInvalidArgument, "MPI is not initialized: call MPI_Init before creating a plan");
  if (user == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  /* The first collective of a plan: where a rank that never comes is noticed under a deadline. Its
   * nonblocking form either way (allreduceEitherWay says why). */
  MPI_Request req;
  MPICHECK(MPI_Comm_idup(user, &c->comm, &req));
  dtrResult_t res = dtrWait(&req, "the other ranks to create the plan (MPI_Comm_idup)");
  if (res != dtrSuccess) {
    c->comm = MPI_COMM_NULL; /* not usable until the request completes, which it may never */
    return res;
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
  return allreduceEitherWay(&leader, &c->nhosts, 1, MPI_INT, MPI_SUM, c->comm, "the count of hosts");
}

dtrResult_t dtrAgreeTimeout(MPI_Comm comm, int64_t ms) {
  int rank;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  struct { /* MPI_LONG_INT's layout */
    long value;
    int rank;
  } mine[2] = {{(long)ms, rank}, {(long)-ms, rank}}, all[2];
  DTRCHECK(allreduceEitherWay(mine, all, 2, MPI_LONG_INT, MPI_MAXLOC, comm, "the other ranks' timeouts"));
  if (all[0].value == -all[1].value) return dtrSuccess;
  return dtrSetError(dtrMismatch,
                     "the timeout (config.timeout, else DTR_TIMEOUT) differs between ranks: %ld ms on rank %d, %ld ms "
                     "on rank %d; every rank must give the same",
                     -all[1].value, all[1].rank, all[0].value, all[0].rank);
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

dtrResult_t dtrAgreeValues(MPI_Comm comm, const dtrAgreedValue* values, int n) {
  int rank;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  /* One reduction gives the greatest value and the least (the greatest of its negation), each with
   * the lowest rank that holds it. */
  struct Loc { /* MPI_LONG_INT's layout */
    long value;
    int rank;
  };
  _Static_assert(sizeof(long) == sizeof(int64_t), "MPI_LONG_INT carries the 64-bit values");
  struct Loc* both = calloc(4 * (size_t)n, sizeof *both);
  if (!both) return dtrSetError(dtrOutOfMemory, "host allocation failed while comparing arguments");
  for (int i = 0; i < n; i++) {
    const int64_t v = values[i].value;
    both[i] = (struct Loc){(long)v, rank};
    both[n + i] = (struct Loc){v == INT64_MIN ? (long)INT64_MAX : (long)-v, rank};
  }
  dtrResult_t res = dtrAllreduce(both, both + 2 * n, 2 * n, MPI_LONG_INT, MPI_MAXLOC, comm, "the other ranks' arguments");
  for (int i = 0; i < n && res == dtrSuccess; i++) {
    const struct Loc hi = both[2 * n + i], lo = both[3 * n + i];
    if ((int64_t)hi.value == -(int64_t)lo.value) continue;
    char a[48], b[48];
    res = dtrSetError(dtrMismatch, "%s differs between ranks: %s on rank %d, %s on rank %d; every rank must give the same",
                      values[i].name, dtrValueText(values[i].kind, -(int64_t)lo.value, a, sizeof a), lo.rank,
                      dtrValueText(values[i].kind, (int64_t)hi.value, b, sizeof b), hi.rank);
  }
  free(both);
  return res;
}
