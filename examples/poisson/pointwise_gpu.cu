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
__global__ void rhsKernel(PsDomain d, PsBox phys, void* f) {
  const int64_t points = psBoxPoints(&phys);
  for (int64_t p = firstPoint(); p < points; p += pointStride()) psRhsPoint(&d, &phys, DBL, p, f);
}

template <int DBL>
__global__ void scaleKernel(PsDomain d, PsBox spec, PsScaling how, void* uh) {
  const int64_t points = psBoxPoints(&spec);
  for (int64_t p = firstPoint(); p < points; p += pointStride()) psScalePoint(&d, &spec, DBL, how, p, uh);
}

}  // namespace

extern "C" cudaError_t psGpuRhs(const PsDomain* d, const PsBox* phys, int dbl, void* f, cudaStream_t stream) {
  const int64_t points = psBoxPoints(phys);
  if (points == 0) return cudaSuccess; /* an empty box: a grid of zero blocks is a launch error */
  if (dbl) rhsKernel<1><<<blocksFor(points), kThreads, 0, stream>>>(*d, *phys, f);
  else rhsKernel<0><<<blocksFor(points), kThreads, 0, stream>>>(*d, *phys, f);
  return cudaGetLastError();
}

extern "C" cudaError_t psGpuScale(const PsDomain* d, const PsBox* spec, int dbl, PsScaling how, void* uh, cudaStream_t stream) {
  const int64_t points = psBoxPoints(spec);
  if (points == 0) return cudaSuccess;
  if (dbl) scaleKernel<1><<<blocksFor(points), kThreads, 0, stream>>>(*d, *spec, how, uh);
  else scaleKernel<0><<<blocksFor(points), kThreads, 0, stream>>>(*d, *spec, how, uh);
  return cudaGetLastError();
}
