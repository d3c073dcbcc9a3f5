/*
 * A CPU emulation of the vector kernels' shared-memory step, built from tile_layout.h alone: the
 * unit tests check it against the logical transpose, and the GPU test checks that the kernels'
 * raw swizzled output matches it byte for byte.
 */
#ifndef DTR_STAGE_EMULATION_H
#define DTR_STAGE_EMULATION_H

#include <stdint.h>
#include <string.h>

#include "tile_layout.h"

/* Transposes the share (na micro-rows from a0, nbox boxes) of `stage` into `result`, the way
 * transposeShare does. */
static inline void dtrEmulateShare(const uint8_t* stage, uint8_t* result, uint32_t s, uint32_t tile_rows, uint32_t na,
                                   uint32_t a0, uint32_t nbox) {
  const uint32_t m = dtrVecElems(s);
  for (uint32_t w = 0; w < dtrShareItems(na, nbox); w++) {
    dtrMicroBlock mb = dtrMicroBlockOf(w, s, na);
    uint8_t in[16][16];
    for (uint32_t k = 0; k < m; k++) memcpy(in[k], stage + dtrSrcOffset(s, tile_rows, mb, a0, k), 16);
    for (uint32_t j = 0; j < m; j++) {
      uint8_t out[16];
      for (uint32_t i = 0; i < m; i++) memcpy(out + i * s, in[i] + j * s, s);
      memcpy(result + dtrDstOffset(s, nbox, mb, j), out, 16);
    }
  }
}

/* Logical source tile (tile_rows x 128*nbox bytes, row-major) into the swizzled stage layout. */
static inline void dtrSwizzleStage(const uint8_t* logical, uint8_t* stage, uint32_t tile_rows, uint32_t nbox) {
  for (uint32_t b = 0; b < nbox; b++)
    for (uint32_t r = 0; r < tile_rows; r++)
      for (uint32_t c = 0; c < 8; c++)
        memcpy(stage + b * tile_rows * 128 + dtrSwizzle128(r, c), logical + r * 128 * nbox + b * 128 + c * 16, 16);
}

#endif
