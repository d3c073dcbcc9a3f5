/*
 * The thin transposes of 1-, 2- and 4-byte entries (kernels/thin_pack.h) run on the CPU, thread by
 * thread and step by step as the GPU runs them, on buffers of exactly the bytes each case needs:
 * every entry compared bit for bit, the padding between result rows checked untouched, and, under
 * AddressSanitizer and UndefinedBehaviorSanitizer, any access outside the buffers or off its
 * alignment reported. Thin sides 1-32, long sides within one tile, at a tile's edges and over
 * several, joined, odd and padded pitches, pointers off every alignment, both ways round, and each
 * case with the chunk width the launcher picks and with single bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define DTR_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define DTR_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define DTR_POISON(p, n) ((void)(p), (void)(n))
#define DTR_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "check.h"
#include "support/pattern.h"
#include "thin_pack.h"
#include "widest_word.h"

using namespace dtr;

/* A buffer of exactly `bytes` bytes that starts `shift` bytes past a 16-byte boundary; the bytes
 * before it belong to the allocation but are poisoned, so that a read of them is reported too. */
struct Exact {
  uint8_t* base;
  uint8_t* p;
  size_t size;
  Exact(size_t bytes, size_t shift) : size((shift + bytes + 15) / 16 * 16 + 16) {
    base = static_cast<uint8_t*>(aligned_alloc(16, size));
    p = base + shift;
    /* The allocation is rounded up; the bytes past the buffer are poisoned as well. */
    DTR_POISON(base, shift);
    DTR_POISON(p + bytes, size - shift - bytes);
  }
  ~Exact() {
    DTR_UNPOISON(base, size);
    free(base);
  }
  Exact(const Exact&) = delete;
  Exact& operator=(const Exact&) = delete;
};

/* The GPU's schedule on the CPU: each tile's first step by every thread, then its second. */
template <int E, typename CW, bool kFewCols>
static void runPack(const ThinPack& p) {
  constexpr uint32_t T = kPackRun / E;
  const uint64_t tiles = ((uint64_t)p.longSide + T - 1) / T;
  std::vector<uint4> tile((size_t)p.thin * kPackPitch / 16);
  for (uint64_t t = 0; t < tiles; t++)
    for (int step = 0; step < 2; step++)
      for (uint32_t tid = 0; tid < kPackThreads; tid++)
        thinPackStep<E, CW, kFewCols>(step, tid, reinterpret_cast<uint8_t*>(tile.data()), p, t);
}

/* rows x cols entries of E bytes, pitches lds and ldd (entries), pointers srcShift and dstShift bytes
 * past 16-byte boundaries, few columns or few rows, with the chunk width `chunk` (0: the launcher's
 * choice). */
template <int E>
static void runCase(bool fewCols, int64_t rows, int64_t cols, int64_t lds, int64_t ldd, size_t srcShift,
                    size_t dstShift, uint32_t chunk) {
  const size_t srcBytes = (size_t)((rows - 1) * lds + cols) * E, dstBytes = (size_t)((cols - 1) * ldd + rows) * E;
  Exact src(srcBytes, srcShift), dst(dstBytes, dstShift);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      for (int b = 0; b < E; b++) src.p[(i * lds + j) * E + b] = dtrPatternByte(i, j, cols, b);
  /* Every byte of the destination, padding included, starts as the complement of what it should end as
   * (or of 0x5a in the padding). */
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < (j + 1 < cols ? ldd : rows); i++)
      for (int b = 0; b < E; b++)
        dst.p[(j * ldd + i) * E + b] = (uint8_t)~(i < rows ? dtrPatternByte(i, j, cols, b) : 0x5a);
  const ThinPack p = {src.p, lds * E, dst.p, ldd * E, (uint32_t)(fewCols ? cols : rows), fewCols ? rows : cols, srcBytes};
  const int64_t crossedLd = fewCols ? lds : ldd;
  const uint32_t picked = thinPackChunk((uintptr_t)(fewCols ? src.p : dst.p), (uint64_t)crossedLd * E, 0, (uint64_t)p.thin * E);
  if (!chunk) chunk = picked;
  /* The word of `chunk` bytes, as the launcher picks it. */
  withWidestWord(chunk, [&](auto word) {
    if (fewCols) runPack<E, decltype(word), true>(p);
    else runPack<E, decltype(word), false>(p);
    return 0;
  });
  uint64_t wrong = 0, padding = 0;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < (j + 1 < cols ? ldd : rows); i++)
      for (int b = 0; b < E; b++) {
        const uint8_t got = dst.p[(j * ldd + i) * E + b];
        if (i < rows) wrong += got != dtrPatternByte(i, j, cols, b);
        else padding += got != (uint8_t)~0x5a;
      }
  EXPECT(wrong == 0 && padding == 0,
         "%lldx%lld e=%d lds=%lld ldd=%lld shifts %zu/%zu chunk %u (picked %u): %llu wrong bytes, %llu padding bytes "
         "overwritten",
         (long long)rows, (long long)cols, E, (long long)lds, (long long)ldd, srcShift, dstShift, chunk, picked,
         (unsigned long long)wrong, (unsigned long long)padding);
}

static int64_t roundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* Every thin side and long side below, each both ways round, with pitches and shifts taken in turn
 * from the lists (so that each meets every other over the cases). */
template <int E>
static void sweep() {
  const int64_t thins[] = {1, 2, 3, 5, 8, 9, 16, 17, 31, 32};
  constexpr int64_t T = kPackRun / E;
  const int64_t longs[] = {1, 2, 15, 17, T - 1, T, T + 1, 3 * T + 7};
  const size_t shifts[] = {0, 1, 2, 4, 8, 3, 12, 15};
  int k = 0;
  for (int64_t n : thins)
    for (int64_t L : longs)
      for (int fewCols = 0; fewCols < 2; fewCols++)
        for (int variant = 0; variant < 4; variant++, k++) {
          const int64_t rows = fewCols ? L : n, cols = fewCols ? n : L;
          /* 0: joined (each pitch its row's length), 1: odd, 2: padded to 16 bytes, 3: padded to 8 and odd. */
          const auto pitch = [&](int64_t len) {
            return variant == 0 ? len : variant == 1 ? len + 1 + 2 * (k % 3) : variant == 2 ? roundUp(len * E, 16) / E
                                                                                             : roundUp(len * E, 8) / E + 1;
          };
          const size_t s = shifts[k % 8], d = shifts[(k / 8 + 3 * k) % 8];
          /* Shifts off the entry's own alignment too, but aligned ones in the joined and padded variants. */
          const size_t ss = variant == 1 ? s : s / E * E, ds = variant == 1 ? d : d / E * E;
          runCase<E>(fewCols, rows, cols, pitch(cols), pitch(rows), ss, ds, 0);
          if (variant == 2) runCase<E>(fewCols, rows, cols, pitch(cols), pitch(rows), ss, ds, 1);
        }
}

int main(void) {
  sweep<1>();
  sweep<2>();
  sweep<4>();
  return dtrTestEnd("thin pack");
}
