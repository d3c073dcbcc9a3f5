/*
 * The slab route: a 1 x P FFT whose exchange the copy engines move, on GPUs that map each other's
 * memory (the p2p backend), where every rank can hold a staging array of the whole array's planes.
 *
 * The staging array S is [z][y][x] over every plane of the (complex) array. A rank's forward 2-D pass
 * writes its own planes into S, whole, where they already sit at their place for everyone; the rows
 * [y0q, y1q) of a plane are one contiguous block at the same offset of every rank's S, so a block of
 * planes to rank q is one 2-D copy by the copy engines (no kernel, no SM, no transpose), and the own
 * block never moves. The pass along z then reads this rank's rows of every plane of S with a stride
 * of a plane and writes the Z-pencil [y][x][z]: the transpose costs the pass its strided reads. The
 * inverse runs the other way: the pass along z from the Z-pencil into this rank's rows of S, the
 * copies into the other ranks' own planes, then the 2-D pass.
 *
 * One execute, forward (the inverse swaps the roles: its first pass along z in chunks of lines, its
 * last the 2-D pass in chunks of planes):
 *
 *   caller's stream: 2-D chunk 0 | 2 | ... | join | wait 0 | z lines 0 | wait 2 | z lines 2 | ... | join
 *   side stream:     2-D chunk 1 | 3 | ...        | wait 1 | z lines 1 | wait 3 | z lines 3 | ...
 *   copy lanes:          whole 0 | whole 1 | ... | whole W-1 | round 0 +signal | round 1 +signal | ...
 *
 * The first W chunks of planes go to each peer whole (all of its rows of them) as the 2-D pass makes
 * them, so that the links work beside the pass; the remaining C - W go once the pass is done, in
 * rounds, round c carrying every receiver's chunk c of lines of them, followed by a signal to the
 * receiver. The pass along z takes its chunk c of lines as soon as every peer has signalled round c,
 * while the later rounds are still on the links: the last pass waits for the last round only, not for
 * the whole exchange. W (chunk_rule.c) is what keeps the links busy until the 2-D pass is done.
 * Each pass's chunks alternate over two streams, the caller's and the plan's side stream, each with
 * plans and a work area of its own, so that a chunk's kernels start while the one before drains (on
 * one stream a chunk costs the pass a drain and a fill of the GPU: chunk_rule.c). The last pass on
 * either stream starts after the whole first pass on both: it reads this rank's own planes of S (and,
 * in place, writes where the first pass reads).
 * The copies to the P - 1 peers are dealt over the lanes (streams of the copy engines), visited in a
 * staggered order, rank r's s-th peer being r + s: at any moment every rank sends to a different one.
 *
 * Delivering (DTR_FFT_DELIVER, forward, where the library's one-trip kernel takes the plane's sides):
 * the 2-D pass runs y (a plane's columns) first and x last, and the x pass of a chunk is a launch a
 * rank, writing that rank's rows of the chunk's planes straight into its S (the SMs' stores over the
 * links) in the same staggered order. No copies: the copy engines' read of the pass's output and the
 * pass's write of the peers' rows into this rank's HBM are gone; the lanes only signal the chunks. With
 * rounds (DTR_FFT_DELIVER=2), of each receiver's C chunks of lines only the rows of the first C - R go
 * out as the y pass goes; once it is done, round c (c >= C - R) runs the x pass over every plane for
 * the rows chunk c of lines needs, on the side stream, and signals chunk c, while the pass along z,
 * on the caller's stream, takes each chunk as its signals arrive. Without rounds every chunk is
 * signalled once both pass streams are done.
 *
 * Between the GPUs, the p2p plan's barriers: an arrive before the first copy into a peer's S (its
 * owner has finished what came before, which may still read it), the chunk signals, and a finish
 * after the last copy. docs/fft.md#overlap has the measurements.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/p2p/p2p.h"
#include "core/checks.h"
#include "axis_pass.h"
#include "fft_plan.h"
#include "grid.h"
#include "launch.h"
#include "plan.h"
#include "slab_pieces.h"

/* Bytes of a point of the complex side (howmany fields: howmany of its numbers, complex, or real where
 * every axis has walls), and of the staging array: every plane of it. Everything below moves and
 * offsets points. */
static size_t pointBytes(const struct dtrFftPlan* f) { return dtrDataTypeSize(f->ctype) * (size_t)f->howmany; }
static size_t stagingBytes(const struct dtrFftPlan* f) {
  return (size_t)(f->cshape[0] * f->cshape[1] * f->cshape[2]) * pointBytes(f);
}

/* Collective over the grid: whether the plan takes the slab route (all ranks alike), its staging array
 * and its passes along z. Its staging array, where it does, lives at f->work, before the passes' area. */
dtrResult_t dtrFftCopiesChoose(struct dtrFftPlan* f, size_t area, int wanted) {
  f->copies = 0;
  int fits = wanted && f->gpu && f->npencils == 2 && f->grid->pc > 1 && dtrFftSlabPlanesCopyable(f) &&
             f->forward[0]->backend == dtrBackendP2p &&
             f->inverse[0]->backend == dtrBackendP2p;
  if (fits) {
    /* Room for the staging array, the passes' work area and a margin for the caller, now. */
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) (void)cudaGetLastError(), freeBytes = 0;
    fits = freeBytes > stagingBytes(f) + area + ((size_t)1 << 30);
  }
  DTRCHECK(dtrAllreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, f->grid->comm, "whether every rank takes the slab route"));
  f->copies = fits;
  return dtrSuccess;
}

/* The forward 2-D pass that delivers as it goes (DTR_FFT_DELIVER) and the inverse one that gathers as it
 * goes (DTR_FFT_GATHER), where they can: one field of complex numbers whose lengths along x and y the
 * library's one-trip kernel takes, each pass of two lines or more (a pass of one line a transform runs
 * on cuFFT), so that their plans need no work area and both pass streams share them. Delivering: y (a
 * plane's columns) into this rank's planes of S, then x over pieces of each rank's rows of them into
 * that rank's S. Gathering: x over pieces of each rank's rows of this rank's planes, read from that
 * rank's S as its pass along z makes them, into this rank's S, then y into the X-pencil. The pieces:
 * slab_pieces.h; a plan for each count of rows a piece has. Elsewhere the route's 2-D pass and copies,
 * as without them. Whether they run, and in rounds, follows from the global shape and the agreed
 * settings alone, never from this rank's own planes or rows: every rank decides alike. */
static void rowShapes(const struct dtrFftPlan* f, int64_t rows, dtrLocalFftShape* y, dtrLocalFftShape* x) {
  const int64_t nx = f->cshape[0], ny = f->cshape[1], plane = nx * ny;
  const int dbl = f->ctype == dtrComplex128;
  const dtrLocalFftShape columns = {.dims = 1, .n = {ny, 0}, .dbl = dbl, .in_stride = nx, .in_dist = plane, .out_stride = nx,
                                    .out_dist = plane, .lines = nx, .in_line_dist = 1, .out_line_dist = 1};
  const dtrLocalFftShape a = {.dims = 1, .n = {nx, 0}, .dbl = dbl, .in_stride = 1, .in_dist = plane, .out_stride = 1,
                              .out_dist = plane, .lines = rows, .in_line_dist = nx, .out_line_dist = nx, .scaled = 1};
  *y = columns, *x = a;
}

/* The x pass's plan for pieces of `rows` rows, or -1 where it has none. */
static int rowPassOf(const struct dtrFftPlan* f, int64_t rows) {
  for (int i = 0; i < f->rowPasses; i++)
    if (f->rowPassRows[i] == rows) return i;
  return -1;
}

/* A count of rows a piece has, among the plans to make: 0 where the one-trip kernel does not take it
 * (a single row) or the plans would be too many. */
static int addRows(struct dtrFftPlan* f, int64_t rows) {
  if (!rows || rowPassOf(f, rows) >= 0) return 1;
  dtrLocalFftShape y, x;
  rowShapes(f, rows, &y, &x);
  if (rows < 2 || f->rowPasses == DTR_FFT_ROW_PASSES || !dtrAxisPassOneTrip(&y) || !dtrAxisPassOneTrip(&x)) return 0;
  f->rowPassRows[f->rowPasses++] = rows;
  return 1;
}

/* Every piece any rank's x pass runs over, among the plans: a rank's own rows, whole (both), and the
 * pieces its peers deliver to it (`gather` 0) or it reads from each of them. */
static int addPieces(struct dtrFftPlan* f, int gather) {
  int ok = 1;
  for (int q = 0; q < f->grid->pc; q++) {
    ok = ok && addRows(f, dtrFftSlabRows(f, q).count);
    for (int c = -1; c < f->chunks; c++) {
      if (gather && c < f->gatherRounds) ok = ok && addRows(f, dtrFftGatherPiece(f, q, c).count);
      if (!gather && (c < 0 || c >= f->chunks - f->deliverRounds)) ok = ok && addRows(f, dtrFftDeliverPiece(f, q, c).count);
    }
  }
  return ok;
}

static dtrResult_t rowPassesChoose(struct dtrFftPlan* f) {
  const int can = f->kind == dtrFftC2C && f->howmany == 1 && !dtrFftHasRealToReal(f) && f->cshape[0] > 1;
  f->deliver = f->deliver && can, f->gather = f->gather && can;
  f->rowPasses = 0;
  /* Delivering with rounds where their pieces take plans, else without (a rank's rows), else not at all;
   * then gathering where its pieces take plans beside them. */
  if (f->deliver && f->deliverRounds && !addPieces(f, 0)) f->deliverRounds = f->rowPasses = 0;
  if (f->deliver && !f->deliverRounds && !addPieces(f, 0)) f->deliver = f->rowPasses = 0;
  const int kept = f->rowPasses;
  if (f->gather && !addPieces(f, 1)) f->gather = 0, f->rowPasses = kept;
  if (!f->deliver) f->deliverRounds = 0;
  if (!f->gather) f->gatherRounds = 0;
  if (!f->deliver && !f->gather) return dtrSuccess;
  DTRCHECK(dtrFftPiecesMake(f));
  /* Plans for the chunks of planes (the y pass, and the x pass as it goes) and for all of them (the x
   * pass in rounds). */
  int64_t batches[DTR_FFT_MAX_CHUNKS + 1];
  for (int k = 0; k < f->chunks; k++) batches[k] = dtrFftChunkOf(f, f->forward[0], 0, f->chunks, k).count;
  batches[f->chunks] = f->transforms[0];
  dtrLocalFftShape y, x;
  rowShapes(f, f->rowPassRows[0], &y, &x);
  DTRCHECK(dtrLocalFftCreate(&y, 1, batches, f->chunks, &f->columnPass));
  size_t work = dtrLocalFftWorkBytes(f->columnPass);
  const int plans = f->rowPasses;
  f->rowPasses = 0; /* counts the plans made, which the plan's destruction frees */
  for (int i = 0; i < plans; i++) {
    rowShapes(f, f->rowPassRows[i], &y, &x);
    DTRCHECK(dtrLocalFftCreate(&x, 1, batches, f->chunks + 1, &f->rowPass[i]));
    f->rowPasses++;
    work += dtrLocalFftWorkBytes(f->rowPass[i]);
  }
  /* The one-trip kernel's plans take no work area; the passes run on both streams without one. */
  if (work) return dtrSetError(dtrInternalError, "the delivering or gathering 2-D pass's plans ask for a work area (%zu bytes)", work);
  return dtrSuccess;
}

/* Its passes along z, which transpose as they go (local_fft.h's strided layout), with plans for the
 * chunks of lines both take; z's kind where it has walls (on real data where every axis has). */
dtrResult_t dtrFftCopiesPasses(struct dtrFftPlan* f) {
  const int64_t lines = f->box[1].size[0] * f->box[1].size[1]; /* this rank's (y, x) lines */
  dtrLocalFftShape from, into;
  dtrFftSlabZShapes(f, f->cshape[0] * f->cshape[1], &from, &into); /* S's planes: every row of a plane */
  int64_t batches[DTR_FFT_MAX_CHUNKS + 1];
  int n = 0;
  batches[n++] = lines;
  for (int k = 0; k < f->chunks; k++) batches[n++] = dtrFftChunkOf(f, f->inverse[0], 1, f->chunks, k).count;
  DTRCHECK(dtrLocalFftCreate(&from, 1, batches, n, &f->zFrom));
  DTRCHECK(dtrLocalFftCreate(&into, 1, batches, n, &f->zInto));
  DTRCHECK(rowPassesChoose(f));
  if (f->passStreams < 2 || f->chunks < 2) return dtrSuccess;
  /* The side stream's plans, for the odd chunks: of the passes along z, and of the 2-D pass where it
   * runs in chunks. */
  int64_t odd[DTR_FFT_MAX_CHUNKS];
  int m = 0;
  for (int k = 1; k < f->chunks; k += 2) odd[m++] = dtrFftChunkOf(f, f->inverse[0], 1, f->chunks, k).count;
  DTRCHECK(dtrLocalFftCreate(&from, 1, odd, m, &f->sideZFrom));
  DTRCHECK(dtrLocalFftCreate(&into, 1, odd, m, &f->sideZInto));
  if (dtrFftFirstPassChunk(f, f->forward[0], f->chunks, 1).count) {
    m = 0;
    for (int k = 1; k < f->chunks; k += 2) odd[m++] = dtrFftChunkOf(f, f->forward[0], 0, f->chunks, k).count;
    DTRCHECK(dtrLocalFftTwin(f->pass[0], odd, m, &f->sidePass));
  }
  dtrLocalFft* const side[3] = {f->sidePass, f->sideZFrom, f->sideZInto};
  for (int i = 0; i < 3; i++) {
    const size_t w = side[i] ? (dtrLocalFftWorkBytes(side[i]) + 255) / 256 * 256 : 0;
    if (w > f->sideArea) f->sideArea = w;
  }
  return dtrSuccess;
}

dtrResult_t dtrFftCopiesSetSideArea(struct dtrFftPlan* f, char* area) {
  dtrLocalFft* const side[3] = {f->sidePass, f->sideZFrom, f->sideZInto};
  for (int i = 0; i < 3 && f->sideArea; i++)
    if (side[i]) DTRCHECK(dtrLocalFftSetWorkArea(side[i], area));
  return dtrSuccess;
}

size_t dtrFftCopiesStagingBytes(const struct dtrFftPlan* f) { return (stagingBytes(f) + 255) / 256 * 256; }

dtrResult_t dtrFftCopiesStreams(struct dtrFftPlan* f, int priority) {
  /* Lane 0 is the plan's exchange stream; the others are the route's own. */
  f->lane = calloc((size_t)f->lanes, sizeof *f->lane);
  f->laneDone = calloc((size_t)f->lanes, sizeof *f->laneDone);
  if (!f->lane || !f->laneDone) return dtrSetError(dtrOutOfMemory, "cannot allocate the slab route's streams");
  f->lane[0] = f->exchange;
  for (int l = 1; l < f->lanes; l++) {
    CUDACHECK(cudaStreamCreateWithPriority(&f->lane[l], cudaStreamNonBlocking, priority));
    CUDACHECK(cudaEventCreateWithFlags(&f->laneDone[l], cudaEventDisableTiming));
  }
  CUDACHECK(cudaEventCreateWithFlags(&f->arrived, cudaEventDisableTiming));
  if (!f->sideZFrom) return dtrSuccess;
  CUDACHECK(cudaStreamCreateWithFlags(&f->side, cudaStreamNonBlocking));
  CUDACHECK(cudaEventCreateWithFlags(&f->sideStart, cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&f->sideDone, cudaEventDisableTiming));
  return dtrSuccess;
}

void dtrFftCopiesStreamsFree(struct dtrFftPlan* f) {
  for (int l = 1; f->lane && l < f->lanes; l++) {
    if (f->lane[l]) cudaStreamDestroy(f->lane[l]);
    if (f->laneDone[l]) cudaEventDestroy(f->laneDone[l]);
  }
  if (f->arrived) cudaEventDestroy(f->arrived);
  if (f->side) cudaStreamDestroy(f->side);
  if (f->sideStart) cudaEventDestroy(f->sideStart);
  if (f->sideDone) cudaEventDestroy(f->sideDone);
  free(f->lane);
  free(f->laneDone);
  f->lane = NULL, f->laneDone = NULL, f->arrived = NULL;
  f->side = NULL, f->sideStart = NULL, f->sideDone = NULL;
}

/* Chunks [k0, k1) of rank b's (y, x) lines, as lines counted from a plane's first entry: the chunks of
 * its Z-pencil. */
static dtrRange lineChunks(const struct dtrFftPlan* f, int b, int k0, int k1) {
  const dtrFftChunk first = dtrFftChunkOfRank(f, f->inverse[0], 1, b, f->chunks, k0);
  const dtrFftChunk last = dtrFftChunkOfRank(f, f->inverse[0], 1, b, f->chunks, k1 - 1);
  const dtrRange r = {dtrFftSlabRows(f, b).start * f->cshape[0] + first.first, last.first + last.count - first.first};
  return r;
}

/* The lines [lines) of the planes [planes), from this rank's S into the same place of `peer`'s: one 2-D
 * copy, a row of the copy a plane. */
static dtrResult_t copyBlock(struct dtrFftPlan* f, char* peer, dtrRange planes, dtrRange lines, cudaStream_t lane) {
  if (!planes.count || !lines.count) return dtrSuccess;
  const size_t e = pointBytes(f), plane = (size_t)(f->cshape[0] * f->cshape[1]) * e;
  const size_t at = (size_t)planes.start * plane + (size_t)lines.start * e;
  CUDACHECK(cudaMemcpy2DAsync(peer + at, plane, f->work + at, plane, (size_t)lines.count * e, (size_t)planes.count,
                              cudaMemcpyDeviceToDevice, lane));
  return dtrSuccess;
}

/* One execute's direction, this rank, its peers and their staging arrays as mapped here: what a chunk
 * of its first pass makes ("mine": planes forward, lines inverse) against what a chunk of its last pass
 * takes ("theirs", of the receiver). */
typedef struct {
  int inverse, rank, peers;
  char* const* peer;
} Execute;

static dtrRange mine(const struct dtrFftPlan* f, const Execute* ex, int k0, int k1) {
  return ex->inverse ? lineChunks(f, ex->rank, k0, k1) : dtrFftSlabPlaneChunks(f, ex->rank, k0, k1);
}
static dtrRange theirs(const struct dtrFftPlan* f, const Execute* ex, int q, int k0, int k1) {
  return ex->inverse ? dtrFftSlabPlaneChunks(f, q, k0, k1) : lineChunks(f, q, k0, k1);
}

/* Rank r's s-th peer, and the lane its copies take. */
static int peerAt(const Execute* ex, int s) { return (ex->rank + s) % ex->peers; }
static int laneOf(const struct dtrFftPlan* f, int s) { return (s - 1) % f->lanes; }

/* This rank's chunks [k0, k1) against the receivers' [c0, c1), to every peer. */
static dtrResult_t sendBlocks(struct dtrFftPlan* f, const Execute* ex, int k0, int k1, int c0, int c1) {
  const dtrRange own = mine(f, ex, k0, k1);
  for (int s = 1; s < ex->peers; s++) {
    const int q = peerAt(ex, s);
    const dtrRange other = theirs(f, ex, q, c0, c1);
    DTRCHECK(copyBlock(f, ex->peer[q], ex->inverse ? other : own, ex->inverse ? own : other, f->lane[laneOf(f, s)]));
  }
  return dtrSuccess;
}

static dtrResult_t streamWaits(cudaStream_t stream, cudaEvent_t event) {
  CUDACHECK(cudaStreamWaitEvent(stream, event, 0));
  return dtrSuccess;
}

/* Every lane waits for what `stream` has done so far. */
static dtrResult_t lanesAfter(struct dtrFftPlan* f, cudaEvent_t event, cudaStream_t stream) {
  CUDACHECK(cudaEventRecord(event, stream));
  for (int l = 0; l < f->lanes; l++)
    if (f->lane[l] != stream) DTRCHECK(streamWaits(f->lane[l], event));
  return dtrSuccess;
}

/* The stream chunk k of a pass runs on: the odd chunks on the side stream where the pass has plans
 * there (`side`), the others on the caller's; and the pass's plans on a stream. */
static cudaStream_t streamOf(const struct dtrFftPlan* f, const dtrLocalFft* side, int k, cudaStream_t stream) {
  return side && k % 2 ? f->side : stream;
}
static dtrLocalFft* passOn(const struct dtrFftPlan* f, dtrLocalFft* own, dtrLocalFft* side, cudaStream_t stream) {
  return side && stream == f->side ? side : own;
}
/* The side's plans of a direction's first and last passes. */
static dtrLocalFft* firstSide(const struct dtrFftPlan* f, int inverse) { return inverse ? f->sideZInto : f->sidePass; }
static dtrLocalFft* lastSide(const struct dtrFftPlan* f, int inverse) { return inverse ? f->sidePass : f->sideZFrom; }

/* Chunk k of the first pass, on `stream` (streamOf's): forward, chunk k of this rank's planes 2-D
 * transformed into their place in S (and normalized); inverse, chunk k of its (y, x) lines transformed
 * along z into its rows of every plane of S (and normalized there where that pass folds the factor in;
 * else the last pass scales). */
static dtrResult_t firstPass(struct dtrFftPlan* f, dtrPlan_t x, const void* in, dtrFftDirection_t direction, int k,
                             double factor, cudaStream_t stream) {
  const size_t e = pointBytes(f);
  const size_t plane = (size_t)(f->cshape[0] * f->cshape[1]);
  const int r = x->comm.rank, C = f->chunks;
  if (direction == dtrFftInverse) {
    const dtrFftChunk c = dtrFftChunkOf(f, f->inverse[0], 1, C, k);
    return dtrLocalFftRunScaled(passOn(f, f->zInto, f->sideZInto, stream), direction, c.first, c.count, in,
                                f->work + (size_t)(dtrFftSlabRows(f, r).start * f->cshape[0]) * e, factor, stream);
  }
  const dtrFftChunk t = dtrFftFirstPassChunk(f, x, C, k);
  char* own = f->work + (size_t)dtrFftSlabPlanes(f, r).start * plane * e;
  DTRCHECK(dtrLocalFftRun(passOn(f, f->pass[0], f->sidePass, stream), direction, t.first, t.count, in, own, stream));
  if (factor != 1.0 && t.count)
    DTRCHECK(dtrFftScale(f, own + (size_t)t.first * plane * e,
                         (size_t)(t.count * f->howmany) * plane * (size_t)dtrFftNumbersPerEntry(f), factor, stream));
  return dtrSuccess;
}

/* Chunk c of the last pass, on `stream` (streamOf's): forward, this rank's chunk c of lines along z
 * from S into the Z-pencil; inverse, its chunk c of planes, whole again, 2-D into the X-pencil, and
 * normalized there unless the first pass did. */
static dtrResult_t lastPass(struct dtrFftPlan* f, dtrPlan_t x, void* out, dtrFftDirection_t direction, int c, double factor,
                            cudaStream_t stream) {
  const size_t e = pointBytes(f);
  const int64_t nx = f->cshape[0];
  const int r = x->comm.rank, C = f->chunks;
  if (direction == dtrFftForward) {
    const dtrFftChunk l = dtrFftChunkOf(f, f->inverse[0], 1, C, c);
    return dtrLocalFftRun(passOn(f, f->zFrom, f->sideZFrom, stream), direction, l.first, l.count,
                          f->work + (size_t)(dtrFftSlabRows(f, r).start * nx) * e, out, stream);
  }
  const dtrFftChunk p = dtrFftLastPassChunk(f, f->forward[0], C, c);
  const size_t plane = (size_t)(nx * f->cshape[1]) * e;
  DTRCHECK(dtrLocalFftRun(passOn(f, f->pass[0], f->sidePass, stream), direction, p.first, p.count,
                          f->work + (size_t)dtrFftSlabPlanes(f, r).start * plane, out, stream));
  return dtrFftScaleInputPlanes(f, out, p, dtrLocalFftFoldsScale(f->zInto, direction) ? 1.0 : factor, stream);
}

/* The 2-D pass that delivers (forward) or gathers (inverse) (rowPassesChoose), its y pass over chunk k of
 * this rank's planes on `stream`: forward from the input's planes into their place in this rank's S,
 * inverse from there into the output's. */
static dtrResult_t columnsPass(struct dtrFftPlan* f, const void* in, void* out, int k, dtrFftDirection_t direction,
                               cudaStream_t stream) {
  const size_t plane = (size_t)(f->cshape[0] * f->cshape[1]) * pointBytes(f);
  const dtrFftChunk t = dtrFftFirstPassChunk(f, f->forward[0], f->chunks, k);
  char* const planes = f->work + (size_t)dtrFftSlabPlanes(f, f->forward[0]->comm.rank).start * plane;
  return dtrLocalFftRun(f->columnPass, direction, t.first, t.count, direction == dtrFftForward ? in : planes,
                        direction == dtrFftForward ? planes : out, stream);
}

/* Its x pass over the planes `t` of this rank's: with c < 0 this rank's own rows, whole, in place, and
 * each peer's piece outside the rounds (delivering, as the y pass goes; gathering, once the pass along
 * z is done); else each peer's piece of round c (slab_pieces.h). Delivering writes the pieces into
 * the peers' S, gathering reads them from there, at their place either way, the peers in the
 * staggered order; normalized as it writes. */
static dtrResult_t rowsPass(struct dtrFftPlan* f, const Execute* ex, dtrFftChunk t, int c, double factor, cudaStream_t stream) {
  const size_t e = pointBytes(f), line = (size_t)f->cshape[0] * e, plane = (size_t)f->cshape[1] * line;
  const size_t planes = (size_t)dtrFftSlabPlanes(f, ex->rank).start * plane;
  const int gather = ex->inverse;
  for (int s = c < 0 ? 0 : 1; s < ex->peers; s++) {
    const int q = peerAt(ex, s);
    const dtrRange piece = s == 0 ? (dtrRange){0, dtrFftSlabRows(f, q).count} : dtrFftPieceMade(f, gather, q, c);
    if (!piece.count || !t.count) continue;
    const size_t at = planes + (size_t)(dtrFftSlabRows(f, q).start + piece.start) * line;
    char* const mine = f->work + at;
    char* const theirs = (q == ex->rank ? f->work : ex->peer[q]) + at;
    DTRCHECK(dtrLocalFftRunScaled(f->rowPass[rowPassOf(f, piece.count)], gather ? dtrFftInverse : dtrFftForward, t.first, t.count,
                                  gather ? theirs : mine, gather ? mine : theirs, factor, stream));
  }
  return dtrSuccess;
}

/* Chunk c's signals: every lane tells the peers it serves (their writes of chunk c done, or delivering
 * and gathering, this rank's chunk c ready). Launched whatever failed before (`res`, kept). */
static dtrResult_t signalChunk(struct dtrFftPlan* f, dtrPlan_t x, const Execute* ex, int c, dtrResult_t res) {
  for (int l = 0; l < f->lanes; l++) {
    unsigned receivers = 0;
    for (int t = 1; t < ex->peers; t++)
      if (laneOf(f, t) == l) receivers |= 1u << peerAt(ex, t);
    const dtrResult_t signalled = dtrP2pChunkSignal(x, receivers, c, f->lane[l]);
    if (res == dtrSuccess) res = signalled;
  }
  return res;
}

/* The inverse that gathers, the mirror of the forward that delivers: the pass along z a chunk of lines
 * at a time into this rank's rows of S (on both pass streams), each chunk signalled to the peers once
 * done; on the side stream, round c (c < rounds) as chunk c has arrived from every peer, the x pass
 * over the rows it finished of every plane, read from the peers' S; once every chunk has arrived,
 * chunk k of planes at a time, the x pass over the rest of their rows (the peers' and this rank's own),
 * and on the caller's stream the y pass of chunk k into the output behind it. The lanes (and so the
 * finish barrier) wait for every read of the peers' S. */
static dtrResult_t gatherSteps(struct dtrFftPlan* f, dtrPlan_t x, const Execute* ex, const void* in, void* out, cudaStream_t stream,
                               double factor, int early, dtrResult_t res) {
  const int C = f->chunks;
  const cudaStream_t reads = f->side ? f->side : stream;
  const double rowsFactor = dtrLocalFftFoldsScale(f->zInto, dtrFftInverse) ? 1.0 : factor;
  const dtrFftChunk planes = {0, f->transforms[0]};
  for (int c = 0; c < C; c++) {
    const cudaStream_t on = streamOf(f, f->sideZInto, c, stream);
    if (res == dtrSuccess && !(early && c == 0)) res = firstPass(f, x, in, dtrFftInverse, c, factor, on);
    if (res == dtrSuccess) res = lanesAfter(f, f->passed, on);
    res = signalChunk(f, x, ex, c, res);
  }
  if (res == dtrSuccess) res = streamWaits(reads, f->arrived);
  for (int c = 0; c < C && res == dtrSuccess; c++) {
    res = dtrP2pChunkWait(x, c, reads);
    if (res == dtrSuccess && c < f->gatherRounds) res = rowsPass(f, ex, planes, c, rowsFactor, reads);
  }
  /* This rank's own rows, which the pass along z made on both streams. */
  if (res == dtrSuccess && f->side) res = dtrFftEventThen(f->passed, stream, f->side);
  for (int k = 0; k < C && res == dtrSuccess; k++) {
    res = rowsPass(f, ex, dtrFftFirstPassChunk(f, f->forward[0], C, k), -1, rowsFactor, reads);
    if (res == dtrSuccess && f->side) res = dtrFftEventThen(f->passed, reads, stream);
    if (res == dtrSuccess) res = columnsPass(f, NULL, out, k, dtrFftInverse, stream);
  }
  if (res == dtrSuccess) res = lanesAfter(f, f->passed, reads);
  return res;
}

dtrResult_t dtrFftCopiesEarly(struct dtrFftPlan* f, const void* in, dtrFftDirection_t direction, cudaStream_t stream,
                              double factor) {
  /* The side stream starts from here: its first chunk need not wait for this one. */
  if (f->side) CUDACHECK(cudaEventRecord(f->sideStart, stream));
  /* A pass that delivers writes into the peers' S only after the arrive barrier: its y pass alone here. */
  if (f->deliver && direction == dtrFftForward) return columnsPass(f, in, NULL, 0, dtrFftForward, stream);
  return firstPass(f, direction == dtrFftInverse ? f->inverse[0] : f->forward[0], in, direction, 0, factor, stream);
}

/* The forward and the inverse by copies, and the forward that delivers: the first pass in chunks, the
 * copies whole and in rounds, or the x pass's pieces as the y pass goes and in rounds; the chunks'
 * signals; the last pass a chunk at a time as they arrive. */
static dtrResult_t sendSteps(struct dtrFftPlan* f, dtrPlan_t x, const Execute* ex, const void* in, void* out,
                             dtrFftDirection_t direction, cudaStream_t stream, double factor, int early, dtrResult_t res) {
  const int inverse = direction == dtrFftInverse;
  const int C = f->chunks, whole = C - f->rounds[inverse], deliver = f->deliver && !inverse;
  for (int k = 0; k < C; k++) {
    /* Chunk k's pass (the first one ran before the agreements where `early` says so), and its copies
     * whole where it is one of the first `whole`; or, delivering, its y pass and then its x pass into
     * every rank's S, which each pass stream starts after the arrive barrier. */
    if (deliver) {
      const cudaStream_t on = f->side && k % 2 ? f->side : stream;
      if (res == dtrSuccess && !(early && k == 0)) res = columnsPass(f, in, NULL, k, dtrFftForward, on);
      if (res == dtrSuccess && k < 2) res = streamWaits(on, f->arrived);
      if (res == dtrSuccess) res = rowsPass(f, ex, dtrFftFirstPassChunk(f, x, C, k), -1, factor, on);
      continue;
    }
    const cudaStream_t on = streamOf(f, firstSide(f, inverse), k, stream);
    if (res == dtrSuccess && !(early && k == 0)) res = firstPass(f, x, in, direction, k, factor, on);
    if (res == dtrSuccess && k < whole) res = lanesAfter(f, f->passed, on);
    if (res == dtrSuccess && k < whole) res = sendBlocks(f, ex, k, k + 1, 0, C);
  }
  /* The whole first pass, on both streams, before the rounds and before the last pass on either. */
  if (res == dtrSuccess && f->side) res = dtrFftEventThen(f->sideDone, f->side, stream);
  if (res == dtrSuccess) res = lanesAfter(f, f->passed, stream);
  if (res == dtrSuccess && f->side) res = streamWaits(f->side, f->passed);
  /* Delivering in rounds: the x pass of the rows of chunk c of lines, over every plane, before chunk
   * c's signal, on the side stream (the pass along z takes the caller's). */
  const int sentEarly = deliver ? C - f->deliverRounds : C;
  const cudaStream_t rounds = f->side ? f->side : stream;
  const dtrFftChunk planes = {0, f->transforms[0]};
  for (int c = 0; c < C; c++) {
    if (res == dtrSuccess && !deliver) res = sendBlocks(f, ex, whole, C, c, c + 1);
    if (res == dtrSuccess && c >= sentEarly) res = rowsPass(f, ex, planes, c, factor, rounds);
    if (res == dtrSuccess && c >= sentEarly) res = lanesAfter(f, f->passed, rounds);
    res = signalChunk(f, x, ex, c, res);
  }
  /* The last pass, a chunk at a time as the peers' rounds arrive (its waits read the epoch the arrive
   * barrier began). */
  if (res == dtrSuccess) res = streamWaits(stream, f->arrived);
  if (res == dtrSuccess && f->side) res = streamWaits(f->side, f->arrived);
  for (int c = 0; c < C && res == dtrSuccess; c++) {
    const cudaStream_t on = sentEarly < C ? stream : streamOf(f, lastSide(f, inverse), c, stream);
    res = dtrP2pChunkWait(x, c, on);
    if (res == dtrSuccess) res = lastPass(f, x, out, direction, c, factor, on);
  }
  return res;
}

dtrResult_t dtrFftRunCopies(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                            cudaStream_t stream, double factor, int early) {
  const int inverse = direction == dtrFftInverse;
  const dtrPlan_t x = inverse ? f->inverse[0] : f->forward[0];
  char* const s = f->work;
  /* Every rank maps every rank's staging array (once an allocation; a few dozen bytes an execute). */
  DTRCHECK(dtrAgree(f->grid->comm, dtrPlanChunksBegin(x, dtrSuccess, s, s)));
  /* The gathering inverse reads the S of every rank that holds rows, which the forward plan maps (the
   * inverse's maps those of the ranks that own planes, a rank without any standing in its flags). */
  const int gather = inverse && f->gather;
  if (gather) DTRCHECK(dtrAgree(f->grid->comm, dtrPlanChunksBegin(f->forward[0], dtrSuccess, s, s)));
  const Execute ex = {inverse, x->comm.rank, f->grid->pc, dtrP2pChunkOuts(gather ? f->forward[0] : x)};
  DTRCHECK(dtrAgree(f->grid->comm, ex.peer ? dtrSuccess : dtrSetError(dtrInternalError, "the slab route's staging arrays are not mapped")));
  CUDACHECK(cudaSetDevice(f->device));
  if (f->side && !early) CUDACHECK(cudaEventRecord(f->sideStart, stream));
  if (f->side) CUDACHECK(cudaStreamWaitEvent(f->side, f->sideStart, 0));
  CUDACHECK(cudaEventRecord(f->start, stream));
  CUDACHECK(cudaStreamWaitEvent(f->exchange, f->start, 0));
  /* From here on every rank launches the barriers and every chunk's signals whatever fails locally, so
   * that none waits on its GPU for another that left: the first failure is kept and returned (agreed)
   * at the end. */
  dtrResult_t res = dtrP2pBarrier(x, dtrPeerArrive, f->exchange);
  if (res == dtrSuccess) res = lanesAfter(f, f->arrived, f->exchange);
  if (gather) res = gatherSteps(f, x, &ex, in, out, stream, factor, early, res);
  else res = sendSteps(f, x, &ex, in, out, direction, stream, factor, early, res);
  if (f->side) {
    const dtrResult_t joined = dtrFftEventThen(f->sideDone, f->side, stream);
    if (res == dtrSuccess) res = joined;
  }
  for (int l = 1; l < f->lanes; l++) {
    const dtrResult_t joined = dtrFftEventThen(f->laneDone[l], f->lane[l], f->exchange);
    if (res == dtrSuccess) res = joined;
  }
  const dtrResult_t finished = dtrP2pBarrier(x, dtrPeerFinish, f->exchange);
  if (res == dtrSuccess) res = finished;
  if (res == dtrSuccess) res = dtrFftEventThen(f->exchanged, f->exchange, stream);
  DTRCHECK(dtrAgree(f->grid->comm, res));
  return dtrPlanChunksEnd(x, stream);
}
