#include "pointwise.h"

#include "common/point_loops.h"

void psHostRhs(const PsDomain* d, const ExBox* phys, int dbl, void* f) {
#define PS_RHS(D) psRhsPoint(d, phys, D, p, f)
  EX_FOR_POINTS(exBoxPoints(phys), dbl, PS_RHS);
#undef PS_RHS
}

void psHostScale(const PsDomain* d, const ExBox* spec, int dbl, PsScaling how, void* uh) {
#define PS_SCALE(D) psScalePoint(d, spec, D, how, p, uh)
  EX_FOR_POINTS(exBoxPoints(spec), dbl, PS_SCALE);
#undef PS_SCALE
}
