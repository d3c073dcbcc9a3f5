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

/* A hash (dtrMix64's) as a double in [0, 1): its top 53 bits. Test and benchmark inputs take it. */
DTR_PATTERN_HD double dtrUnitOf(uint64_t hash) { return (double)(hash >> 11) * 0x1p-53; }

/* Eight consecutive bytes (b & ~7 .. ) of the entry whose global linear index is `index`. */
DTR_PATTERN_HD uint64_t dtrPatternWordAt(uint64_t index, size_t b) {
  return dtrMix64(index * 0x9e3779b97f4a7c15ull + (uint64_t)(b >> 3));
}

/* The same of entry (i, j) of A, which has `cols` columns. */
DTR_PATTERN_HD uint64_t dtrPatternWord(int64_t i, int64_t j, int64_t cols, size_t b) {
  return dtrPatternWordAt((uint64_t)i * (uint64_t)cols + (uint64_t)j, b);
}

/*
 * A box of an array in memory, fastest axis first: size[d] entries along axis d, the first at global
 * coordinate start[d], stride[d] that axis's stride in the array's global linear index. A slab of
 * A is {cols, rows}, starting at {0, row0}, strides {1, cols}; a slab of B = A^T is {rows of A, its
 * rows}, starting at {0, row0}, strides {cols of A, 1}; a pencil's axes are x, y, z in its order.
 */
typedef struct {
  int64_t size[3], start[3], stride[3];
} dtrPatternBox;

typedef enum { dtrPatternFill = 0, dtrPatternPoison = 1, dtrPatternCheck = 2 } dtrPatternRole;

/* A slab of A (rows x cols, its first row global row row0) and a slab of B = A^T (rows of B, each of
 * cols = A's rows entries), as boxes. */
DTR_PATTERN_HD dtrPatternBox dtrPatternSlabA(int64_t rows, int64_t cols, int64_t row0) {
  const dtrPatternBox box = {{cols, rows, 1}, {0, row0, 0}, {1, cols, 0}};
  return box;
}
DTR_PATTERN_HD dtrPatternBox dtrPatternSlabB(int64_t rows, int64_t cols, int64_t row0, int64_t a_cols) {
  const dtrPatternBox box = {{cols, rows, 1}, {0, row0, 0}, {a_cols, 1, 0}};
  return box;
}

/* The global linear index of entry x (in memory order) of a box. */
DTR_PATTERN_HD uint64_t dtrPatternBoxIndex(const dtrPatternBox* box, int64_t x) {
  const int64_t u0 = x % box->size[0], t = x / box->size[0], u1 = t % box->size[1], u2 = t / box->size[1];
  return (uint64_t)((box->start[0] + u0) * box->stride[0] + (box->start[1] + u1) * box->stride[1] +
                    (box->start[2] + u2) * box->stride[2]);
}

DTR_PATTERN_HD uint8_t dtrPatternByte(int64_t i, int64_t j, int64_t cols, size_t b) {
  return (uint8_t)(dtrPatternWord(i, j, cols, b) >> (8 * (b & 7)));
}

#endif
