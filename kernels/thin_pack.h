/*
 * The tiles of the thin transposes of 1-, 2- and 4-byte entries (transpose_thin.cu sends it 1- and
 * 2-byte ones; 4-byte ones stay on the word kernel until measured against it), as host and device
 * code: the kernel runs them on the GPU, and a host test runs the same code on the CPU,
 * thread by thread, on buffers of exactly the bytes a case needs (so that the sanitizers see any
 * access outside them or off its alignment).
 *
 * Moved one entry at a time, a thin 1-byte transpose is bound by the instructions that move single
 * bytes (docs/design.md#thin-pack). Here the
 * long side's runs move as aligned 16-byte words shifted into place (shifted_word.h) at any pitch,
 * and each line of the thin side in memory (a result row with few rows, a source row with few
 * columns: thin x E bytes) moves as whole chunks of A bytes, A the widest power of two up to 16
 * that every line start allows and no wider than a line. Each chunk is gathered from, or
 * scattered into, the tile one entry at a time by shared-memory accesses, which cost far less
 * than global ones.
 *
 * The tile holds line j of the thin side (a source row with few rows, a result row with few
 * columns) at j * kPackPitch, entry l of the long side at byte kPackGuard + l * E: aligned to the
 * tile, not to memory, so that a chunk finds its entries at fixed offsets. The guard bytes let the
 * runs to memory read the 16 bytes under any aligned word of memory, which may start up to 15
 * bytes before the run or end up to 15 after it.
 */
#ifndef DTR_THIN_PACK_H
#define DTR_THIN_PACK_H

#include <stdint.h>

#include "shifted_word.h"

namespace dtr {

constexpr uint32_t kPackThreads = 256;
constexpr uint32_t kPackRun = 1024; /* bytes of the long side per tile */
constexpr uint32_t kPackGuard = 16;
constexpr uint32_t kPackPitch = kPackRun + 2 * kPackGuard;

/* One thin transpose: `thin` rows (few rows) or columns (few columns) of E-byte entries, `longSide`
 * the other; pitches in bytes. srcBytes: the source's bytes from its first row's start to its last
 * row's end, the bounds of the shifted loads. */
struct ThinPack {
  const uint8_t* src;
  int64_t ldsB;
  uint8_t* dst;
  int64_t lddB;
  uint32_t thin;
  int64_t longSide;
  uint64_t srcBytes;
};

/* The chunk width of a thin transpose's memory lines of thin x E bytes (lineBytes), which lie in the
 * destination with few rows and in the source with few columns (base: that side's pointer, ldB: its
 * pitch, strideB: its batch stride or 0): the widest power of two up to 16 that divides them all and
 * is no wider than a line. */
inline uint32_t thinPackChunk(uintptr_t base, uint64_t ldB, uint64_t strideB, uint64_t lineBytes) {
  uint64_t a = 16;
  while (a > 1 && (a > lineBytes || ((base | ldB | strideB) & (a - 1)))) a /= 2;
  return (uint32_t)a;
}

/* A 16-byte load of the source, through the read-only path on the GPU (the address was an integer,
 * so the compiler no longer knows it is global memory). */
DTR_HOST_DEVICE uint4 loadWord(const uint4* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

template <int U>
struct UnitWord;
template <>
struct UnitWord<1> {
  using T = uint8_t;
};
template <>
struct UnitWord<2> {
  using T = uint16_t;
};
template <>
struct UnitWord<4> {
  using T = uint32_t;
};

/* Tile lines [0, lines) <- `bytes` bytes of each memory row (mem + j * ldB), at any alignment: aligned
 * 16-byte words shifted, except where the two words under one reach outside [lo, hi), the bytes
 * that may be read. Thread tid of kPackThreads. */
DTR_HOST_DEVICE void packRunsToTile(uint32_t tid, uint8_t* tile, const uint8_t* mem, int64_t ldB, uint32_t lines,
                                uint32_t bytes, uintptr_t lo, uintptr_t hi) {
  constexpr uint32_t kWords = kPackRun / 16;
  for (uint32_t i = tid; i < lines * kWords; i += kPackThreads) {
    const uint32_t j = i / kWords, first = 16 * (i % kWords);
    if (first >= bytes) continue;
    const uint8_t* g = mem + j * ldB + first;
    const uintptr_t base = (uintptr_t)g & ~(uintptr_t)15;
    const uint32_t shift = (uint32_t)((uintptr_t)g & 15);
    uint4 v;
    if (base >= lo && base + (shift ? 32 : 16) <= hi) {
      const uint4* w = reinterpret_cast<const uint4*>(base);
      v = shift ? shiftedWord(loadWord(w), loadWord(w + 1), shift) : loadWord(w);
    } else {
      uint32_t b[4] = {0, 0, 0, 0};
DTR_UNROLL
      for (uint32_t k = 0; k < 16; k++)
        if (first + k < bytes) b[k / 4] |= (uint32_t)g[k] << (8 * (k % 4));
      v.x = b[0], v.y = b[1], v.z = b[2], v.w = b[3];
    }
    *reinterpret_cast<uint4*>(tile + j * kPackPitch + kPackGuard + first) = v;
  }
}

/* The reverse: `bytes` bytes of each memory row (mem + j * ldB) <- tile lines [0, lines), as the
 * aligned 16-byte words of memory that the row fills; the words it fills in part byte by byte, so
 * that nothing outside the rows is written. */
DTR_HOST_DEVICE void packTileToRuns(uint32_t tid, const uint8_t* tile, uint8_t* mem, int64_t ldB, uint32_t lines,
                                uint32_t bytes) {
  constexpr uint32_t kWords = kPackRun / 16 + 1; /* aligned words that kPackRun bytes can touch */
  for (uint32_t i = tid; i < lines * kWords; i += kPackThreads) {
    const uint32_t j = i / kWords;
    uint8_t* row = mem + j * ldB;
    const uint32_t o = (uint32_t)((uintptr_t)row & 15);
    const int32_t first = (int32_t)(16 * (i % kWords)) - (int32_t)o; /* this word's first byte, of the row */
    if (first >= (int32_t)bytes) continue;
    const uint32_t shift = (16 - o) & 15; /* first's offset within its aligned word of the tile */
    const uint4* t = reinterpret_cast<const uint4*>(tile + j * kPackPitch + kPackGuard + first - (int32_t)shift);
    const uint4 v = shift ? shiftedWord(t[0], t[1], shift) : t[0];
    if (first >= 0 && first + 16 <= (int32_t)bytes) {
      *reinterpret_cast<uint4*>(row + first) = v;
      continue;
    }
DTR_UNROLL
    for (int k = 0; k < 16; k++)
      if (first + k >= 0 && first + k < (int32_t)bytes) row[first + k] = byteOf(v, k);
  }
}

/* The chunk of A bytes whose unit m (U bytes) lies at t + m * kPackPitch in the tile, as 32-bit
 * words: loaded unit by unit, joined by byte permutes. */
template <uint32_t A, uint32_t U>
DTR_HOST_DEVICE void gatherChunk(const uint8_t* t, uint32_t* words) {
  constexpr uint32_t kUnits = A / U;
  if constexpr (U == 4) {
    DTR_UNROLL
    for (uint32_t m = 0; m < kUnits; m++) words[m] = *reinterpret_cast<const uint32_t*>(t + m * kPackPitch);
  } else if constexpr (U == 2) {
    if constexpr (kUnits == 1) {
      words[0] = *reinterpret_cast<const uint16_t*>(t);
    } else {
      DTR_UNROLL
      for (uint32_t k = 0; k < kUnits / 2; k++)
        words[k] = joinHalves(*reinterpret_cast<const uint16_t*>(t + 2 * k * kPackPitch),
                              *reinterpret_cast<const uint16_t*>(t + (2 * k + 1) * kPackPitch));
    }
  } else if constexpr (kUnits == 1) {
    words[0] = t[0];
  } else if constexpr (kUnits == 2) {
    words[0] = joinBytes(t[0], t[kPackPitch], 0, 0);
  } else {
    DTR_UNROLL
    for (uint32_t k = 0; k < kUnits / 4; k++)
      words[k] = joinBytes(t[4 * k * kPackPitch], t[(4 * k + 1) * kPackPitch], t[(4 * k + 2) * kPackPitch],
                           t[(4 * k + 3) * kPackPitch]);
  }
}

/* The reverse: unit m of the chunk (as words) to t + m * kPackPitch. */
template <uint32_t A, uint32_t U>
DTR_HOST_DEVICE void scatterChunk(const uint32_t* words, uint8_t* t) {
  DTR_UNROLL
  for (uint32_t m = 0; m < A / U; m++) {
    const uint32_t w = words[m * U / 4] >> (8 * (m * U % 4));
    if constexpr (U == 4) *reinterpret_cast<uint32_t*>(t + m * kPackPitch) = w;
    else if constexpr (U == 2) *reinterpret_cast<uint16_t*>(t + m * kPackPitch) = (uint16_t)w;
    else t[m * kPackPitch] = (uint8_t)w;
  }
}

/* Memory lines l < span of n entries of E bytes (mem + l * ldB, each on a boundary of A =
 * sizeof(CW) bytes), entry j of line l being the tile's entry l of line j: into the tile (kToTile)
 * or out of it. A thread takes one chunk of A bytes of a line: one access where the line holds all
 * of it, its units (entries, or A bytes where A is narrower) joined or split in registers; the last
 * chunk of a line that holds it only in part, unit by unit. Consecutive threads take the same chunk
 * of consecutive lines, so that their shared-memory accesses fall on consecutive bytes. */
template <int E, typename CW, bool kToTile, typename M>
DTR_HOST_DEVICE void packCrossed(uint32_t tid, uint8_t* tile, M* mem, int64_t ldB, uint32_t span, uint32_t n) {
  constexpr uint32_t A = sizeof(CW), U = A < E ? A : E, T = kPackRun / E;
  using UT = typename UnitWord<U>::T;
  const uint32_t lineBytes = n * E, chunks = (lineBytes + A - 1) / A;
  for (uint32_t i = tid; i < chunks * T; i += kPackThreads) {
    const uint32_t l = i % T, at = (i / T) * A; /* at: the chunk's first byte, of the line */
    if (l >= span) continue;
    /* Unit m of the chunk is byte at + m U of the line: entry (at + m U) / E, byte (at + m U) % E of
     * it, which for m > 0 (U = E then) is entry at / E + m. */
    uint8_t* t = tile + kPackGuard + l * E + (at / E) * kPackPitch + at % E;
    M* g = mem + l * ldB + at;
    uint32_t words[(A + 3) / 4];
    if (at + A <= lineBytes) {
      if constexpr (kToTile) {
        wordsOf(*reinterpret_cast<const CW*>(g), words);
        scatterChunk<A, U>(words, t);
      } else {
        gatherChunk<A, U>(t, words);
        *reinterpret_cast<CW*>(g) = wordFrom<CW>(words);
      }
      continue;
    }
    DTR_UNROLL
    for (uint32_t m = 0; m < A / U; m++)
      if (at + m * U < lineBytes) {
        if constexpr (kToTile) *reinterpret_cast<UT*>(t + m * kPackPitch) = *reinterpret_cast<const UT*>(g + m * U);
        else *reinterpret_cast<UT*>(g + m * U) = *reinterpret_cast<const UT*>(t + m * kPackPitch);
      }
  }
}

/* Step `step` (0, then 1 after a barrier) of tile `t` for thread tid: with few rows the source rows'
 * runs into the tile, then the result rows out of it as chunks; with few columns the source rows
 * into it as chunks, then the result rows' runs out. A tile is every thin line by kPackRun bytes of
 * the long side. */
template <int E, typename CW, bool kFewCols>
DTR_HOST_DEVICE void thinPackStep(int step, uint32_t tid, uint8_t* tile, const ThinPack& p, uint64_t t) {
  constexpr uint32_t T = kPackRun / E; /* entries of the long side per tile */
  const int64_t at = (int64_t)t * T;
  const uint32_t span = p.longSide - at < T ? (uint32_t)(p.longSide - at) : T;
  if constexpr (!kFewCols) {
    if (step == 0)
      packRunsToTile(tid, tile, p.src + at * E, p.ldsB, p.thin, span * E, (uintptr_t)p.src, (uintptr_t)p.src + p.srcBytes);
    else
      packCrossed<E, CW, false>(tid, tile, p.dst + at * p.lddB, p.lddB, span, p.thin);
  } else {
    if (step == 0)
      packCrossed<E, CW, true>(tid, tile, p.src + at * p.ldsB, p.ldsB, span, p.thin);
    else
      packTileToRuns(tid, tile, p.dst + at * E, p.lddB, p.thin, span * E);
  }
}

}  // namespace dtr

#endif
