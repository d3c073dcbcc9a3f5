#include "backends/cpu/host_transpose.h"

#include <string.h>

/* A 16-byte entry (c128, c64 x 2) as one copyable value, so that it moves as two words rather than
 * through a memcpy call per entry. */
typedef struct {
  uint64_t w[2];
} Entry16;

static inline uint64_t load64(const void* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline void store64(void* p, uint64_t v) { memcpy(p, &v, 8); }

/* A block of W x W entries of e bytes (W = 8 / e: a row is one 64-bit word) from src (pitch lds
 * bytes) to dst (pitch ldd bytes), transposed in registers: at each level the upper unit of every
 * pair of units of one word trades places with the lower unit of the word `d` rows below, units of
 * e, 2e, 4e bytes (little-endian: entry j of a row at bits 8ej). */
static inline void transposeWords(const unsigned char* src, size_t lds, unsigned char* dst, size_t ldd, size_t e) {
  static const uint64_t masks[4] = {0, 0x00FF00FF00FF00FFull, 0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull};
  const int w = (int)(8 / e);
  uint64_t x[8];
  for (int i = 0; i < w; i++) x[i] = load64(src + (size_t)i * lds);
  for (int d = 1, level = e == 1 ? 1 : e == 2 ? 2 : 3; d < w; d *= 2, level++) {
    const int bits = 4 << level;
    for (int j = 0; j < w; j++)
      if (!(j & d)) {
        const uint64_t t = ((x[j] >> bits) ^ x[j + d]) & masks[level];
        x[j + d] ^= t;
        x[j] ^= t << bits;
      }
  }
  for (int i = 0; i < w; i++) store64(dst + (size_t)i * ldd, x[i]);
}

/* Entries of up to 8 bytes go through a tile buffer of TILE x TILE entries (16 KiB at most): whole
 * source rows are read into its columns, whole destination rows written from its rows, so pitches of
 * powers of two (whose rows share cache sets) cost nothing and each destination row is one memcpy.
 * Entries under 8 bytes move into the buffer as blocks of 8 bytes a row, transposed in registers. */
#define DTR_STAGED(T, TILE)                                                                              \
  do {                                                                                                   \
    T buf[(TILE) * (TILE)];                                                                              \
    const int64_t w = 8 / (int64_t)sizeof(T);                                                            \
    for (int64_t r0 = 0; r0 < rows; r0 += (TILE)) {                                                      \
      const int64_t nr = rows - r0 < (TILE) ? rows - r0 : (TILE);                                        \
      for (int64_t c0 = 0; c0 < cols; c0 += (TILE)) {                                                    \
        const int64_t nc = cols - c0 < (TILE) ? cols - c0 : (TILE);                                      \
        const T* s = (const T*)src + r0 * lds + c0;                                                      \
        int64_t r = 0;                                                                                   \
        if (w > 1)                                                                                       \
          for (; r + w <= nr; r += w) {                                                                  \
            int64_t c = 0;                                                                               \
            for (; c + w <= nc; c += w)                                                                  \
              transposeWords((const unsigned char*)(s + r * lds + c), (size_t)lds * sizeof(T),           \
                             (unsigned char*)(buf + c * (TILE) + r), (TILE) * sizeof(T), sizeof(T));     \
            for (; c < nc; c++)                                                                          \
              for (int64_t i = r; i < r + w; i++) buf[c * (TILE) + i] = s[i * lds + c];                  \
          }                                                                                              \
        for (; r < nr; r++)                                                                              \
          for (int64_t c = 0; c < nc; c++) buf[c * (TILE) + r] = s[r * lds + c];                         \
        T* d = (T*)dst + c0 * ldd + r0;                                                                  \
        for (int64_t c = 0; c < nc; c++) memcpy(d + c * ldd, buf + c * (TILE), (size_t)nr * sizeof(T)); \
      }                                                                                                  \
    }                                                                                                    \
  } while (0)

/* 16-byte entries (and sizes without a typed path): tiles of 32 x 32 moved in place (a tile's
 * source and destination row pieces stay in L1; staging them measured no faster for 16 bytes). */
#define DTR_TILE_WIDE 32

void dtrHostTranspose(const void* src, int64_t lds, void* dst, int64_t ldd, int64_t rows, int64_t cols,
                      size_t e) {
  switch (e) {
    case 1: DTR_STAGED(uint8_t, 128); return;
    case 2: DTR_STAGED(uint16_t, 64); return;
    case 4: DTR_STAGED(uint32_t, 64); return;
    case 8: DTR_STAGED(uint64_t, 32); return;
    default: break;
  }
  for (int64_t r0 = 0; r0 < rows; r0 += DTR_TILE_WIDE) {
    const int64_t r1 = r0 + DTR_TILE_WIDE < rows ? r0 + DTR_TILE_WIDE : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += DTR_TILE_WIDE) {
      const int64_t c1 = c0 + DTR_TILE_WIDE < cols ? c0 + DTR_TILE_WIDE : cols;
      for (int64_t r = r0; r < r1; r++)
        for (int64_t c = c0; c < c1; c++) {
          if (e == 16) ((Entry16*)dst)[c * ldd + r] = ((const Entry16*)src)[r * lds + c];
          else memcpy((char*)dst + (size_t)(c * ldd + r) * e, (const char*)src + (size_t)(r * lds + c) * e, e);
        }
    }
  }
}

void dtrHostCopy2d(const void* src, int64_t lds, void* dst, int64_t ldd, int64_t rows, int64_t row_entries,
                   size_t e) {
  for (int64_t r = 0; r < rows; r++)
    memcpy((char*)dst + (size_t)(r * ldd) * e, (const char*)src + (size_t)(r * lds) * e, (size_t)row_entries * e);
}

void dtrHostBlock(const void* src, void* dst, dtrBlock b, size_t e) {
  if (!b.rows || !b.cols) return;
  for (int64_t k = 0; k < b.batch; k++) {
    const char* s = (const char*)src + (size_t)(b.src_offset + k * b.src_stride) * e;
    char* d = (char*)dst + (size_t)(b.dst_offset + k * b.dst_stride) * e;
    if (b.transpose) dtrHostTranspose(s, b.src_ld, d, b.dst_ld, b.rows, b.cols, e);
    else dtrHostCopy2d(s, b.src_ld, d, b.dst_ld, b.rows, b.cols, e);
  }
}
