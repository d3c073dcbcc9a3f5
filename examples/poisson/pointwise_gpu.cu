#include "pointwise.h"

#include "common/point_loops.h"

namespace {

template <int DBL>
__global__ void rhsKernel(PsDomain d, ExBox phys, void* f) {
  const int64_t points = exBoxPoints(&phys);
  for (int64_t p = ex::firstPoint(); p < points; p += ex::pointStride()) psRhsPoint(&d, &phys, DBL, p, f);
}

template <int DBL>
__global__ void scaleKernel(PsDomain d, ExBox spec, PsScaling how, void* uh) {
  const int64_t points = exBoxPoints(&spec);
  for (int64_t p = ex::firstPoint(); p < points; p += ex::pointStride()) psScalePoint(&d, &spec, DBL, how, p, uh);
}

}  // namespace

extern "C" cudaError_t psGpuRhs(const PsDomain* d, const ExBox* phys, int dbl, void* f, cudaStream_t stream) {
  return ex::launchOverPoints(exBoxPoints(phys), dbl, rhsKernel<1>, rhsKernel<0>, stream, *d, *phys, f);
}

extern "C" cudaError_t psGpuScale(const PsDomain* d, const ExBox* spec, int dbl, PsScaling how, void* uh, cudaStream_t stream) {
  return ex::launchOverPoints(exBoxPoints(spec), dbl, scaleKernel<1>, scaleKernel<0>, stream, *d, *spec, how, uh);
}
