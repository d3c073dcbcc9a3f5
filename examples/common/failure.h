/*
 * A rank's first failure, and how the rank's collective work goes on after it: every later transform
 * refuses (dtrFftExecuteRefuse) with the failure's message, so that all ranks fail the same call together
 * rather than leave the others waiting in it, and pointwise work is skipped. Later failures are kept out:
 * they follow from the first and would only hide it.
 */
#ifndef EX_FAILURE_H
#define EX_FAILURE_H

#include <cuda_runtime_api.h>
#include <disttranspose.h>

typedef struct {
  int failed;
  char error[512];
} ExFailure;

/* Records this rank's first failure (printf-style). */
void exFail(ExFailure* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* A kernel launch's result: a failure recorded as "the WHAT kernel: ...". */
void exLaunched(ExFailure* f, cudaError_t e, const char* what);

/* Collective: the library's FFT forward or inverse on `stream`, or its refusal where this rank has failed.
 * 0, or -1 on every rank alike, f saying why ("the forward FFT: ..."; a refusal's names the failed rank). */
int exFftExecute(ExFailure* f, dtrFftPlan_t plan, const void* in, void* out, int inverse, cudaStream_t stream);

#endif
