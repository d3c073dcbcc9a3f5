/* The shape of a batch of local transforms: what the FFT's local passes and their implementations
 * (cuFFT, FFTW) share. */
#ifndef DTR_FFT_TRANSFORM_SHAPE_H
#define DTR_FFT_TRANSFORM_SHAPE_H

#include <stdint.h>

typedef struct {
  int dims;     /* 1 or 2 */
  int64_t n[2]; /* logical sizes, slowest first (n[dims - 1] is the contiguous one; a real pass's is the
                   real length, whose complex side holds n / 2 + 1) */
  int real;     /* the real pass: R2C forward, C2R inverse; else complex to complex */
  int dbl;      /* double precision */
  /* A 1-D complex pass in another layout than packed transforms (0: packed): entries between a
   * transform's points and between transforms, on each side. The slab route's pass along z reads the
   * planes of a [z][y][x] array and writes the Z-pencil (or the other way round), a transpose for free. */
  int64_t in_stride, in_dist, out_stride, out_dist;
  /* Fields interleaved at every point (0 or 1: one): a point holds `fields` consecutive numbers, one of
   * each field, so that strides and distances above count points and every transform is one of each
   * field. The FFT plan's howmany. */
  int64_t fields;
  /* Per dimension (slowest first, as n): dtrFftAxis_t. A real-to-real kind transforms real numbers: on
   * complex data, the real and the imaginary parts each. */
  int kind[2];
  int realData; /* real numbers on both sides (a plan whose axes are all real-to-real), never `real` */
  /* A 1-D pass whose transforms are `lines` lines each (0 or 1: one): line l of transform t starts
   * l * *_line_dist points after the transform's start (the pass along y over whole (y, x) planes). */
  int64_t lines, in_line_dist, out_line_dist;
  /* The pass may be asked to scale its output (the plan's normalization): on GPUs, where one kernel of
   * the library's runs its transforms (axis_pass.h), the factor is folded into it. */
  int scaled;
} dtrLocalFftShape;

static inline int dtrLocalFftHasRealToReal(const dtrLocalFftShape* s) {
  return s->kind[0] != 0 || (s->dims == 2 && s->kind[1] != 0);
}
static inline int64_t dtrLocalFftLines(const dtrLocalFftShape* s) { return s->lines > 1 ? s->lines : 1; }

static inline int64_t dtrLocalFftFields(const dtrLocalFftShape* s) { return s->fields > 1 ? s->fields : 1; }

/* Entries of one transform: complex ones (the complex side), and real ones (a real pass's real side). */
static inline int64_t dtrLocalFftComplexLength(const dtrLocalFftShape* s) {
  const int64_t last = s->real ? s->n[s->dims - 1] / 2 + 1 : s->n[s->dims - 1];
  return s->dims == 2 ? s->n[0] * last : last;
}
static inline int64_t dtrLocalFftRealLength(const dtrLocalFftShape* s) {
  return s->dims == 2 ? s->n[0] * s->n[1] : s->n[0];
}

#endif
