#include "pattern_host.h"

#include "pattern.h"

void dtrHostPatternFill(void* slab, int64_t rows, int64_t cols, int64_t row_start, size_t e) {
  uint8_t* p = slab;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++, p += e)
      for (size_t b = 0; b < e; b++) p[b] = dtrPatternByte(row_start + r, c, cols, b);
}

void dtrHostPatternPoison(void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols, size_t e) {
  uint8_t* p = slab;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++, p += e)
      for (size_t b = 0; b < e; b++) p[b] = (uint8_t)~dtrPatternByte(c, row_start + r, a_cols, b);
}

uint64_t dtrHostPatternCheck(const void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols, size_t e) {
  const uint8_t* p = slab;
  uint64_t wrong = 0;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++, p += e) {
      int ok = 1;
      for (size_t b = 0; b < e; b++) ok &= (p[b] == dtrPatternByte(c, row_start + r, a_cols, b));
      wrong += !ok;
    }
  return wrong;
}
