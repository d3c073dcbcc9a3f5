/*
 * The plan's MPI side: a duplicate of the caller's communicator, the node-local rank (which picks
 * the GPU), and agreement: a failure on any rank becomes the same failure on every rank, with the
 * failing rank's message, so that no rank goes on into a collective the others have left.
 */
#ifndef DTR_COMM_H
#define DTR_COMM_H

#include <stdint.h>

#include "disttranspose.h"
#include "names.h"

typedef struct {
  MPI_Comm comm;   /* duplicate of the caller's */
  MPI_Comm local;  /* ranks on this node */
  int rank, nranks;
  int local_rank, local_size;
  int nhosts;
} dtrComm;

/* Collective. Under a deadline (timeout.h) it fails with dtrTimeout when a rank does not come. Its
 * collectives take the same form with or without a deadline, so that ranks whose deadlines differ
 * still meet in them (and then learn so from dtrAgreeTimeout). */
dtrResult_t dtrCommInit(MPI_Comm user, dtrComm* c);

/* Collective, in the same form with or without a deadline: the ranks' timeouts in ms are equal, else
 * dtrMismatch on every rank naming the values and ranks. The first agreement of a plan: every later
 * collective takes its form (blocking, or polled under a deadline) from the timeout. */
dtrResult_t dtrAgreeTimeout(MPI_Comm comm, int64_t ms);
void dtrCommFree(dtrComm* c);

/*
 * Collective: every rank passes its own result; every rank returns the largest one. Ranks that
 * succeeded adopt the message of the lowest failing rank with that result, prefixed by its rank.
 */
dtrResult_t dtrAgree(MPI_Comm comm, dtrResult_t local);

/* Collective: *all = 1 when every rank of comm sees at least one CUDA device. */
dtrResult_t dtrEveryRankHasGpu(MPI_Comm comm, int* all);

/* A value every rank must give alike, named as the user knows it ("rows", "config.stages",
 * "DTR_STAGES"), and what it stands for in messages. */
typedef struct {
  const char* name;
  int64_t value;
  dtrValueKind kind;
} dtrAgreedValue;

/*
 * Collective: checks that `n` values are equal on every rank, in one reduction. On a difference it
 * fails with dtrMismatch naming the first differing value, its least and greatest values and the
 * lowest ranks that gave them.
 */
dtrResult_t dtrAgreeValues(MPI_Comm comm, const dtrAgreedValue* values, int n);

/*
 * Collective: dtrAgree on `local` and dtrAgreeValues on `n` values (at most DTR_AGREE_WITH_MOST) in
 * one reduction, for an execute whose checks and call must both be alike without a second collective.
 * A failure comes first: the values are compared only where every rank succeeded.
 */
#define DTR_AGREE_WITH_MOST 4
dtrResult_t dtrAgreeWith(MPI_Comm comm, dtrResult_t local, const dtrAgreedValue* values, int n);

/* Local: dtrAgreeValues' dtrMismatch for `value`, given its least and greatest values over the ranks
 * and the lowest ranks that gave them (for an agreement that gathers the values itself). */
dtrResult_t dtrValueDiffers(const dtrAgreedValue* value, int64_t least, int leastRank, int64_t greatest, int greatestRank);

/*
 * The library's MPI collectives: blocking without a deadline; nonblocking and polled until the
 * deadline under one (timeout.h), failing with dtrTimeout where a rank does not take part. `what`
 * names what is waited for in messages. On failure the request is left with MPI.
 */
dtrResult_t dtrWait(MPI_Request* request, const char* what);
dtrResult_t dtrAllreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         const char* what);
dtrResult_t dtrBcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* what);
/* In place: buf holds bytes_per_rank from every rank, this rank's at its own offset. */
dtrResult_t dtrAllgather(void* buf, int bytes_per_rank, MPI_Comm comm, const char* what);
dtrResult_t dtrBarrier(MPI_Comm comm, const char* what);

#endif
