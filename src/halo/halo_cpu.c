/*
 * The halo exchange on the host (cpu backend): each step packs its pieces into one segment per peer,
 * posts MPI_Irecv and MPI_Isend on the step's communicator (waited for under the plan's deadline, as
 * the cpu backend's exchanges are), copies its own cells meanwhile and unpacks; the local wraps follow.
 * The adjoint runs it backwards: the wraps' cells added into their sources, then each step from the
 * last, its halo pieces packed and sent back to their owners (the send and receive buffers swap roles),
 * added there in dtrHaloSumOrder's order, and the halo zeroed.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/checks.h"
#include "core/timeout.h"
#include "grid.h"
#include "halo_plan.h"
#include "halo_sum.h"

typedef struct {
  char* send;
  char* recv;
  MPI_Request* requests; /* 2 a peer */
  MPI_Datatype entry;    /* an entry's bytes: keeps MPI's int counts in entries */
} HaloCpu;

void dtrHaloCpuDestroy(struct dtrHaloPlan* h) {
  HaloCpu* s = h->cpu;
  if (!s) return;
  if (s->entry != MPI_DATATYPE_NULL) MPI_Type_free(&s->entry);
  free(s->send), free(s->recv), free(s->requests);
  free(s);
  h->cpu = NULL;
}

static dtrResult_t createLocal(struct dtrHaloPlan* h, HaloCpu* s) {
  const dtrHaloLayout* l = &h->layout;
  int64_t send = 0, recv = 0;
  int peers = 1;
  for (int i = 0; i < l->nsteps; i++) {
    const dtrHaloStep* st = &l->steps[i];
    if (st->sendTotal > send) send = st->sendTotal;
    if (st->recvTotal > recv) recv = st->recvTotal;
    if (st->nranks > peers) peers = st->nranks;
    for (int q = 0; q < st->nranks; q++)
      if (st->sendCount[q] > INT_MAX || st->recvCount[q] > INT_MAX)
        return dtrSetError(dtrInvalidArgument, "a halo message of more than %d entries (MPI's int counts) on the cpu backend", INT_MAX);
  }
  s->send = malloc((size_t)send * h->entry + 1);
  s->recv = malloc((size_t)recv * h->entry + 1);
  s->requests = malloc(2 * (size_t)peers * sizeof *s->requests);
  if (!s->send || !s->recv || !s->requests) return dtrSetError(dtrOutOfMemory, "cannot allocate the halo exchange's host buffers");
  if (h->entry > INT_MAX) return dtrSetError(dtrInvalidArgument, "an entry of %zu bytes is too large for an MPI datatype", h->entry);
  MPICHECK(MPI_Type_contiguous((int)h->entry, MPI_BYTE, &s->entry));
  MPICHECK(MPI_Type_commit(&s->entry));
  return dtrSuccess;
}

dtrResult_t dtrHaloCpuCreate(struct dtrHaloPlan* h) {
  HaloCpu* s = calloc(1, sizeof *s);
  if (s) s->entry = MPI_DATATYPE_NULL;
  h->cpu = s;
  h->base->device = -1;
  h->base->kernel = dtrKernelAuto;
  return dtrAgree(h->grid->comm, s ? createLocal(h, s) : dtrSetError(dtrOutOfMemory, "cannot allocate the halo exchange's state"));
}

/* One strided copy of entries of `e` bytes, row by row. */
static void hostCopy(const char* src, char* dst, dtrHaloStrided c, size_t e) {
  const size_t row = (size_t)c.count[0] * e;
  for (int64_t z = 0; z < c.count[2]; z++)
    for (int64_t y = 0; y < c.count[1]; y++)
      memcpy(dst + (size_t)(c.dstOffset + z * c.dstPitch[1] + y * c.dstPitch[0]) * e,
             src + (size_t)(c.srcOffset + z * c.srcPitch[1] + y * c.srcPitch[0]) * e, row);
}

static void hostZero(char* dst, dtrHaloStrided c, size_t e) {
  for (int64_t z = 0; z < c.count[2]; z++)
    for (int64_t y = 0; y < c.count[1]; y++)
      memset(dst + (size_t)(c.dstOffset + z * c.dstPitch[1] + y * c.dstPitch[0]) * e, 0, (size_t)c.count[0] * e);
}

static dtrResult_t waitAll(MPI_Request* requests, int n) {
  if (!dtrDeadlineSet()) {
    MPICHECK(MPI_Waitall(n, requests, MPI_STATUSES_IGNORE));
    return dtrSuccess;
  }
  for (int i = 0; i < n; i++) DTRCHECK(dtrWait(&requests[i], "a halo message (MPI_Irecv, MPI_Isend)"));
  return dtrSuccess;
}

/* Step i's messages posted on its communicator under `tag`, requests in s->requests (*n of them):
 * from each group rank q, inCount[q] entries into `in` at inOffset[q]; the `pieces` of buf packed into
 * `out` at their offsets; to each q, outCount[q] entries from `out` at outOffset[q]. */
static dtrResult_t post(struct dtrHaloPlan* h, int i, int tag, char* in, const int64_t* inCount, const int64_t* inOffset,
                        const char* buf, const dtrHaloPiece* pieces, int npieces, char* out, const int64_t* outCount,
                        const int64_t* outOffset, int* n) {
  HaloCpu* s = h->cpu;
  const dtrHaloStep* st = &h->layout.steps[i];
  const size_t e = h->entry;
  *n = 0;
  for (int q = 0; q < st->nranks; q++)
    if (inCount[q])
      MPICHECK(MPI_Irecv(in + (size_t)inOffset[q] * e, (int)inCount[q], s->entry, q, tag, h->stepComm[i], &s->requests[(*n)++]));
  for (int k = 0; k < npieces; k++) hostCopy(buf, out, dtrHaloPackOf(&h->layout, &pieces[k].box, pieces[k].offset), e);
  for (int q = 0; q < st->nranks; q++)
    if (outCount[q])
      MPICHECK(MPI_Isend(out + (size_t)outOffset[q] * e, (int)outCount[q], s->entry, q, tag, h->stepComm[i], &s->requests[(*n)++]));
  return dtrSuccess;
}

static dtrResult_t runStep(struct dtrHaloPlan* h, int i, char* buf) {
  HaloCpu* s = h->cpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  int n = 0;
  DTRCHECK(post(h, i, 0x4a10 + st->axis, s->recv, st->recvCount, st->recvOffset, buf, st->sends, st->nsends, s->send,
                st->sendCount, st->sendOffset, &n));
  /* Its own cells while the messages travel: they read the interior, the messages write the halo. */
  for (int k = 0; k < st->nselfs; k++) hostCopy(buf, buf, dtrHaloCopyOf(l, &st->selfs[k]), e);
  DTRCHECK(waitAll(s->requests, n));
  for (int k = 0; k < st->nrecvs; k++) hostCopy(s->recv, buf, dtrHaloUnpackOf(l, &st->recvs[k].box, st->recvs[k].offset), e);
  return dtrSuccess;
}

dtrResult_t dtrHaloCpuExecute(struct dtrHaloPlan* h, char* buf) {
  const dtrHaloLayout* l = &h->layout;
  /* The wraps beside the steps first: the GPUs run them at the same time as the steps, which they must
   * not touch, so that here, before them, they must give the same result (the tests' check of that). */
  for (int k = 0; k < l->nbeside; k++) hostCopy(buf, buf, dtrHaloCopyOf(l, &l->beside[k]), h->entry);
  for (int i = 0; i < l->nsteps; i++) DTRCHECK(runStep(h, i, buf));
  for (int k = 0; k < l->nafter; k++) hostCopy(buf, buf, dtrHaloCopyOf(l, &l->after[k]), h->entry);
  return dtrSuccess;
}

/* The copies' cells added back into their sources, in order, their destinations zeroed. */
static void sumCopiesBack(struct dtrHaloPlan* h, char* buf, const dtrHaloCopy* copies, int n) {
  for (int k = 0; k < n; k++)
    dtrHaloHostSum(dtrHaloScalarOf(h->type), buf, buf, dtrHaloCopyBackOf(&h->layout, &copies[k]), h->entry, 1);
}

static dtrResult_t runStepBack(struct dtrHaloPlan* h, int i, char* buf) {
  HaloCpu* s = h->cpu;
  const dtrHaloLayout* l = &h->layout;
  const dtrHaloStep* st = &l->steps[i];
  const size_t e = h->entry;
  int n = 0;
  DTRCHECK(post(h, i, 0x4c10 + st->axis, s->send, st->sendCount, st->sendOffset, buf, st->recvs, st->nrecvs, s->recv,
                st->recvCount, st->recvOffset, &n));
  /* Its sent cells zeroed while the messages travel (they were packed); its own are moved in order below. */
  for (int k = 0; k < st->nrecvs; k++)
    hostZero(buf, dtrHaloUnpackOf(l, &st->recvs[k].box, 0), e);
  DTRCHECK(waitAll(s->requests, n));
  const dtrHaloScalar scalar = dtrHaloScalarOf(h->type);
  for (int k = 0; k < st->nsends + st->nselfs; k++) {
    const int v = dtrHaloSumOrder(st, k);
    if (v < st->nsends) dtrHaloHostSum(scalar, s->send, buf, dtrHaloUnpackOf(l, &st->sends[v].box, st->sends[v].offset), e, 0);
    else sumCopiesBack(h, buf, &st->selfs[v - st->nsends], 1);
  }
  return dtrSuccess;
}

dtrResult_t dtrHaloCpuAdjoint(struct dtrHaloPlan* h, char* buf) {
  const dtrHaloLayout* l = &h->layout;
  sumCopiesBack(h, buf, l->after, l->nafter);
  for (int i = l->nsteps - 1; i >= 0; i--) DTRCHECK(runStepBack(h, i, buf));
  sumCopiesBack(h, buf, l->beside, l->nbeside);
  return dtrSuccess;
}

size_t dtrHaloBareBytes(struct dtrHaloPlan* h) {
  size_t most = 0;
  for (int i = 0; i < h->layout.nsteps; i++) {
    const dtrHaloStep* st = &h->layout.steps[i];
    const size_t b = (size_t)(st->sendTotal > st->recvTotal ? st->sendTotal : st->recvTotal) * h->entry;
    if (b > most) most = b;
  }
  return most;
}

dtrResult_t dtrHaloCpuBare(struct dtrHaloPlan* h, void* send, void* recv) {
  HaloCpu* s = h->cpu;
  for (int i = 0; i < h->layout.nsteps; i++) {
    const dtrHaloStep* st = &h->layout.steps[i];
    int n = 0;
    DTRCHECK(post(h, i, 0x4b10, recv, st->recvCount, st->recvOffset, NULL, NULL, 0, send, st->sendCount, st->sendOffset, &n));
    DTRCHECK(waitAll(s->requests, n));
  }
  return dtrSuccess;
}
