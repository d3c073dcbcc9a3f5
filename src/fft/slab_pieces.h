/* The pieces of a rank's rows that the slab route's delivering and gathering 2-D passes move
 * (slab_copies.c): which rows of rank q a chunk of its lines along z needs or finishes, and so which
 * rows go out or are read in each round. From the global shape, the chunks and the rounds alone: every
 * rank computes every rank's pieces alike. */
#ifndef DTR_FFT_SLAB_PIECES_H
#define DTR_FFT_SLAB_PIECES_H

#include <stdint.h>

#include "fft_plan.h"

/* Rows of rank q (counted from its first) that its chunks of lines up to c touch (none for c < 0):
 * `up`, the rows they need; else the rows they finish (whole). */
int64_t dtrFftRowsThrough(const struct dtrFftPlan* f, int q, int c, int up);
/* Rank q's rows that a peer's x pass delivers to it in round c (c >= chunks - deliverRounds), or as the
 * y pass goes (c < 0). Together they cover its rows once, in order, no piece of a single row. */
dtrRange dtrFftDeliverPiece(const struct dtrFftPlan* f, int q, int c);
/* Rank q's rows that the gathering x pass reads from it in round c (c < gatherRounds), or once the pass
 * along z is done (c < 0). Together they cover its rows once, in order, no piece of a single row. */
dtrRange dtrFftGatherPiece(const struct dtrFftPlan* f, int q, int c);
/* Every rank's pieces of the routes that run (f->deliver, f->gather), walked once into the plan's
 * tables (a walk of chunks squared by ranks, too long for every execute); and a piece from there. */
dtrResult_t dtrFftPiecesMake(struct dtrFftPlan* f);
/* Where rank q's piece of round c (c = -1: outside the rounds) sits in a table. */
static inline int64_t dtrFftPieceIndex(const struct dtrFftPlan* f, int q, int c) { return (int64_t)q * (f->chunks + 1) + c + 1; }
static inline dtrRange dtrFftPieceMade(const struct dtrFftPlan* f, int gather, int q, int c) {
  return f->rowPieces[gather][dtrFftPieceIndex(f, q, c)];
}

#endif
