#include "timing.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

void exTimerCreate(ExTimer* t, int count, int gpu, cudaStream_t stream, ExFailure* f) {
  memset(t, 0, sizeof *t);
  t->count = count, t->gpu = gpu, t->stream = stream;
  t->times = calloc((size_t)count, sizeof *t->times);
  if (gpu) t->events = calloc((size_t)count + 1, sizeof *t->events);
  if (!t->times || (gpu && !t->events)) exFail(f, "cannot allocate the timing's arrays");
  for (int i = 0; gpu && !f->failed && i <= count; i++)
    if (cudaEventCreate(&t->events[i]) != cudaSuccess) exFail(f, "cannot create a CUDA event");
}

void exTimerStart(ExTimer* t, ExFailure* f) {
  MPI_Barrier(MPI_COMM_WORLD);
  t->last = MPI_Wtime();
  if (t->gpu && cudaEventRecord(t->events[0], t->stream) != cudaSuccess) exFail(f, "cannot record a CUDA event");
}

void exTimerMark(ExTimer* t, int i, ExFailure* f) {
  if (f->failed) return;
  if (t->gpu) {
    if (cudaEventRecord(t->events[i + 1], t->stream) != cudaSuccess) exFail(f, "cannot record a CUDA event");
    return;
  }
  const double now = MPI_Wtime();
  t->times[i] = now - t->last;
  t->last = now;
}

void exTimerRead(ExTimer* t, const char* what, ExFailure* f) {
  if (!t->gpu || f->failed) return;
  cudaError_t e = cudaStreamSynchronize(t->stream);
  for (int i = 0; e == cudaSuccess && i < t->count; i++) {
    float ms = 0;
    e = cudaEventElapsedTime(&ms, t->events[i], t->events[i + 1]);
    t->times[i] = ms * 1e-3;
  }
  if (e != cudaSuccess) exFail(f, "%s on the GPU: %s", what, cudaGetErrorString(e));
}

int exTimerDestroy(ExTimer* t) {
  int clean = 1;
  for (int i = 0; t->events && i <= t->count; i++)
    if (t->events[i]) clean &= cudaEventDestroy(t->events[i]) == cudaSuccess;
  free(t->events);
  free(t->times);
  t->events = NULL, t->times = NULL;
  return clean ? 0 : -1;
}

static int ascending(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

double exSlowestMedian(double* t, int count) {
  MPI_Allreduce(MPI_IN_PLACE, t, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(t, (size_t)count, sizeof *t, ascending);
  return count % 2 ? t[count / 2] : 0.5 * (t[count / 2 - 1] + t[count / 2]);
}
