#include "host_transpose.h"

#include <string.h>

/* Tiles of 32 x 32 entries: a tile's source rows and destination rows stay in L1 while it moves. */
#define DTR_HOST_TILE 32

/* A 16-byte entry (c128, c64 x 2) as one copyable value, so that it moves as two words rather than
 * through a memcpy call per entry. */
typedef struct {
  uint64_t w[2];
} Entry16;

#define DTR_TILE_LOOP(T)                                                            \
  for (int64_t r = r0; r < r1; r++)                                                 \
    for (int64_t c = c0; c < c1; c++) ((T*)dst)[c * ldd + r] = ((const T*)src)[r * lds + c];

void dtrHostTranspose(const void* src, int64_t lds, void* dst, int64_t ldd, int64_t rows, int64_t cols,
                      size_t e) {
  for (int64_t r0 = 0; r0 < rows; r0 += DTR_HOST_TILE) {
    const int64_t r1 = r0 + DTR_HOST_TILE < rows ? r0 + DTR_HOST_TILE : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += DTR_HOST_TILE) {
      const int64_t c1 = c0 + DTR_HOST_TILE < cols ? c0 + DTR_HOST_TILE : cols;
      /* Typed copies for the common sizes (memcpy is the same bits; the compiler vectorises these). */
      switch (e) {
        case 1: DTR_TILE_LOOP(uint8_t); break;
        case 2: DTR_TILE_LOOP(uint16_t); break;
        case 4: DTR_TILE_LOOP(uint32_t); break;
        case 8: DTR_TILE_LOOP(uint64_t); break;
        case 16: DTR_TILE_LOOP(Entry16); break;
        default:
          for (int64_t r = r0; r < r1; r++)
            for (int64_t c = c0; c < c1; c++)
              memcpy((char*)dst + (size_t)(c * ldd + r) * e, (const char*)src + (size_t)(r * lds + c) * e, e);
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
