/*
 * The FFT's normalization: one multiply per real number, in grid-stride loops of 16-byte words where
 * the start and the length allow (a chunk of a c64 array may start on an odd entry), else of scalars.
 */
#include <stdint.h>

#include "launch.h"

namespace {

template <typename T>
__global__ void scaleKernel(T* x, size_t count, T factor) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) x[i] *= factor;
}

__global__ void scaleFloat4(float4* x, size_t words, float factor) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
    float4 v = x[i];
    v.x *= factor, v.y *= factor, v.z *= factor, v.w *= factor;
    x[i] = v;
  }
}

__global__ void scaleDouble2(double2* x, size_t words, double factor) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
    double2 v = x[i];
    v.x *= factor, v.y *= factor;
    x[i] = v;
  }
}

unsigned blocksFor(size_t work) {
  const size_t threads = 256, most = 4096;
  const size_t b = (work + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

}  // namespace

extern "C" cudaError_t dtrScaleLaunch(void* x, size_t count, int dbl, double factor, cudaStream_t stream) {
  if (!count) return cudaSuccess;
  const size_t perWord = dbl ? 2 : 4;
  const bool aligned = ((uintptr_t)x % 16) == 0 && count % perWord == 0;
  if (aligned && dbl) scaleDouble2<<<blocksFor(count / 2), 256, 0, stream>>>((double2*)x, count / 2, factor);
  else if (aligned) scaleFloat4<<<blocksFor(count / 4), 256, 0, stream>>>((float4*)x, count / 4, (float)factor);
  else if (dbl) scaleKernel<double><<<blocksFor(count), 256, 0, stream>>>((double*)x, count, factor);
  else scaleKernel<float><<<blocksFor(count), 256, 0, stream>>>((float*)x, count, (float)factor);
  return cudaGetLastError();
}
