/* A CUDA runtime call in a GPU test or tool that must succeed, else the program ends at once (after a
 * kernel fault the context is gone), naming the call and, where the program sets it, the case in
 * flight. */
#ifndef DTR_SUPPORT_CUDA_CHECK_H
#define DTR_SUPPORT_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

/* The case in flight (empty: none), so that a failure can be rerun alone. */
static char dtrTestCase[160] = "";

#define CUDA_OK(call)                                                                                       \
  do {                                                                                                      \
    cudaError_t e_ = (call);                                                                                \
    if (e_ != cudaSuccess) {                                                                                \
      fprintf(stderr, "FAIL %s:%d %s: %s%s%s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_),          \
              dtrTestCase[0] ? " in case " : "", dtrTestCase);                                              \
      exit(1);                                                                                              \
    }                                                                                                       \
  } while (0)

#endif
