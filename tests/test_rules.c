/* The rules that pick a path by size: the NCCL backend's stages, auto's backend inside a host, the
 * p2p groups' width and the vector kernels' eligibility. */
#include <stdlib.h>
#include <string.h>

#include "backends/nccl/stage_rule.h"
#include "backends/p2p/p2p_rule.h"
#include "check.h"
#include "core/geometry.h"
#include "disttranspose.h"
#include "fast_divide.h"
#include "fft/fft_plan.h"
#include "tile_layout.h"

/* The NCCL backend's stages by size: the tiers of bytes a peer (registered) and per rank (not), and
 * one stage wherever a piece would be unaligned. */
static void testStageRule(void) {
  const int64_t K = 1024;
  struct {
    int64_t rows, cols;
    size_t e;
    int ranks, registered, segmentAlign, want;
  } cases[] = {
    /* Segment rows padded to 16 bytes, as plans have them by default. */
    {16384, 8192, 4, 2, 1, 16, 2},   /* 256 MiB a rank on 2: 128 MiB a peer */
    {11585, 11585, 4, 2, 1, 16, 2},  /* the same bytes at odd sides */
    {16384, 16384, 4, 4, 1, 16, 1},  /* 256 MiB a rank on 4: 64 MiB a peer */
    {32768, 32768, 4, 4, 1, 16, 2},  /* 1 GiB a rank on 4: 256 MiB a peer */
    {32768, 32768, 4, 2, 1, 16, 2},  /* 2 GiB a rank on 2: 1 GiB a peer */
    {46340, 46340, 4, 2, 1, 16, 4},  /* 4 GiB a rank on 2: 2 GiB a peer */
    {64 * K, 64 * K, 8, 4, 1, 16, 4}, /* 8 GiB a rank on 4: 2 GiB a peer */
    {8192, 8192, 4, 2, 1, 16, 1},    /* 128 MiB a rank on 2: 64 MiB a peer */
    {46340, 46340, 4, 2, 0, 16, 2},  /* unregistered: two from 2 GiB a rank */
    {16384, 16384, 8, 2, 0, 16, 1},  /* unregistered, 1 GiB a rank */
    /* Packed segment rows: the odd side's pieces are off 16 bytes, so one stage at any size. */
    {46340, 46340, 4, 2, 1, 1, 1},
    {46340, 46340, 4, 2, 0, 1, 1},
    {32768, 32768, 4, 2, 1, 1, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dtrGeometry g = dtrGeometryMatrix(cases[i].rows, cases[i].cols, cases[i].e, cases[i].ranks);
    g.segment_align = cases[i].segmentAlign;
    const int got = dtrStagesBySize(&g, cases[i].registered);
    EXPECT(got == cases[i].want, "stages for %lld x %lld x %zu B on %d ranks, registered %d, segment rows to %d B: %d, expected %d",
           (long long)cases[i].rows, (long long)cases[i].cols, cases[i].e, cases[i].ranks, cases[i].registered,
           cases[i].segmentAlign, got, cases[i].want);
  }
}

/* auto's rule inside a host: NCCL for result-row pieces of 16-32 bytes from 32 MiB a rank, p2p
 * elsewhere (narrower and wider pieces, smaller sizes, few columns). */
static void testBackendRule(void) {
  const int64_t M = 1024 * 1024;
  struct {
    int64_t rows, cols, batch;
    size_t e;
    int ranks, wantP2p;
  } cases[] = {
    {16, 16 * M, 1, 4, 2, 0},    /* 8 rows a rank: 32-byte pieces, 512 MiB a rank */
    {8, 32 * M, 1, 4, 2, 0},     /* 16-byte pieces */
    {64, 16 * M, 1, 1, 2, 0},    /* int8, 32 rows a rank */
    {4, 64 * M, 1, 4, 2, 1},     /* 8-byte pieces */
    {32, 8 * M, 1, 4, 2, 1},     /* 64-byte pieces */
    {16, 1 * M, 1, 4, 2, 0},     /* 32 MiB a rank */
    {16, 512 * 1024, 1, 4, 2, 1}, /* 16 MiB a rank */
    {16 * M, 16, 1, 4, 2, 1},    /* few columns: long pieces */
    {32, 16 * M, 1, 4, 4, 0},    /* 8 rows a rank on 4 ranks */
    {17, 16 * M, 1, 4, 2, 1},    /* 9 and 8 rows: the widest piece, 36 bytes */
    {16, 1 * M, 16, 4, 2, 0},    /* a batch of 16: 512 MiB a rank */
    {8192, 8192, 1, 4, 2, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dtrGeometry g = dtrGeometryMatrix(cases[i].rows, cases[i].cols, cases[i].e, cases[i].ranks);
    g.batch = cases[i].batch;
    const int got = dtrP2pSuitsShape(&g);
    EXPECT(got == cases[i].wantP2p, "p2p suits %lld x %lld (batch %lld) x %zu B on %d ranks: %d, expected %d",
           (long long)cases[i].rows, (long long)cases[i].cols, (long long)cases[i].batch, cases[i].e, cases[i].ranks,
           got, cases[i].wantP2p);
  }
}

/* The p2p groups' order: whole rows for short columns, narrower groups for wide result spans. */
static void testGroupWidth(void) {
  const uint64_t MiB = 1u << 20, limit = 40 * MiB;
  const struct {
    uint32_t group, tilesY, blocks;
    uint64_t span;
    uint32_t expected;
  } cases[] = {
      {8, 4, 64, 1000 * 128, UINT32_MAX},     /* int8 1000 x N on 2 ranks: 4 tiles down */
      {1, 8, 64, 0, UINT32_MAX},              /* fp32 1000 x N, word group: no span rule */
      {8, 128, 64, 128 * 32749ull, 8},        /* int8 32749^2: 4 MiB a column */
      {8, 181, 64, 128 * 46341ull, 4},        /* int8 46341^2: 6 MiB */
      {8, 8389, 64, 128 * 134217ull, 2},      /* int8 134217 x 8000: 16 MiB */
      {8, 2098, 64, 128 * 268435ull, 1},      /* int8 268435 x 4000: 33 MiB */
      {8, 4195, 64, 128 * 1073741ull, 1},     /* int8 1073741 x 1000: 131 MiB, never below 1 */
      {8, 100, 64, 0, 8},                     /* no span given: t's group */
      {0, 100, 64, 0, 1},                     /* group 0 reads as 1 */
      {8, 8, 64, 5 * MiB, 8},                 /* 8 x 8 = 64 tiles: not short */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const uint32_t got = dtrGroupWidth(cases[i].group, cases[i].tilesY, cases[i].blocks, cases[i].span, limit);
    EXPECT(got == cases[i].expected, "group width case %zu: %u, expected %u", i, got, cases[i].expected);
  }
}

static void testVectorRules(void) {
  EXPECT(dtrVectorEligible(256, 1024, 512, 4096, 100, 100, 4), "aligned");
  EXPECT(!dtrVectorEligible(260, 1024, 512, 4096, 100, 100, 4), "src address not 16-byte aligned");
  EXPECT(!dtrVectorEligible(256, 1028, 512, 4096, 100, 100, 4), "pitch not a multiple of 16");
  EXPECT(!dtrVectorEligible(256, 1024, 512, 4100, 100, 100, 4), "dst pitch not a multiple of 16");
  EXPECT(!dtrVectorEligible(256, 1024, 512, 4096, 100, 100, 12), "element of 12 bytes");
  EXPECT(!dtrVectorEligible(256, (uint64_t)1 << 40, 512, 4096, 100, 100, 4), "pitch of 2^40");
  EXPECT(!dtrVectorEligible(256, 1024, 512, 4096, (uint64_t)1 << 30, 100, 4), "dimension beyond 32-bit coordinates");
  EXPECT(dtrVectorEligible(0x1000, 16, 0x2000, 16, 1, 1, 16), "1x1 of 16 bytes");
}

/* The FFT's rules: chunks by size on the slab route, NCCL's fixed count, one elsewhere; the slab
 * route's copy streams (one, the peers in turn) and rounds (enough whole chunks to keep the links
 * busy through the first pass, never fewer than one round). */
static void testFftChunkRule(void) {
  const double MiB = 1024.0 * 1024;
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 2, 512 * MiB) == 4, "slab route, 512 MiB a rank");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 4, 256 * MiB) == 2, "slab route, 256 MiB a rank");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 4, 2048 * MiB) == 8, "slab route, 2 GiB a rank");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 4, 4096 * MiB) == 8, "slab route, 4 GiB a rank: at most 8");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 4, 64 * MiB) == 2, "slab route, 64 MiB a rank: at least 2");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 2, 1024) == 2, "slab route, tiny: 2");
  EXPECT(dtrFftChunksByRule(1, dtrBackendNccl, 4, 256 * MiB) == 4, "slab route over NCCL, 256 MiB a rank");
  EXPECT(dtrFftChunksByRule(1, dtrBackendNccl, 4, 2048 * MiB) == 8, "slab route over NCCL, 2 GiB a rank");
  EXPECT(dtrFftChunksByRule(1, dtrBackendNccl, 4, 64 * MiB) == 2, "slab route over NCCL, 64 MiB a rank: at least 2");
  EXPECT(dtrFftChunksByRule(0, dtrBackendNccl, 2, 512 * MiB) == 4, "nccl");
  EXPECT(dtrFftChunksByRule(0, dtrBackendP2p, 2, 512 * MiB) == 1, "p2p's own chunks");
  EXPECT(dtrFftChunksByRule(0, dtrBackendCpu, 2, 512 * MiB) == 1, "cpu");
  EXPECT(dtrFftChunksByRule(1, dtrBackendP2p, 1, 512 * MiB) == 1, "no peers");
  for (int p = 2; p <= 16; p++) EXPECT(dtrFftCopyLanesByRule(p) == 1, "%d ranks: one copy stream, the peers in turn", p);
  EXPECT(dtrFftPassStreamsByRule(1) == 1, "one chunk: the caller's stream alone");
  for (int c = 2; c <= 64; c++) EXPECT(dtrFftPassStreamsByRule(c) == 2, "%d chunks: passes on two streams", c);
  EXPECT(dtrFftRoundsByRule(4, 16, dtrFftForward) == 5, "4 ranks, 16 chunks, forward");
  EXPECT(dtrFftRoundsByRule(4, 8, dtrFftForward) == 3, "4 ranks, 8 chunks, forward");
  EXPECT(dtrFftRoundsByRule(4, 8, dtrFftInverse) == 5, "4 ranks, 8 chunks, inverse");
  EXPECT(dtrFftRoundsByRule(4, 16, dtrFftInverse) == 10, "4 ranks, 16 chunks, inverse (a lighter first pass)");
  EXPECT(dtrFftRoundsByRule(2, 16, dtrFftForward) == 1, "2 ranks: the first pass outlasts the copies");
  EXPECT(dtrFftRoundsByRule(8, 16, dtrFftForward) == 7, "8 ranks, forward");
  EXPECT(dtrFftRoundsByRule(4, 1, dtrFftForward) == 1, "one chunk: one round");
  /* The delivering pass's rounds: its y pass (two trips over the slab) against the links. */
  EXPECT(dtrFftDeliverRoundsByRule(4, 8) == 5, "delivering, 4 ranks, 8 chunks");
  EXPECT(dtrFftDeliverRoundsByRule(4, 2) == 1, "delivering, 4 ranks, 2 chunks");
  EXPECT(dtrFftDeliverRoundsByRule(4, 4) == 2, "delivering, 4 ranks, 4 chunks");
  EXPECT(dtrFftDeliverRoundsByRule(8, 8) == 5, "delivering, 8 ranks, 8 chunks");
  EXPECT(dtrFftDeliverRoundsByRule(4, 1) == 1, "delivering, one chunk: one round");
  for (int p = 2; p <= 16; p++)
    for (int c = 1; c <= 64; c++) {
      const int r = dtrFftDeliverRoundsByRule(p, c);
      EXPECT(r >= 1 && r <= c, "delivering rounds %d of %d chunks on %d ranks: in [1, chunks]", r, c, p);
      EXPECT(r >= dtrFftRoundsByRule(p, c, dtrFftForward), "delivering rounds %d of %d chunks on %d ranks: at least the copies'", r, c, p);
    }
  for (int p = 2; p <= 16; p++)
    for (int c = 1; c <= 64; c++)
      for (int d = 0; d < 2; d++) {
        const int r = dtrFftRoundsByRule(p, c, d ? dtrFftInverse : dtrFftForward);
        EXPECT(r >= 1 && r <= c, "rounds %d of %d chunks on %d ranks: in [1, chunks]", r, c, p);
      }
}

/* The kernels' division by a launch's divisor: exact against `/` for divisors of every size below 2^31
 * (powers of two, their neighbours, primes, the one-trip kernel's line counts) and dividends at both
 * ends of [0, 2^31) and spread between. */
static void testFastDivide(void) {
  const uint32_t divisors[] = {1, 2, 3, 5, 6, 7, 9, 12, 17, 24, 48, 96, 127, 128, 129, 511, 512, 513, 1536, 3000, 65535,
                               65536, 65537, 1000003, (1u << 30) - 1, 1u << 30, (1u << 30) + 7, 0x7fffffffu};
  int wrong = 0;
  for (unsigned i = 0; i < sizeof divisors / sizeof divisors[0]; i++) {
    const uint32_t d = divisors[i];
    const dtrFastDivisor f = dtrFastDivisorOf(d);
    for (int k = 0; k < 300000; k++) {
      /* the first and last 100000, then a spread by a multiplicative hash */
      const uint32_t n = k < 100000 ? (uint32_t)k : k < 200000 ? 0x7fffffffu - (uint32_t)(k - 100000) : (uint32_t)(k * 2654435761u) & 0x7fffffffu;
      if (dtrFastDivide(n, f) != n / d && wrong++ < 5) EXPECT(0, "%u / %u: %u, not %u", n, d, dtrFastDivide(n, f), n / d);
    }
  }
  for (uint32_t d = 1; d < 4096; d++) {
    const dtrFastDivisor f = dtrFastDivisorOf(d);
    for (uint32_t n = 0; n < 3 * d + 3; n++)
      if (dtrFastDivide(n, f) != n / d && wrong++ < 5) EXPECT(0, "%u / %u: %u, not %u", n, d, dtrFastDivide(n, f), n / d);
    const uint32_t top = 0x7fffffffu - d;
    if (dtrFastDivide(top, f) != top / d && wrong++ < 5) EXPECT(0, "%u / %u wrong", top, d);
  }
  EXPECT(wrong == 0, "fast division: %d wrong quotients", wrong);
}

int main(void) {
  testFastDivide();
  testStageRule();
  testFftChunkRule();
  testBackendRule();
  testGroupWidth();
  testVectorRules();
  return dtrTestEnd("rules");
}
