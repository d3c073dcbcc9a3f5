/*
 * The distributed cases every backend test runs: shapes (1, primes, R != C, fewer rows or columns
 * than ranks), every element type, howmany 1 and > 1; one helper that runs a case on buffers of
 * the backend's kind and counts wrong entries, poisoned output and untouched input included.
 */
#ifndef DTR_TRANSPOSE_CASES_H
#define DTR_TRANSPOSE_CASES_H

#include <stdint.h>

#include "disttranspose.h"

typedef struct {
  int64_t rows, cols;
} dtrShape;

/* Shapes depend on the rank count so that R < P and C < P are always among them. */
static inline int dtrTestShapes(int nranks, dtrShape* out) {
  const dtrShape fixed[] = {{1, 1}, {1, 13}, {13, 1}, {2, 3}, {31, 33}, {33, 31}, {97, 89}, {128, 128}, {257, 100}, {1001, 777}};
  int n = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) out[n++] = fixed[i];
  out[n++] = (dtrShape){nranks > 1 ? nranks - 1 : 1, 11};
  out[n++] = (dtrShape){11, nranks > 1 ? nranks - 1 : 1};
  out[n++] = (dtrShape){nranks + 1, 2 * nranks + 3};
  return n;
}

#endif
