/* The pieces of a rank's rows that the delivering and gathering 2-D passes move: slab_pieces.h. */
#include "slab_pieces.h"

#include <stdlib.h>

#include "core/checks.h"
#include "grid.h"

/* Rows of rank q (counted from its first) that its chunks of lines up to c touch (none for c < 0):
 * rounded up, the rows they need, or down, the rows they finish. The two differ only where a chunk
 * ends inside a row, which the exchange's chunks (whole rows of the Z-pencil) do not; the pieces hold
 * either way. */
int64_t dtrFftRowsThrough(const struct dtrFftPlan* f, int q, int c, int up) {
  if (c < 0) return 0;
  const dtrFftChunk l = dtrFftChunkOfRank(f, f->inverse[0], 1, q, f->chunks, c);
  const int64_t nx = f->cshape[0], rows = dtrFftSlabRows(f, q).count;
  const int64_t through = c == f->chunks - 1 ? rows : (l.first + l.count + (up ? nx - 1 : 0)) / nx;
  return through < rows ? through : rows;
}

/* The rows of rank q (counted from its first) that a peer's x pass delivers to it in round c, or as the
 * y pass goes (c < 0): there the rows of q's first C - rounds chunks of lines (every row without rounds),
 * in round c those that chunk c of lines needs beyond the earlier ones'; a piece of one row takes the
 * next row along, and a piece that would leave one row takes it too (a single row is no piece; rows
 * sent early are no harm). */
dtrRange dtrFftDeliverPiece(const struct dtrFftPlan* f, int q, int c) {
  const int64_t rows = dtrFftSlabRows(f, q).count;
  const int early = f->chunks - f->deliverRounds;
  int64_t from = 0;
  for (int k = early - 1; k < f->chunks; k++) {
    int64_t to = dtrFftRowsThrough(f, q, k, 1);
    if (to < from) to = from;
    if (to - from == 1) to++;
    if (to >= rows - 1) to = rows;
    if (k == (c < 0 ? early - 1 : c)) return (dtrRange){from, to - from};
    from = to;
  }
  return (dtrRange){from, 0};
}

/* The rows of rank q (counted from its first) that the gathering x pass reads from it in round c (c <
 * rounds), once its chunk c of lines is done: the rows that chunk finishes beyond those read before,
 * held back while they would be one row or leave one (a single row is no piece); or, c < 0, the rest,
 * read by chunks of planes once the pass along z is done. */
dtrRange dtrFftGatherPiece(const struct dtrFftPlan* f, int q, int c) {
  const int64_t rows = dtrFftSlabRows(f, q).count;
  int64_t from = 0;
  for (int k = 0; k < f->gatherRounds && (c < 0 || k <= c); k++) {
    const int64_t done = dtrFftRowsThrough(f, q, k, 0);
    if (done - from < 2 || rows - done == 1) continue;
    if (k == c) return (dtrRange){from, done - from};
    from = done;
  }
  return (dtrRange){from, c < 0 ? rows - from : 0};
}

dtrResult_t dtrFftPiecesMake(struct dtrFftPlan* f) {
  const int C = f->chunks, P = f->grid->pc;
  for (int gather = 0; gather < 2; gather++) {
    if (!(gather ? f->gather : f->deliver)) continue;
    dtrRange* const t = f->rowPieces[gather] = malloc((size_t)P * (C + 1) * sizeof *t);
    if (!t) return dtrSetError(dtrOutOfMemory, "the slab route's pieces of rows (%d ranks, %d chunks)", P, C);
    for (int q = 0; q < P; q++)
      for (int c = -1; c < C; c++) t[dtrFftPieceIndex(f, q, c)] = gather ? dtrFftGatherPiece(f, q, c) : dtrFftDeliverPiece(f, q, c);
  }
  return dtrSuccess;
}
