#include "failure.h"

#include <stdarg.h>
#include <stdio.h>

void exFail(ExFailure* f, const char* fmt, ...) {
  if (f->failed) return;
  f->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->error, sizeof f->error, fmt, ap);
  va_end(ap);
}

void exLaunched(ExFailure* f, cudaError_t e, const char* what) {
  if (e != cudaSuccess) exFail(f, "the %s kernel: %s", what, cudaGetErrorString(e));
}

int exFftExecute(ExFailure* f, dtrFftPlan_t plan, const void* in, void* out, int inverse, cudaStream_t stream) {
  const dtrResult_t r = f->failed ? dtrFftExecuteRefuse(plan, f->error)
                                  : dtrFftExecute(plan, in, out, inverse ? dtrFftInverse : dtrFftForward, stream);
  if (r == dtrSuccess) return 0;
  exFail(f, "the %s FFT: %s: %s", inverse ? "inverse" : "forward", dtrGetErrorString(r), dtrGetLastError());
  return -1;
}
