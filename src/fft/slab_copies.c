/*
 * The slab route: a 1 x P FFT whose exchange the copy engines move, on GPUs that map each other's
 * memory (the p2p backend), where every rank can hold a staging array of the whole array's planes.
 *
 * The staging array S is [z][y][x] over every plane of the (complex) array. A rank's forward 2-D pass
 * writes its own planes into S, whole, where they already sit at their place for everyone; each chunk
 * of planes then goes, row block by row block, to the rank that owns those rows: the rows [y0q, y1q)
 * of a plane are one contiguous block at the same offset of every rank's S, so a chunk to rank q is one
 * 2-D copy by the copy engines (no kernel, no SM, no transpose: ~390 GB/s each way over NV18, beside
 * a 2-D pass that it slows by a tenth). The pass along z then reads this rank's rows of every plane of
 * S with a stride of a plane and writes the Z-pencil [y][x][z]: the transpose costs the pass its
 * strided reads, and the exchange carries only what crosses to other ranks (the own block never
 * moves). The inverse runs the other way: the pass along z from the Z-pencil into this rank's rows of
 * S in chunks of rows, each chunk copied into the other ranks' own planes, then the 2-D pass.
 *
 * Between the GPUs, the p2p plan's barriers: an arrive before the first copy into a peer's S (its
 * owner has finished what came before, which may still read it) and a finish after the last (every
 * copy into this rank's S is done) on the exchange stream. docs/fft.md#overlap has the measurements.
 */
#include <string.h>

#include "backends/backend.h"
#include "backends/p2p/p2p.h"
#include "core/checks.h"
#include "fft_plan.h"
#include "grid.h"
#include "launch.h"
#include "plan.h"

/* Bytes of the staging array: every plane of the complex array. */
static size_t stagingBytes(const struct dtrFftPlan* f) {
  return (size_t)(f->cshape[0] * f->cshape[1] * f->cshape[2]) * dtrDataTypeSize(f->ctype);
}

/* Collective over the grid: whether the plan takes the slab route (all ranks alike), its staging array
 * and its passes along z. Its staging array, where it does, lives at f->work, before the passes' area. */
dtrResult_t dtrFftCopiesChoose(struct dtrFftPlan* f, size_t area, int wanted) {
  f->copies = 0;
  int fits = wanted && f->gpu && f->npencils == 2 && f->grid->pc > 1 && f->forward[0]->backend == dtrBackendP2p &&
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

/* Its passes along z, which transpose as they go (local_fft.h's strided layout). */
dtrResult_t dtrFftCopiesPasses(struct dtrFftPlan* f) {
  const int64_t nx = f->cshape[0], ny = f->cshape[1], nz = f->cshape[2];
  const int64_t lines = f->box[1].size[0] * f->box[1].size[1]; /* this rank's (y, x) lines */
  const int dbl = f->ctype == dtrComplex128;
  const dtrLocalFftShape from = {1, {nz, 0}, 0, dbl, ny * nx, 1, 1, nz};
  const dtrLocalFftShape into = {1, {nz, 0}, 0, dbl, 1, nz, ny * nx, 1};
  int64_t batches[DTR_FFT_MAX_CHUNKS + 1];
  int n = 0;
  batches[n++] = lines;
  DTRCHECK(dtrLocalFftCreate(&from, 1, batches, n, &f->zFrom));
  for (int k = 0; k < f->chunks; k++) batches[n++] = dtrFftChunkOf(f, f->inverse[0], 1, f->chunks, k).count;
  return dtrLocalFftCreate(&into, 1, batches, n, &f->zInto);
}

size_t dtrFftCopiesStagingBytes(const struct dtrFftPlan* f) { return (stagingBytes(f) + 255) / 256 * 256; }

/* The planes (X-pencil) and the rows (Z-pencil) of the rank at column b of the 1 x P grid, which is
 * rank b of the exchanges' communicator and so of the mapped staging arrays. */
static dtrRange planesOf(const struct dtrFftPlan* f, int b) {
  const dtrPencilExtent x = dtrPencilBoxOf(f->cshape, 1, f->grid->pc, 0, b, dtrPencilX);
  const dtrRange r = {x.start[2], x.size[2]};
  return r;
}
static dtrRange rowsOf(const struct dtrFftPlan* f, int b) {
  const dtrPencilExtent z = dtrPencilBoxOf(f->cshape, 1, f->grid->pc, 0, b, dtrPencilZ);
  const dtrRange r = {z.start[1], z.size[1]};
  return r;
}

/* Copies of `height` blocks of `width` bytes, a plane apart, at the same offset of this rank's and
 * rank q's staging array. */
static dtrResult_t copyTo(struct dtrFftPlan* f, char* peer, size_t offset, size_t width, size_t height,
                          cudaStream_t stream) {
  if (!width || !height) return dtrSuccess;
  const size_t plane = (size_t)(f->cshape[0] * f->cshape[1]) * dtrDataTypeSize(f->ctype);
  CUDACHECK(cudaMemcpy2DAsync(peer + offset, plane, f->work + offset, plane, width, height, cudaMemcpyDeviceToDevice, stream));
  return dtrSuccess;
}

/* Chunk k's local pass: forward, chunk k of this rank's planes 2-D transformed into their place in S
 * (and normalized); inverse, chunk k of its (y, x) lines transformed along z into its rows of every
 * plane of S. */
static dtrResult_t passChunk(struct dtrFftPlan* f, dtrPlan_t x, const void* in, dtrFftDirection_t direction, int k,
                             double factor, cudaStream_t stream) {
  const size_t e = dtrDataTypeSize(f->ctype);
  const size_t plane = (size_t)(f->cshape[0] * f->cshape[1]);
  const int r = x->comm.rank, C = f->chunks;
  if (direction == dtrFftInverse) {
    const dtrFftChunk c = dtrFftChunkOf(f, x, 1, C, k);
    return dtrLocalFftRun(f->zInto, direction, c.first, c.count, in, f->work + (size_t)(rowsOf(f, r).start * f->cshape[0]) * e,
                          stream);
  }
  const dtrFftChunk t = dtrFftFirstPassChunk(f, x, C, k);
  char* own = f->work + (size_t)planesOf(f, r).start * plane * e;
  DTRCHECK(dtrLocalFftRun(f->pass[0], direction, t.first, t.count, in, own, stream));
  if (factor != 1.0 && t.count) DTRCHECK(dtrFftScale(f, own + (size_t)t.first * plane * e, (size_t)t.count * plane * 2, factor, stream));
  return dtrSuccess;
}

dtrResult_t dtrFftCopiesEarly(struct dtrFftPlan* f, const void* in, dtrFftDirection_t direction, cudaStream_t stream,
                              double factor) {
  return passChunk(f, direction == dtrFftInverse ? f->inverse[0] : f->forward[0], in, direction, 0, factor, stream);
}

dtrResult_t dtrFftRunCopies(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                            cudaStream_t stream, double factor, int early) {
  const int inverse = direction == dtrFftInverse;
  const dtrPlan_t x = inverse ? f->inverse[0] : f->forward[0];
  char* const s = f->work;
  /* Every rank maps every rank's staging array (once an allocation; a few dozen bytes an execute). */
  DTRCHECK(dtrAgree(f->grid->comm, dtrPlanChunksBegin(x, dtrSuccess, s, s)));
  char* const* peers = dtrP2pChunkOuts(x);
  DTRCHECK(dtrAgree(f->grid->comm, peers ? dtrSuccess : dtrSetError(dtrInternalError, "the slab route's staging arrays are not mapped")));

  const int r = x->comm.rank, P = f->grid->pc, C = f->chunks;
  const size_t e = dtrDataTypeSize(f->ctype);
  const int64_t nx = f->cshape[0], ny = f->cshape[1];
  const size_t plane = (size_t)(nx * ny);
  const dtrRange planes = planesOf(f, r), rows = rowsOf(f, r);
  CUDACHECK(cudaSetDevice(f->device));
  CUDACHECK(cudaEventRecord(f->start, stream));
  CUDACHECK(cudaStreamWaitEvent(f->exchange, f->start, 0));
  /* From here on every rank launches both barriers whatever fails locally, so that none waits on its
   * GPU for another that left: the first failure is kept and returned (agreed) at the end. */
  dtrResult_t res = dtrP2pBarrier(x, dtrPeerArrive, f->exchange);
  for (int k = 0; k < C; k++) {
    /* Chunk k's pass (the first one ran before the agreements where `early` says so). */
    if (res == dtrSuccess && !(early && k == 0)) res = passChunk(f, x, in, direction, k, factor, stream);
    if (!inverse) {
      /* Chunk k of this rank's planes, in their place in S: each peer's rows of them. */
      const dtrFftChunk c = dtrFftChunkOf(f, x, 0, C, k);
      if (res == dtrSuccess) res = dtrFftEventThen(f->passed, stream, f->exchange);
      for (int q = 0; q < P && res == dtrSuccess; q++) {
        if (q == r) continue;
        const dtrRange theirs = rowsOf(f, q);
        const size_t at = ((size_t)(planes.start + c.first) * plane + (size_t)(theirs.start * nx)) * e;
        res = copyTo(f, peers[q], at, (size_t)(theirs.count * nx) * e, (size_t)c.count, f->exchange);
      }
    } else {
      /* Chunk k of this rank's (y, x) lines, in its rows of every plane of S: each peer's planes of them. */
      const dtrFftChunk c = dtrFftChunkOf(f, x, 1, C, k);
      if (res == dtrSuccess) res = dtrFftEventThen(f->passed, stream, f->exchange);
      for (int q = 0; q < P && res == dtrSuccess; q++) {
        if (q == r) continue;
        const dtrRange theirs = planesOf(f, q);
        const size_t at = ((size_t)theirs.start * plane + (size_t)(rows.start * nx + c.first)) * e;
        res = copyTo(f, peers[q], at, (size_t)c.count * e, (size_t)theirs.count, f->exchange);
      }
    }
  }
  const dtrResult_t finished = dtrP2pBarrier(x, dtrPeerFinish, f->exchange);
  if (res == dtrSuccess) res = finished;
  if (res == dtrSuccess) res = dtrFftEventThen(f->exchanged, f->exchange, stream);
  if (res == dtrSuccess) {
    if (!inverse) {
      /* This rank's rows of every plane, along z, into the Z-pencil. */
      res = dtrLocalFftRun(f->zFrom, direction, 0, f->transforms[1], s + (size_t)(rows.start * nx) * e, out, stream);
    } else {
      /* This rank's planes, whole again, 2-D into the X-pencil; the normalization on the result. */
      res = dtrLocalFftRun(f->pass[0], direction, 0, f->transforms[0], s + (size_t)planes.start * plane * e, out, stream);
      if (res == dtrSuccess && factor != 1.0) res = dtrFftScale(f, out, f->input.bytes / (e / 2), factor, stream);
    }
  }
  DTRCHECK(dtrAgree(f->grid->comm, res));
  return dtrPlanChunksEnd(x, stream);
}
