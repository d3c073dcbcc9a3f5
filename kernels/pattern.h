/*
 * The verification pattern, shared by the GPU kernels, the CPU backend's checks and the tests:
 * byte b of entry (i, j) of A is a hash of the global linear index i * cols + j and of b, so every
 * entry differs from its neighbours in every byte position with high probability, NaN payloads
 * and all. The check of B = A^T compares bit for bit.
 */
#ifndef DTR_PATTERN_H
#define DTR_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define DTR_PATTERN_HD static inline __host__ __device__
#else
#define DTR_PATTERN_HD static inline
#endif

/* splitmix64's finaliser: a bijection of 64-bit integers with full avalanche. */
DTR_PATTERN_HD uint64_t dtrMix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/* Eight consecutive bytes (b & ~7 .. ) of entry (i, j) of A, which has `cols` columns. */
DTR_PATTERN_HD uint64_t dtrPatternWord(int64_t i, int64_t j, int64_t cols, size_t b) {
  uint64_t index = (uint64_t)i * (uint64_t)cols + (uint64_t)j;
  return dtrMix64(index * 0x9e3779b97f4a7c15ull + (uint64_t)(b >> 3));
}

DTR_PATTERN_HD uint8_t dtrPatternByte(int64_t i, int64_t j, int64_t cols, size_t b) {
  return (uint8_t)(dtrPatternWord(i, j, cols, b) >> (8 * (b & 7)));
}

#endif
