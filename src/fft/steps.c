/*
 * The pieces of an execute that the routes share (pipeline.c's and the slab routes'): the transforms of
 * a pass in a chunk, the planes and rows of a slab's ranks, the normalization, and one stream waiting
 * for another.
 */
#include <limits.h>

#include "backends/backend.h"
#include "core/checks.h"
#include "fft_plan.h"
#include "grid.h"
#include "launch.h"

dtrFftChunk dtrFftChunkOfRank(const struct dtrFftPlan* f, dtrPlan_t exchange, int pencilIndex, int rank, int chunks, int k) {
  const dtrRange e = dtrChunkEntries(&exchange->geo, rank, chunks, k);
  const int64_t length = f->length[pencilIndex];
  const dtrFftChunk c = {length ? e.start / length : 0, length ? e.count / length : 0};
  return c;
}

dtrRange dtrFftSlabPlanes(const struct dtrFftPlan* f, int b) {
  const dtrPencilExtent x = dtrPencilBoxOf(f->cshape, 1, f->grid->pc, 0, b, dtrPencilX);
  const dtrRange r = {x.start[2], x.size[2]};
  return r;
}

dtrRange dtrFftSlabRows(const struct dtrFftPlan* f, int b) {
  const dtrPencilExtent z = dtrPencilBoxOf(f->cshape, 1, f->grid->pc, 0, b, dtrPencilZ);
  const dtrRange r = {z.start[1], z.size[1]};
  return r;
}

int dtrFftSlabPlanesCopyable(const struct dtrFftPlan* f) {
  const double plane = (double)f->cshape[0] * (double)f->cshape[1] * (double)dtrDataTypeSize(f->ctype) * (double)f->howmany;
  return plane <= (double)INT_MAX;
}

dtrRange dtrFftSlabPlaneChunks(const struct dtrFftPlan* f, int b, int k0, int k1) {
  const dtrFftChunk first = dtrFftChunkOfRank(f, f->forward[0], 0, b, f->chunks, k0);
  const dtrFftChunk last = dtrFftChunkOfRank(f, f->forward[0], 0, b, f->chunks, k1 - 1);
  const dtrRange r = {dtrFftSlabPlanes(f, b).start + first.first, last.first + last.count - first.first};
  return r;
}

dtrFftChunk dtrFftChunkOf(const struct dtrFftPlan* f, dtrPlan_t exchange, int pencilIndex, int chunks, int k) {
  return dtrFftChunkOfRank(f, exchange, pencilIndex, exchange->comm.rank, chunks, k);
}

/* cuFFT takes real arrays at 8-byte boundaries only: a real pass whose transforms hold an odd count
 * of real entries cannot start a chunk past its first transform. */
static int realPassWhole(const struct dtrFftPlan* f) {
  const int64_t realLength = f->npencils == 2 ? f->shape[0] * f->shape[1] : f->shape[0];
  return f->gpu && f->realPass && realLength % 2;
}

int dtrFftHasRealToReal(const struct dtrFftPlan* f) {
  return f->axes[0] != dtrFftPeriodic || f->axes[1] != dtrFftPeriodic || f->axes[2] != dtrFftPeriodic;
}

int dtrFftNumbersPerEntry(const struct dtrFftPlan* f) { return f->realPlan ? 1 : 2; }

int dtrFftPassScales(const struct dtrFftPlan* f, int i) {
  if (!f->gpu || f->padded || f->norm == dtrFftNormNone) return 0;
  return i == f->npencils - 1 || (i == 0 && f->norm == dtrFftNormOrtho);
}

/* Whether the complex side's numbers are doubles. */
static int doubleNumbers(const struct dtrFftPlan* f) { return f->ctype == dtrComplex128 || f->ctype == dtrFloat64; }

void dtrFftSlabZShapes(const struct dtrFftPlan* f, int64_t planeStride, dtrLocalFftShape* from, dtrLocalFftShape* into) {
  const int64_t nz = f->cshape[2];
  const dtrLocalFftShape z = {.dims = 1, .n = {nz, 0}, .dbl = doubleNumbers(f), .in_stride = planeStride, .in_dist = 1,
                              .out_stride = 1, .out_dist = nz, .fields = f->howmany, .kind = {f->axes[2], 0},
                              .realData = f->realPlan};
  *from = z, *into = z;
  into->in_stride = 1, into->in_dist = nz, into->out_stride = planeStride, into->out_dist = 1;
  into->scaled = dtrFftPassScales(f, f->npencils - 1);
}

dtrFftChunk dtrFftFirstPassChunk(const struct dtrFftPlan* f, dtrPlan_t exchange, int chunks, int k) {
  if (!realPassWhole(f)) return dtrFftChunkOf(f, exchange, 0, chunks, k);
  const dtrFftChunk whole = {0, k == 0 ? f->transforms[0] : 0};
  return whole;
}

dtrFftChunk dtrFftLastPassChunk(const struct dtrFftPlan* f, dtrPlan_t exchange, int chunks, int k) {
  if (!realPassWhole(f)) return dtrFftChunkOf(f, exchange, 0, chunks, k);
  const dtrFftChunk whole = {0, k == chunks - 1 ? f->transforms[0] : 0};
  return whole;
}

dtrResult_t dtrFftScale(const struct dtrFftPlan* f, char* x, size_t reals, double factor, cudaStream_t stream) {
  const int dbl = doubleNumbers(f);
  if (f->gpu) {
    CUDACHECK(dtrScaleLaunch(x, reals, dbl, factor, stream));
    return dtrSuccess;
  }
  if (dbl)
    for (size_t i = 0; i < reals; i++) ((double*)x)[i] *= factor;
  else
    for (size_t i = 0; i < reals; i++) ((float*)x)[i] *= (float)factor;
  return dtrSuccess;
}

dtrResult_t dtrFftScaleInputPlanes(const struct dtrFftPlan* f, void* x, dtrFftChunk planes, double factor, cudaStream_t stream) {
  if (factor == 1.0 || !planes.count) return dtrSuccess;
  const size_t plane = (size_t)(f->shape[0] * f->shape[1]) * dtrDataTypeSize(f->type) * (size_t)f->howmany;
  const size_t real = dtrDataTypeSize(f->ctype) / (size_t)dtrFftNumbersPerEntry(f);
  return dtrFftScale(f, (char*)x + (size_t)planes.first * plane, (size_t)planes.count * plane / real, factor, stream);
}

dtrResult_t dtrFftEventThen(cudaEvent_t event, cudaStream_t recorded, cudaStream_t waits) {
  CUDACHECK(cudaEventRecord(event, recorded));
  CUDACHECK(cudaStreamWaitEvent(waits, event, 0));
  return dtrSuccess;
}
