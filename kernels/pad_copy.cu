/*
 * The 3/2 rule's two copies (pad_launch.h), each one kernel over the box it writes, so that every
 * entry is stored once: the pad writes the whole padded box (zeros in the gaps, no memset before it),
 * the truncation the kept box. A thread takes one complex number in a grid-stride loop; consecutive
 * threads take consecutive numbers of a z line, so that the loads and stores of a warp are coalesced
 * along z on both sides. The index arithmetic is in 32 bits where the box allows (its divisions are
 * what an entry costs besides its bytes).
 */
#include <stdint.h>

#include "complex_of.cuh"
#include "pad_launch.h"

namespace {

/* The kept index of padded local index i along an axis, -1 in a gap. */
template <typename I>
__device__ __forceinline__ int64_t keptOf(const dtrPadAxisPieces& a, I i) {
  for (int p = 0; p < a.pieces; p++) {
    const int64_t d = (int64_t)i - a.padded[p];
    if (d >= 0 && d < a.count[p]) return a.kept[p] + d;
  }
  return -1;
}

/* The padded index of kept local index k along an axis (every kept index is in a piece). */
template <typename I>
__device__ __forceinline__ int64_t paddedOf(const dtrPadAxisPieces& a, I k) {
  const int p = a.pieces > 1 && (int64_t)k >= a.kept[1] ? 1 : 0;
  return a.padded[p] + ((int64_t)k - a.kept[p]);
}

template <typename T, typename I>
__global__ void padKernel(const dtrPadArgs a, I total) {
  typedef typename ComplexOf<T>::type V; /* one 8- or 16-byte load or store */
  const V* kept = (const V*)a.kept;
  V* padded = (V*)a.padded;
  const I nz = (I)a.paddedSize[2], nx = (I)a.paddedSize[0];
  const I stride = (I)gridDim.x * blockDim.x;
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const I z = i % nz, line = i / nz, x = line % nx, y = line / nx;
    const int64_t kx = keptOf(a.axis[0], x), ky = keptOf(a.axis[1], y), kz = keptOf(a.axis[2], z);
    V v = {0, 0};
    if (kx >= 0 && ky >= 0 && kz >= 0) {
      const T f = (T)(kx == a.nyquist ? a.factor * a.nyquistFactor : a.factor);
      v = kept[(ky * a.keptSize[0] + kx) * a.keptSize[2] + kz];
      v.x *= f, v.y *= f;
    }
    padded[i] = v;
  }
}

template <typename T, typename I>
__global__ void truncateKernel(const dtrPadArgs a, I total) {
  typedef typename ComplexOf<T>::type V;
  const V* padded = (const V*)a.padded;
  V* kept = (V*)a.kept;
  const I nz = (I)a.keptSize[2], nx = (I)a.keptSize[0];
  const I stride = (I)gridDim.x * blockDim.x;
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const I z = i % nz, line = i / nz, x = line % nx, y = line / nx;
    const int64_t px = paddedOf(a.axis[0], x), py = paddedOf(a.axis[1], y), pz = paddedOf(a.axis[2], z);
    const T f = (T)((int64_t)x == a.nyquist ? a.factor * a.nyquistFactor : a.factor);
    V v = padded[(py * a.paddedSize[0] + px) * a.paddedSize[2] + pz];
    v.x *= f, v.y *= f;
    kept[i] = v;
  }
}

unsigned blocksFor(uint64_t work) {
  const uint64_t threads = 256, most = 8192;
  const uint64_t b = (work + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

template <typename T>
cudaError_t launch(const dtrPadArgs& a, bool pad, cudaStream_t stream) {
  const int64_t* s = pad ? a.paddedSize : a.keptSize;
  const uint64_t total = (uint64_t)s[0] * (uint64_t)s[1] * (uint64_t)s[2];
  if (!total) return cudaSuccess;
  /* 32-bit indices where the last index plus a grid's stride still fits. */
  const bool narrow = total + (uint64_t)blocksFor(total) * 256 < UINT32_MAX;
  if (pad && narrow) padKernel<T, uint32_t><<<blocksFor(total), 256, 0, stream>>>(a, (uint32_t)total);
  else if (pad) padKernel<T, uint64_t><<<blocksFor(total), 256, 0, stream>>>(a, total);
  else if (narrow) truncateKernel<T, uint32_t><<<blocksFor(total), 256, 0, stream>>>(a, (uint32_t)total);
  else truncateKernel<T, uint64_t><<<blocksFor(total), 256, 0, stream>>>(a, total);
  return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t dtrPadLaunch(const dtrPadArgs* args, cudaStream_t stream) {
  return args->dbl ? launch<double>(*args, true, stream) : launch<float>(*args, true, stream);
}

extern "C" cudaError_t dtrTruncateLaunch(const dtrPadArgs* args, cudaStream_t stream) {
  return args->dbl ? launch<double>(*args, false, stream) : launch<float>(*args, false, stream);
}
