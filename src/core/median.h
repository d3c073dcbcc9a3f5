/* The median of a sample, as the benchmarks and the execute timelines report it. */
#ifndef DTR_MEDIAN_H
#define DTR_MEDIAN_H

#include <stdlib.h>

static inline int dtrCompareDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n-1], which it sorts in place (the mean of the middle two where n is even); 0
 * for none. */
static inline double dtrMedian(double* v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, dtrCompareDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
