/* The distribution's index math without MPI or a GPU: row splits, the exchange layout of every
 * rank pair, a host emulation of the staged and batched exchanges checked entry by entry, and the
 * pencil boxes; the halo layouts' send pieces against their receivers' receive pieces. */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/host_transpose.h"
#include "check.h"
#include "core/geometry.h"
#include "disttranspose.h"
#include "halo/halo_geometry.h"

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

/* Chunk k of every rank: its piece of A straight into every B (direct), or through a compact segment
 * that the sender packs and the receiver unpacks; the chunks of each A must follow each other. */
static void emulateChunk(const dtrGeometry* g, int64_t** a, int64_t** b, int chunks, int k, int direct, int64_t* next) {
  const int p = g->nranks;
  for (int r = 0; r < p; r++) {
    const dtrRange e = dtrChunkEntries(g, r, chunks, k);
    EXPECT(e.start == next[r], "chunk %d of rank %d starts at %lld, not %lld", k, r, (long long)e.start, (long long)next[r]);
    next[r] = e.start + e.count;
    for (int q = 0; q < p; q++) {
      if (direct) {
        dtrHostBlock(a[r], b[q], dtrChunkDirectBlock(g, r, q, chunks, k), 8);
        continue;
      }
      const int64_t n = dtrChunkSegmentEntries(g, r, q, chunks, k);
      int64_t* segment = malloc((size_t)(n + 1) * sizeof *segment);
      dtrHostBlock(a[r], segment, dtrChunkPackBlock(g, r, q, chunks, k), 8);
      dtrHostBlock(segment, b[q], dtrChunkUnpackBlock(g, r, q, chunks, k), 8);
      free(segment);
    }
  }
}

/*
 * Every rank's steps run on the host over slabs of global indices: packs into send segments, each
 * stage's pieces moved from sender to receiver as the exchange would, unpacks and the self block;
 * or, with stages = 0, the one-pass path (every rank's direct blocks into every rank's B); or, with
 * chunks > 0, the chunks of an FFT's exchange (stages 0: direct, else through compact segments).
 * Then every entry of every B is compared with the formula of its layout. Returns wrong entries.
 */
static int64_t emulateTranspose(const dtrGeometry* g, int stages, int chunks) {
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
  if (chunks > 0) {
    int64_t* next = calloc((size_t)p, sizeof *next);
    for (int k = 0; k < chunks; k++) emulateChunk(g, a, b, chunks, k, stages == 0, next);
    for (int r = 0; r < p; r++)
      EXPECT(next[r] == dtrInEntries(g, r), "the chunks of rank %d cover %lld of its %lld entries", r, (long long)next[r],
             (long long)dtrInEntries(g, r));
    free(next);
    stages = 0;
  } else if (stages == 0) {
    for (int r = 0; r < p; r++)
      for (int q = 0; q < p; q++) dtrHostBlock(a[r], b[q], dtrDirectBlock(g, r, q), 8);
  } else {
    for (int r = 0; r < p; r++) dtrHostBlock(a[r], b[r], dtrSelfBlock(g, r), 8);
  }
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
              const int64_t wrong = emulateTranspose(&g, stages, 0);
              EXPECT(wrong == 0, "%lld x %lld batch %lld %s granules %lld/%lld align %zu on %d ranks, %d stages (0: one pass): %lld wrong",
                     (long long)g.rows, (long long)g.cols, (long long)k, layout ? "middle" : "outer",
                     (long long)g.row_granule, (long long)g.col_granule, g.segment_align, p, stages, (long long)wrong);
              cases++;
              /* The FFT's chunks, more of them than planes too, one pass and through segments. */
              for (int chunks = 1; chunks <= 7; chunks += 2 + (chunks == 3)) {
                const int64_t bad = emulateTranspose(&g, stages, chunks);
                EXPECT(bad == 0, "%lld x %lld batch %lld %s granules %lld/%lld on %d ranks, %d chunks %s: %lld wrong",
                       (long long)g.rows, (long long)g.cols, (long long)k, layout ? "middle" : "outer",
                       (long long)g.row_granule, (long long)g.col_granule, p, chunks, stages ? "through segments" : "direct",
                       (long long)bad);
                cases++;
              }
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

/* Every send piece of every rank, stored straight into its receiver's padded array (dtrHaloRemoteOf),
 * covers exactly the cells of one receive piece of that receiver from this rank: the same first cell,
 * extent and pitches as the receiver's own unpack of it. And the adjoint's way back: that receive piece,
 * stored into this rank's receive buffer where its receiver puts it (ownerOffset), lands at the send
 * piece's own offset, where this rank adds it from; each step's sums (dtrHaloSumOrder) take every send
 * and own copy once, the ranks in group order. */
static void testHaloRemote(void) {
  const int64_t shapes[][3] = {{7, 5, 3}, {8, 6, 5}, {3, 2, 1}, {1, 4, 9}, {5, 5, 5}};
  const int widths[][3] = {{1, 1, 1}, {2, 0, 3}, {3, 3, 3}, {0, 2, 1}};
  long checked = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
      for (int periodic = 0; periodic < 2; periodic++)
        for (int pr = 1; pr <= 3; pr++)
          for (int pc = 1; pc <= 3; pc++)
            for (int pencil = 0; pencil < 3; pencil++) {
              const int per[3] = {periodic, periodic, periodic};
              if (periodic && (widths[wi][0] > shapes[si][0] || widths[wi][1] > shapes[si][1] || widths[wi][2] > shapes[si][2]))
                continue;
              const int n = pr * pc;
              dtrHaloLayout* l = calloc((size_t)n, sizeof *l);
              int ok = l != NULL;
              for (int r = 0; r < n && ok; r++)
                ok = dtrHaloLayoutMake(shapes[si], pencil, pr, pc, r / pc, r % pc, widths[wi], per, &l[r]) == 0;
              EXPECT(ok, "halo layouts made");
              for (int r = 0; r < n && ok; r++)
                for (int i = 0; i < l[r].nsteps; i++) {
                  const dtrHaloStep* st = &l[r].steps[i];
                  for (int k = 0; k < st->nsends; k++) {
                    const dtrHaloPiece* p = &st->sends[k];
                    /* The receiver's grid coordinates: this rank's, with the step's split one replaced. */
                    const int a = st->split == 1 ? p->peer : r / pc, b = st->split == 2 ? p->peer : r % pc;
                    const dtrHaloLayout* t = &l[a * pc + b];
                    const dtrHaloStep* ts = NULL;
                    for (int j = 0; j < t->nsteps; j++)
                      if (t->steps[j].axis == st->axis) ts = &t->steps[j];
                    const dtrHaloStrided got = dtrHaloRemoteOf(&l[r], st, p);
                    int found = 0, back = 0;
                    for (int j = 0; ts && j < ts->nrecvs && !found; j++) {
                      const dtrHaloPiece* q = &ts->recvs[j];
                      if (q->peer != st->rank || q->entries != p->entries || q->box.start[st->axis] != p->remote) continue;
                      const dtrHaloStrided want = dtrHaloUnpackOf(t, &q->box, 0);
                      found = want.dstOffset == got.dstOffset && want.dstPitch[0] == got.dstPitch[0] &&
                              want.dstPitch[1] == got.dstPitch[1] && !memcmp(want.count, got.count, sizeof got.count);
                      back = ts->ownerOffset[st->rank] + q->offset - ts->recvOffset[st->rank] == p->offset;
                    }
                    checked++;
                    EXPECT(!found || back, "grid %dx%d pencil %d: rank %d's piece %d of step %d comes back elsewhere", pr, pc,
                           pencil, r, k, i);
                    EXPECT(found, "shape %lldx%lldx%lld widths %d %d %d periodic %d grid %dx%d pencil %d: rank %d's piece %d of step %d "
                           "lands on no receive piece of its receiver",
                           (long long)shapes[si][0], (long long)shapes[si][1], (long long)shapes[si][2], widths[wi][0], widths[wi][1],
                           widths[wi][2], periodic, pr, pc, pencil, r, k, i);
                  }
                  int seen[64] = {0}, order = 1, last = -1;
                  for (int k = 0; k < st->nsends + st->nselfs && st->nsends + st->nselfs <= 64; k++) {
                    const int v = dtrHaloSumOrder(st, k), peer = v < st->nsends ? st->sends[v].peer : st->rank;
                    order &= v >= 0 && v < st->nsends + st->nselfs && !seen[v]++ && peer >= last;
                    last = peer;
                  }
                  EXPECT(order, "grid %dx%d pencil %d: rank %d's sums of step %d out of order", pr, pc, pencil, r, i);
                }
              for (int r = 0; r < n && l; r++) dtrHaloLayoutFree(&l[r]);
              free(l);
            }
  EXPECT(checked > 1000, "only %ld send pieces checked", checked);
}

/* Kept modes of padded axes against their definition, for every split of the padded axis: each rank's
 * kept range is the kept modes of its padded range, the ranges tile the kept modes in order, and the
 * pieces map each of them to its padded index and nothing else. */
static void testPadAxes(void) {
  for (int64_t n = 1; n <= 20; n++)
    for (int64_t m = n; m <= 32; m++)
      for (int halved = 0; halved < 2; halved++) {
        const dtrPadAxis a = halved ? dtrPadAxisHalved(n, m) : dtrPadAxisComplex(n, m);
        const int64_t kept = halved ? n / 2 + 1 : n, padded = halved ? m / 2 + 1 : m;
        EXPECT(a.kept == kept && a.padded == padded, "n=%lld m=%lld halved=%d: axis %lld of %lld", (long long)n,
               (long long)m, halved, (long long)a.kept, (long long)a.padded);
        /* The definition: kept mode k (numpy order) at padded index k below ceil(n/2), else k + m - n. */
        int64_t* at = malloc((size_t)padded * sizeof *at);
        for (int64_t i = 0; i < padded; i++) at[i] = -1;
        for (int64_t k = 0; k < kept; k++) at[halved || k < (n + 1) / 2 ? k : k + m - n] = k;
        for (int parts = 1; parts <= 5; parts++) {
          int64_t next = 0;
          for (int part = 0; part < parts; part++) {
            const dtrRange r = dtrSplit(padded, parts, part), k = dtrPadKeptRange(a, r);
            EXPECT(k.start == next, "n=%lld m=%lld halved=%d part %d/%d: kept from %lld, expected %lld", (long long)n,
                   (long long)m, halved, part, parts, (long long)k.start, (long long)next);
            next += k.count;
            const dtrPadPieces p = dtrPadPiecesOf(a, r);
            int64_t covered = 0;
            for (int q = 0; q < p.pieces; q++) {
              covered += p.count[q];
              for (int64_t j = 0; j < p.count[q]; j++) {
                const int64_t i = r.start + p.padded[q] + j;
                EXPECT(i < r.start + r.count && at[i] == k.start + p.kept[q] + j,
                       "n=%lld m=%lld halved=%d part %d/%d: piece %d maps kept %lld to padded %lld", (long long)n,
                       (long long)m, halved, part, parts, q, (long long)(k.start + p.kept[q] + j), (long long)i);
              }
            }
            EXPECT(covered == k.count, "n=%lld m=%lld halved=%d part %d/%d: pieces cover %lld of %lld kept", (long long)n,
                   (long long)m, halved, part, parts, (long long)covered, (long long)k.count);
          }
          EXPECT(next == kept, "n=%lld m=%lld halved=%d over %d parts: %lld kept of %lld", (long long)n, (long long)m,
                 halved, parts, (long long)next, (long long)kept);
        }
        free(at);
      }
}

int main(void) {
  testSplit();
  testPadAxes();
  testHaloRemote();
  testExchangeLayout();
  testBatchedEmulation();
  testPencilGeometry();
  return dtrTestEnd("geometry");
}
