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

/* MPI_LONG_INT's layout: a value and the rank that gave it; MPI_MAXLOC keeps the greatest, ties going
 * to the lowest rank. */
typedef struct {
  long value;
  int rank;
} Loc;
_Static_assert(sizeof(long) == sizeof(int64_t), "MPI_LONG_INT carries the 64-bit values");

/* Local: n values as one MAXLOC reduction compares them: [0, n) the values, [n, 2n) their negations,
 * whose greatest is the least value. */
static void putValues(Loc* out, const dtrAgreedValue* values, int n, int rank) {
  for (int i = 0; i < n; i++) {
    const int64_t v = values[i].value;
    out[i] = (Loc){(long)v, rank};
    out[n + i] = (Loc){v == INT64_MIN ? (long)INT64_MAX : (long)-v, rank};
  }
}

/* Local: the first value whose greatest and least differ, in putValues' 2n reduced. */
static dtrResult_t firstDifference(const Loc* reduced, const dtrAgreedValue* values, int n) {
  for (int i = 0; i < n; i++) {
    const Loc hi = reduced[i], lo = reduced[n + i];
    if ((int64_t)hi.value != -(int64_t)lo.value)
      return dtrValueDiffers(&values[i], -(int64_t)lo.value, lo.rank, (int64_t)hi.value, hi.rank);
  }
  return dtrSuccess;
}

dtrResult_t dtrValueDiffers(const dtrAgreedValue* value, int64_t least, int leastRank, int64_t greatest, int greatestRank) {
  char a[48], b[48];
  return dtrSetError(dtrMismatch, "%s differs between ranks: %s on rank %d, %s on rank %d; every rank must give the same",
                     value->name, dtrValueText(value->kind, least, a, sizeof a), leastRank,
                     dtrValueText(value->kind, greatest, b, sizeof b), greatestRank);
}

/* Collective, once the ranks have agreed on `agreed`, failed on rank `from`: that rank's message for
 * every rank, prefixed by its rank where it is not the rank's own. */
static dtrResult_t adoptMessage(MPI_Comm comm, int rank, dtrResult_t local, dtrResult_t agreed, int from) {
  char msg[DTR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", dtrGetLastError());
  DTRCHECK(dtrBcast(msg, DTR_MSG_MAX, MPI_CHAR, from, comm, "the failing rank's message"));
  msg[DTR_MSG_MAX - 1] = '\0';
  if (rank != from || local == dtrSuccess) {
    char full[DTR_MSG_MAX + 32];
    snprintf(full, sizeof full, "rank %d: %s", from, msg);
    dtrSetErrorQuiet(full);
  }
  return agreed;
}

dtrResult_t dtrAgree(MPI_Comm comm, dtrResult_t local) { return dtrAgreeWith(comm, local, NULL, 0); }

dtrResult_t dtrAgreeWith(MPI_Comm comm, dtrResult_t local, const dtrAgreedValue* values, int n) {
  int rank;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return dtrSetError(dtrMpiError, "MPI_Comm_rank failed in agreement");
  if (n < 0 || n > DTR_AGREE_WITH_MOST)
    return dtrSetError(dtrInternalError, "dtrAgreeWith takes at most %d values, given %d", DTR_AGREE_WITH_MOST, n);
  /* The result first (the largest wins), then the values: on the stack, so that nothing can fail
   * between a rank's checks and the reduction the others wait in. */
  Loc mine[1 + 2 * DTR_AGREE_WITH_MOST], all[1 + 2 * DTR_AGREE_WITH_MOST];
  mine[0] = (Loc){(long)local, rank};
  putValues(mine + 1, values, n, rank);
  DTRCHECK(dtrAllreduce(mine, all, 1 + 2 * n, MPI_LONG_INT, MPI_MAXLOC, comm, "the other ranks to agree on a result"));
  if (all[0].value != dtrSuccess) return adoptMessage(comm, rank, local, (dtrResult_t)all[0].value, all[0].rank);
  return firstDifference(all + 1, values, n);
}

dtrResult_t dtrAgreeValues(MPI_Comm comm, const dtrAgreedValue* values, int n) {
  int rank;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  Loc* both = calloc(4 * (size_t)n, sizeof *both);
  if (!both) return dtrSetError(dtrOutOfMemory, "host allocation failed while comparing arguments");
  putValues(both, values, n, rank);
  dtrResult_t res = dtrAllreduce(both, both + 2 * n, 2 * n, MPI_LONG_INT, MPI_MAXLOC, comm, "the other ranks' arguments");
  if (res == dtrSuccess) res = firstDifference(both + 2 * n, values, n);
  free(both);
  return res;
}
