#include "pointwise.h"

#include "common/point_loops.h"

namespace {

template <int DBL>
__global__ void curlKernel(NsBox spec, const void* uh, void* wh) {
  const int64_t points = nsBoxPoints(&spec);
  for (int64_t p = ex::firstPoint(); p < points; p += ex::pointStride()) nsCurlPoint(&spec, DBL, p, uh, wh);
}

template <int DBL>
__global__ void crossKernel(int64_t points, const void* u, void* w) {
  for (int64_t p = ex::firstPoint(); p < points; p += ex::pointStride()) nsCrossPoint(DBL, p, u, w);
}

template <int DBL>
__global__ void updateKernel(NsBox spec, NsStage stage, const void* nh, const void* in, void* uh, void* acc, void* next) {
  const int64_t points = nsBoxPoints(&spec);
  for (int64_t p = ex::firstPoint(); p < points; p += ex::pointStride())
    nsUpdatePoint(&spec, DBL, &stage, p, nh, in, uh, acc, next);
}

}  // namespace

extern "C" cudaError_t nsGpuCurl(const NsBox* spec, int dbl, const void* uh, void* wh, cudaStream_t stream) {
  return ex::launchOverPoints(nsBoxPoints(spec), dbl, curlKernel<1>, curlKernel<0>, stream, *spec, uh, wh);
}

extern "C" cudaError_t nsGpuCross(const NsBox* phys, int dbl, const void* u, void* w, cudaStream_t stream) {
  const int64_t points = nsBoxPoints(phys);
  return ex::launchOverPoints(points, dbl, crossKernel<1>, crossKernel<0>, stream, points, u, w);
}

extern "C" cudaError_t nsGpuUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh,
                                   void* acc, void* next, cudaStream_t stream) {
  return ex::launchOverPoints(nsBoxPoints(spec), dbl, updateKernel<1>, updateKernel<0>, stream, *spec, *stage, nh, in, uh,
                              acc, next);
}
