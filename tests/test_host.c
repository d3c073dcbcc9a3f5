/* Host pieces of the library and its tools: the verification pattern, the host transpose of the cpu
 * backend, the summary of execute timelines, and the one-trip FFT kernel's host side (which layouts it
 * takes, its table of twiddles). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis_launch.h"
#include "backends/cpu/host_transpose.h"
#include "backends/gpu/timeline.h"
#include "check.h"
#include "disttranspose.h"
#include "support/pattern.h"
#include "support/pattern_host.h"

static void testPatternAndHostTranspose(void) {
  const size_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 24, 40};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    const size_t e = sizes[si];
    const int64_t rows = 37, cols = 53;
    uint8_t* a = malloc(rows * cols * e);
    uint8_t* b = malloc(rows * cols * e);
    dtrHostPatternFill(a, rows, cols, 0, e);
    dtrHostPatternPoison(b, cols, rows, 0, cols, e);
    /* The poison differs from the expected value in every byte. */
    int same = 0;
    for (int64_t x = 0; x < rows * cols; x++)
      for (size_t y = 0; y < e; y++) same += b[x * e + y] == dtrPatternByte(x % rows, x / rows, cols, y);
    EXPECT(same == 0, "e=%zu: poison equals the expected byte %d times", e, same);
    EXPECT(dtrHostPatternCheck(b, cols, rows, 0, cols, e) == (uint64_t)(rows * cols), "e=%zu: poison not all wrong", e);
    dtrHostTranspose(a, cols, b, rows, rows, cols, e);
    EXPECT(dtrHostPatternCheck(b, cols, rows, 0, cols, e) == 0, "e=%zu: host transpose wrong", e);
    b[(5 * rows + 7) * e + e - 1] ^= 0x10;  /* one flipped bit is one wrong entry */
    EXPECT(dtrHostPatternCheck(b, cols, rows, 0, cols, e) == 1, "e=%zu: a flipped bit not caught", e);
    free(a);
    free(b);
  }
}

/* The host transpose over several tiles, at pitches wider than the matrix: every entry where it
 * belongs, every padding byte of the destination untouched. Sides at and around the tiles (32-128
 * entries) and the register blocks (2-8 entries); entries of the typed paths and of others. */
static void testHostTransposeShapes(void) {
  const size_t sizes[] = {1, 2, 3, 4, 8, 16};
  const int64_t sides[] = {1, 7, 8, 9, 64, 129, 257};
  const int ns = (int)(sizeof sides / sizeof sides[0]);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int i = 0; i < ns; i++)
      for (int j = 0; j < ns; j++) {
        const size_t e = sizes[si];
        const int64_t rows = sides[i], cols = sides[j], lds = cols + 3, ldd = rows + 5;
        uint8_t* a = malloc((size_t)(rows * lds) * e);
        uint8_t* b = malloc((size_t)(cols * ldd) * e);
        for (size_t x = 0; x < (size_t)(rows * lds) * e; x++) a[x] = (uint8_t)(x * 2654435761u >> 13);
        memset(b, 0xA5, (size_t)(cols * ldd) * e);
        dtrHostTranspose(a, lds, b, ldd, rows, cols, e);
        int64_t wrong = 0, touched = 0;
        for (int64_t c = 0; c < cols; c++)
          for (int64_t r = 0; r < ldd; r++) {
            const uint8_t* got = b + (size_t)(c * ldd + r) * e;
            if (r < rows) wrong += memcmp(got, a + (size_t)(r * lds + c) * e, e) != 0;
            else
              for (size_t y = 0; y < e; y++) touched += got[y] != 0xA5;
          }
        EXPECT(wrong == 0 && touched == 0, "e=%zu %lldx%lld: %lld wrong entries, %lld padding bytes written", e,
               (long long)rows, (long long)cols, (long long)wrong, (long long)touched);
        free(a);
        free(b);
      }
}

/* One execute of two rounds as the NCCL backend records it: first packs 0..100, round 0's messages
 * 105..500 beside round 1's packs and the own block, round 1's 505..900 beside round 0's unpacks,
 * round 1's unpacks 900..990, the end at `end`. */
static void timelineRecord(float* rec, float end) {
  const int n = 2;
  for (size_t i = 0; i < dtrTimelineRecordFloats(n); i++) rec[i] = -1;
  rec[0] = end;
  const struct { dtrMarkKind kind; int round; float at; } marks[] = {
      {dtrMarkPackBegin, 0, 0},      {dtrMarkPackEnd, 0, 100},     {dtrMarkSendBegin, 0, 105},
      {dtrMarkPackBegin, 1, 100},    {dtrMarkPackEnd, 1, 180},     {dtrMarkOwnBegin, 0, 110},
      {dtrMarkOwnEnd, 0, 400},       {dtrMarkArrived, 0, 500},     {dtrMarkSendBegin, 1, 505},
      {dtrMarkUnpackBegin, 0, 500},  {dtrMarkUnpackEnd, 0, 590},   {dtrMarkArrived, 1, 900},
      {dtrMarkUnpackBegin, 1, 900},  {dtrMarkUnpackEnd, 1, 990}};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) *dtrTimelineAt(rec, n, marks[i].kind, marks[i].round) = marks[i].at;
}

static void testTimelineSummary(void) {
  const int n = 2;
  const size_t stride = dtrTimelineRecordFloats(n);
  float rec[6 * (1 + dtrMarkKinds * 2)];
  EXPECT(stride * 6 <= sizeof rec / sizeof rec[0], "record buffer too small");
  /* Three warm-up executes (left out), then ends of 1000, 2000 and 1010: the median is 1010. */
  const float ends[6] = {9000, 9000, 9000, 1000, 2000, 1010};
  for (int i = 0; i < 6; i++) timelineRecord(rec + stride * i, ends[i]);
  *dtrTimelineAt(rec, n, dtrMarkSendBegin, 0) = 5000; /* a warm-up outlier that must not count */
  dtrTimelineSummary s;
  dtrTimelineSummarize(rec, 6, n, &s);
  EXPECT(s.executes == 3, "%d executes summarized", s.executes);
  EXPECT(s.total == 1010, "total %g", s.total);
  EXPECT(s.head == 105 && s.exchange == 795, "head %g exchange %g", s.head, s.exchange);
  EXPECT(s.tail == 110, "tail %g (ends 1000, 2000, 1010 after the arrival at 900)", s.tail);
  EXPECT(s.message[0] == 395 && s.message[1] == 395, "messages %g %g", s.message[0], s.message[1]);
  EXPECT(s.pack[0] == 100 && s.pack[1] == 80, "packs %g %g", s.pack[0], s.pack[1]);
  EXPECT(s.unpack[0] == 90 && s.unpack[1] == 90, "unpacks %g %g", s.unpack[0], s.unpack[1]);
  EXPECT(s.own == 290, "own %g", s.own);
  EXPECT(s.local == 650, "local %g", s.local);
  EXPECT(s.hidden == 650 - 105 - 110, "hidden %g", s.hidden);
  char text[1024];
  dtrTimelineFormat(&s, "nccl 8 x 8 fp32, 2 ranks, 2 stages", text, sizeof text);
  EXPECT(strstr(text, "nccl 8 x 8 fp32, 2 ranks, 2 stages: 3 executes"), "%s", text);
  EXPECT(strstr(text, "execute 1010.0 = before the first message 105.0 + exchange 795.0 + after the last arrival 110.0"),
         "%s", text);
  EXPECT(strstr(text, "messages by round: 395.0, 395.0"), "%s", text);
  EXPECT(strstr(text, "local passes 650.0, of which 435.0 (67 %) beside the exchange"), "%s", text);

  /* Without messages (one rank): nothing overlaps, the whole execute is "before the first message". */
  float one[1 + dtrMarkKinds];
  for (int i = 0; i < 1 + dtrMarkKinds; i++) one[i] = -1;
  one[0] = 50;
  *dtrTimelineAt(one, 1, dtrMarkOwnBegin, 0) = 1;
  *dtrTimelineAt(one, 1, dtrMarkOwnEnd, 0) = 49;
  dtrTimelineSummarize(one, 1, 1, &s);
  EXPECT(s.executes == 1 && s.total == 50 && s.head == 50 && s.exchange == 0 && s.tail == 0, "one rank: %g %g %g %g",
         s.total, s.head, s.exchange, s.tail);
  EXPECT(s.own == 48 && s.local == 48 && s.hidden == 0, "one rank: own %g local %g hidden %g", s.own, s.local, s.hidden);
  /* In place: the own block's copy into the stash and its transpose back both count. */
  float inplace[1 + dtrMarkKinds];
  for (int i = 0; i < 1 + dtrMarkKinds; i++) inplace[i] = -1;
  inplace[0] = 100;
  *dtrTimelineAt(inplace, 1, dtrMarkOwnBegin, 0) = 10;
  *dtrTimelineAt(inplace, 1, dtrMarkOwnEnd, 0) = 30;
  *dtrTimelineAt(inplace, 1, dtrMarkUnstashBegin, 0) = 70;
  *dtrTimelineAt(inplace, 1, dtrMarkUnstashEnd, 0) = 95;
  dtrTimelineSummarize(inplace, 1, 1, &s);
  EXPECT(s.own == 45, "in place: own %g", s.own);
  /* A one-pass (p2p) execute: the barrier passed at 12, the pass done at 80, the end at 90. */
  float pass[1 + dtrMarkKinds];
  for (int i = 0; i < 1 + dtrMarkKinds; i++) pass[i] = -1;
  pass[0] = 90;
  *dtrTimelineAt(pass, 1, dtrMarkPeersReady, 0) = 12;
  *dtrTimelineAt(pass, 1, dtrMarkPassEnd, 0) = 80;
  dtrTimelineSummarize(pass, 1, 1, &s);
  EXPECT(s.onePass && s.beforePass == 12 && s.pass == 68 && s.afterPass == 10, "one pass: %d %g %g %g", s.onePass,
         s.beforePass, s.pass, s.afterPass);
  dtrTimelineFormat(&s, "p2p 8 x 8 fp32, 2 ranks", text, sizeof text);
  EXPECT(strstr(text, "execute 90.0 = before the pass 12.0 (every rank begun) + one pass 68.0 + after the pass 10.0"),
         "%s", text);
  EXPECT(!strstr(text, "messages"), "%s", text);
  /* Nothing to summarize. */
  dtrTimelineSummarize(one, 0, 1, &s);
  EXPECT(s.executes == 0 && s.total == 0, "empty: %d %g", s.executes, s.total);
}

/* The layouts the one-trip kernel takes (axis_launch.h): each side packed (a line's points adjacent) or
 * side by side (consecutive lines adjacent), any mix of the two (a pass that transposes), n a power of
 * two from 8 to 4096 with enough lines a block where a side is side by side; one field. */
static void testOneTripLayouts(void) {
  for (int dbl = 0; dbl < 2; dbl++) {
    for (int64_t n = 2; n <= 8192; n *= 2) {
      const dtrAxisRows one = {n, 100, 1, 1, 1, dbl, 1};
      const dtrAxisSide packed = {n, n, 1}, planes = {1, n, 4096}, zPencil = {n, n, 1};
      const int power = n >= 8 && n <= 4096;
      EXPECT(dtrAxisOneTripFits(&one, packed, packed) == power, "n=%lld dbl=%d: packed lines", (long long)n, dbl);
      /* A slab's pass along z: the planes' lines side by side in, the Z-pencil's packed out (and back);
       * side by side needs two lines a block of at most 512 threads: n <= 2048. */
      const int sideBySide = n >= 8 && n <= 2048;
      EXPECT(dtrAxisOneTripFits(&one, planes, zPencil) == sideBySide, "n=%lld dbl=%d: transposing, forward", (long long)n, dbl);
      EXPECT(dtrAxisOneTripFits(&one, zPencil, planes) == sideBySide, "n=%lld dbl=%d: transposing, inverse", (long long)n, dbl);
      /* A plane's columns: lines of a unit side by side on both sides. */
      const dtrAxisRows columns = {n, 4, 64, 1, 1, dbl, 1};
      const dtrAxisSide plane = {64 * n, 1, 64};
      EXPECT(dtrAxisOneTripFits(&columns, plane, plane) == sideBySide, "n=%lld dbl=%d: columns", (long long)n, dbl);
      /* Lines neither packed nor side by side, and several fields (the caller's view makes them lines). */
      const dtrAxisSide apart = {3, n, 5};
      EXPECT(!dtrAxisOneTripFits(&one, apart, packed) && !dtrAxisOneTripFits(&one, packed, apart), "n=%lld: lines apart", (long long)n);
      const dtrAxisRows fields = {n, 100, 1, 3, 1, dbl, 1};
      EXPECT(!dtrAxisOneTripFits(&fields, packed, packed), "n=%lld: fields", (long long)n);
    }
  }
}

/* The one-trip kernel's table, against its definition: each radix-8 pass of p > 1 points a butterfly
 * in the order the kernel runs them (a radix-2 or radix-4 pass first where log2 n is not a multiple of 3)
 * holds exp(-2 pi i q k / 8p) at (q - 1) p + k, the passes' blocks one after the other from entry 0, all
 * within n entries; W[k] = exp(-i pi k / 2n) from entry n. */
static void testOneTripTable(void) {
  const double pi = 3.14159265358979323846;
  for (int dbl = 0; dbl < 2; dbl++) {
    for (int64_t n = 8; n <= 4096; n *= 2) {
      void* table = malloc(dtrAxisOneTripTableBytes(n, dbl));
      dtrAxisOneTripTable(n, dbl, table);
      const double tolerance = dbl ? 1e-15 : 1e-7;
      double worst = 0;
      const double complex* d = table;
      const float complex* f = table;
      int logn = 0;
      while (((int64_t)1 << logn) < n) logn++;
      int64_t at = 0;
      for (int64_t p = logn % 3 == 1 ? 2 : logn % 3 == 2 ? 4 : 1; 8 * p <= n; p *= 8) {
        for (int64_t q = 1; p > 1 && q < 8; q++)
          for (int64_t k = 0; k < p; k++, at++) {
            const double complex want = cexp(-2.0 * pi * I * (double)(q * k) / (double)(8 * p));
            const double complex got = dbl ? d[at] : (double complex)f[at];
            worst = fmax(worst, cabs(got - want));
          }
      }
      EXPECT(at < n, "n=%lld: the passes' twiddles take %lld entries, past the W at n", (long long)n, (long long)at);
      for (int64_t k = 0; k < n; k++) {
        const double complex want = cexp(-I * pi * (double)k / (double)(2 * n));
        const double complex got = dbl ? d[n + k] : (double complex)f[n + k];
        worst = fmax(worst, cabs(got - want));
      }
      EXPECT(worst <= tolerance, "n=%lld dbl=%d: table off its definition by %.3g", (long long)n, dbl, worst);
      free(table);
    }
  }
}

int main(void) {
  testPatternAndHostTranspose();
  testHostTransposeShapes();
  testTimelineSummary();
  testOneTripLayouts();
  testOneTripTable();
  return dtrTestEnd("host");
}
