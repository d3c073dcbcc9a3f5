/*
 * A few interleaved fields into field-major copies and back (the FFT's passes of several fields around
 * packed cuFFT plans): a transpose of a matrix with very few columns, which the tile transposes serve
 * badly (a 32 x 32 tile holding 3 columns moves a tenth of its bytes). Each thread moves one number,
 * indexed along the field-major side so that its accesses are contiguous; the interleaved side's
 * accesses of a warp span `fields` times as many bytes, which the caches gather.
 */
#include <stdint.h>

#include "launch.h"

namespace {

template <typename T>
__global__ void splitKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t points, int fields) {
  const int64_t total = points * fields, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t f = i / points, p = i - f * points;
    dst[i] = src[p * fields + f];
  }
}

template <typename T>
__global__ void joinKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t points, int fields) {
  const int64_t total = points * fields, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t f = i / points, p = i - f * points;
    dst[p * fields + f] = src[i];
  }
}

template <typename T>
void launch(bool split, const void* src, void* dst, int64_t points, int fields, cudaStream_t stream) {
  const int64_t work = (points * fields + 255) / 256;
  const unsigned blocks = (unsigned)(work < 1 ? 1 : work > 16384 ? 16384 : work);
  if (split) splitKernel<T><<<blocks, 256, 0, stream>>>((const T*)src, (T*)dst, points, fields);
  else joinKernel<T><<<blocks, 256, 0, stream>>>((const T*)src, (T*)dst, points, fields);
}

}  // namespace

extern "C" cudaError_t dtrFieldsLaunch(int split, const void* src, void* dst, int64_t points, int fields, size_t bytes,
                                       cudaStream_t stream) {
  if (points <= 0 || fields <= 0) return cudaSuccess;
  switch (bytes) {
    case 4: launch<float>(split, src, dst, points, fields, stream); break;
    case 8: launch<float2>(split, src, dst, points, fields, stream); break;
    case 16: launch<double2>(split, src, dst, points, fields, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
