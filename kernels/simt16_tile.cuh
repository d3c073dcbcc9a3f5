/* The simt16 kernels' tile step (16-byte loads, the swizzled shared-memory transpose, 16-byte
 * stores), shared by the single-matrix kernel and the grouped one of the one-pass path. */
#ifndef DTR_SIMT16_TILE_CUH
#define DTR_SIMT16_TILE_CUH

#include <stdint.h>

#include "tile_layout.h"
#include "tile_transpose.cuh"

namespace dtr {

constexpr int kSimt16Threads = 128;

/* Copies n < 16/S elements of S bytes one by one (a chunk cut by the matrix edge). */
template <int S>
__device__ __forceinline__ void copyElements(uint8_t* dst, const uint8_t* src, uint32_t n) {
  for (uint32_t e = 0; e < n; e++) {
    if (S == 1) dst[e] = src[e];
    else if (S == 2) reinterpret_cast<uint16_t*>(dst)[e] = reinterpret_cast<const uint16_t*>(src)[e];
    else if (S == 4) reinterpret_cast<uint32_t*>(dst)[e] = reinterpret_cast<const uint32_t*>(src)[e];
    else if (S == 8) reinterpret_cast<uint64_t*>(dst)[e] = reinterpret_cast<const uint64_t*>(src)[e];
    else reinterpret_cast<uint4*>(dst)[e] = reinterpret_cast<const uint4*>(src)[e];
  }
}

/* One tile: T source rows of 128 bytes, loaded, transposed through the swizzled stage and stored as
 * 128-byte pieces of result rows. Every thread of the block takes part. */
template <int S>
__device__ __forceinline__ void simt16Tile(const uint8_t* __restrict__ src, int64_t ldsBytes, uint8_t* __restrict__ dst,
                                           int64_t lddBytes, int64_t rows, int64_t cols, uint32_t tx, uint32_t ty,
                                           uint8_t* stage, uint8_t* result) {
  constexpr uint32_t m = 16 / S, T = (S == 1) ? 256 : 128, box = 128 / S;
  constexpr uint32_t chunksPerThread = T * 8 / kSimt16Threads;
  const uint32_t tid = threadIdx.x;
  const int64_t row0 = (int64_t)ty * T, col0 = (int64_t)tx * box;
  /* Load: eight threads read one 128-byte source row; zeros beyond the matrix. */
  /* All of a thread's loads are issued before the first shared store; chunks cut by the right
   * edge are completed element by element afterwards, straight into shared memory. */
  uint4 v[chunksPerThread];
#pragma unroll
  for (uint32_t j = 0; j < chunksPerThread; j++) {
    const uint32_t ci = tid + j * kSimt16Threads, r = ci / 8, c = ci % 8;
    const int64_t gr = row0 + r, gc = col0 + c * m;
    v[j] = make_uint4(0, 0, 0, 0);
    if (gr < rows && gc + m <= cols) v[j] = *reinterpret_cast<const uint4*>(src + gr * ldsBytes + gc * S);
  }
#pragma unroll
  for (uint32_t j = 0; j < chunksPerThread; j++) {
    const uint32_t ci = tid + j * kSimt16Threads, r = ci / 8, c = ci % 8;
    uint8_t* slot = stage + dtrSwizzle128(r, c);
    *reinterpret_cast<uint4*>(slot) = v[j];
    const int64_t gr = row0 + r, gc = col0 + c * m;
    if (gr < rows && gc < cols && gc + m > cols) copyElements<S>(slot, src + gr * ldsBytes + gc * S, (uint32_t)(cols - gc));
  }
  __syncthreads();
  transposeShare<S>(stage, result, T, T / m, 0, 1, tid, kSimt16Threads);
  __syncthreads();
  /* Store: eight threads write one 128-byte piece of a result row; clipped at the matrix edge. */
#pragma unroll
  for (uint32_t j = 0; j < chunksPerThread; j++) {
    const uint32_t ci = tid + j * kSimt16Threads;
    const uint32_t region = ci / (box * 8), row = (ci / 8) % box, c = ci % 8;
    const int64_t gr = col0 + row, gc = row0 + (int64_t)(region * 8 + c) * m;
    if (gr < cols && gc < rows) {
      const uint8_t* s = result + region * box * 128 + dtrSwizzle128(row, c);
      uint8_t* p = dst + gr * lddBytes + gc * S;
      if (gc + m <= rows) *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(s);
      else copyElements<S>(p, s, (uint32_t)(rows - gc));
    }
  }
  __syncthreads();
}

/* The stage and result buffers in dynamic shared memory (two 32 KB buffers for 1-byte elements
 * exceed the static limit), the stage 1024-byte aligned for the swizzle. */
__device__ __forceinline__ uint8_t* simt16Stage() {
  extern __shared__ uint8_t smemRaw[];
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
}

}  // namespace dtr

#endif
