/*
 * Deadlines for collective calls (config.timeout, DTR_TIMEOUT): a rank that stalls or dies must not
 * leave the others waiting forever. A collective entry point opens a deadline for the calling
 * thread; below it, the MPI collectives run nonblocking and are polled (comm.h's dtrWait), and an
 * execute polls its stream and NCCL's asynchronous error (api.c), aborting the NCCL communicator or
 * releasing the p2p barriers when the deadline passes. Past the deadline every such wait fails at once with dtrTimeout, so a call
 * returns within about the timeout however many waits it has left. Without a deadline they all
 * block as before, at no cost.
 */
#ifndef DTR_TIMEOUT_H
#define DTR_TIMEOUT_H

#include "disttranspose.h"

typedef struct {
  double at;      /* MPI_Wtime of the deadline; 0: none */
  double seconds; /* its length, for messages */
} dtrDeadline;

/* Opens a deadline `seconds` from now for this thread (none for seconds <= 0), unless one that ends
 * sooner is open already (an entry point called inside another). Returns what to restore. */
dtrDeadline dtrDeadlineEnter(double seconds);
void dtrDeadlineLeave(dtrDeadline saved);

/* Whether this thread has a deadline, and whether it has passed. */
int dtrDeadlineSet(void);
int dtrDeadlinePassed(void);

/* Records the timeout while waiting for `what` as the last error and returns dtrTimeout. */
dtrResult_t dtrDeadlineMissed(const char* what);

/* Between two polls: nothing for the first 20000 (some milliseconds: a wait that ends soon ends as soon
 * as it would blocking; a sleep costs tens of microseconds however short it is asked to be), then
 * 20 us each (a long wait leaves the core to the others). `polls` so far. */
void dtrPollPause(long polls);

#endif
