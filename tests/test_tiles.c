/* The tile layout of the vector kernels, emulated on the host for every element size and share, and
 * the order in which a grid visits the tiles. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "disttranspose.h"
#include "stage_emulation.h"
#include "support/pattern.h"
#include "tile_layout.h"

/* The layout's promises, for every element size and share: exact transpose, every chunk of the
 * stage read once and of the result written once, no bank conflicts within a quarter-warp. */
static void testTileLayout(void) {
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (size_t si = 0; si < 5; si++) {
    const uint32_t s = sizes[si], T = dtrTileRows(s), m = dtrVecElems(s);
    for (uint32_t cs = 1; cs <= 4; cs *= 2) {
      if (cs > 1 && !dtrMulticastClusterFits(s, cs)) continue;
      const uint32_t bytes = cs * T * 128, na = T / (m * cs);
      uint8_t* logical = malloc(bytes);
      uint8_t* stage = malloc(bytes);
      uint8_t* result = malloc(T * 128);
      for (uint32_t i = 0; i < bytes; i++) logical[i] = (uint8_t)dtrMix64(i);
      dtrSwizzleStage(logical, stage, T, cs);
      for (uint32_t q = 0; q < cs; q++) {
        memset(result, 0, T * 128);
        dtrEmulateShare(stage, result, s, T, na, q * na, cs);
        /* Result row j (source column j of the stage) holds source rows q*na*m .. of that column. */
        const uint32_t rowsOut = cs * dtrBoxElems(s), regionRows = rowsOut;
        int bad = 0;
        for (uint32_t j = 0; j < rowsOut; j++)
          for (uint32_t i = 0; i < na * m; i++) {
            const uint32_t srcRow = q * na * m + i, srcByte = j * s;
            const uint32_t region = i / (8 * m), inRegion = i % (8 * m);
            const uint32_t off = region * regionRows * 128 + dtrSwizzle128(j, inRegion / m) + (inRegion % m) * s;
            bad += memcmp(result + off, logical + srcRow * 128 * cs + srcByte, s) != 0;
          }
        EXPECT(bad == 0, "s=%u cs=%u share %u: %d elements misplaced", s, cs, q, bad);
      }
      /* Coverage and bank conflicts of one share. */
      const uint32_t items = dtrShareItems(na, cs);
      uint8_t* readCount = calloc(bytes / 16, 1);
      uint8_t* writeCount = calloc(T * 128 / 16, 1);
      int conflicts = 0;
      for (uint32_t w0 = 0; w0 < items; w0 += 8)
        for (uint32_t k = 0; k < m; k++) {
          uint32_t seenR = 0, seenW = 0;
          for (uint32_t w = w0; w < w0 + 8; w++) {
            dtrMicroBlock mb = dtrMicroBlockOf(w, s, na);
            uint32_t r = dtrSrcOffset(s, T, mb, 0, k), d = dtrDstOffset(s, cs, mb, k);
            readCount[r / 16]++;
            writeCount[d / 16]++;
            seenR |= 1u << ((r / 16) % 8);
            seenW |= 1u << ((d / 16) % 8);
          }
          conflicts += (seenR != 0xff) + (seenW != 0xff);
        }
      int rc = 0, wc = 0;
      /* Share 0 reads rows 0 .. na*m-1 of every box once, and nothing else. */
      for (uint32_t i = 0; i < bytes / 16; i++) rc += readCount[i] != ((i % (T * 8)) / 8 < na * m);
      for (uint32_t i = 0; i < T * 8; i++) wc += writeCount[i] != 1;
      EXPECT(conflicts == 0, "s=%u cs=%u: %d quarter-warp phases with bank conflicts", s, cs, conflicts);
      EXPECT(rc == 0, "s=%u cs=%u: %d stage chunks not read exactly as often as the share needs", s, cs, rc);
      EXPECT(wc == 0, "s=%u cs=%u: %d result chunks not written exactly once", s, cs, wc);
      free(readCount);
      free(writeCount);
      free(logical);
      free(stage);
      free(result);
    }
  }
  /* The swizzle: chunk c of row r moves to chunk c ^ (r % 8), within its row. */
  EXPECT(dtrSwizzle128(0, 3) == 48 && dtrSwizzle128(1, 0) == 128 + 16 && dtrSwizzle128(9, 7) == 9 * 128 + 6 * 16, "swizzle");
  EXPECT(dtrMulticastClusterFits(4, 4) && dtrMulticastClusterFits(1, 2) && !dtrMulticastClusterFits(1, 4) &&
             !dtrMulticastClusterFits(2, 4) && dtrMulticastClusterFits(16, 4),
         "cluster fits");
}

/* The tile order visits every tile exactly once, whatever the group width. */
static void testTileOrder(void) {
  const uint32_t dims[][2] = {{1, 1}, {7, 3}, {8, 8}, {13, 5}, {100, 1}, {1, 100}, {33, 17}};
  const uint32_t groups[] = {1, 2, 8, 32, 1000};
  for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
    for (size_t g = 0; g < 5; g++) {
      const uint32_t X = dims[d][0], Y = dims[d][1];
      uint8_t* seen = calloc((size_t)X * Y, 1);
      int bad = 0;
      for (uint64_t t = 0; t < (uint64_t)X * Y; t++) {
        uint32_t tx, ty;
        dtrTileOrder(t, X, Y, groups[g], &tx, &ty);
        if (tx >= X || ty >= Y || seen[(size_t)ty * X + tx]++) bad++;
      }
      EXPECT(bad == 0, "tile order %ux%u group %u: %d tiles out of range or repeated", X, Y, groups[g], bad);
      free(seen);
    }
  uint32_t tx, ty;
  dtrTileOrder(9, 16, 4, 8, &tx, &ty);
  EXPECT(tx == 1 && ty == 1, "group of 8: tile 9 is (%u, %u), expected (1, 1)", tx, ty);
}

int main(void) {
  testTileLayout();
  testTileOrder();
  return dtrTestEnd("tiles");
}
