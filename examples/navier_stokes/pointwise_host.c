#include "pointwise.h"

/* One loop per precision: `dbl` is then a constant inside each, and the physics functions' loads and
 * stores fold to plain ones once inlined. */
#define NS_FOR_POINTS(box, dbl, call)                                                                    \
  do {                                                                                                   \
    const int64_t points_ = nsBoxPoints(box);                                                            \
    if (dbl)                                                                                             \
      for (int64_t p = 0; p < points_; p++) call(1);                                                     \
    else                                                                                                 \
      for (int64_t p = 0; p < points_; p++) call(0);                                                     \
  } while (0)

void nsHostInitial(const NsBox* phys, int dbl, void* u) {
#define NS_INITIAL(D) nsInitialPoint(phys, D, p, u)
  NS_FOR_POINTS(phys, dbl, NS_INITIAL);
#undef NS_INITIAL
}

void nsHostCurl(const NsBox* spec, int dbl, const void* uh, void* wh) {
#define NS_CURL(D) nsCurlPoint(spec, D, p, uh, wh)
  NS_FOR_POINTS(spec, dbl, NS_CURL);
#undef NS_CURL
}

void nsHostCross(const NsBox* phys, int dbl, const void* u, void* w) {
#define NS_CROSS(D) nsCrossPoint(D, p, u, w)
  NS_FOR_POINTS(phys, dbl, NS_CROSS);
#undef NS_CROSS
}

void nsHostUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh, void* acc,
                  void* next) {
#define NS_UPDATE(D) nsUpdatePoint(spec, D, stage, p, nh, in, uh, acc, next)
  NS_FOR_POINTS(spec, dbl, NS_UPDATE);
#undef NS_UPDATE
}
