/* Host logic without MPI or a GPU: the distribution's geometry, option parsing, names, the tile
 * layout of the vector kernels (emulated), the TMA rules, the pattern and the host transpose, and
 * the summary of execute timelines. */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/host_transpose.h"
#include "backends/gpu/timeline.h"
#include "backends/nccl/stage_rule.h"
#include "backends/p2p/p2p_rule.h"
#include "check.h"
#include "core/geometry.h"
#include "core/names.h"
#include "disttranspose.h"
#include "options.h"
#include "stage_emulation.h"
#include "support/pattern.h"
#include "support/pattern_host.h"
#include "tile_layout.h"

static void testSplit(void) {
  for (int64_t n = 1; n < 60; n++)
    for (int p = 1; p < 12; p++) {
      int64_t next = 0, lo = n, hi = 0;
      for (int r = 0; r < p; r++) {
        dtrRange x = dtrSplit(n, p, r);
        EXPECT(x.start == next, "n=%lld p=%d r=%d start %lld, expected %lld", (long long)n, p, r, (long long)x.start, (long long)next);
        next += x.count;
        if (x.count < lo) lo = x.count;
        if (x.count > hi) hi = x.count;
      }
      EXPECT(next == n, "n=%lld p=%d covers %lld", (long long)n, p, (long long)next);
      EXPECT(hi - lo <= 1, "n=%lld p=%d unbalanced %lld..%lld", (long long)n, p, (long long)lo, (long long)hi);
    }
  /* More ranks than rows: the first ranks get one row, the rest none. */
  dtrRange z = dtrSplit(2, 5, 4);
  EXPECT(z.count == 0 && z.start == 2, "split(2,5,4) = {%lld,%lld}", (long long)z.start, (long long)z.count);
  /* Large sizes do not overflow. */
  dtrRange big = dtrSplit((int64_t)1 << 40, 7, 6);
  EXPECT(big.start + big.count == (int64_t)1 << 40, "large split ends at %lld", (long long)(big.start + big.count));
}

static void testExchangeLayout(void) {
  const int64_t shapes[][2] = {{1, 1}, {2, 3}, {7, 5}, {1001, 777}, {3, 17}, {17, 3}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int p = 1; p <= 8; p++) {
      dtrGeometry g = dtrGeometryMatrix(shapes[s][0], shapes[s][1], 4, p);
      int64_t* st = calloc((size_t)4 * p * p, sizeof *st);
      dtrExchangeLayout* l = calloc((size_t)p, sizeof *l);
      int64_t total = 0;
      for (int r = 0; r < p; r++) {
        l[r].send_count = st + 4 * p * r;
        l[r].send_offset = st + 4 * p * r + p;
        l[r].recv_count = st + 4 * p * r + 2 * p;
        l[r].recv_offset = st + 4 * p * r + 3 * p;
        dtrExchangeLayoutFill(&g, r, &l[r]);
      }
      for (int r = 0; r < p; r++) {
        int64_t off = 0;
        for (int q = 0; q < p; q++) {
          EXPECT(l[r].send_count[q] == l[q].recv_count[r], "shape %zu p=%d: %d sends %lld to %d, which expects %lld", s, p, r,
                 (long long)l[r].send_count[q], q, (long long)l[q].recv_count[r]);
          EXPECT(l[r].send_offset[q] == off, "send offsets not contiguous");
          off += l[r].send_count[q];
        }
        EXPECT(off == l[r].send_total, "send total");
        /* The blocks each backend moves add up to the segments, and the self block is the rest. */
        int64_t packed = 0, unpacked = 0;
        for (int q = 0; q < p; q++) {
          dtrBlock k = dtrPackBlock(&g, &l[r], r, q), u = dtrUnpackBlock(&g, &l[r], r, q);
          EXPECT(k.rows * k.cols == l[r].send_count[q] && k.dst_offset == l[r].send_offset[q], "pack block %d->%d", r, q);
          EXPECT(u.rows * u.cols == l[r].recv_count[q] && u.src_offset == l[r].recv_offset[q], "unpack block %d<-%d", r, q);
          EXPECT(q == r || (k.src_offset == dtrOutRows(&g, q).start && u.dst_offset == dtrInRows(&g, q).start),
                 "block offsets %d/%d", r, q);
          packed += k.rows * k.cols;
          unpacked += u.rows * u.cols;
        }
        dtrBlock self = dtrSelfBlock(&g, r);
        EXPECT(packed == l[r].send_total && unpacked == l[r].recv_total, "block totals");
        EXPECT(self.rows * self.cols == dtrInRows(&g, r).count * dtrOutRows(&g, r).count, "self block");
        EXPECT(l[r].send_count[r] == 0 && l[r].recv_count[r] == 0, "self block must not be sent");
        total += l[r].send_total + dtrInRows(&g, r).count * dtrOutRows(&g, r).count;
      }
      /* Pipeline stages: the pieces of a segment follow each other and fill it, each pack and
       * unpack piece covers its piece, and sender and receiver agree on every message's size. */
      const int stageCounts[] = {1, 2, 3, 5, 64};
      for (int si = 0; si < 5; si++) {
        const int n = stageCounts[si];
        for (int r = 0; r < p; r++)
          for (int q = 0; q < p; q++) {
            int64_t sendAt = l[r].send_offset[q], recvAt = l[r].recv_offset[q], cols = 0, rows = 0;
            const dtrBlock whole = dtrPackBlock(&g, &l[r], r, q);
            for (int st = 0; st < n; st++) {
              const dtrRange sp = dtrSendStage(&g, &l[r], r, q, n, st), rp = dtrRecvStage(&g, &l[r], r, q, n, st);
              const dtrBlock k = dtrPackStage(&g, &l[r], r, q, n, st), u = dtrUnpackStage(&g, &l[r], r, q, n, st);
              EXPECT(sp.start == sendAt && rp.start == recvAt, "shape %zu p=%d stages %d: piece %d of %d->%d not in order", s,
                     p, n, st, r, q);
              EXPECT(sp.count == dtrRecvStage(&g, &l[q], q, r, n, st).count,
                     "shape %zu p=%d stages %d: stage %d sends %lld from %d to %d, which expects %lld", s, p, n, st,
                     (long long)sp.count, r, q, (long long)dtrRecvStage(&g, &l[q], q, r, n, st).count);
              EXPECT(k.rows * k.cols == sp.count && k.dst_offset == sp.start && k.rows == whole.rows &&
                         k.src_offset == whole.src_offset + cols,
                     "pack piece %d of %d->%d", st, r, q);
              EXPECT(u.rows * u.cols == rp.count && u.src_offset == rp.start &&
                         (u.rows == 0 || u.dst_offset == dtrUnpackBlock(&g, &l[r], r, q).dst_offset + rows * g.rows),
                     "unpack piece %d of %d<-%d", st, r, q);
              sendAt += sp.count;
              recvAt += rp.count;
              cols += k.cols;
              rows += u.rows;
            }
            EXPECT(sendAt == l[r].send_offset[q] + l[r].send_count[q] && recvAt == l[r].recv_offset[q] + l[r].recv_count[q],
                   "shape %zu p=%d stages %d: pieces of %d<->%d do not fill the segments", s, p, n, r, q);
          }
      }
      EXPECT(total == g.rows * g.cols, "shape %zu p=%d: blocks cover %lld of %lld entries", s, p, (long long)total,
             (long long)(g.rows * g.cols));
      free(st);
      free(l);
    }
  const dtrGeometry even = dtrGeometryMatrix(64, 10, 4, 4), odd = dtrGeometryMatrix(66, 10, 4, 4),
                    wide = dtrGeometryMatrix(66, 10, 16, 4);
  EXPECT(dtrPiecesAligned(&even, 16) && !dtrPiecesAligned(&odd, 16) && dtrPiecesAligned(&wide, 16), "piece alignment");
  dtrGeometry batched = odd;
  batched.batch = 2; /* 66 rows on 4 ranks: 17 or 16 rows, times 2 batches of 4 bytes: 136 or 128 bytes */
  EXPECT(!dtrPiecesAligned(&batched, 16) && dtrPiecesAligned(&batched, 8), "batched piece alignment");
  dtrGeometry padded = odd;
  padded.segment_align = 16;
  EXPECT(dtrPiecesAligned(&padded, 16) && !dtrPiecesAligned(&padded, 32), "padded segment rows");
  dtrGeometry paddedBatch = batched;
  paddedBatch.segment_align = 16;
  EXPECT(dtrPiecesAligned(&paddedBatch, 16), "padded segment rows of a batch");
  EXPECT(dtrGeometryOverflows(1, 1, 1, 16) == 0, "1x1 overflows");
  EXPECT(dtrGeometryOverflows((int64_t)1 << 40, (int64_t)1 << 40, 1, 8) == 1, "2^80 entries accepted");
  EXPECT(dtrGeometryOverflows((int64_t)1 << 31, (int64_t)1 << 31, 1, 16) == 1, "2^66 bytes accepted");
  EXPECT(dtrGeometryOverflows((int64_t)1 << 30, (int64_t)1 << 30, (int64_t)1 << 10, 16) == 1, "2^74 bytes in a batch");
  EXPECT(dtrGeometryOverflows(0, 5, 1, 4) == 1, "zero rows accepted");
}

/* The value of A's entry (k, i, j): its global index, so that B can be checked from the formula. */
static int64_t emulatedEntry(const dtrGeometry* g, int64_t k, int64_t i, int64_t j) { return (k * g->rows + i) * g->cols + j; }

/*
 * Every rank's steps run on the host over slabs of global indices: packs into send segments, each
 * stage's pieces moved from sender to receiver as the exchange would, unpacks and the self block;
 * or, with stages = 0, the one-pass path (every rank's direct blocks into every rank's B). Then every
 * entry of every B is compared with the formula of its layout. Returns wrong entries.
 */
static int64_t emulateTranspose(const dtrGeometry* g, int stages) {
  const int p = g->nranks;
  int64_t** a = calloc((size_t)p, sizeof *a);
  int64_t** b = calloc((size_t)p, sizeof *b);
  int64_t** send = calloc((size_t)p, sizeof *send);
  int64_t** recv = calloc((size_t)p, sizeof *recv);
  int64_t* st = calloc((size_t)4 * p * p, sizeof *st);
  dtrExchangeLayout* l = calloc((size_t)p, sizeof *l);
  const int64_t K = g->batch;
  for (int r = 0; r < p; r++) {
    l[r].send_count = st + 4 * p * r;
    l[r].send_offset = st + 4 * p * r + p;
    l[r].recv_count = st + 4 * p * r + 2 * p;
    l[r].recv_offset = st + 4 * p * r + 3 * p;
    dtrExchangeLayoutFill(g, r, &l[r]);
    const dtrRange in = dtrInRows(g, r);
    a[r] = malloc((size_t)(dtrInEntries(g, r) + 1) * sizeof **a);
    b[r] = malloc((size_t)(dtrOutEntries(g, r) + 1) * sizeof **b);
    send[r] = malloc((size_t)(l[r].send_total + 1) * sizeof **send);
    recv[r] = malloc((size_t)(l[r].recv_total + 1) * sizeof **recv);
    for (int64_t x = 0; x < dtrOutEntries(g, r); x++) b[r][x] = -1;
    for (int64_t k = 0; k < K; k++)
      for (int64_t i = 0; i < in.count; i++)
        for (int64_t j = 0; j < g->cols; j++) {
          const int64_t at = g->batch_layout == dtrBatchOuter ? (k * in.count + i) * g->cols + j : (i * K + k) * g->cols + j;
          a[r][at] = emulatedEntry(g, k, in.start + i, j);
        }
  }
  if (stages == 0)
    for (int r = 0; r < p; r++)
      for (int q = 0; q < p; q++) dtrHostBlock(a[r], b[q], dtrDirectBlock(g, r, q), 8);
  else
    for (int r = 0; r < p; r++) dtrHostBlock(a[r], b[r], dtrSelfBlock(g, r), 8);
  for (int s = 0; s < stages; s++) {
    for (int r = 0; r < p; r++)
      for (int q = 0; q < p; q++) dtrHostBlock(a[r], send[r], dtrPackStage(g, &l[r], r, q, stages, s), 8);
    for (int r = 0; r < p; r++)
      for (int q = 0; q < p; q++) {
        const dtrRange sp = dtrSendStage(g, &l[r], r, q, stages, s), rp = dtrRecvStage(g, &l[q], q, r, stages, s);
        EXPECT(sp.count == rp.count, "stage %d: %d sends %lld to %d, which expects %lld", s, r, (long long)sp.count, q,
               (long long)rp.count);
        if (sp.count == rp.count) memcpy(recv[q] + rp.start, send[r] + sp.start, (size_t)sp.count * sizeof **send);
      }
    for (int r = 0; r < p; r++)
      for (int q = 0; q < p; q++) dtrHostBlock(recv[r], b[r], dtrUnpackStage(g, &l[r], r, q, stages, s), 8);
  }
  int64_t wrong = 0;
  for (int r = 0; r < p; r++) {
    const dtrRange out = dtrOutRows(g, r);
    for (int64_t k = 0; k < K; k++)
      for (int64_t j = 0; j < out.count; j++)
        for (int64_t i = 0; i < g->rows; i++) {
          const int64_t at = g->batch_layout == dtrBatchOuter ? (j * K + k) * g->rows + i : (k * out.count + j) * g->rows + i;
          wrong += b[r][at] != emulatedEntry(g, k, i, out.start + j);
        }
    free(a[r]);
    free(b[r]);
    free(send[r]);
    free(recv[r]);
  }
  free(a);
  free(b);
  free(send);
  free(recv);
  free(st);
  free(l);
  return wrong;
}

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

static void testBatchedEmulation(void) {
  const int64_t shapes[][2] = {{1, 1}, {2, 3}, {7, 5}, {3, 17}, {17, 3}, {12, 10}};
  int cases = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int p = 1; p <= 5; p++)
      for (int64_t k = 0; k <= 3; k++)
        for (int layout = 0; layout < 2; layout++)
          for (int gran = 0; gran < 3; gran++)
            for (int stages = 0; stages <= 3; stages += 1 + (stages > 0)) { /* 0: one pass; 1, 3 */
              dtrGeometry g = dtrGeometryMatrix(shapes[s][0], shapes[s][1], 8, p);
              g.batch = k;
              /* Segment rows padded to 16 or 256 bytes in turn, or not at all. */
              g.segment_align = (size_t)1 << (4 * ((s + gran + stages) % 3));
              g.batch_layout = (dtrBatchLayout)layout;
              /* Granules: rows of A, or of B, split in planes of 3 (the shape scaled to fit). */
              if (gran == 1) g.rows *= 3, g.row_granule = 3;
              if (gran == 2) g.cols *= 3, g.col_granule = 3;
              const int64_t wrong = emulateTranspose(&g, stages);
              EXPECT(wrong == 0, "%lld x %lld batch %lld %s granules %lld/%lld align %zu on %d ranks, %d stages (0: one pass): %lld wrong",
                     (long long)g.rows, (long long)g.cols, (long long)k, layout ? "middle" : "outer",
                     (long long)g.row_granule, (long long)g.col_granule, g.segment_align, p, stages, (long long)wrong);
              cases++;
            }
  EXPECT(cases > 1500, "only %d emulated cases", cases);
}

/* Pencil boxes tile the array once per pencil, and each transpose's geometry moves one box onto the
 * other: the A slab of every rank is its from-box, the B slab its to-box. */
static void testPencilGeometry(void) {
  const int64_t shapes[][3] = {{17, 33, 65}, {2, 3, 5}, {1, 1, 1}, {8, 8, 8}, {4, 7, 3}};
  const int grids[][2] = {{1, 1}, {1, 4}, {4, 1}, {2, 2}, {2, 3}, {3, 1}, {1, 3}, {3, 2}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
      const int pr = grids[gi][0], pc = grids[gi][1];
      const int64_t* n = shapes[s];
      for (int pencil = 0; pencil < 3; pencil++) {
        int64_t covered = 0;
        for (int a = 0; a < pr; a++)
          for (int b = 0; b < pc; b++) {
            const dtrPencilExtent box = dtrPencilBoxOf(n, pr, pc, a, b, pencil);
            EXPECT(box.order[0] == pencil && box.size[pencil] == n[pencil], "pencil %d: its own axis first and whole", pencil);
            covered += box.size[0] * box.size[1] * box.size[2];
          }
        EXPECT(covered == n[0] * n[1] * n[2], "grid %dx%d pencil %d covers %lld", pr, pc, pencil, (long long)covered);
      }
      for (int from = 0; from < 3; from++)
        for (int to = 0; to < 3; to++)
          for (int a = 0; a < pr; a++)
            for (int b = 0; b < pc; b++) {
              dtrGeometry g;
              dtrGridGroup group;
              const int rc = dtrPencilTransposeGeometry(n, pr, pc, a, b, from, to, 8, &g, &group);
              const int valid = from != to && (from + to != 2 || pr == 1);
              EXPECT((rc == 0) == valid, "grid %dx%d %d->%d: valid %d, rc %d", pr, pc, from, to, valid, rc);
              if (rc) continue;
              const int me = group == dtrGridColumn ? a : b;
              const dtrPencilExtent in = dtrPencilBoxOf(n, pr, pc, a, b, from), out = dtrPencilBoxOf(n, pr, pc, a, b, to);
              EXPECT(dtrInEntries(&g, me) == in.size[0] * in.size[1] * in.size[2] &&
                         dtrOutEntries(&g, me) == out.size[0] * out.size[1] * out.size[2],
                     "grid %dx%d %d->%d at (%d,%d): slab sizes", pr, pc, from, to, a, b);
              EXPECT(g.nranks == (group == dtrGridColumn ? pr : pc), "group size");
            }
    }
}

static int parse(const char* line, dtrCliOptions* o, char* err) {
  static char buf[512]; /* options keep pointers into it */
  char* argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "disttranspose";
  for (char* t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  return dtrCliParse(argc, argv, o, err, 256);
}

/* A value for the fuzzer: counts with and without suffixes, huge, negative, fractional, empty,
 * dimensions, names, printable garbage, and a long run. */
static const char* fuzzValue(uint64_t* state, char* buf, size_t len) {
  static const char* const fixed[] = {"", "0", "-1", "1", "4K", "3G", "64KiB", "1T", "16E", "1X", "99999999999999999999",
                                      "18446744073709551616", "1.5", "nan", "inf", "1e309", "0x10", " 7", "7 ", "2x2",
                                      "1x0x3", "65x33x17", "8xx8", "x", "fp32", "c128", "cpu", "nccl", "p2p", "tma",
                                      "--rows", "-", "--", "=", "4G", "9223372036854775807", "9223372036854775808"};
  const uint64_t r = dtrMix64((*state)++);
  switch (r % 4) {
    case 0:
    case 1: return fixed[(r >> 8) % (sizeof fixed / sizeof fixed[0])];
    case 2: { /* printable garbage */
      const size_t n = (r >> 8) % 12;
      for (size_t i = 0; i < n && i + 1 < len; i++) buf[i] = (char)(33 + dtrMix64(r + i) % 94);
      buf[n < len ? n : len - 1] = '\0';
      return buf;
    }
    default: { /* digits, a suffix, sometimes a long run */
      const size_t n = (r >> 8) % 2 ? 1 + (r >> 9) % 25 : 300;
      size_t i = 0;
      for (; i < n && i + 4 < len; i++) buf[i] = (char)('0' + dtrMix64(r ^ i) % 10);
      const char* suffix[] = {"", "K", "M", "G", "T", "KiB", "MB", "Q"};
      snprintf(buf + i, len - i, "%s", suffix[(r >> 20) % 8]);
      return buf;
    }
  }
}

/* The CLI's parser on random command lines: no crash, and every refusal comes with a message;
 * what it accepts is within the documented ranges. */
static void testOptionsFuzz(void) {
  static const char* const names[] = {"--rows", "--cols", "-r", "-c", "--minbytes", "--maxbytes", "-b", "-e", "--stepfactor",
                                      "--dtype", "-d", "--howmany", "-m", "--backend", "-B", "--kernel", "-k", "--device",
                                      "--iters", "-n", "--warmup", "-w", "--check", "-C", "--json", "--stages", "-S",
                                      "--shape", "--grid", "-g", "--inplace", "-I", "-hI", "-Ih", "--bogus", "-z", "--",
                                      "--rows=5", "-r5", "-rI", "value"};
  uint64_t state = 20261122;
  char values[8][400];
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 20000; iter++) {
    char* argv[16];
    int argc = 0;
    argv[argc++] = "disttranspose";
    const int tokens = (int)(dtrMix64(state++) % 7);
    for (int t = 0; t < tokens && argc < 14; t++) {
      argv[argc++] = (char*)names[dtrMix64(state++) % (sizeof names / sizeof names[0])];
      if (dtrMix64(state++) % 5) argv[argc++] = (char*)fuzzValue(&state, values[t], sizeof values[t]);
    }
    argv[argc] = NULL;
    dtrCliOptions o;
    char err[256] = "";
    if (dtrCliParse(argc, argv, &o, err, sizeof err)) {
      refused++;
      if (!err[0]) {
        EXPECT(0, "iteration %d: refused without a message", iter);
        break;
      }
      continue;
    }
    accepted++;
    const int sane = o.rows >= 0 && o.cols >= 0 && (o.rows == 0) == (o.cols == 0) && o.howmany >= 1 && o.iters >= 1 &&
                     o.warmup >= 0 && o.check >= 0 && o.factor > 1.0 && o.stages >= 0 && o.stages <= DTR_MAX_STAGES &&
                     o.minbytes <= o.maxbytes && o.pr >= 0 && o.pc >= 0 && o.device >= -1 && o.type < dtrNumTypes;
    if (!sane) {
      char line[512] = "";
      for (int i = 1; i < argc; i++) snprintf(line + strlen(line), sizeof line - strlen(line), " %s", argv[i]);
      EXPECT(0, "accepted out of range:%s", line);
      break;
    }
  }
  EXPECT(accepted > 100 && refused > 100, "fuzz: %d accepted, %d refused: the generator misses one side", accepted, refused);
  printf("CLI fuzz: 20000 command lines, %d accepted, %d refused with a message\n", accepted, refused);
}

static void testOptions(void) {
  dtrCliOptions o;
  char err[256];
  EXPECT(parse("", &o, err) == 0, "no options: %s", err);
  EXPECT(o.type == dtrFloat32 && o.howmany == 1 && o.iters == 20 && o.check == 1 && o.rows == 0, "defaults");
  EXPECT(parse("--rows 1001 --cols 777 --dtype c128 --check 1 --backend cpu", &o, err) == 0, "%s", err);
  EXPECT(o.rows == 1001 && o.cols == 777 && o.type == dtrComplex128 && o.backend == dtrBackendCpu, "long options");
  EXPECT(parse("-r 4K -d bf16 -m 3 -k tma -n 7 -w 0 -C 2", &o, err) == 0, "%s", err);
  EXPECT(o.rows == 4096 && o.cols == 4096 && o.type == dtrBfloat16 && o.howmany == 3 && o.kernel == dtrKernelTma &&
             o.iters == 7 && o.warmup == 0 && o.check == 2,
         "short options");
  EXPECT(parse("-b 1M -e 1G -f 4 -J out.json", &o, err) == 0, "%s", err);
  EXPECT(o.minbytes == (1u << 20) && o.maxbytes == (1u << 30) && o.factor == 4.0 && !strcmp(o.json, "out.json"), "sweep");
  EXPECT(parse("--dtype float128", &o, err) && strstr(err, "--dtype") && strstr(err, "float128"), "bad dtype: %s", err);
  EXPECT(parse("--backend mpi", &o, err) && strstr(err, "--backend"), "bad backend: %s", err);
  EXPECT(parse("--kernel fast", &o, err) && strstr(err, "--kernel"), "bad kernel: %s", err);
  EXPECT(parse("--stages 0", &o, err) && strstr(err, "--stages"), "zero stages: %s", err);
  EXPECT(parse("-S 65", &o, err) && strstr(err, "--stages"), "65 stages: %s", err);
  EXPECT(!parse("-S 3", &o, err) && o.stages == 3, "three stages: %s", err);
  EXPECT(parse("--rows 0", &o, err) && strstr(err, "--rows"), "zero rows: %s", err);
  EXPECT(parse("--rows -3", &o, err) && strstr(err, "--rows"), "negative rows: %s", err);
  EXPECT(parse("--cols 12Q", &o, err) && strstr(err, "--cols"), "bad suffix: %s", err);
  EXPECT(parse("--rows 99999999999999999999", &o, err), "overflowing rows accepted");
  EXPECT(parse("--howmany 0", &o, err) && strstr(err, "--howmany"), "zero howmany: %s", err);
  EXPECT(parse("--frobnicate", &o, err) && strstr(err, "frobnicate"), "unknown option: %s", err);
  EXPECT(parse("--rows", &o, err) && strstr(err, "needs a value"), "missing value: %s", err);
  EXPECT(parse("--rows 5 -b 1M", &o, err) && strstr(err, "not both"), "shape and sweep: %s", err);
  EXPECT(parse("-b 2M -e 1M", &o, err) && strstr(err, "larger"), "reversed sweep: %s", err);
  EXPECT(parse("-f 1", &o, err) && strstr(err, "stepfactor"), "factor 1: %s", err);
  EXPECT(parse("stray", &o, err) && strstr(err, "stray"), "stray argument: %s", err);
  /* The strict numbers (test_numbers.c has the parsers themselves): the option is named, and what is wrong. */
  EXPECT(parse("--rows 12Q", &o, err) && strstr(err, "--rows '12Q': 'Q' is not a unit"), "unit: %s", err);
  EXPECT(parse("--iters +5", &o, err) && strstr(err, "--iters '+5': a sign"), "sign: %s", err);
  EXPECT(parse("--minbytes 18446744073709551615", &o, err) && strstr(err, "--minbytes") && strstr(err, "out of range"),
         "a sweep beyond 1 EiB a rank: %s", err);
  EXPECT(parse("--stepfactor inf", &o, err) && strstr(err, "--stepfactor 'inf': not a number"), "inf: %s", err);
  EXPECT(parse("--shape 8x0x8", &o, err) && strstr(err, "--shape '8x0x8': '0'"), "zero side: %s", err);
  EXPECT(parse("--grid 2x", &o, err) && strstr(err, "--grid '2x': '': empty"), "grid: %s", err);
  EXPECT(!parse("--shape 4Kx3x2 --grid 1x2", &o, err) && o.shape[0] == 4096 && o.shape[2] == 2 && o.pc == 2, "dims: %s", err);
  /* GPU options on the CPU backend are refused, not ignored. */
  EXPECT(parse("-B cpu -k tma", &o, err) && strstr(err, "--kernel tma applies to the GPU backends"), "kernel on cpu: %s", err);
  EXPECT(parse("-B cpu -G 1", &o, err) && strstr(err, "--device 1 applies to the GPU backends"), "device on cpu: %s", err);
  EXPECT(!parse("-B cpu -G -1", &o, err), "the default device on cpu: %s", err);
}

static void testNames(void) {
  for (int t = 0; t < dtrNumTypes; t++) {
    dtrDataType_t back;
    EXPECT(dtrParseDataType(dtrDataTypeName((dtrDataType_t)t), &back) == 0 && (int)back == t, "type %d round trip", t);
  }
  for (int k = 0; k < dtrNumKernels; k++) {
    dtrKernel_t back;
    EXPECT(dtrParseKernel(dtrKernelName((dtrKernel_t)k), &back) == 0 && (int)back == k, "kernel %d round trip", k);
  }
  dtrDataType_t t;
  EXPECT(dtrParseDataType("double", &t) == 0 && t == dtrFloat64, "alias double");
  EXPECT(dtrParseDataType("FP16", &t) == 0 && t == dtrFloat16, "case-insensitive");
  EXPECT(dtrDataTypeSize(dtrComplex128) == 16 && dtrDataTypeSize(dtrBfloat16) == 2 && dtrDataTypeSize(dtrInt8) == 1, "sizes");
  EXPECT(dtrDataTypeSize((dtrDataType_t)99) == 0, "unknown type size");
  for (int r = 0; r < dtrNumResults; r++) EXPECT(strlen(dtrGetErrorString((dtrResult_t)r)) > 0, "error string %d", r);
}

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

int main(void) {
  testTimelineSummary();
  testStageRule();
  testBackendRule();
  testSplit();
  testExchangeLayout();
  testBatchedEmulation();
  testPencilGeometry();
  testOptions();
  testOptionsFuzz();
  testNames();
  testTileLayout();
  testTileOrder();
  testGroupWidth();
  testVectorRules();
  testPatternAndHostTranspose();
  if (dtrTestFailures) {
    fprintf(stderr, "%d failures\n", dtrTestFailures);
    return 1;
  }
  printf("unit tests passed\n");
  return 0;
}
