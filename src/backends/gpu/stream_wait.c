#include "stream_wait.h"

#include <mpi.h>

#include "core/checks.h"
#include "core/timeout.h"

dtrResult_t dtrStreamWaitUnderDeadline(cudaStream_t stream, const char* what, dtrResult_t (*poll)(void*),
                                       void (*abort)(void*), void* ctx) {
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDACHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return dtrSuccess;
  dtrResult_t res = dtrSuccess;
  for (long polls = 0; res == dtrSuccess; polls++) {
    const cudaError_t err = cudaStreamQuery(stream);
    if (err == cudaSuccess) return dtrSuccess;
    if (err != cudaErrorNotReady) CUDACHECK(err);
    if (poll) res = poll(ctx);
    if (res == dtrSuccess && dtrDeadlinePassed()) res = dtrDeadlineMissed(what);
    if (res == dtrSuccess) dtrPollPause(polls);
  }
  abort(ctx);
  const double drainUntil = MPI_Wtime() + 10;
  while (cudaStreamQuery(stream) == cudaErrorNotReady && MPI_Wtime() < drainUntil) dtrPollPause(1L << 30);
  return res;
}
