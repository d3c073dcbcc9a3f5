/*
 * Halo exchanges (dtrHalo*) under mpiexec, on the backend argv[1] names (cpu: host buffers, in CI; gpu:
 * auto on the GPUs, one per rank or shared), against the value every halo cell stands for, computed
 * from the global index alone:
 *   - every grid the rank count factors into, every pencil, shapes that do not divide (1, primes, boxes
 *     thinner than the halo, empty boxes where there are more ranks than cells);
 *   - widths 0-3 per axis and periodic or not per axis, a sampled set of combinations per grid; every
 *     element type, howmany 1 and 3;
 *   - interiors filled from a hash of the global index, halos poisoned: after an execute every halo cell
 *     holds its global cell's bytes, bit for bit, or (beyond a domain edge that is not periodic) the
 *     poison still; the interior unchanged; a second execute the same; the caller's device unchanged;
 *   - the adjoint (dtrHaloExecuteAdjoint) on the same plans: random values in every type against
 *     halo_reference.h's ordered reference bit for bit, on both arrays; small integers against the flat
 *     sums (each interior cell plus the halo cells that stand for it, the written halo zeroed, the rest
 *     untouched) and in <H x, y> = <x, H^T y> over the ranks' padded arrays, exactly;
 *   - bad input: the same error on every rank, from one rank's bad argument or arguments that differ
 *     (the direction too: ranks that mix dtrHaloExecute and dtrHaloExecuteAdjoint, nothing written).
 * test_halo cpu|gpu [-v]   (-v: each case's name before it runs)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "check_everywhere.h"
#include "disttranspose.h"
#include "halo_reference.h"
#include "node_local.h"
#include "support/pattern.h"

static int rank, nranks, gpu, verbose, myDevice = -1;
static MPI_Comm caseComm; /* the ranks of the case's grid: the world, or one half of it */

/* The caller's device is as it was after a library call (GPU mode). */
static void expectDevice(const char* name, const char* after) {
  if (!gpu) return;
  int d = -1;
  cudaGetDevice(&d);
  EXPECT(d == myDevice, "%s: the current device is %d after %s, not %d", name, d, after, myDevice);
}
static cudaStream_t stream;

/* Byte k of the entry of global cell (x, y, z): below 0x80, so that no entry equals the poison (0xff). */
static unsigned char cellByte(const int64_t g[3], const int64_t n[3], size_t k) {
  uint64_t x = (uint64_t)(g[0] + n[0] * (g[1] + n[1] * g[2])) * 131 + k + 0x9e3779b97f4a7c15ull;
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 27, x *= 0x94d049bb133111ebull, x ^= x >> 31;
  return (unsigned char)(x & 0x7f);
}

/* `pooled`: from the stream-ordered pool (cudaMallocAsync), which CUDA IPC cannot share: the p2p
 * backend's peers then store into this rank's receive buffer instead of its array. */
static void* alloc(size_t bytes, int pooled) {
  void* p = NULL;
  if (!bytes) bytes = 16;
  if (gpu && pooled)
    return cudaMallocAsync(&p, bytes, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess ? p : NULL;
  if (gpu) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
  return malloc(bytes);
}
static void release(void* p, int pooled) {
  if (!p) return;
  if (gpu && pooled) cudaFreeAsync(p, stream), cudaStreamSynchronize(stream);
  else if (gpu) cudaFree(p);
  else free(p);
}

/* A padded array's input, in place before an execute or adjoint reads it. cudaMemcpy from pageable
 * memory may return before its copy has landed (CUDA's API synchronization behavior), and the plan runs
 * on `stream`, non-blocking, which does not wait for the legacy stream: without the wait, the first
 * kernel of an execute may read the array's previous bytes. */
static void arrayIn(void* buf, const void* host, size_t n) {
  if (gpu && n) cudaMemcpy(buf, host, n, cudaMemcpyHostToDevice), cudaDeviceSynchronize();
  else if (n) memcpy(buf, host, n);
}

static int allGood(int bad) {
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, caseComm);
  return !bad;
}

typedef struct {
  int64_t shape[3];
  int pr, pc;
  dtrPencil_t pencil;
  dtrDataType_t type;
  int64_t howmany;
  int halo[3], periodic[3];
} Case;

/* The padded box's host image: before an execute (`after` 0) the interior of this rank's box filled from
 * the formula and every halo cell poisoned; after one, every cell the value of the global cell it stands
 * for (wrapped where periodic), poison beyond a domain edge that is not. */
static void image(const Case* c, const dtrBox_t* p, const int64_t start[3], const int64_t size[3], int after,
                  unsigned char* img) {
  const size_t e = p->entry_bytes;
  const int* o = p->order;
  size_t u = 0;
  for (int64_t i2 = 0; i2 < p->size[o[2]]; i2++)
    for (int64_t i1 = 0; i1 < p->size[o[1]]; i1++)
      for (int64_t i0 = 0; i0 < p->size[o[0]]; i0++, u++) {
        const int64_t idx[3] = {i0, i1, i2};
        int64_t g[3];
        int known = 1;
        for (int d = 0; d < 3; d++) {
          const int axis = o[d];
          int64_t v = p->start[axis] + idx[d];
          if (!after) {
            known &= v >= start[axis] && v < start[axis] + size[axis];
          } else if (v < 0 || v >= c->shape[axis]) {
            if (c->periodic[axis]) v = ((v % c->shape[axis]) + c->shape[axis]) % c->shape[axis];
            else known = 0;
          }
          g[axis] = v;
        }
        for (size_t k = 0; k < e; k++) img[u * e + k] = known ? cellByte(g, c->shape, k) : 0xff;
      }
}

/* The world of a case: every rank's boxes and grid coordinates (the case's communicator is the grid's,
 * ranked alike). */
static void worldInit(dtrRefWorld* w, const Case* c, dtrGrid_t grid) {
  /* The grid dimension that splits each axis of a pencil (dtrPencilBox's table): 1 rows, 2 columns. */
  static const int split[3][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}};
  memset(w, 0, sizeof *w);
  const int complex = c->type == dtrComplex64 || c->type == dtrComplex128;
  for (int d = 0; d < 3; d++)
    w->shape[d] = c->shape[d], w->halo[d] = c->halo[d], w->periodic[d] = c->periodic[d], w->split[d] = split[c->pencil][d];
  w->type = c->type;
  w->scalars = (int)c->howmany * (complex ? 2 : 1);
  w->bytes = dtrDataTypeSize(c->type) / (complex ? 2 : 1);
  MPI_Comm_size(caseComm, &w->nranks);
  int mine[2] = {0, 0};
  dtrGridGetDims(grid, &w->pr, &w->pc, &mine[0], &mine[1]);
  w->coord = malloc((size_t)w->nranks * sizeof *w->coord);
  w->box = malloc((size_t)w->nranks * sizeof *w->box);
  w->padded = malloc((size_t)w->nranks * sizeof *w->padded);
  w->v = calloc((size_t)w->nranks, sizeof *w->v);
  MPI_Allgather(mine, 2, MPI_INT, w->coord, 2, MPI_INT, caseComm);
  for (int r = 0; r < w->nranks; r++) {
    dtrPencilBox(grid, c->shape, c->pencil, c->type, c->howmany, r, &w->box[r]);
    w->padded[r] = w->box[r];
    for (int d = 0; d < 3; d++) w->padded[r].start[d] -= c->halo[d], w->padded[r].size[d] += 2 * c->halo[d];
    w->padded[r].bytes = (size_t)dtrRefCells(w, r) * w->box[r].entry_bytes;
    w->v[r] = malloc((size_t)(dtrRefCells(w, r) * w->scalars + 1) * sizeof(double));
  }
}

static void worldFree(dtrRefWorld* w) {
  for (int r = 0; r < w->nranks; r++) free(w->v[r]);
  free(w->v), free(w->coord), free(w->box), free(w->padded);
}

/* Every rank's padded array from a hash of (seed, rank, scalar): `small` integers -1..1, else random
 * values of the type (int8: any; floating point: in [-1, 1), rounded to the type). */
static void worldFill(dtrRefWorld* w, unsigned seed, int small) {
  for (int r = 0; r < w->nranks; r++)
    for (int64_t i = 0; i < dtrRefCells(w, r) * w->scalars; i++) {
      uint64_t x = ((uint64_t)seed << 40 ^ (uint64_t)r << 32 ^ (uint64_t)i) * 0x9e3779b97f4a7c15ull;
      x ^= x >> 29, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 32;
      const double unit = dtrUnitOf(x);
      w->v[r][i] = small              ? (double)(x % 3) - 1
                   : w->type == dtrInt8 ? (double)(int8_t)(x >> 56)
                                        : dtrRefRound(w->type, 2 * unit - 1);
    }
}

/* This rank's padded array through the plan (the adjoint, or the execute), from its world values;
 * the result's scalars into `out`. */
static dtrResult_t runOnce(dtrHaloPlan_t plan, const dtrRefWorld* w, int adjoint, void* buf, unsigned char* bytes, double* out) {
  int me = 0;
  MPI_Comm_rank(caseComm, &me);
  const size_t n = w->padded[me].bytes;
  dtrRefToBytes(w, me, bytes);
  arrayIn(buf, bytes, n);
  const dtrResult_t res = adjoint ? dtrHaloExecuteAdjoint(plan, buf, stream) : dtrHaloExecute(plan, buf, stream);
  if (gpu) cudaStreamSynchronize(stream);
  if (gpu && n) cudaMemcpy(bytes, buf, n, cudaMemcpyDeviceToHost);
  else if (n) memcpy(bytes, buf, n);
  for (size_t i = 0; i < n / w->bytes; i++) out[i] = dtrRefDecode(w->type, bytes + i * w->bytes);
  return res;
}

/* Whether got and want hold the same values (and signs of zero); the first difference reported. */
static int sameValues(const char* name, const char* what, const dtrRefWorld* w, int me, const double* got, const double* want) {
  const int64_t n = dtrRefCells(w, me) * w->scalars;
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i] || signbit(got[i]) != signbit(want[i])) {
      int64_t c[3];
      dtrRefCell(w, me, i / w->scalars, c);
      EXPECT(0, "%s: %s: padded cell (%lld, %lld, %lld) scalar %d: got %.17g, want %.17g", name, what, (long long)c[0],
             (long long)c[1], (long long)c[2], (int)(i % w->scalars), got[i], want[i]);
      return 0;
    }
  return 1;
}

/* The adjoint of the case's plan on the arrays bufs[0] and bufs[1] (the second one new to the plan after
 * the first, then mapped before). */
static void adjointCase(const char* name, const Case* c, dtrGrid_t grid, dtrHaloPlan_t plan, void* bufs[2]) {
  dtrRefWorld w;
  worldInit(&w, c, grid);
  int me = 0;
  MPI_Comm_rank(caseComm, &me);
  const int64_t n = dtrRefCells(&w, me) * w.scalars;
  unsigned char* bytes = malloc(w.padded[me].bytes + 1);
  double *got = malloc((size_t)(n + 1) * sizeof *got), *x = malloc((size_t)(n + 1) * sizeof *x);
  double* want = malloc((size_t)(n + 1) * sizeof *want);
  int bad = 0;
  for (int round = 0; round < 3 && allGood(bad); round++) {
    worldFill(&w, (unsigned)round, 0);
    dtrResult_t res = runOnce(plan, &w, 1, bufs[round == 1], bytes, got);
    EXPECT(res == dtrSuccess, "%s: adjoint: %s", name, dtrGetLastError());
    expectDevice(name, "dtrHaloExecuteAdjoint");
    dtrRefAdjoint(&w);
    bad |= res != dtrSuccess || !sameValues(name, "adjoint, random values", &w, me, got, w.v[me]);
  }
  /* Small integers: exact sums in every type. x through the execute, y through the adjoint. */
  if (allGood(bad)) {
    worldFill(&w, 7, 1);
    memcpy(x, w.v[me], (size_t)n * sizeof *x);
    dtrResult_t res = runOnce(plan, &w, 0, bufs[0], bytes, want); /* want: H x */
    worldFill(&w, 8, 1);
    if (res == dtrSuccess) res = runOnce(plan, &w, 1, bufs[0], bytes, got); /* got: H^T y */
    EXPECT(res == dtrSuccess, "%s: execute or adjoint of small integers: %s", name, dtrGetLastError());
    double dots[2] = {0, 0};
    for (int64_t i = 0; i < n; i++) dots[0] += want[i] * w.v[me][i], dots[1] += x[i] * got[i];
    dtrRefSum(&w, me, want);
    bad |= res != dtrSuccess || !sameValues(name, "adjoint against the flat sums", &w, me, got, want);
    MPI_Allreduce(MPI_IN_PLACE, dots, 2, MPI_DOUBLE, MPI_SUM, caseComm);
    EXPECT(res != dtrSuccess || dots[0] == dots[1], "%s: <H x, y> = %.17g but <x, H^T y> = %.17g", name, dots[0], dots[1]);
  }
  free(bytes), free(got), free(x), free(want);
  worldFree(&w);
}

static void runCase(const Case* c, dtrGrid_t grid) {
  char name[256];
  snprintf(name, sizeof name, "%lldx%lldx%lld %s-pencil %s x %lld on %dx%d, halo %d %d %d, periodic %d%d%d",
           (long long)c->shape[0], (long long)c->shape[1], (long long)c->shape[2], dtrPencilName(c->pencil),
           dtrDataTypeName(c->type), (long long)c->howmany, c->pr, c->pc, c->halo[0], c->halo[1], c->halo[2],
           c->periodic[0], c->periodic[1], c->periodic[2]);
  if (verbose && rank == 0) printf("case %s\n", name), fflush(stdout);
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (!gpu) cfg.backend = dtrBackendCpu;
  if (gpu) cfg.timeout = 60;
  dtrHaloPlan_t plan = NULL;
  dtrResult_t res = dtrHaloPlanCreate(&plan, grid, c->shape, c->pencil, c->type, c->howmany, c->halo, c->periodic, &cfg);
  expectDevice(name, "dtrHaloPlanCreate");
  EXPECT(res == dtrSuccess, "%s: create: %s", name, dtrGetLastError());
  if (res != dtrSuccess) return;
  dtrBox_t box, padded;
  dtrPencilBox(grid, c->shape, c->pencil, c->type, c->howmany, -1, &box);
  EXPECT(dtrHaloGetBox(plan, &padded) == dtrSuccess, "%s: box", name);
  for (int d = 0; d < 3; d++) {
    EXPECT(padded.start[d] == box.start[d] - c->halo[d] && padded.size[d] == box.size[d] + 2 * c->halo[d] &&
               padded.order[d] == box.order[d],
           "%s: padded box along %d", name, d);
  }
  const size_t bytes = padded.bytes;
  unsigned char* img = malloc(bytes + 1);
  unsigned char* want = malloc(bytes + 1);
  unsigned char* got = malloc(bytes + 1);
  image(c, &padded, box.start, box.size, 0, img);
  image(c, &padded, box.start, box.size, 1, want);
  /* Two arrays, the second one between two rounds on the first (a new array to map, then one mapped
   * before); every third case rank 0's first one from the stream-ordered pool. */
  static int cases;
  const int pooled = gpu && cases++ % 3 == 2 && rank == 0;
  void* bufs[2] = {bytes ? alloc(bytes, pooled) : NULL, bytes ? alloc(bytes, 0) : NULL};
  int bad = bytes && (!bufs[0] || !bufs[1]);
  for (int round = 0; round < 3 && allGood(bad); round++) {
    void* buf = bufs[round == 1];
    arrayIn(buf, img, bytes);
    res = dtrHaloExecute(plan, buf, stream);
    EXPECT(res == dtrSuccess, "%s: execute: %s", name, dtrGetLastError());
    bad |= res != dtrSuccess;
    expectDevice(name, "dtrHaloExecute");
    if (gpu) bad |= cudaStreamSynchronize(stream) != cudaSuccess;
    if (gpu && bytes) cudaMemcpy(got, buf, bytes, cudaMemcpyDeviceToHost);
    else if (bytes) memcpy(got, buf, bytes);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < bytes; i++)
      if (got[i] != want[i] && !wrong++) first = i;
    EXPECT(!wrong, "%s: round %d: %zu wrong bytes, the first at entry %zu (got %02x, want %02x)", name, round, wrong,
           first / padded.entry_bytes, got[first], want[first]);
    bad |= wrong != 0;
  }
  if (allGood(bad)) adjointCase(name, c, grid, plan, bufs);
  release(bufs[0], pooled);
  release(bufs[1], 0);
  free(img), free(want), free(got);
  EXPECT(dtrHaloPlanDestroy(plan) == dtrSuccess, "%s: destroy: %s", name, dtrGetLastError());
  expectDevice(name, "dtrHaloPlanDestroy");
}

/* Whether `call` on rank 0's and the last rank's mixed directions (the last rank's adjoint beside the
 * others' executes, or the other way round) fails on every rank naming the direction, this rank's array
 * as it was. */
static void mixedDirections(dtrHaloPlan_t plan, void* buf, size_t bytes, int lastBack) {
  unsigned char* before = malloc(bytes + 1);
  unsigned char* after = malloc(bytes + 1);
  for (size_t i = 0; i < bytes; i++) before[i] = (unsigned char)(i * 7 + (size_t)rank);
  if (gpu && bytes) cudaMemcpy(buf, before, bytes, cudaMemcpyHostToDevice);
  else if (bytes) memcpy(buf, before, bytes);
  const int back = (rank == nranks - 1) == lastBack;
  const char* what = lastBack ? "the last rank's adjoint beside executes" : "the last rank's execute beside adjoints";
  dtrTestExpectEverywhere(back ? dtrHaloExecuteAdjoint(plan, buf, stream) : dtrHaloExecute(plan, buf, stream), dtrMismatch, what);
  EXPECT(strstr(dtrGetLastError(), "direction") && strstr(dtrGetLastError(), "dtrHaloExecuteAdjoint"), "%s: '%s'", what,
         dtrGetLastError());
  if (gpu) cudaStreamSynchronize(stream);
  if (gpu && bytes) cudaMemcpy(after, buf, bytes, cudaMemcpyDeviceToHost);
  else if (bytes) memcpy(after, buf, bytes);
  EXPECT(!bytes || !memcmp(before, after, bytes), "%s: the array was written", what);
  free(before), free(after);
}

static void badInput(void) {
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, 0, 0) != dtrSuccess) {
    EXPECT(0, "grid: %s", dtrGetLastError());
    return;
  }
  const int64_t shape[3] = {6, 5, 4}, zero[3] = {6, 0, 4};
  const int halo[3] = {1, 2, 1}, periodic[3] = {1, 1, 0};
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (!gpu) cfg.backend = dtrBackendCpu;
  dtrHaloPlan_t plan = NULL;
  const dtrDataType_t t = dtrFloat32;
  dtrTestExpectEverywhere(dtrHaloPlanCreate(NULL, grid, shape, dtrPencilX, t, 1, halo, periodic, &cfg), dtrInvalidArgument, "plan NULL");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, NULL, shape, dtrPencilX, t, 1, halo, periodic, &cfg), dtrInvalidArgument, "grid NULL");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, zero, dtrPencilX, t, 1, halo, periodic, &cfg), dtrInvalidArgument, "shape with 0");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, (dtrPencil_t)5, t, 1, halo, periodic, &cfg), dtrInvalidArgument, "pencil 5");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, (dtrDataType_t)9, 1, halo, periodic, &cfg), dtrInvalidArgument, "type 9");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 0, halo, periodic, &cfg), dtrInvalidArgument, "howmany 0");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, NULL, periodic, &cfg), dtrInvalidArgument, "halo NULL");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, halo, NULL, &cfg), dtrInvalidArgument, "periodic NULL");
  const int negative[3] = {1, -1, 0}, wide[3] = {7, 0, 0}, wideOpen[3] = {0, 0, 9};
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, negative, periodic, &cfg), dtrInvalidArgument, "width -1");
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, wide, periodic, &cfg), dtrInvalidArgument,
                   "periodic width beyond the axis");
  /* Only the last rank's width is bad: every rank fails. */
  const int* mine = rank == nranks - 1 ? negative : halo;
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, mine, periodic, &cfg), dtrInvalidArgument,
                   "width -1 on one rank");
  dtrConfig_t odd = cfg;
  odd.inplace = 1;
  dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, halo, periodic, &odd), dtrInvalidArgument, "config.inplace");
  if (nranks > 1) {
    const int other[3] = {1, rank == 0 ? 2 : 1, 1}, otherPeriodic[3] = {1, 1, rank == 0};
    dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, other, periodic, &cfg), dtrMismatch,
                     "widths differing between ranks");
    dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, halo, otherPeriodic, &cfg), dtrMismatch,
                     "periodic differing between ranks");
    dtrTestExpectEverywhere(dtrHaloPlanCreate(&plan, grid, shape, rank == 0 ? dtrPencilX : dtrPencilY, t, 1, halo, periodic, &cfg),
                     dtrMismatch, "pencils differing between ranks");
  }
  /* Wider than a non-periodic axis: served (the cells beyond the domain are left alone). */
  EXPECT(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, wideOpen, periodic, &cfg) == dtrSuccess,
         "a non-periodic halo wider than the axis: %s", dtrGetLastError());
  if (plan) dtrHaloPlanDestroy(plan);
  plan = NULL;
  EXPECT(dtrHaloPlanCreate(&plan, grid, shape, dtrPencilX, t, 1, halo, periodic, &cfg) == dtrSuccess, "plan: %s", dtrGetLastError());
  if (plan) {
    dtrBox_t p;
    dtrHaloGetBox(plan, &p);
    void* buf = alloc(p.bytes, 0);
    dtrTestExpectEverywhere(dtrHaloExecute(plan, rank == 0 && p.bytes ? NULL : buf, stream), dtrInvalidArgument, "buf NULL on rank 0");
    /* A binding's own check failed on the last rank: every rank fails, with that rank's message. */
    const dtrResult_t refused = rank == nranks - 1 ? dtrHaloExecuteRefuse(plan, "buf has the wrong shape")
                                                   : dtrHaloExecute(plan, buf, stream);
    dtrTestExpectEverywhere(refused, dtrInvalidArgument, "refused on the last rank");
    EXPECT(strstr(dtrGetLastError(), "wrong shape") != NULL, "refused: '%s'", dtrGetLastError());
    /* The adjoint alike: one rank's NULL, and a refusal beside the others' adjoints. */
    dtrTestExpectEverywhere(dtrHaloExecuteAdjoint(plan, rank == 0 && p.bytes ? NULL : buf, stream), dtrInvalidArgument,
                     "adjoint: buf NULL on rank 0");
    EXPECT(rank == 0 || strstr(dtrGetLastError(), "rank 0") != NULL, "adjoint refused by rank 0: '%s'", dtrGetLastError());
    const dtrResult_t refusedBack = rank == nranks - 1 ? dtrHaloExecuteRefuse(plan, "buf has the wrong shape")
                                                       : dtrHaloExecuteAdjoint(plan, buf, stream);
    dtrTestExpectEverywhere(refusedBack, dtrInvalidArgument, "adjoint refused on the last rank");
    EXPECT(strstr(dtrGetLastError(), "wrong shape") != NULL, "adjoint refused: '%s'", dtrGetLastError());
    /* Ranks that call different directions: refused everywhere, nothing written; the plan serves on. */
    if (nranks > 1) {
      mixedDirections(plan, buf, p.bytes, 1);
      mixedDirections(plan, buf, p.bytes, 0);
      dtrTestExpectEverywhere(dtrHaloExecuteAdjoint(plan, buf, stream), dtrSuccess, "an adjoint after mixed directions");
      dtrTestExpectEverywhere(dtrHaloExecute(plan, buf, stream), dtrSuccess, "an execute after mixed directions");
      if (gpu) cudaStreamSynchronize(stream);
    }
    if (gpu) {
      void* host = malloc(p.bytes + 16);
      dtrTestExpectEverywhere(dtrHaloExecute(plan, p.bytes ? host : buf, stream), dtrInvalidArgument, "host memory on a GPU plan");
      dtrTestExpectEverywhere(dtrHaloExecuteAdjoint(plan, p.bytes ? host : buf, stream), dtrInvalidArgument,
                       "adjoint: host memory on a GPU plan");
      free(host);
    }
    dtrBackend_t b;
    EXPECT(dtrHaloGetBackend(plan, &b) == dtrSuccess && (gpu ? b != dtrBackendCpu : b == dtrBackendCpu), "backend %d", (int)b);
    int device = -2;
    EXPECT(dtrHaloGetDevice(plan, &device) == dtrSuccess && device == (gpu ? myDevice : -1), "device %d (want %d)", device,
           gpu ? myDevice : -1);
    dtrTestExpectEverywhere(dtrHaloGetDevice(plan, NULL), dtrInvalidArgument, "device NULL");
    dtrTestExpectEverywhere(dtrHaloGetBox(plan, NULL), dtrInvalidArgument, "box NULL");
    EXPECT(dtrHaloPlanDestroy(plan) == dtrSuccess, "destroy: %s", dtrGetLastError());
    release(buf, 0);
  }
  EXPECT(dtrHaloPlanDestroy(NULL) == dtrInvalidArgument, "destroy of NULL");
  dtrTestExpectEverywhere(dtrHaloExecute(NULL, NULL, stream), dtrInvalidArgument, "execute of NULL");
  dtrTestExpectEverywhere(dtrHaloExecuteAdjoint(NULL, NULL, stream), dtrInvalidArgument, "adjoint of NULL");
  dtrGridDestroy(grid);
}

int main(int argc, char** argv) {
  if (dtrTestStart(&argc, &argv, "test_halo", &rank, &nranks, &gpu, &verbose, &myDevice)) return DTR_TEST_SKIP;
  caseComm = MPI_COMM_WORLD;
  if (gpu) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  int grids[8][2];
  const int ngrids = dtrTestGrids(nranks, grids);
  /* Shapes: primes, 1, boxes thinner than the halo (2 and 3 cells over 2-4 ranks), more ranks than cells. */
  static const int64_t shapes[][3] = {{7, 5, 3}, {1, 1, 1}, {6, 2, 3}, {3, 7, 2}, {4, 3, 5}, {2, 1, 11}};
  const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  static const dtrDataType_t types[7] = {dtrInt8, dtrFloat16, dtrBfloat16, dtrFloat32, dtrFloat64, dtrComplex64, dtrComplex128};
  int n = 0;
  for (int g = 0; g < ngrids; g++) {
    dtrGrid_t grid = NULL;
    if (dtrGridCreate(&grid, MPI_COMM_WORLD, grids[g][0], grids[g][1]) != dtrSuccess) {
      EXPECT(0, "grid %dx%d: %s", grids[g][0], grids[g][1], dtrGetLastError());
      continue;
    }
    for (int p = 0; p < 3; p++)
      for (int s = 0; s < nshapes; s++)
        for (int k = 0; k < 4; k++, n++) {
          Case c = {{shapes[s][0], shapes[s][1], shapes[s][2]}, grids[g][0], grids[g][1], (dtrPencil_t)p,
                    types[(n + s) % 7], n % 5 == 2 ? 3 : 1, {0, 0, 0}, {0, 0, 0}};
          /* Widths 0-3 per axis and periodic per axis, spread over the cases by a hash of the counter. */
          unsigned v = (unsigned)n * 2654435761u;
          for (int d = 0; d < 3; d++, v >>= 5) {
            c.halo[d] = (int)(v % 4);
            c.periodic[d] = (int)((v >> 2) & 1);
            if (c.periodic[d] && c.halo[d] > c.shape[d]) c.halo[d] = (int)c.shape[d];
          }
          if (k == 3) /* every axis periodic, the widest halo the shape allows */
            for (int d = 0; d < 3; d++) c.periodic[d] = 1, c.halo[d] = c.shape[d] < 3 ? (int)c.shape[d] : 3;
          runCase(&c, grid);
        }
    dtrGridDestroy(grid);
  }
  /* Each half of the world a grid of its own (slabs, and pencils where a half has two ranks or more),
   * both halves exchanging at the same time. */
  if (nranks > 1) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &caseComm);
    int half = 0;
    MPI_Comm_size(caseComm, &half);
    for (int t = 0; t < 4; t++, n++) {
      const int pr = t >= 2 && half > 1 ? half : 1;
      dtrGrid_t grid = NULL;
      if (dtrGridCreate(&grid, caseComm, pr, half / pr) != dtrSuccess) {
        EXPECT(0, "grid on half the ranks: %s", dtrGetLastError());
        continue;
      }
      Case c = {{9, 7, 6}, pr, half / pr, (dtrPencil_t)(t % 3), types[t + 2], 1, {2, 1, 3}, {t & 1, 1, 0}};
      runCase(&c, grid);
      dtrGridDestroy(grid);
    }
    MPI_Comm_free(&caseComm);
    caseComm = MPI_COMM_WORLD;
  }
  badInput();
  if (gpu) cudaStreamDestroy(stream);
  const int result = dtrTestEndEverywhere("test_halo", gpu, n);
  MPI_Finalize();
  return result;
}
