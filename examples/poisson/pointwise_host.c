#include "pointwise.h"

/* One loop per precision: `dbl` is then a constant inside each, and the problem's loads and stores fold
 * to plain ones once inlined. */
#define PS_FOR_POINTS(box, dbl, call)                                                                    \
  do {                                                                                                   \
    const int64_t points_ = psBoxPoints(box);                                                            \
    if (dbl)                                                                                             \
      for (int64_t p = 0; p < points_; p++) call(1);                                                     \
    else                                                                                                 \
      for (int64_t p = 0; p < points_; p++) call(0);                                                     \
  } while (0)

void psHostRhs(const PsDomain* d, const PsBox* phys, int dbl, void* f) {
#define PS_RHS(D) psRhsPoint(d, phys, D, p, f)
  PS_FOR_POINTS(phys, dbl, PS_RHS);
#undef PS_RHS
}

void psHostScale(const PsDomain* d, const PsBox* spec, int dbl, PsScaling how, void* uh) {
#define PS_SCALE(D) psScalePoint(d, spec, D, how, p, uh)
  PS_FOR_POINTS(spec, dbl, PS_SCALE);
#undef PS_SCALE
}
