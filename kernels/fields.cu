/*
 * A few interleaved fields into field-major copies and back (the FFT's passes of several fields around
 * packed cuFFT plans): a transpose of a matrix with very few columns, which the tile transposes serve
 * badly (a 32 x 32 tile holding 3 columns moves a tenth of its bytes). A thread takes one point and
 * every field of it: a warp reads its points' numbers as one contiguous run and writes each field's as
 * another, so that every byte crosses HBM once (taking the fields one after another over the whole
 * array would read each line of the interleaved side once per field).
 */
#include <stdint.h>

#include "launch.h"

namespace {

template <typename T>
__global__ void splitKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t points, int fields) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < points; p += stride)
    for (int f = 0; f < fields; f++) dst[f * points + p] = src[p * fields + f];
}

template <typename T>
__global__ void joinKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t points, int fields) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < points; p += stride)
    for (int f = 0; f < fields; f++) dst[p * fields + f] = src[f * points + p];
}

template <typename T>
void launch(bool split, const void* src, void* dst, int64_t points, int fields, cudaStream_t stream) {
  const int64_t work = (points + 255) / 256;
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
