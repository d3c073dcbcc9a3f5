/*
 * The pieces of rows that the slab route's delivering and gathering 2-D passes move (slab_pieces.h), on
 * the plans of 1 x P slabs that the cpu backend makes under mpiexec (the pieces depend on the shape, the
 * chunks and the rounds alone, not on the GPU): for every rank q's rows, every chunk count from 1 to 9
 * and 64, every round count from 0 to the chunks, shapes whose rows split unevenly, chunks of one row
 * and of none:
 *   - delivering: the piece as the y pass goes and those of the rounds cover q's rows once, in order;
 *     no piece of a single row; by the end of round c every row that q's chunks of lines up to c need
 *     has arrived, and as the y pass goes every row its chunks before the rounds need;
 *   - gathering: the pieces of the rounds and the rest cover q's rows once, in order; no piece of a
 *     single row; round c reads only rows that q's chunks of lines up to c have finished;
 *   - the tables the plan makes of both (the execute reads those) hold the same pieces.
 * "Need" and "finish" are counted here from the lines of each chunk, not by the library's helper.
 * test_slab_pieces   (under mpiexec, 2 ranks or more)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "check.h"
#include "disttranspose.h"
#include "fft/fft_plan.h"
#include "fft/slab_pieces.h"

/* Rows (counted from q's first) that q's lines [0, end) touch, and those they hold whole. */
static int64_t rowsTouched(int64_t end, int64_t nx) { return (end + nx - 1) / nx; }
static int64_t rowsWhole(int64_t end, int64_t nx) { return end / nx; }

/* The end of q's chunk c of lines, counted from its first line. */
static int64_t linesEnd(const struct dtrFftPlan* f, int q, int c) {
  const dtrFftChunk l = dtrFftChunkOfRank(f, f->inverse[0], 1, q, f->chunks, c);
  return l.first + l.count;
}

/* One piece against the rows covered so far: it starts there (or is empty) and is no single row. */
static void expectNext(const dtrRange piece, int64_t* covered, const char* what, int q, int c, int C, int R,
                       const int64_t* shape) {
  if (!piece.count) return;
  EXPECT(piece.start == *covered, "%s %lld x %lld x %lld, rank %d, %d chunks, %d rounds, piece %d starts at row %lld, not %lld",
         what, (long long)shape[0], (long long)shape[1], (long long)shape[2], q, C, R, c, (long long)piece.start,
         (long long)*covered);
  EXPECT(piece.count >= 2, "%s %lld x %lld x %lld, rank %d, %d chunks, %d rounds, piece %d of a single row", what,
         (long long)shape[0], (long long)shape[1], (long long)shape[2], q, C, R, c);
  *covered = piece.start + piece.count;
}

/* The tables the plan makes for the execute hold every rank's pieces of every round as walked. */
static void checkTables(struct dtrFftPlan* f, const int64_t* shape) {
  const int C = f->chunks;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  /* The plan as it was (the cpu backend's: neither route, no tables) is put back after. */
  const int wasDelivering = f->deliver, wasGathering = f->gather;
  dtrRange* const made[2] = {f->rowPieces[0], f->rowPieces[1]};
  f->deliver = f->gather = 1;
  EXPECT(dtrFftPiecesMake(f) == dtrSuccess, "tables: %s", dtrGetLastError());
  for (int gather = 0; gather < 2 && f->rowPieces[gather]; gather++)
    for (int q = 0; q < P; q++)
      for (int c = -1; c < C; c++) {
        const dtrRange want = gather ? dtrFftGatherPiece(f, q, c) : dtrFftDeliverPiece(f, q, c), got = dtrFftPieceMade(f, gather, q, c);
        EXPECT(got.start == want.start && got.count == want.count, "%s table %lld x %lld x %lld, rank %d, %d chunks, %d rounds, "
               "piece %d: rows %lld+%lld, walked %lld+%lld", gather ? "gathering" : "delivering", (long long)shape[0],
               (long long)shape[1], (long long)shape[2], q, C, gather ? f->gatherRounds : f->deliverRounds, c,
               (long long)got.start, (long long)got.count, (long long)want.start, (long long)want.count);
      }
  EXPECT(f->rowPieces[0] && f->rowPieces[1], "tables: both routes made");
  for (int i = 0; i < 2; i++) free(f->rowPieces[i]), f->rowPieces[i] = made[i];
  f->deliver = wasDelivering, f->gather = wasGathering;
}

static void checkPlan(struct dtrFftPlan* f, const int64_t* shape) {
  const int C = f->chunks;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int64_t nx = f->cshape[0];
  for (int R = 0; R <= C; R++) {
    f->deliverRounds = R, f->gatherRounds = R;
    for (int q = 0; q < P; q++) {
      const int64_t rows = dtrFftSlabRows(f, q).count;
      if (rows < 2) continue; /* the passes take no rank of a single row */
      /* Delivering. */
      int64_t covered = 0;
      expectNext(dtrFftDeliverPiece(f, q, -1), &covered, "delivering", q, -1, C, R, shape);
      if (C - R > 0)
        EXPECT(covered >= rowsTouched(linesEnd(f, q, C - R - 1), nx),
               "delivering %lld x %lld x %lld, rank %d, %d chunks, %d rounds: as the y pass goes %lld rows, chunks before "
               "the rounds need %lld",
               (long long)shape[0], (long long)shape[1], (long long)shape[2], q, C, R, (long long)covered,
               (long long)rowsTouched(linesEnd(f, q, C - R - 1), nx));
      for (int c = C - R; c < C; c++) {
        expectNext(dtrFftDeliverPiece(f, q, c), &covered, "delivering", q, c, C, R, shape);
        const int64_t need = rowsTouched(linesEnd(f, q, c), nx);
        EXPECT(covered >= (need < rows ? need : rows), "delivering %lld x %lld x %lld, rank %d, %d chunks, %d rounds: after "
               "round %d %lld rows, its chunk needs %lld", (long long)shape[0], (long long)shape[1], (long long)shape[2], q, C,
               R, c, (long long)covered, (long long)need);
      }
      EXPECT(covered == rows, "delivering %lld x %lld x %lld, rank %d, %d chunks, %d rounds: %lld of %lld rows", (long long)shape[0],
             (long long)shape[1], (long long)shape[2], q, C, R, (long long)covered, (long long)rows);
      /* Gathering. */
      covered = 0;
      for (int c = 0; c < R; c++) {
        expectNext(dtrFftGatherPiece(f, q, c), &covered, "gathering", q, c, C, R, shape);
        const int64_t done = c == C - 1 ? rows : rowsWhole(linesEnd(f, q, c), nx);
        EXPECT(covered <= done, "gathering %lld x %lld x %lld, rank %d, %d chunks, %d rounds: round %d reads to row %lld, its "
               "chunks finished %lld", (long long)shape[0], (long long)shape[1], (long long)shape[2], q, C, R, c,
               (long long)covered, (long long)done);
      }
      expectNext(dtrFftGatherPiece(f, q, -1), &covered, "gathering", q, -1, C, R, shape);
      EXPECT(covered == rows, "gathering %lld x %lld x %lld, rank %d, %d chunks, %d rounds: %lld of %lld rows", (long long)shape[0],
             (long long)shape[1], (long long)shape[2], q, C, R, (long long)covered, (long long)rows);
    }
    checkTables(f, shape);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) {
    printf("test_slab_pieces: needs 2 ranks or more\n");
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  /* nx, ny (the rows, split over the ranks), nz: rows that split unevenly, lines that end inside rows. */
  static const int64_t shapes[][3] = {{8, 16, 5}, {3, 7, 4}, {16, 33, 3}, {4, 64, 2}, {5, 5, 5}, {32, 48, 7}, {2, 9, 2}, {64, 11, 3}};
  static const int chunkCounts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 64};
  int plans = 0;
  dtrGrid_t grid = NULL;
  EXPECT(dtrGridCreate(&grid, MPI_COMM_WORLD, 1, nranks) == dtrSuccess, "grid: %s", dtrGetLastError());
  for (int s = 0; grid && s < (int)(sizeof shapes / sizeof shapes[0]); s++)
    for (int k = 0; k < (int)(sizeof chunkCounts / sizeof chunkCounts[0]); k++) {
      dtrFftConfig_t cfg;
      dtrFftConfigInit(&cfg);
      cfg.transpose.backend = dtrBackendCpu;
      cfg.chunks = chunkCounts[k];
      dtrFftPlan_t plan = NULL;
      if (dtrFftPlanCreate(&plan, grid, shapes[s], dtrFftC2C, dtrComplex128, &cfg) != dtrSuccess) {
        EXPECT(0, "plan %lld x %lld x %lld, %d chunks: %s", (long long)shapes[s][0], (long long)shapes[s][1],
               (long long)shapes[s][2], chunkCounts[k], dtrGetLastError());
        continue;
      }
      checkPlan(plan, shapes[s]);
      plans++;
      dtrFftPlanDestroy(plan);
    }
  if (grid) dtrGridDestroy(grid);
  int failures = dtrTestFailures;
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("test_slab_pieces: %d plans on %d ranks\n", plans, nranks);
  dtrTestFailures = failures;
  const int rc = dtrTestEnd("test_slab_pieces");
  MPI_Finalize();
  return rc;
}
