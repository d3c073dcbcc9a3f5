/*
 * The library's 3-D FFT (dtrFft*) under mpiexec, on the backend argv[1] names (cpu: host buffers, in
 * CI; gpu: auto on the GPUs, one per rank or shared), against a direct DFT of the whole array that
 * every rank computes from the same formula (double precision, separable, no FFT library involved):
 *   - every grid the rank count factors into (slabs 1 x P, pencils P x 1, 2 x 2, ...), shapes that do
 *     not divide (empty boxes: fewer planes than ranks), 1 x 1 x 1, primes;
 *   - C2C c64 and c128, R2C fp32 and fp64 with even and odd nx, every normalization, chunk counts 1,
 *     2, 3 and more chunks than planes, out of place (input checked untouched, bit for bit) and in
 *     place; outputs poisoned with NaNs before every execute;
 *   - the forward against the DFT (relative L2 error over all ranks: c128 1e-12, c64 1e-5), the
 *     round trip back to the input with the normalization's factor;
 *   - on GPUs, an execute captured into a CUDA graph and replayed; the caller's device unchanged;
 *   - grids on the halves of a split communicator, both halves at once;
 *   - several fields (config.howmany 2 and 3, interleaved at every point) on the same grids, shapes,
 *     types, norms, chunks and placements: each field against its own DFT and round trip, and against
 *     the single-field plan's execute of that field alone (the same bound: FFTW plans each layout by
 *     measurement, and cuFFT runs the batched passes on strided or field-major layouts, so the bits
 *     may differ);
 *   - a normalization folded into the first pass of its direction (on GPUs, one kernel of the library's
 *     where the axis is a power of two from 8 to 4096): z of 64 to 2048 points, x of 64 on pencils;
 *   - padding (config.padding, the 3/2 rule) on the same grids: C2C and R2C, both norms that padding
 *     takes, odd and even n and m, one axis or several, two fields: the forward of the formula over the
 *     padded grid against the kept modes of its DFT, the inverse of the formula's kept modes against the
 *     inverse DFT of them among zeros (numpy's irfftn for R2C), the round trip, the boxes and
 *     dtrFftLocalBox (runPaddedCase);
 *   - bad input: the same error on every rank, from one rank's bad argument or a setting that differs
 *     (howmany too among them: negative, too large for memory, differing between ranks; padding: bad
 *     factors, too many points, with the orthonormal norm, in place, differing between ranks).
 * test_fft cpu|gpu [-v] [--grid RxC] [--only FAMILIES]   (-v: each case's name before it runs; --grid: the
 *   per-grid cases of that grid only; --only: the families of cases in the comma list, of single (one
 *   field), fields, folded (the normalization folded into a pass), padded, planes (sides of powers of
 *   two) and halves, each case as in the whole run; bad input always. So that a long run on ranks
 *   sharing one GPU can go in parts.)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "check_everywhere.h"
#include "disttranspose.h"
#include "fft_test_support.h"
#include "node_local.h"
#include "options.h"

static int rank, nranks, gpu, verbose, myDevice = -1;
/* The communicator a case's grid is made on (the world, or a half of it) and its checks reduce over. */
static MPI_Comm caseComm;
static cudaStream_t stream;

/* ---- the reference (the input: fft_test_support.h) --------------------------------------------- */

/* One 1-D DFT of n points, stride s, sign -1 (forward) or +1 (inverse, unscaled), in place through a
 * scratch line. */
static void dft1(double* a, int64_t n, int64_t s, double* line, int sign) {
  for (int64_t k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; j++) {
      const double t = sign * 2.0 * M_PI * (double)((j * k) % n) / (double)n, c = cos(t), sn = sin(t);
      const double* v = a + 2 * j * s;
      re += v[0] * c - v[1] * sn;
      im += v[0] * sn + v[1] * c;
    }
    line[2 * k] = re, line[2 * k + 1] = im;
  }
  for (int64_t k = 0; k < n; k++) a[2 * k * s] = line[2 * k], a[2 * k * s + 1] = line[2 * k + 1];
}

/* The 3-D DFT of a whole array ([z][y][x], interleaved complex doubles), in place. */
static void dft3(double* a, const int64_t n[3], int sign) {
  double* line = malloc((size_t)(n[0] + n[1] + n[2]) * 2 * sizeof *line);
  for (int64_t z = 0; z < n[2]; z++)
    for (int64_t y = 0; y < n[1]; y++) dft1(a + 2 * (z * n[1] + y) * n[0], n[0], 1, line, sign);
  for (int64_t z = 0; z < n[2]; z++)
    for (int64_t x = 0; x < n[0]; x++) dft1(a + 2 * (z * n[1] * n[0] + x), n[1], n[0], line, sign);
  for (int64_t y = 0; y < n[1]; y++)
    for (int64_t x = 0; x < n[0]; x++) dft1(a + 2 * (y * n[0] + x), n[2], n[0] * n[1], line, sign);
  free(line);
}

/* The forward DFT of one field of the whole input ([z][y][x], interleaved complex doubles); real:
 * imaginary parts 0. */
static double* reference(const int64_t n[3], int real, int64_t field) {
  const int64_t N = n[0] * n[1] * n[2];
  double* a = malloc((size_t)N * 2 * sizeof *a);
  for (int64_t i = 0; i < N; i++) {
    const uint64_t index = fftTestFieldIndex((uint64_t)i, field);
    a[2 * i] = fftTestValue(index, 0), a[2 * i + 1] = real ? 0 : fftTestValue(index, 1);
  }
  dft3(a, n, -1);
  return a;
}

/* Element u (memory order) of a box: its global coordinates. */

/* Real part-values of an entry: 1 for real types, 2 for complex. */
static int partsOf(dtrDataType_t t) { return t == dtrComplex64 || t == dtrComplex128 ? 2 : 1; }
static int dblOf(dtrDataType_t t) { return t == dtrFloat64 || t == dtrComplex128; }

static double getv(const void* h, dtrDataType_t t, size_t i) {
  return dblOf(t) ? ((const double*)h)[i] : ((const float*)h)[i];
}
static void setv(void* h, dtrDataType_t t, size_t i, double v) {
  if (dblOf(t)) ((double*)h)[i] = v;
  else ((float*)h)[i] = (float)v;
}

/* ---- the backend's memory (fft_test_support.h) ------------------------------------------------ */

static int finish(void) {
  if (!gpu) return 0;
  return cudaStreamSynchronize(stream) != cudaSuccess;
}

static double sumAll(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, caseComm);
  return v;
}

/* ---- one case ---------------------------------------------------------------------------------- */

typedef struct {
  int64_t shape[3];
  int pr, pc;
  dtrFftKind_t kind;
  dtrDataType_t type;
  dtrFftNorm_t norm;
  int chunks;
  int inplace;
  int graph;
  int pooled;      /* GPU: the output from a stream-ordered pool, which CUDA IPC cannot share (as JAX's are) */
  int64_t howmany; /* config.howmany: 0 (the default, one field) or the fields */
  double padding[3]; /* config.padding (runPaddedCase) */
} Case;

static int64_t fieldsOf(const Case* c) { return c->howmany > 1 ? c->howmany : 1; }

static const char* caseName(const Case* c, char* buf, size_t len) {
  static const char* const norms[3] = {"none", "inverse", "ortho"};
  snprintf(buf, len, "%lldx%lldx%lld %s %s on %dx%d, norm %s, chunks %d%s%s", (long long)c->shape[0],
           (long long)c->shape[1], (long long)c->shape[2], c->kind == dtrFftR2C ? "R2C" : "C2C", dtrDataTypeName(c->type),
           c->pr, c->pc, norms[c->norm], c->chunks, c->inplace ? ", in place" : "", c->graph ? ", graph" : "");
  if (c->pooled) snprintf(buf + strlen(buf), len - strlen(buf), ", pooled output");
  if (c->howmany) snprintf(buf + strlen(buf), len - strlen(buf), ", howmany %lld", (long long)c->howmany);
  return buf;
}

/* The relative L2 error, over all ranks, of field `field` of `fields` in `got` (this rank's output box,
 * the fields interleaved at every point) against the reference of the whole array times factor. */
static double forwardError(const void* got, const dtrBox_t* box, int64_t fields, int64_t field, const double* ref,
                           const int64_t n[3], double factor) {
  double d2 = 0, r2 = 0;
  const int dbl = box->entry_bytes == 16 * (size_t)fields;
  for (size_t u = 0; u < fftTestCount(box); u++) {
    int64_t c[3];
    fftTestCoords(box, u, c);
    const double* want = ref + 2 * (c[0] + n[0] * (c[1] + n[1] * c[2]));
    for (int part = 0; part < 2; part++) {
      const size_t at = 2 * (u * (size_t)fields + (size_t)field) + (size_t)part;
      const double v = dbl ? ((const double*)got)[at] : ((const float*)got)[at];
      const double w = want[part] * factor;
      d2 += (v - w) * (v - w);
      r2 += w * w;
    }
  }
  d2 = sumAll(d2), r2 = sumAll(r2);
  return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* The same over all ranks between field `field` of `fields` in `got` and `want`, one field of `points`
 * points of `type`. */
static double fieldError(const void* got, int64_t fields, int64_t field, const void* want, size_t points, dtrDataType_t type) {
  const int parts = partsOf(type);
  double d2 = 0, r2 = 0;
  for (size_t u = 0; u < points; u++)
    for (int part = 0; part < parts; part++) {
      const double v = getv(got, type, (u * (size_t)fields + (size_t)field) * parts + part), w = getv(want, type, u * parts + part);
      d2 += (v - w) * (v - w);
      r2 += w * w;
    }
  d2 = sumAll(d2), r2 = sumAll(r2);
  return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* Whether every rank succeeded (a rank that failed must not leave the others waiting in a launch). */
static int allGood(int bad) {
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, caseComm);
  return !bad;
}

/* hostIn, inBytes: the input, uploaded again before the replay where the execute runs in place (the
 * execute outside the capture has transformed it). */
static int runExecute(dtrFftPlan_t plan, const void* in, void* out, dtrFftDirection_t dir, int graph, const void* hostIn,
                      size_t inBytes) {
  if (!graph || !gpu) return dtrFftExecute(plan, in, out, dir, stream) != dtrSuccess || finish();
  /* Captured into a graph (after the execute outside the capture that maps the p2p buffers) and replayed
   * once every rank has its graph (a rank that launched alone would wait for the others on its GPU). */
  if (dtrFftExecute(plan, in, out, dir, stream) != dtrSuccess || finish()) return 1;
  if (in == out) fftTestToDevice(gpu, out, hostIn, inBytes);
  cudaGraph_t g = NULL;
  cudaGraphExec_t exec = NULL;
  int bad = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess;
  const dtrResult_t res = bad ? dtrSuccess : dtrFftExecute(plan, in, out, dir, stream);
  bad |= cudaStreamEndCapture(stream, &g) != cudaSuccess || res != dtrSuccess;
  bad |= !bad && cudaGraphInstantiate(&exec, g, 0) != cudaSuccess;
  if (!allGood(bad)) {
    if (!bad) fprintf(stderr, "rank %d: another rank could not capture the FFT\n", rank);
    bad = 1;
  } else {
    bad |= cudaGraphLaunch(exec, stream) != cudaSuccess;
  }
  bad |= finish();
  if (exec) cudaGraphExecDestroy(exec);
  if (g) cudaGraphDestroy(g);
  return bad;
}

/* Field by field, the single-field plan's execute of what a plan of `fields` fields read (hostIn, over
 * inBox) against what it wrote (hostGot, over outBox): the error of the worst field, or -1 where an
 * execute failed. */
static double againstSingle(dtrFftPlan_t single, dtrFftDirection_t dir, const void* hostIn, const dtrBox_t* inBox,
                            const void* hostGot, const dtrBox_t* outBox, dtrDataType_t outType, int64_t fields) {
  const size_t inPoint = inBox->entry_bytes / (size_t)fields, outPoint = outBox->entry_bytes / (size_t)fields;
  const size_t inBytes = fftTestCount(inBox) * inPoint, outBytes = fftTestCount(outBox) * outPoint;
  char* field = malloc(inBytes + 16);
  void* got = malloc(outBytes + 16);
  void* in = fftTestAlloc(gpu, inBytes);
  void* out = fftTestAlloc(gpu, outBytes);
  double worst = 0;
  for (int64_t f = 0; f < fields && worst >= 0; f++) {
    for (size_t u = 0; u < fftTestCount(inBox); u++)
      memcpy(field + u * inPoint, (const char*)hostIn + (u * (size_t)fields + (size_t)f) * inPoint, inPoint);
    fftTestToDevice(gpu, in, field, inBytes);
    fftTestPoison(gpu, out, outBytes);
    int failed = runExecute(single, in, out, dir, 0, NULL, 0);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, caseComm);
    if (failed) {
      worst = -1;
      break;
    }
    fftTestToHost(gpu, got, out, outBytes);
    const double err = fieldError(hostGot, fields, f, got, fftTestCount(outBox), outType);
    if (!(err <= worst)) worst = err;
  }
  fftTestRelease(gpu, in);
  fftTestRelease(gpu, out);
  free(field);
  free(got);
  return worst;
}

/* A case's start: its name announced where asked, its grid, and the plan's settings the case names.
 * Returns 0 (a failure counted) where the grid cannot be made. */
static int caseBegin(const Case* c, const char* name, dtrGrid_t* grid, dtrFftConfig_t* cfg) {
  if (rank == 0 && verbose) {
    printf("case %s\n", name);
    fflush(stdout);
  }
  *grid = NULL;
  if (dtrGridCreate(grid, caseComm, c->pr, c->pc) != dtrSuccess) {
    EXPECT(0, "%s: grid: %s", name, dtrGetLastError());
    return 0;
  }
  fftTestConfig(gpu, cfg);
  cfg->chunks = c->chunks;
  cfg->norm = c->norm;
  cfg->howmany = c->howmany;
  return 1;
}

static void runCase(const Case* c) {
  char name[160];
  caseName(c, name, sizeof name);
  dtrGrid_t grid;
  dtrFftConfig_t cfg;
  if (!caseBegin(c, name, &grid, &cfg)) return;
  const int64_t H = fieldsOf(c);
  dtrFftPlan_t plan = NULL, single = NULL;
  dtrResult_t made = dtrFftPlanCreate(&plan, grid, c->shape, c->kind, c->type, &cfg);
  fftTestExpectDevice(gpu, myDevice, "dtrFftPlanCreate");
  /* Several fields: the plan of one, to run each field alone. */
  if (made == dtrSuccess && H > 1) {
    cfg.howmany = 1;
    made = dtrFftPlanCreate(&single, grid, c->shape, c->kind, c->type, &cfg);
    if (made != dtrSuccess) dtrFftPlanDestroy(plan);
  }
  dtrGridDestroy(grid);
  if (made != dtrSuccess) {
    EXPECT(0, "%s: plan: %s", name, dtrGetLastError());
    return;
  }
  int chunks = 0;
  dtrFftGetChunks(plan, &chunks);
  EXPECT(chunks == c->chunks, "%s: the plan has %d chunks", name, chunks);
  dtrBox_t ib, ob;
  dtrFftGetBox(plan, dtrFftInputSide, &ib);
  dtrFftGetBox(plan, dtrFftOutputSide, &ob);
  const dtrDataType_t ctype = dblOf(c->type) ? dtrComplex128 : dtrComplex64;
  EXPECT(ib.entry_bytes == dtrDataTypeSize(c->type) * (size_t)H && ob.entry_bytes == dtrDataTypeSize(ctype) * (size_t)H,
         "%s: box entries %zu, %zu", name, ib.entry_bytes, ob.entry_bytes);
  dtrBox_t ib1 = ib, ob1 = ob;
  if (single) {
    /* The boxes of one field's, each point `howmany` times the bytes. */
    dtrFftGetBox(single, dtrFftInputSide, &ib1);
    dtrFftGetBox(single, dtrFftOutputSide, &ob1);
    for (int side = 0; side < 2; side++) {
      const dtrBox_t *b = side ? &ob : &ib, *one = side ? &ob1 : &ib1;
      EXPECT(!memcmp(b->start, one->start, sizeof b->start) && !memcmp(b->size, one->size, sizeof b->size) &&
                 !memcmp(b->order, one->order, sizeof b->order) && b->bytes == one->bytes * (size_t)H,
             "%s: the %s box differs from one field's", name, side ? "output" : "input");
    }
  }
  EXPECT(ib.order[0] == 0 && ob.order[0] == 2, "%s: input box not an X-pencil or output not a Z-pencil", name);
  const int64_t nxc = c->kind == dtrFftR2C ? c->shape[0] / 2 + 1 : c->shape[0];
  EXPECT(ob.start[0] + ob.size[0] <= nxc, "%s: the output box reaches x = %lld of %lld", name,
         (long long)(ob.start[0] + ob.size[0]), (long long)nxc);

  /* The input, from the formula (real parts only for R2C), every field's at each point. */
  const int parts = partsOf(c->type);
  void* h = malloc(ib.bytes + 16);
  for (size_t u = 0; u < fftTestCount(&ib); u++) {
    int64_t g[3];
    fftTestCoords(&ib, u, g);
    const uint64_t index = (uint64_t)(g[0] + c->shape[0] * (g[1] + c->shape[1] * g[2]));
    for (int64_t f = 0; f < H; f++)
      for (int part = 0; part < parts; part++)
        setv(h, c->type, (u * (size_t)H + (size_t)f) * parts + part, fftTestValue(fftTestFieldIndex(index, f), part));
  }
  const size_t larger = ib.bytes > ob.bytes ? ib.bytes : ob.bytes;
  void* in = fftTestAlloc(gpu, c->inplace ? larger : ib.bytes);
  void* out = NULL;
  if (c->inplace) out = in;
  else if (c->pooled && gpu && cudaMallocAsync(&out, ob.bytes ? ob.bytes : 16, stream) == cudaSuccess) cudaStreamSynchronize(stream);
  else out = fftTestAlloc(gpu, ob.bytes);
  void* back = fftTestAlloc(gpu, ib.bytes);
  void* hostOut = malloc(larger + 16);
  void* hostBack = malloc(ib.bytes + 16);
  fftTestToDevice(gpu, in, h, ib.bytes);
  if (!c->inplace) fftTestPoison(gpu, out, ob.bytes);
  fftTestPoison(gpu, back, ib.bytes);

  const double N = (double)c->shape[0] * (double)c->shape[1] * (double)c->shape[2];
  const double fwdFactor = c->norm == dtrFftNormOrtho ? 1 / sqrt(N) : 1;
  const double tripFactor = c->norm == dtrFftNormNone ? N : 1;
  const double tol = dblOf(c->type) ? 1e-12 : 1e-5;
  int failed = runExecute(plan, in, out, dtrFftForward, c->graph, h, ib.bytes);
  fftTestExpectDevice(gpu, myDevice, "dtrFftExecute");
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, caseComm);
  EXPECT(!failed, "%s: forward execute: %s", name, dtrGetLastError());
  if (!failed) {
    fftTestToHost(gpu, hostOut, out, ob.bytes);
    for (int64_t f = 0; f < H; f++) {
      double* ref = reference(c->shape, c->kind == dtrFftR2C, f);
      const double err = forwardError(hostOut, &ob, H, f, ref, c->shape, fwdFactor);
      free(ref);
      EXPECT(err <= tol, "%s: forward error %.3g of field %lld (bound %.0e)", name, err, (long long)f, tol);
    }
    if (single) {
      const double err = againstSingle(single, dtrFftForward, h, &ib, hostOut, &ob, ctype, H);
      EXPECT(err >= 0 && err <= tol, "%s: forward against one field's plan: %.3g (bound %.0e) %s", name, err, tol,
             err < 0 ? dtrGetLastError() : "");
    }
    if (!c->inplace) {
      void* again = malloc(ib.bytes + 16);
      fftTestToHost(gpu, again, in, ib.bytes);
      EXPECT(memcmp(again, h, ib.bytes) == 0, "%s: the forward changed its input", name);
      free(again);
    }
    /* The round trip: in place back into the same buffer, else into a fresh one. */
    void* target = c->inplace ? in : back;
    failed = runExecute(plan, out, target, dtrFftInverse, 0, NULL, 0);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, caseComm);
    EXPECT(!failed, "%s: inverse execute: %s", name, dtrGetLastError());
    if (!failed) {
      fftTestToHost(gpu, hostBack, target, ib.bytes);
      double d2 = 0, r2 = 0;
      for (size_t i = 0; i < fftTestCount(&ib) * (size_t)parts; i++) {
        const double want = getv(h, c->type, i) * tripFactor, got = getv(hostBack, c->type, i);
        d2 += (got - want) * (got - want);
        r2 += want * want;
      }
      d2 = sumAll(d2), r2 = sumAll(r2);
      const double trip = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
      EXPECT(trip <= tol, "%s: round trip error %.3g (bound %.0e)", name, trip, tol);
      if (single) {
        const double err = againstSingle(single, dtrFftInverse, hostOut, &ob, hostBack, &ib, c->type, H);
        EXPECT(err >= 0 && err <= tol, "%s: inverse against one field's plan: %.3g (bound %.0e) %s", name, err, tol,
               err < 0 ? dtrGetLastError() : "");
      }
    }
  }
  if (single) EXPECT(dtrFftPlanDestroy(single) == dtrSuccess, "%s: destroy: %s", name, dtrGetLastError());
  EXPECT(dtrFftPlanDestroy(plan) == dtrSuccess, "%s: destroy: %s", name, dtrGetLastError());
  fftTestExpectDevice(gpu, myDevice, "dtrFftPlanDestroy");
  fftTestRelease(gpu, in);
  if (c->pooled && gpu) {
    cudaFreeAsync(out, stream);
    cudaStreamSynchronize(stream);
  } else if (!c->inplace) {
    fftTestRelease(gpu, out);
  }
  fftTestRelease(gpu, back);
  free(h);
  free(hostOut);
  free(hostBack);
}

/* ---- padding (the 3/2 rule) ------------------------------------------------------------------- */

/* The padded grid: m = floor(n * padding) where padding is not 0 or 1. */
static void paddedShape(const Case* c, int64_t m[3]) {
  for (int d = 0; d < 3; d++)
    m[d] = c->padding[d] == 0 || c->padding[d] == 1 ? c->shape[d] : (int64_t)floor((double)c->shape[d] * c->padding[d]);
}

/* Where kept mode k of n (numpy's order) sits among m: k < ceil(n/2) at k, the others m - n further on;
 * along a halved x (R2C) every kept mode at its own index. */
static int64_t paddedIndex(int64_t k, int64_t n, int64_t m, int halved) { return halved || k < (n + 1) / 2 ? k : k + m - n; }

/* The R2C Nyquist plane kx = nx/2 is halved on the way in and doubled on the way out: even nx padded. */
static int nyquistSplit(const Case* c, const int64_t m[3]) {
  return c->kind == dtrFftR2C && c->shape[0] % 2 == 0 && m[0] > c->shape[0];
}

/* The complex extent of x on the spectral side: kept (n) or padded (m). */
static int64_t halfX(const Case* c, int64_t nx) { return c->kind == dtrFftR2C ? nx / 2 + 1 : nx; }

/* The inverse's reference of one field, [z][y][x] complex doubles over m: the kept modes (the formula at
 * their kept index) put among zeros at their padded places, the Nyquist plane halved where split, then
 * the unscaled inverse DFT of the whole padded grid times `factor`. For R2C this is numpy's irfftn of the
 * padded half spectrum: the x planes that stand for two of the full spectrum (0 < kx < mx/2) weigh twice,
 * the others once, and the result is the real part. */
static double* paddedInverseReference(const Case* c, const int64_t m[3], int64_t field, double factor) {
  const int real = c->kind == dtrFftR2C;
  const int64_t* n = c->shape;
  const int64_t kx0 = halfX(c, n[0]), M = m[0] * m[1] * m[2];
  double* a = calloc((size_t)M * 2, sizeof *a);
  for (int64_t kz = 0; kz < n[2]; kz++)
    for (int64_t ky = 0; ky < n[1]; ky++)
      for (int64_t kx = 0; kx < kx0; kx++) {
        const uint64_t index = fftTestFieldIndex((uint64_t)(kx + kx0 * (ky + n[1] * kz)), field);
        const int64_t px = paddedIndex(kx, n[0], m[0], real), py = paddedIndex(ky, n[1], m[1], 0),
                      pz = paddedIndex(kz, n[2], m[2], 0);
        double w = factor;
        if (real && nyquistSplit(c, m) && kx == n[0] / 2) w *= 0.5;
        if (real && px != 0 && !(m[0] % 2 == 0 && px == m[0] / 2)) w *= 2;
        double* at = a + 2 * (px + m[0] * (py + m[1] * pz));
        at[0] = w * fftTestValue(index, 0), at[1] = w * fftTestValue(index, 1);
      }
  dft3(a, m, 1);
  if (real)
    for (int64_t i = 0; i < M; i++) a[2 * i + 1] = 0;
  return a;
}

/* The relative L2 error, over all ranks, of field `field` of `fields` in `got` (this rank's box of the
 * kept modes) against the padded spectrum `ref` (over m) at their padded places, times factor (and 2 on
 * a split Nyquist plane). */
static double keptError(const void* got, const dtrBox_t* box, int64_t fields, int64_t field, const double* ref,
                        const Case* c, const int64_t m[3], double factor) {
  double d2 = 0, r2 = 0;
  const int dbl = dblOf(c->type), real = c->kind == dtrFftR2C;
  for (size_t u = 0; u < fftTestCount(box); u++) {
    int64_t k[3];
    fftTestCoords(box, u, k);
    const int64_t px = paddedIndex(k[0], c->shape[0], m[0], real), py = paddedIndex(k[1], c->shape[1], m[1], 0),
                  pz = paddedIndex(k[2], c->shape[2], m[2], 0);
    const double* want = ref + 2 * (px + m[0] * (py + m[1] * pz));
    const double w = factor * (nyquistSplit(c, m) && k[0] == c->shape[0] / 2 ? 2 : 1);
    for (int part = 0; part < 2; part++) {
      const size_t at = 2 * (u * (size_t)fields + (size_t)field) + (size_t)part;
      const double v = dbl ? ((const double*)got)[at] : ((const float*)got)[at];
      d2 += (v - want[part] * w) * (v - want[part] * w);
      r2 += want[part] * w * want[part] * w;
    }
  }
  d2 = sumAll(d2), r2 = sumAll(r2);
  return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* The same for this rank's X-pencil box over m (real or complex numbers of c->type) against `ref`. */
static double physicalError(const void* got, const dtrBox_t* box, int64_t fields, int64_t field, const double* ref,
                            const Case* c, const int64_t m[3]) {
  double d2 = 0, r2 = 0;
  const int parts = partsOf(c->type);
  for (size_t u = 0; u < fftTestCount(box); u++) {
    int64_t g[3];
    fftTestCoords(box, u, g);
    const double* want = ref + 2 * (g[0] + m[0] * (g[1] + m[1] * g[2]));
    for (int part = 0; part < parts; part++) {
      const double v = getv(got, c->type, (u * (size_t)fields + (size_t)field) * parts + part);
      d2 += (v - want[part]) * (v - want[part]);
      r2 += want[part] * want[part];
    }
  }
  d2 = sumAll(d2), r2 = sumAll(r2);
  return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* The relative L2 error over all ranks of `reals` numbers of `got` against `want` times factor. */
static double scaledError(const void* got, const void* want, size_t reals, dtrDataType_t type, double factor) {
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < reals; i++) {
    const double v = getv(got, type, i), w = getv(want, type, i) * factor;
    d2 += (v - w) * (v - w);
    r2 += w * w;
  }
  d2 = sumAll(d2), r2 = sumAll(r2);
  return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

static int sameBox(const dtrBox_t* a, const dtrBox_t* b) {
  return !memcmp(a->start, b->start, sizeof a->start) && !memcmp(a->size, b->size, sizeof a->size) &&
         !memcmp(a->order, b->order, sizeof a->order) && a->entry_bytes == b->entry_bytes && a->bytes == b->bytes;
}

/* One execute of a padded plan from a poisoned output on; 1 where it failed on some rank. */
static int paddedExecute(dtrFftPlan_t plan, const void* in, void* out, size_t outBytes, dtrFftDirection_t dir, int graph) {
  fftTestPoison(gpu, out, outBytes);
  int failed = runExecute(plan, in, out, dir, graph, NULL, 0);
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, caseComm);
  return failed;
}

/*
 * A padded plan (config.padding) against the DFT of the whole padded grid: its boxes (the padded
 * X-pencil, the kept modes of the padded Z-pencil, dtrFftLocalBox's alike, tiling both grids); the
 * forward of the formula over m against the kept modes of its DFT; the inverse of the formula's kept
 * modes against the inverse DFT of them among zeros (numpy's irfftn for R2C); inputs unchanged; the round
 * trip modes -> inverse -> forward giving the modes back times M (norm none) or 1 (norm inverse). An R2C
 * round trip starts from a forward's result (a real field's spectrum) and runs where every kept mode of
 * the y and z axes has its twin kept (odd ny and nz, or unpadded): an even n's -n/2 mode has none, so
 * the real field holds half of it on the kx = 0 plane.
 */
static void runPaddedCase(const Case* c) {
  char name[200];
  caseName(c, name, sizeof name);
  snprintf(name + strlen(name), sizeof name - strlen(name), ", padding %g %g %g", c->padding[0], c->padding[1], c->padding[2]);
  dtrGrid_t grid;
  dtrFftConfig_t cfg;
  if (!caseBegin(c, name, &grid, &cfg)) return;
  memcpy(cfg.padding, c->padding, sizeof cfg.padding);
  const int64_t H = fieldsOf(c);
  int64_t m[3];
  paddedShape(c, m);
  dtrFftPlan_t plan = NULL;
  const dtrResult_t made = dtrFftPlanCreate(&plan, grid, c->shape, c->kind, c->type, &cfg);
  if (made != dtrSuccess) {
    dtrGridDestroy(grid);
    EXPECT(0, "%s: plan: %s", name, dtrGetLastError());
    return;
  }
  dtrBox_t ib, ob, want;
  dtrFftGetBox(plan, dtrFftInputSide, &ib);
  dtrFftGetBox(plan, dtrFftOutputSide, &ob);
  /* The input side is the X-pencil of the padded grid. */
  dtrPencilBox(grid, m, dtrPencilX, c->type, H, -1, &want);
  EXPECT(sameBox(&ib, &want), "%s: the input box is not the padded grid's X-pencil", name);
  /* The local-size query gives the plan's boxes, and every rank's tile both grids. */
  for (int side = 0; side < 2; side++) {
    dtrBox_t q;
    const dtrResult_t r = dtrFftLocalBox(grid, c->shape, c->kind, c->type, &cfg, (dtrFftSide_t)side, -1, &q);
    EXPECT(r == dtrSuccess && sameBox(&q, side ? &ob : &ib), "%s: dtrFftLocalBox's %s box differs from the plan's (%s)", name,
           side ? "output" : "input", r == dtrSuccess ? "" : dtrGetLastError());
    int64_t points = 0;
    const int size = c->pr * c->pc;
    for (int other = 0; other < size; other++)
      if (dtrFftLocalBox(grid, c->shape, c->kind, c->type, &cfg, (dtrFftSide_t)side, other, &q) == dtrSuccess)
        points += q.size[0] * q.size[1] * q.size[2];
    const int64_t total = side ? halfX(c, c->shape[0]) * c->shape[1] * c->shape[2] : m[0] * m[1] * m[2];
    EXPECT(points == total, "%s: the ranks' %s boxes hold %lld points, not %lld", name, side ? "output" : "input",
           (long long)points, (long long)total);
  }
  dtrGridDestroy(grid);
  const int64_t kx0 = halfX(c, c->shape[0]);
  EXPECT(ob.order[0] == 2 && ob.start[0] + ob.size[0] <= kx0 && ob.start[1] + ob.size[1] <= c->shape[1] &&
             ob.start[2] == 0 && ob.size[2] == c->shape[2],
         "%s: the output box (%lld+%lld, %lld+%lld, %lld+%lld) is not a Z-pencil of the kept modes", name,
         (long long)ob.start[0], (long long)ob.size[0], (long long)ob.start[1], (long long)ob.size[1], (long long)ob.start[2],
         (long long)ob.size[2]);

  /* The inputs from the formula: over the padded grid (real for R2C), and at the kept modes (complex). */
  const dtrDataType_t ctype = dblOf(c->type) ? dtrComplex128 : dtrComplex64;
  const int parts = partsOf(c->type);
  void* hPhys = malloc(ib.bytes + 16);
  void* hSpec = malloc(ob.bytes + 16);
  for (size_t u = 0; u < fftTestCount(&ib); u++) {
    int64_t g[3];
    fftTestCoords(&ib, u, g);
    const uint64_t index = (uint64_t)(g[0] + m[0] * (g[1] + m[1] * g[2]));
    for (int64_t f = 0; f < H; f++)
      for (int part = 0; part < parts; part++)
        setv(hPhys, c->type, (u * (size_t)H + (size_t)f) * parts + part, fftTestValue(fftTestFieldIndex(index, f), part));
  }
  for (size_t u = 0; u < fftTestCount(&ob); u++) {
    int64_t k[3];
    fftTestCoords(&ob, u, k);
    const uint64_t index = (uint64_t)(k[0] + kx0 * (k[1] + c->shape[1] * k[2]));
    for (int64_t f = 0; f < H; f++)
      for (int part = 0; part < 2; part++)
        setv(hSpec, ctype, (u * (size_t)H + (size_t)f) * 2 + part, fftTestValue(fftTestFieldIndex(index, f), part));
  }
  void *phys = fftTestAlloc(gpu, ib.bytes), *phys2 = fftTestAlloc(gpu, ib.bytes), *spec = fftTestAlloc(gpu, ob.bytes), *spec2 = fftTestAlloc(gpu, ob.bytes);
  void *hOut = malloc(ib.bytes + ob.bytes + 16), *hFwd = malloc(ob.bytes + 16), *hAgain = malloc(ib.bytes + ob.bytes + 16);
  const double N = (double)c->shape[0] * (double)c->shape[1] * (double)c->shape[2], M = (double)m[0] * (double)m[1] * (double)m[2];
  const double fwdFactor = c->norm == dtrFftNormInverse ? N / M : 1, invFactor = c->norm == dtrFftNormInverse ? 1 / N : 1;
  const double tripFactor = c->norm == dtrFftNormNone ? M : 1;
  const double tol = dblOf(c->type) ? 1e-12 : 1e-5;

  /* The forward of the formula over the padded grid. */
  fftTestToDevice(gpu, phys, hPhys, ib.bytes);
  const int forwardFailed = paddedExecute(plan, phys, spec, ob.bytes, dtrFftForward, 0);
  EXPECT(!forwardFailed, "%s: forward execute: %s", name, dtrGetLastError());
  if (!forwardFailed) {
    fftTestToHost(gpu, hFwd, spec, ob.bytes);
    for (int64_t f = 0; f < H; f++) {
      double* ref = reference(m, c->kind == dtrFftR2C, f);
      const double err = keptError(hFwd, &ob, H, f, ref, c, m, fwdFactor);
      free(ref);
      EXPECT(err <= tol, "%s: forward error %.3g of field %lld (bound %.0e)", name, err, (long long)f, tol);
    }
    fftTestToHost(gpu, hAgain, phys, ib.bytes);
    EXPECT(!memcmp(hAgain, hPhys, ib.bytes), "%s: the forward changed its input", name);
  }
  /* The inverse of the formula's kept modes. */
  fftTestToDevice(gpu, spec2, hSpec, ob.bytes);
  int failed = paddedExecute(plan, spec2, phys2, ib.bytes, dtrFftInverse, c->graph);
  EXPECT(!failed, "%s: inverse execute: %s", name, dtrGetLastError());
  if (!failed) {
    fftTestToHost(gpu, hOut, phys2, ib.bytes);
    for (int64_t f = 0; f < H; f++) {
      double* ref = paddedInverseReference(c, m, f, invFactor);
      const double err = physicalError(hOut, &ib, H, f, ref, c, m);
      free(ref);
      EXPECT(err <= tol, "%s: inverse error %.3g of field %lld (bound %.0e)", name, err, (long long)f, tol);
    }
    fftTestToHost(gpu, hAgain, spec2, ob.bytes);
    EXPECT(!memcmp(hAgain, hSpec, ob.bytes), "%s: the inverse changed its input", name);
  }
  /* The round trip of kept modes: the formula's (C2C), a real field's spectrum (R2C). */
  const int twins = (m[1] == c->shape[1] || c->shape[1] % 2) && (m[2] == c->shape[2] || c->shape[2] % 2);
  if (!failed && !forwardFailed && (c->kind == dtrFftC2C || twins)) {
    const void* modes = c->kind == dtrFftC2C ? hSpec : hFwd;
    fftTestToDevice(gpu, spec2, modes, ob.bytes);
    failed = paddedExecute(plan, spec2, phys2, ib.bytes, dtrFftInverse, 0);
    if (!failed) failed = paddedExecute(plan, phys2, spec, ob.bytes, dtrFftForward, 0);
    EXPECT(!failed, "%s: round trip: %s", name, dtrGetLastError());
    if (!failed) {
      fftTestToHost(gpu, hAgain, spec, ob.bytes);
      const double err = scaledError(hAgain, modes, fftTestCount(&ob) * (size_t)H * 2, ctype, tripFactor);
      EXPECT(err <= tol, "%s: round trip error %.3g (bound %.0e)", name, err, tol);
    }
  }
  EXPECT(dtrFftPlanDestroy(plan) == dtrSuccess, "%s: destroy: %s", name, dtrGetLastError());
  fftTestRelease(gpu, phys);
  fftTestRelease(gpu, phys2);
  fftTestRelease(gpu, spec);
  fftTestRelease(gpu, spec2);
  free(hPhys);
  free(hSpec);
  free(hOut);
  free(hFwd);
  free(hAgain);
}

/* ---- bad input --------------------------------------------------------------------------------- */

/* Every rank gets `want`, whichever rank's argument was bad, and the message names `words`. */
static void expectNamed(dtrResult_t got, dtrResult_t want, const char* words, const char* what) {
  dtrTestExpectEverywhere(got, want, what);
  EXPECT(got != want || strstr(dtrGetLastError(), words), "%s: the message does not name %s: %s", what, words, dtrGetLastError());
}

/* config.padding: bad factors, too many points, with the orthonormal norm, differing between ranks; and
 * a padded plan's execute in place. */
static void badPadding(dtrGrid_t grid, const dtrFftConfig_t* cfg) {
  const int64_t shape[3] = {12, 10, 9};
  dtrFftPlan_t plan = NULL;
  static const double bad[] = {0.5, -1.5, 1e300};
  for (int i = 0; i < 3; i++) {
    dtrFftConfig_t c = *cfg;
    c.padding[i] = bad[i];
    char what[64];
    snprintf(what, sizeof what, "padding[%d] = %g", i, bad[i]);
    expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrInvalidArgument, "config.padding", what);
  }
  dtrFftConfig_t c = *cfg;
  c.padding[1] = NAN;
  expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrFloat32, &c), dtrInvalidArgument, "config.padding[1]", "padding NaN");
  c = *cfg;
  c.padding[2] = INFINITY;
  expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrInvalidArgument, "config.padding[2]",
              "padding inf");
  /* Each axis alone fits, the padded grid's bytes do not. */
  c = *cfg;
  c.padding[0] = c.padding[1] = 1e17;
  expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrInvalidArgument, "overflows",
              "padded grid overflowing");
  c = *cfg;
  c.padding[0] = 1.5;
  c.norm = dtrFftNormOrtho;
  expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrInvalidArgument, "dtrFftNormOrtho",
              "padding with the orthonormal norm");
  c = *cfg;
  if (rank == nranks - 1) c.padding[2] = 0.9;
  expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrInvalidArgument, "config.padding[2]",
              "padding 0.9 on one rank");
  if (nranks > 1) {
    c = *cfg;
    c.padding[0] = rank == 0 ? 1.5 : 1.6;
    expectNamed(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &c), dtrMismatch,
                "config.padding[0] (x) differs between ranks: 1.5 on rank 0, 1.6 on rank", "padding differing between ranks");
  }
  /* Padded, a C2C plan's two sides differ: in place is refused, and nothing is written. */
  c = *cfg;
  c.padding[0] = c.padding[1] = c.padding[2] = 1.5;
  EXPECT(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex128, &c) == dtrSuccess, "padded plan: %s", dtrGetLastError());
  if (!plan) return;
  dtrBox_t ib, ob;
  dtrFftGetBox(plan, dtrFftInputSide, &ib);
  dtrFftGetBox(plan, dtrFftOutputSide, &ob);
  const size_t bytes = ib.bytes > ob.bytes ? ib.bytes : ob.bytes;
  void* buf = fftTestAlloc(gpu, bytes);
  fftTestPoison(gpu, buf, bytes);
  expectNamed(dtrFftExecute(plan, buf, buf, dtrFftForward, stream), dtrInvalidArgument, "padded plan", "padded in place");
  expectNamed(dtrFftExecute(plan, buf, buf, dtrFftInverse, stream), dtrInvalidArgument, "padded plan", "padded in place, inverse");
  unsigned char* h = malloc(bytes + 16);
  fftTestToHost(gpu, h, buf, bytes);
  int clean = 1;
  for (size_t i = 0; i < bytes; i++) clean &= h[i] == 0xff;
  EXPECT(clean, "a refused padded execute wrote into its buffer");
  free(h);
  fftTestRelease(gpu, buf);
  EXPECT(dtrFftPlanDestroy(plan) == dtrSuccess, "destroy: %s", dtrGetLastError());
}

static void badInput(void) {
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, 0, 0) != dtrSuccess) {
    EXPECT(0, "grid: %s", dtrGetLastError());
    return;
  }
  const int64_t shape[3] = {12, 10, 9}, zero[3] = {12, 0, 9};
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  if (!gpu) cfg.transpose.backend = dtrBackendCpu;
  dtrFftPlan_t plan = NULL;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, zero, dtrFftC2C, dtrComplex64, &cfg), dtrInvalidArgument, "shape with 0");
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, (dtrFftKind_t)7, dtrComplex64, &cfg), dtrInvalidArgument, "kind 7");
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrComplex64, &cfg), dtrInvalidArgument, "R2C of c64");
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrFloat32, &cfg), dtrInvalidArgument, "C2C of fp32");
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrInt8, &cfg), dtrInvalidArgument, "C2C of int8");
  dtrTestExpectEverywhere(dtrFftPlanCreate(NULL, grid, shape, dtrFftC2C, dtrComplex64, &cfg), dtrInvalidArgument, "plan NULL");
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, NULL, shape, dtrFftC2C, dtrComplex64, &cfg), dtrInvalidArgument, "grid NULL");
  dtrFftConfig_t bad = cfg;
  bad.chunks = DTR_FFT_MAX_CHUNKS + 1;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument, "chunks 65");
  bad = cfg;
  bad.norm = (dtrFftNorm_t)3;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument, "norm 3");
  bad = cfg;
  bad.howmany = -1;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument, "howmany -1");
  /* Fields whose bytes overflow 64-bit sizes, and fields no memory holds (refused as the workspace is
   * allocated, or the exchanges' buffers are). */
  bad.howmany = INT64_MAX / 64;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument,
                   "howmany overflowing");
  bad.howmany = (int64_t)1 << 27;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrOutOfMemory,
                   "howmany beyond memory");
  bad = cfg;
  bad.transpose.inplace = 1;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument,
                   "transpose.inplace");
  /* Only the last rank's argument is bad: every rank fails. */
  bad = cfg;
  if (rank == nranks - 1) bad.chunks = -1;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument,
                   "chunks -1 on one rank");
  if (nranks > 1) {
    bad = cfg;
    bad.chunks = rank == 0 ? 2 : 3;
    dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrMismatch,
                     "chunks differing between ranks");
    bad = cfg;
    bad.norm = rank == 0 ? dtrFftNormNone : dtrFftNormOrtho;
    dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrMismatch,
                     "norm differing between ranks");
    bad = cfg;
    bad.howmany = rank == 0 ? 2 : 3;
    dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrMismatch,
                     "howmany differing between ranks");
    const int64_t other[3] = {12, 10, rank == 0 ? 9 : 8};
    dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, other, dtrFftC2C, dtrComplex64, &cfg), dtrMismatch,
                     "nz differing between ranks");
  }
  badPadding(grid, &cfg);
  EXPECT(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrFloat64, &cfg) == dtrSuccess, "R2C plan: %s", dtrGetLastError());
  if (plan) {
    dtrBox_t ib, ob;
    dtrFftGetBox(plan, dtrFftInputSide, &ib);
    dtrFftGetBox(plan, dtrFftOutputSide, &ob);
    void* in = fftTestAlloc(gpu, ib.bytes + ob.bytes);
    void* out = fftTestAlloc(gpu, ob.bytes);
    fftTestPoison(gpu, out, ob.bytes);
    dtrTestExpectEverywhere(dtrFftExecute(plan, in, out, (dtrFftDirection_t)0, stream), dtrInvalidArgument, "direction 0");
    if (nranks > 1) {
      /* Forward on one rank, inverse on the others: refused everywhere before anything is exchanged. */
      void* other = fftTestAlloc(gpu, ib.bytes + ob.bytes);
      const dtrResult_t got = rank == 0 ? dtrFftExecute(plan, in, out, dtrFftForward, stream)
                                        : dtrFftExecute(plan, out, other, dtrFftInverse, stream);
      dtrTestExpectEverywhere(got, dtrMismatch, "directions differing between ranks");
      fftTestRelease(gpu, other);
    }
    dtrTestExpectEverywhere(dtrFftExecute(plan, in, in, dtrFftForward, stream), dtrInvalidArgument, "R2C in place");
    dtrTestExpectEverywhere(dtrFftExecute(plan, rank == 0 && ib.bytes ? NULL : in, out, dtrFftForward, stream), dtrInvalidArgument,
                     "in NULL on rank 0");
    if (ob.bytes && ib.bytes)
      dtrTestExpectEverywhere(dtrFftExecute(plan, in, (char*)in + 8, dtrFftForward, stream), dtrInvalidArgument,
                       "overlapping buffers");
    else
      dtrTestExpectEverywhere(dtrFftExecute(plan, in, NULL, (dtrFftDirection_t)5, stream), dtrInvalidArgument, "direction 5");
    if (gpu) {
      void* host = malloc(ib.bytes + 16);
      dtrTestExpectEverywhere(dtrFftExecute(plan, ib.bytes ? host : in, out, dtrFftForward, stream), dtrInvalidArgument,
                       "host memory on a GPU plan");
      free(host);
    }
    /* Nothing was written by the refused executes. */
    void* h = malloc(ob.bytes + 16);
    fftTestToHost(gpu, h, out, ob.bytes);
    int clean = 1;
    for (size_t i = 0; i < ob.bytes; i++) clean &= ((unsigned char*)h)[i] == 0xff;
    EXPECT(clean, "a refused execute wrote into out");
    free(h);
    size_t ws = 0;
    EXPECT(dtrFftGetWorkspaceSize(plan, &ws) == dtrSuccess && ws > 0, "workspace size %zu", ws);
    dtrTestExpectEverywhere(dtrFftGetBox(plan, (dtrFftSide_t)2, &ib), dtrInvalidArgument, "side 2");
    EXPECT(dtrFftPlanDestroy(plan) == dtrSuccess, "destroy: %s", dtrGetLastError());
    fftTestRelease(gpu, in);
    fftTestRelease(gpu, out);
  }
  EXPECT(dtrFftPlanDestroy(NULL) == dtrInvalidArgument, "destroy of NULL");
  dtrGridDestroy(grid);
}

/* ---- the cases --------------------------------------------------------------------------------- */

static const char* const families[] = {"single", "fields", "folded", "padded", "planes", "halves"};

/* Whether the comma list `list` names `family`. */
static int wanted(const char* list, const char* family) {
  const size_t len = strlen(family);
  for (const char* p = list;;) {
    const char* end = strchr(p, ',');
    const size_t l = end ? (size_t)(end - p) : strlen(p);
    if (l == len && !strncmp(p, family, len)) return 1;
    if (!end) return 0;
    p = end + 1;
  }
}

int main(int argc, char** argv) {
  if (dtrTestStart(&argc, &argv, "test_fft", &rank, &nranks, &gpu, &verbose, &myDevice)) return DTR_TEST_SKIP;
  /* The grids of this rank count: slabs, pencils P x 1, and the squarest other factorizations. */
  int grids[8][2];
  int ngrids = dtrTestGrids(nranks, grids);
  const char* only = "single,fields,folded,padded,planes,halves";
  for (int a = 1; a + 1 < argc; a++)
    if (!strcmp(argv[a], "--only")) {
      only = argv[a + 1];
      size_t named = 0;
      for (int f = 0; f < (int)(sizeof families / sizeof families[0]); f++) named += wanted(only, families[f]) ? strlen(families[f]) + 1 : 0;
      if (named != strlen(only) + 1) {
        if (rank == 0) fprintf(stderr, "test_fft: --only %s: a comma list of single, fields, folded, padded, planes, halves\n", only);
        MPI_Finalize();
        return 2;
      }
    }
  for (int a = 1; a + 1 < argc; a++)
    if (!strcmp(argv[a], "--grid")) {
      int64_t want[2];
      char why[128] = "";
      int kept = 0;
      if (!dtrParseDims(argv[a + 1], 2, nranks, want, why, sizeof why))
        for (int g = 0; g < ngrids; g++)
          if (grids[g][0] == want[0] && grids[g][1] == want[1]) grids[kept][0] = grids[g][0], grids[kept][1] = grids[g][1], kept++;
      if (!kept) {
        if (rank == 0) fprintf(stderr, "test_fft: --grid %s is no grid of %d ranks (RxC with R * C = %d)%s%s\n", argv[a + 1], nranks, nranks, *why ? ": " : "", why);
        MPI_Finalize();
        return 2;
      }
      ngrids = kept;
    }
  if (gpu) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  /* nz = 1: 2-D transforms (docs/fft.md#2-d-transforms), R != C with prime sides. */
  static const int64_t shapes[][3] = {{8, 6, 5}, {9, 7, 4}, {1, 1, 1}, {5, 3, 2}, {17, 12, 10}, {2, 13, 3}, {16, 16, 16},
                                      {12, 9, 1}, {7, 11, 1}};
  const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  static const dtrFftKind_t kinds[4] = {dtrFftC2C, dtrFftC2C, dtrFftR2C, dtrFftR2C};
  static const dtrDataType_t types[4] = {dtrComplex64, dtrComplex128, dtrFloat32, dtrFloat64};
  static const int chunkCounts[4] = {1, 2, 3, 64};
  caseComm = MPI_COMM_WORLD;
  int n = 0, ran = 0; /* n: every case's number, which sets its options; ran: those run */
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < nshapes; s++)
      for (int t = 0; t < 4; t++, n++) {
        Case c = {{shapes[s][0], shapes[s][1], shapes[s][2]}, grids[g][0], grids[g][1], kinds[t], types[t],
                  (dtrFftNorm_t)(n % 3), chunkCounts[(n / 3 + s) % 4], kinds[t] == dtrFftC2C && n % 5 == 1, 0, 0, 0, {0, 0, 0}};
        c.graph = gpu && n % 7 == 3;
        c.pooled = gpu && !c.inplace && n % 4 == 2;
        c.howmany = n % 6 == 5; /* now and then one field asked for by name */
        if (wanted(only, "single")) runCase(&c), ran++;
      }
  /* Several fields on every grid: one point, primes, R != C, fewer planes than ranks, powers of two (on
   * GPUs the one-trip kernel's, which reads the interleaved fields where they lie; 256 and 512 points
   * along each axis, 1024 along z: its kernels built for those lengths). C2C in place on
   * every other shape's c64 of 2 fields and c128 of 3, and the others' c64 of 3 and c128 of 2: every
   * type and field count both in place and out of place on each grid. */
  static const int64_t fieldShapes[][3] = {{1, 1, 1}, {5, 3, 2}, {9, 7, 4}, {2, 13, 3}, {17, 12, 10}, {8, 16, 8}, {16, 8, 32},
                                            {256, 5, 2}, {3, 256, 2}, {2, 3, 512}, {2, 3, 1024}};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < (int)(sizeof fieldShapes / sizeof fieldShapes[0]); s++)
      for (int t = 0; t < 4; t++)
        for (int64_t howmany = 2; howmany <= 3; howmany++, n++) {
          const int inplace = kinds[t] == dtrFftC2C && (s + t + (int)howmany) % 2 == 0;
          Case c = {{fieldShapes[s][0], fieldShapes[s][1], fieldShapes[s][2]}, grids[g][0], grids[g][1], kinds[t], types[t],
                    (dtrFftNorm_t)(n % 3), chunkCounts[(n / 3 + s) % 4], inplace, 0, 0, howmany, {0, 0, 0}};
          c.graph = gpu && n % 7 == 3;
          c.pooled = gpu && !c.inplace && n % 4 == 2;
          if (wanted(only, "fields")) runCase(&c), ran++;
        }
  /* The normalization folded into the first pass of its direction where one kernel of the library's
   * runs it on GPUs (n a power of two from 8 to 4096, one field): along z, the inverse's first pass, and
   * along x, an orthonormal forward's on pencils; both norms that scale, in place and not, chunks. */
  static const int64_t foldShapes[][3] = {{8, 3, 64}, {4, 2, 512}, {64, 3, 8}, {2, 3, 2048}};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < (int)(sizeof foldShapes / sizeof foldShapes[0]); s++)
      for (int t = 0; t < 4; t++)
        for (int norm = dtrFftNormInverse; norm <= dtrFftNormOrtho; norm++, n++) {
          Case c = {{foldShapes[s][0], foldShapes[s][1], foldShapes[s][2]}, grids[g][0], grids[g][1], kinds[t], types[t],
                    (dtrFftNorm_t)norm, chunkCounts[(n + s) % 4], kinds[t] == dtrFftC2C && (s + norm) % 2 == 0, 0, 0, 0,
                    {0, 0, 0}};
          c.graph = gpu && n % 5 == 2;
          if (wanted(only, "folded")) runCase(&c), ran++;
        }
  /* Padding (the 3/2 rule) on every grid: odd and even n and m, one axis or a few, an axis whose factor
   * leaves m = n (2 x 1.2), a 2-D transform, ranks whose padded range lies in the gap (ny 2 x 3 on 4
   * ranks); both norms that padding takes, chunk counts, two fields now and then. */
  static const struct {
    int64_t shape[3];
    double padding[3];
  } padded[] = {{{6, 5, 4}, {1.5, 1.5, 1.5}}, {{8, 8, 8}, {1.5, 1.5, 1.5}}, {{6, 5, 4}, {0, 1.5, 1}},
                {{5, 7, 3}, {2, 0, 1.5}},     {{7, 3, 5}, {1.5, 1.5, 1.5}}, {{4, 6, 1}, {1.5, 1.5, 0}},
                {{2, 4, 3}, {1.2, 1.5, 1}},   {{4, 2, 4}, {1, 3, 1.5}}};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < (int)(sizeof padded / sizeof padded[0]); s++)
      for (int t = 0; t < 4; t++, n++) {
        Case c = {{padded[s].shape[0], padded[s].shape[1], padded[s].shape[2]}, grids[g][0], grids[g][1], kinds[t], types[t],
                  (dtrFftNorm_t)(n % 2), chunkCounts[(n / 2 + s) % 4], 0, gpu && n % 5 == 1, 0, n % 3 == 2 ? 2 : 0,
                  {padded[s].padding[0], padded[s].padding[1], padded[s].padding[2]}};
        if (wanted(only, "padded")) runPaddedCase(&c), ran++;
      }
  /* Planes whose sides are powers of two: where the slab route's forward 2-D pass can deliver as it
   * goes (DTR_FFT_DELIVER; the library's one-trip kernel along y and x), ranks with two row counts (16
   * rows on 3 ranks: 6, 5, 5; 8 rows: 3, 3, 2), ranks without planes (3 planes on 4 ranks), ranks with
   * enough rows for the delivering and gathering rounds (DTR_FFT_DELIVER=2, DTR_FFT_GATHER=1: pieces of
   * rows of several counts, 48 rows of 32 points on 3 ranks, 64 of 64 on 2 and 4); every type,
   * norm and chunk count, C2C in place and not. */
  static const int64_t planeShapes[][3] = {{32, 16, 6}, {16, 32, 5}, {64, 8, 9}, {8, 64, 3}, {32, 48, 7}, {64, 64, 8}};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < (int)(sizeof planeShapes / sizeof planeShapes[0]); s++)
      for (int t = 0; t < 4; t++, n++) {
        Case c = {{planeShapes[s][0], planeShapes[s][1], planeShapes[s][2]}, grids[g][0], grids[g][1], kinds[t], types[t],
                  (dtrFftNorm_t)(n % 3), chunkCounts[(n + s) % 4], kinds[t] == dtrFftC2C && (s + t) % 2 == 0, 0, 0, 0,
                  {0, 0, 0}};
        c.graph = gpu && n % 5 == 3;
        if (wanted(only, "planes")) runCase(&c), ran++;
      }
  /* Each half of the world a grid of its own (slabs and, where a half has two ranks or more, pencils),
   * the halves' FFTs running at the same time. */
  if (nranks > 1 && wanted(only, "halves")) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &caseComm);
    int half = 0;
    MPI_Comm_size(caseComm, &half);
    for (int t = 0; t < 4; t++, n++) {
      Case c = {{9, 7, 6}, 1, half, kinds[t], types[t], (dtrFftNorm_t)(t % 3), 1 + t, t == 1, 0, 0, t, {0, 0, 0}};
      if (t >= 2 && half > 1) c.pr = half, c.pc = 1;
      runCase(&c), ran++;
    }
    MPI_Comm_free(&caseComm);
    caseComm = MPI_COMM_WORLD;
  }
  badInput();
  if (gpu) cudaStreamDestroy(stream);
  const int result = dtrTestEndEverywhere("test_fft", gpu, ran);
  MPI_Finalize();
  return result;
}
