/*
 * Timing repeats of an example's work (time steps, solves): by CUDA events on the work's stream on the
 * GPU backends, with no host synchronisation between repeats, and by the host clock on the cpu backend,
 * whose executes return when done; then the slowest rank's time of each repeat and their median.
 */
#ifndef EX_TIMING_H
#define EX_TIMING_H

#include <cuda_runtime_api.h>

#include "failure.h"

typedef struct {
  int count;            /* repeats */
  int gpu;              /* by events on `stream`, else by the host clock */
  cudaStream_t stream;
  cudaEvent_t* events;  /* on GPUs: before the first repeat, after each (count + 1) */
  double* times;        /* seconds of each repeat, this rank's (on GPUs once exTimerRead has run) */
  double last;          /* the host clock at the last start or mark */
} ExTimer;

/* A timer of `count` repeats; a failure recorded in f ("cannot allocate the timing's arrays", "cannot
 * create a CUDA event"). Its arrays are released by exTimerDestroy either way. */
void exTimerCreate(ExTimer* t, int count, int gpu, cudaStream_t stream, ExFailure* f);

/* Collective (a barrier, so that the ranks start together): before the first repeat. */
void exTimerStart(ExTimer* t, ExFailure* f);

/* After repeat i (0 .. count - 1); nothing once this rank has failed. */
void exTimerMark(ExTimer* t, int i, ExFailure* f);

/* On GPUs, the events' times into `times`, after the stream has finished (`what` names the repeats in
 * a failure: "WHAT on the GPU: ..."); nothing on the host or once this rank has failed. */
void exTimerRead(ExTimer* t, const char* what, ExFailure* f);

/* 0, or -1 where an event's release failed (a kernel's failure surfacing late). */
int exTimerDestroy(ExTimer* t);

/* Collective: each of the `count` times replaced by the slowest rank's, sorted ascending (t[0] the
 * fastest, t[count - 1] the slowest); returns their median. */
double exSlowestMedian(double* t, int count);

#endif
