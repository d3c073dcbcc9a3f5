#include "pointwise.h"

#include "common/point_loops.h"

void nsHostInitial(const NsBox* phys, int dbl, void* u) {
#define NS_INITIAL(D) nsInitialPoint(phys, D, p, u)
  EX_FOR_POINTS(nsBoxPoints(phys), dbl, NS_INITIAL);
#undef NS_INITIAL
}

void nsHostCurl(const NsBox* spec, int dbl, const void* uh, void* wh) {
#define NS_CURL(D) nsCurlPoint(spec, D, p, uh, wh)
  EX_FOR_POINTS(nsBoxPoints(spec), dbl, NS_CURL);
#undef NS_CURL
}

void nsHostCross(const NsBox* phys, int dbl, const void* u, void* w) {
#define NS_CROSS(D) nsCrossPoint(D, p, u, w)
  EX_FOR_POINTS(nsBoxPoints(phys), dbl, NS_CROSS);
#undef NS_CROSS
}

void nsHostUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh, void* acc,
                  void* next) {
#define NS_UPDATE(D) nsUpdatePoint(spec, D, stage, p, nh, in, uh, acc, next)
  EX_FOR_POINTS(nsBoxPoints(spec), dbl, NS_UPDATE);
#undef NS_UPDATE
}
