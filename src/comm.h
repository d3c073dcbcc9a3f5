/*
 * The plan's MPI side: a duplicate of the caller's communicator, the node-local rank (which picks
 * the GPU), and agreement: a failure on any rank becomes the same failure on every rank, with the
 * failing rank's message, so that no rank goes on into a collective the others have left.
 */
#ifndef DTR_COMM_H
#define DTR_COMM_H

#include <stdint.h>

#include "disttranspose.h"

typedef struct {
  MPI_Comm comm;   /* duplicate of the caller's */
  MPI_Comm local;  /* ranks on this node */
  int rank, nranks;
  int local_rank, local_size;
  int nhosts;
} dtrComm;

/* Collective. Under a deadline (timeout.h) it fails with dtrTimeout when a rank does not come. */
dtrResult_t dtrCommInit(MPI_Comm user, dtrComm* c);
void dtrCommFree(dtrComm* c);

/*
 * Collective: every rank passes its own result; every rank returns the largest one. Ranks that
 * succeeded adopt the message of the lowest failing rank with that result, prefixed by its rank.
 */
dtrResult_t dtrAgree(MPI_Comm comm, dtrResult_t local);

/* Collective: *all = 1 when every rank of comm sees at least one CUDA device. */
dtrResult_t dtrEveryRankHasGpu(MPI_Comm comm, int* all);

/*
 * Collective: checks that `n` values are equal on every rank. On a difference it fails with
 * dtrMismatch naming the first differing value (names[i]) and its range over the ranks.
 */
dtrResult_t dtrAgreeValues(MPI_Comm comm, const int64_t* values, const char* const* names, int n);

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
