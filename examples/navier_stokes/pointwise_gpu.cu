#include "pointwise.h"

namespace {

/* Grid-stride loops over a box's points, one point a thread at a time; the precision a template
 * argument, so that each kernel's loads and stores are of one type. */
constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

dim3 blocksFor(int64_t points) {
  const int64_t b = (points + kThreads - 1) / kThreads;
  return dim3((unsigned)(b < kMaxBlocks ? b : kMaxBlocks));
}

__device__ int64_t firstPoint() { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int64_t pointStride() { return (int64_t)gridDim.x * blockDim.x; }

template <int DBL>
__global__ void curlKernel(NsBox spec, const void* uh, void* wh) {
  const int64_t points = nsBoxPoints(&spec);
  for (int64_t p = firstPoint(); p < points; p += pointStride()) nsCurlPoint(&spec, DBL, p, uh, wh);
}

template <int DBL>
__global__ void crossKernel(int64_t points, const void* u, void* w) {
  for (int64_t p = firstPoint(); p < points; p += pointStride()) nsCrossPoint(DBL, p, u, w);
}

template <int DBL>
__global__ void updateKernel(NsBox spec, NsStage stage, const void* nh, const void* in, void* uh, void* acc, void* next) {
  const int64_t points = nsBoxPoints(&spec);
  for (int64_t p = firstPoint(); p < points; p += pointStride()) nsUpdatePoint(&spec, DBL, &stage, p, nh, in, uh, acc, next);
}

}  // namespace

extern "C" cudaError_t nsGpuCurl(const NsBox* spec, int dbl, const void* uh, void* wh, cudaStream_t stream) {
  const int64_t points = nsBoxPoints(spec);
  if (points == 0) return cudaSuccess; /* an empty box: a grid of zero blocks is a launch error */
  if (dbl) curlKernel<1><<<blocksFor(points), kThreads, 0, stream>>>(*spec, uh, wh);
  else curlKernel<0><<<blocksFor(points), kThreads, 0, stream>>>(*spec, uh, wh);
  return cudaGetLastError();
}

extern "C" cudaError_t nsGpuCross(const NsBox* phys, int dbl, const void* u, void* w, cudaStream_t stream) {
  const int64_t points = nsBoxPoints(phys);
  if (points == 0) return cudaSuccess;
  if (dbl) crossKernel<1><<<blocksFor(points), kThreads, 0, stream>>>(points, u, w);
  else crossKernel<0><<<blocksFor(points), kThreads, 0, stream>>>(points, u, w);
  return cudaGetLastError();
}

extern "C" cudaError_t nsGpuUpdate(const NsBox* spec, int dbl, const NsStage* stage, const void* nh, const void* in, void* uh,
                                   void* acc, void* next, cudaStream_t stream) {
  const int64_t points = nsBoxPoints(spec);
  if (points == 0) return cudaSuccess;
  if (dbl) updateKernel<1><<<blocksFor(points), kThreads, 0, stream>>>(*spec, *stage, nh, in, uh, acc, next);
  else updateKernel<0><<<blocksFor(points), kThreads, 0, stream>>>(*spec, *stage, nh, in, uh, acc, next);
  return cudaGetLastError();
}
