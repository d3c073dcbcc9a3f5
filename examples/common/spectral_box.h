/*
 * A rank's box of one side of a 3-D transform, one point at a time, for the examples' per-point
 * functions: the index math of a box in its memory order, the wavenumbers in numpy's order, and the
 * fp64-or-fp32 element access. Host loops and CUDA kernels include the same functions, so the two can
 * differ only in who runs the loop.
 */
#ifndef EX_SPECTRAL_BOX_H
#define EX_SPECTRAL_BOX_H

#include <stdint.h>

#ifdef __CUDACC__
#define EX_HD static inline __host__ __device__
#else
#define EX_HD static inline
#endif

/* dtrFftGetBox's start, size and order, without the byte counts, so that a kernel takes it by value. */
typedef struct {
  int64_t start[3]; /* global index of the first point along x, y, z */
  int64_t size[3];  /* extent along x, y, z */
  int order[3];     /* the axes in memory, fastest first (0 = x, 1 = y, 2 = z) */
} ExBox;

EX_HD int64_t exBoxPoints(const ExBox* b) { return b->size[0] * b->size[1] * b->size[2]; }

/* The global indices (x, y, z) of the box's point p (p counted in memory order). Every array index is a
 * constant once the loop is unrolled, so that on the GPU the indices stay in registers rather than in a
 * stack array indexed by the box's (run-time) memory order. */
EX_HD void exBoxCoords(const ExBox* b, int64_t p, int64_t c[3]) {
  c[0] = c[1] = c[2] = 0; /* each is set below (order is a permutation); this tells the compiler so */
  for (int d = 0; d < 3; d++) {
    const int axis = b->order[d];
    const int64_t size = axis == 0 ? b->size[0] : axis == 1 ? b->size[1] : b->size[2];
    const int64_t start = axis == 0 ? b->start[0] : axis == 1 ? b->start[1] : b->start[2];
    const int64_t v = start + p % size;
    p /= size;
    if (axis == 0) c[0] = v;
    else if (axis == 1) c[1] = v;
    else c[2] = v;
  }
}

/* The signed wavenumber of mode i of a periodic axis of n points, numpy.fft.fftfreq's order: i up to n/2,
 * i - n above. An even n's Nyquist mode counts as +n/2, as numpy.fft.rfftfreq has it (the R2C side's
 * halved axis holds only 0 .. n/2, all of them i). */
EX_HD int64_t exWavenumber(int64_t i, int64_t n) { return 2 * i <= n ? i : i - n; }

/* Element j of an array of fp64 or fp32 values, in fp64: the examples compute in fp64 whatever they store.
 * Callers pass `dbl` as a constant where they can (a kernel's template argument, a loop per precision),
 * so that the choice folds away once these are inlined. */
EX_HD double exLoad(const void* a, int dbl, int64_t j) {
  return dbl ? ((const double*)a)[j] : (double)((const float*)a)[j];
}
EX_HD void exStore(void* a, int dbl, int64_t j, double v) {
  if (dbl) ((double*)a)[j] = v;
  else ((float*)a)[j] = (float)v;
}

#endif
