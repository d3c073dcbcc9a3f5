/*
 * The slab route over NCCL: a 1 x P FFT whose exchange is NCCL messages laid out for the passes, on the
 * nccl backend (the path between nodes), with no transpose between them.
 *
 * Forward. The 2-D pass writes this rank's planes [z][y][x] into the plan's array W, in chunks of planes.
 * Rows [y0q, y1q) of a plane are contiguous, so the block of a chunk of planes for rank q is one 2-D copy
 * by the copy engines (no kernel, no SM) into q's segment of the route's send buffer, [z][y - y0q][x]:
 * a chunk's piece of a segment is contiguous there. The receiver's buffer holds [z][y - y0r][x] over
 * every plane; the pieces from rank b are its planes, contiguous too. So every message goes from one
 * registered buffer straight into the other, and the pass along z reads the receive buffer with a
 * stride of |rows| lines and writes the Z-pencil [y][x][z]: the transpose costs the pass its strided
 * reads, as on the p2p slab route (slab_copies.c). The own block is copied into the receive buffer.
 *
 *   caller's stream:  2-D chunk 0 | 2-D chunk 1 | ...      | 2-D chunk C-1 |          (wait) | z pass
 *   copy stream:                  | pack 0      | pack 1   | ...           | pack C-1 |
 *   exchange stream:                            | group 0  | group 1 ...               | group C-1 |
 *
 * Inverse, the other way round: the pass along z, whole, from the Z-pencil straight into the inverse
 * send buffer (the forward's receive buffer) [z][y - y0r][x], where the planes of rank q are one contiguous segment; the
 * messages in chunks of planes into the receive buffer's segment of each sender ([z][y - y0b][x] for
 * this rank's planes); each chunk unpacked by the copy engines into its rows of W's planes; the 2-D pass
 * of a chunk as soon as it is whole.
 *
 * Every rank makes every group whatever fails locally (a rank that left would leave its peers' NCCL
 * kernels waiting): the first failure is kept and returned, agreed, at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/nccl/nccl.h"
#include "core/checks.h"
#include "fft_plan.h"
#include "grid.h"
#include "plan.h"

/* This execute's direction, this rank, the peers, the sizes and its message buffers. */
typedef struct {
  int inverse, rank, peers;
  dtrPlan_t x;        /* the exchange whose communicator carries the messages */
  size_t e, line;     /* bytes of a point (an entry of the exchanges) and of an x line */
  int64_t nx, ny;
  char* send;
  char* recv;
} Execute;

/* Entries before rank q's segment of the buffer whose segments are [z of this rank's planes][y of q's
 * rows][x] (the forward's send buffer, the inverse's receive buffer); none for the rank itself. The
 * ranks' rows lie in rank order, so the rows of the ranks before q are where q's begin, less this
 * rank's, which has no segment. */
static int64_t segmentOf(const struct dtrFftPlan* f, const Execute* ex, int q) {
  const int64_t planes = dtrFftSlabPlanes(f, ex->rank).count;
  const int64_t before = dtrFftSlabRows(f, q).start - (ex->rank < q ? dtrFftSlabRows(f, ex->rank).count : 0);
  return planes * before * ex->nx;
}

static int peerAt(const Execute* ex, int s) { return (ex->rank + s) % ex->peers; }

static dtrResult_t copy2d(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width, int64_t height,
                          cudaStream_t stream) {
  if (!width || height <= 0) return dtrSuccess;
  CUDACHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, (size_t)height, cudaMemcpyDeviceToDevice, stream));
  return dtrSuccess;
}

/* Collective over the grid: whether the plan takes the route, every rank alike, and its two message
 * buffers where it does: one of the X box (the forward's send segments, the inverse's receive
 * segments), one of the Z box (the forward's receive buffer, the inverse's send buffer), registered
 * with the exchanges' communicator. Where a rank cannot hold them, no rank takes the route. */
dtrResult_t dtrFftMessagesChoose(struct dtrFftPlan* f, size_t area, int wanted) {
  f->messages = 0;
  int fits = wanted && f->gpu && !f->copies && f->npencils == 2 && f->grid->pc > 1 && dtrFftSlabPlanesCopyable(f) &&
             f->forward[0]->backend == dtrBackendNccl && f->inverse[0]->backend == dtrBackendNccl;
  if (fits) {
    /* Room for both, the passes' work area and a margin for the caller, now. */
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) (void)cudaGetLastError(), freeBytes = 0;
    fits = freeBytes > f->box[0].bytes + f->box[1].bytes + area + ((size_t)1 << 30);
  }
  DTRCHECK(dtrAllreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, f->grid->comm, "whether every rank takes the NCCL slab route"));
  if (!fits) return dtrSuccess;
  static const char* const what[2] = {"the NCCL slab route's buffer of the X box", "the NCCL slab route's buffer of the Z box"};
  int made = (f->pieces = calloc(2 * (size_t)f->grid->pc, sizeof *f->pieces)) != NULL;
  for (int i = 0; i < 2 && made; i++)
    made = dtrNcclMessageBufferCreate(f->forward[0], f->box[i].bytes, what[i], &f->message[i], &f->messageHandle[i]) == dtrSuccess;
  DTRCHECK(dtrAllreduce(MPI_IN_PLACE, &made, 1, MPI_INT, MPI_MIN, f->grid->comm, "whether every rank made the NCCL slab route's buffers"));
  if (!made) dtrFftMessagesFree(f);
  f->messages = made;
  return dtrSuccess;
}

void dtrFftMessagesFree(struct dtrFftPlan* f) {
  for (int i = 0; i < 2; i++)
    if (f->message[i]) dtrNcclMessageBufferDestroy(f->forward[0], f->message[i], f->messageHandle[i]);
  f->message[0] = f->message[1] = NULL;
  f->messageHandle[0] = f->messageHandle[1] = NULL;
  free(f->pieces);
  f->pieces = NULL;
}

/* Its passes along z, between the Z-pencil and planes of this rank's rows only ([z][y - y0][x]). */
dtrResult_t dtrFftMessagesPasses(struct dtrFftPlan* f) {
  const int64_t lines = f->box[1].size[0] * f->box[1].size[1];
  dtrLocalFftShape from, into;
  dtrFftSlabZShapes(f, lines, &from, &into); /* its planes: this rank's rows only */
  const int64_t batches[1] = {lines};
  DTRCHECK(dtrLocalFftCreate(&from, 1, batches, 1, &f->zFrom));
  return dtrLocalFftCreate(&into, 1, batches, 1, &f->zInto);
}

static dtrResult_t executeOf(struct dtrFftPlan* f, dtrFftDirection_t direction, Execute* ex) {
  memset(ex, 0, sizeof *ex);
  ex->inverse = direction == dtrFftInverse;
  ex->x = f->forward[0]; /* its communicator carries both directions' messages */
  ex->rank = ex->x->comm.rank, ex->peers = f->grid->pc;
  ex->e = dtrDataTypeSize(f->ctype) * (size_t)f->howmany; /* a point: howmany complex numbers */
  ex->nx = f->cshape[0], ex->ny = f->cshape[1];
  ex->line = (size_t)ex->nx * ex->e;
  ex->send = f->message[ex->inverse], ex->recv = f->message[!ex->inverse];
  return dtrSuccess;
}

/* Forward, chunk k of the 2-D pass (and its normalization) into W. */
static dtrResult_t planesPass(struct dtrFftPlan* f, const Execute* ex, const void* in, int k, double factor,
                              cudaStream_t stream) {
  const dtrFftChunk t = dtrFftFirstPassChunk(f, ex->x, f->chunks, k);
  const size_t plane = (size_t)ex->ny * ex->line;
  DTRCHECK(dtrLocalFftRun(f->pass[0], dtrFftForward, t.first, t.count, in, f->work, stream));
  if (factor != 1.0 && t.count)
    DTRCHECK(dtrFftScale(f, f->work + (size_t)t.first * plane, (size_t)t.count * plane / (dtrDataTypeSize(f->ctype) / 2), factor,
                         stream));
  return dtrSuccess;
}

/* Inverse, the pass along z, whole, from the Z-pencil into the send buffer's planes of this rank's rows
 * (normalized there where the pass folds the factor in; else the last pass scales). */
static dtrResult_t linesPass(struct dtrFftPlan* f, const Execute* ex, const void* in, double factor, cudaStream_t stream) {
  return dtrLocalFftRunScaled(f->zInto, dtrFftInverse, 0, f->box[1].size[0] * f->box[1].size[1], in, ex->send, factor, stream);
}

dtrResult_t dtrFftMessagesEarly(struct dtrFftPlan* f, const void* in, dtrFftDirection_t direction, cudaStream_t stream,
                                double factor) {
  Execute ex;
  DTRCHECK(executeOf(f, direction, &ex));
  return ex.inverse ? linesPass(f, &ex, in, factor, stream) : planesPass(f, &ex, in, 0, factor, stream);
}

/* Forward, chunk k of this rank's planes (local, relative to its first) from W: each peer's rows into
 * its segment of the send buffer, the own rows into their place in the receive buffer. */
static dtrResult_t packChunk(struct dtrFftPlan* f, const Execute* ex, int k, cudaStream_t lane) {
  const dtrRange mine = dtrFftSlabPlanes(f, ex->rank);
  const dtrRange c = dtrFftSlabPlaneChunks(f, ex->rank, k, k + 1);
  const int64_t first = c.start - mine.start;
  const size_t plane = (size_t)ex->ny * ex->line;
  for (int s = 0; s < ex->peers; s++) {
    const int q = peerAt(ex, s);
    const dtrRange rows = dtrFftSlabRows(f, q);
    const size_t width = (size_t)rows.count * ex->line;
    const char* src = f->work + (size_t)first * plane + (size_t)rows.start * ex->line;
    char* dst = q == ex->rank ? ex->recv + (size_t)c.start * width
                              : ex->send + (size_t)segmentOf(f, ex, q) * ex->e + (size_t)first * width;
    DTRCHECK(copy2d(dst, width, src, plane, width, c.count, lane));
  }
  return dtrSuccess;
}

/* Chunk k's group. Forward: this rank's chunk k of planes to every peer (their rows), every peer's chunk
 * k of its planes received (this rank's rows). Inverse: every peer's chunk k of its planes (this rank's
 * rows) sent, this rank's chunk k of planes received from every peer (their rows). */
static dtrResult_t messagesOf(struct dtrFftPlan* f, const Execute* ex, int k, cudaStream_t stream) {
  dtrRange* pieces = f->pieces;
  const int p = ex->peers, r = ex->rank;
  const int64_t myRows = dtrFftSlabRows(f, r).count;
  const dtrRange mine = dtrFftSlabPlanes(f, r);
  const dtrRange own = dtrFftSlabPlaneChunks(f, r, k, k + 1);
  for (int q = 0; q < p; q++) {
    dtrRange out = {0, 0}, in = {0, 0};
    if (q != r) {
      const dtrRange theirs = dtrFftSlabPlaneChunks(f, q, k, k + 1);
      const int64_t qRows = dtrFftSlabRows(f, q).count;
      if (!ex->inverse) {
        out.start = segmentOf(f, ex, q) + (own.start - mine.start) * qRows * ex->nx, out.count = own.count * qRows * ex->nx;
        in.start = theirs.start * myRows * ex->nx, in.count = theirs.count * myRows * ex->nx;
      } else {
        out.start = theirs.start * myRows * ex->nx, out.count = theirs.count * myRows * ex->nx;
        in.start = segmentOf(f, ex, q) + (own.start - mine.start) * qRows * ex->nx, in.count = own.count * qRows * ex->nx;
      }
    }
    pieces[q] = out, pieces[p + q] = in;
  }
  return dtrNcclPiecesExchange(ex->x, ex->send, ex->recv, pieces, stream, "the NCCL slab route's group of sends and receives");
}

/* Inverse, chunk k of this rank's planes into W: each peer's rows from its segment of the receive
 * buffer, the own rows from the send buffer, where the pass along z wrote them. */
static dtrResult_t unpackChunk(struct dtrFftPlan* f, const Execute* ex, int k, cudaStream_t lane) {
  const dtrRange mine = dtrFftSlabPlanes(f, ex->rank);
  const dtrRange c = dtrFftSlabPlaneChunks(f, ex->rank, k, k + 1);
  const int64_t first = c.start - mine.start;
  const size_t plane = (size_t)ex->ny * ex->line;
  for (int s = 0; s < ex->peers; s++) {
    const int q = peerAt(ex, s);
    const dtrRange rows = dtrFftSlabRows(f, q);
    const size_t width = (size_t)rows.count * ex->line;
    char* dst = f->work + (size_t)first * plane + (size_t)rows.start * ex->line;
    const char* src = q == ex->rank ? ex->send + (size_t)c.start * width
                                    : ex->recv + (size_t)segmentOf(f, ex, q) * ex->e + (size_t)first * width;
    DTRCHECK(copy2d(dst, plane, src, width, width, c.count, lane));
  }
  return dtrSuccess;
}

/* Inverse, chunk k of the 2-D pass from W into out, normalized there unless the pass along z did (real
 * planes for C2R). */
static dtrResult_t planesPassBack(struct dtrFftPlan* f, void* out, int k, double factor, cudaStream_t stream) {
  const dtrFftChunk p = dtrFftLastPassChunk(f, f->forward[0], f->chunks, k);
  DTRCHECK(dtrLocalFftRun(f->pass[0], dtrFftInverse, p.first, p.count, f->work, out, stream));
  return dtrFftScaleInputPlanes(f, out, p, dtrLocalFftFoldsScale(f->zInto, dtrFftInverse) ? 1.0 : factor, stream);
}

/* `res`: what failed before (the groups still run, nothing else). */
static dtrResult_t forward(struct dtrFftPlan* f, const Execute* ex, const void* in, void* out, cudaStream_t stream,
                           double factor, int early, dtrResult_t res) {
  cudaStream_t copies = f->lane[1];
  for (int k = 0; k < f->chunks; k++) {
    if (res == dtrSuccess && !(early && k == 0)) res = planesPass(f, ex, in, k, factor, stream);
    if (res == dtrSuccess) res = dtrFftEventThen(f->passed, stream, copies);
    if (res == dtrSuccess) res = packChunk(f, ex, k, copies);
    if (res == dtrSuccess) res = dtrFftEventThen(f->arrived, copies, f->exchange);
    const dtrResult_t sent = messagesOf(f, ex, k, f->exchange);
    if (res == dtrSuccess) res = sent;
  }
  if (res == dtrSuccess) res = dtrFftEventThen(f->laneDone[1], copies, stream);
  if (res == dtrSuccess) res = dtrFftEventThen(f->exchanged, f->exchange, stream);
  if (res == dtrSuccess)
    res = dtrLocalFftRun(f->zFrom, dtrFftForward, 0, f->box[1].size[0] * f->box[1].size[1], ex->recv, out, stream);
  return res;
}

static dtrResult_t inverse(struct dtrFftPlan* f, const Execute* ex, const void* in, void* out, cudaStream_t stream,
                           double factor, int early, dtrResult_t res) {
  cudaStream_t copies = f->lane[1];
  if (res == dtrSuccess && !early) res = linesPass(f, ex, in, factor, stream);
  if (res == dtrSuccess) res = dtrFftEventThen(f->passed, stream, f->exchange);
  if (res == dtrSuccess) res = dtrFftEventThen(f->passed, stream, copies);
  for (int k = 0; k < f->chunks; k++) {
    const dtrResult_t moved = messagesOf(f, ex, k, f->exchange);
    if (res == dtrSuccess) res = moved;
    if (res == dtrSuccess) res = dtrFftEventThen(f->exchanged, f->exchange, copies);
    if (res == dtrSuccess) res = unpackChunk(f, ex, k, copies);
    if (res == dtrSuccess) res = dtrFftEventThen(f->laneDone[1], copies, stream);
    if (res == dtrSuccess) res = planesPassBack(f, out, k, factor, stream);
  }
  if (res == dtrSuccess) res = dtrFftEventThen(f->arrived, f->exchange, stream);
  return res;
}

dtrResult_t dtrFftRunMessages(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                              cudaStream_t stream, double factor, int early) {
  Execute ex;
  dtrResult_t res = executeOf(f, direction, &ex);
  const dtrResult_t begun = dtrPlanChunksBegin(ex.x, res, f->work, f->work);
  if (res == dtrSuccess) res = begun;
  DTRCHECK(dtrAgree(f->grid->comm, res));
  CUDACHECK(cudaSetDevice(f->device));
  res = dtrFftEventThen(f->start, stream, f->exchange);
  if (res == dtrSuccess) res = dtrFftEventThen(f->start, stream, f->lane[1]);
  /* A failure above still runs the groups below (with no data of the caller's), so that no peer waits
   * for this rank's. */
  res = ex.inverse ? inverse(f, &ex, in, out, stream, factor, early, res) : forward(f, &ex, in, out, stream, factor, early, res);
  DTRCHECK(dtrAgree(f->grid->comm, res));
  return dtrPlanChunksEnd(ex.x, stream);
}
