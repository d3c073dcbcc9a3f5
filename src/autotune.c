/*
 * dtrGridAutotune: the process grid (and backend) chosen by measurement. It stands beside the door,
 * above the grids, the pencil plans, the FFT and the halo plans, and reaches them through their public
 * calls only; nothing below calls it.
 *
 * Every rank builds the same candidates in the same order, and every step that can fail on one rank
 * (a plan, a buffer, an iteration) is agreed before the next collective, so that a candidate is
 * skipped on every rank or on none. The times are reduced to the slowest rank's before anything is
 * compared: every rank then holds the same numbers and makes the same choice. A deadline
 * (config.transpose.timeout, DTR_TIMEOUT) covers each step, not the whole tuning, which may take
 * longer than any one collective should.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arguments.h"
#include "core/checks.h"
#include "core/device_guard.h"
#include "core/geometry.h"
#include "core/median.h"
#include "core/params.h"
#include "core/timeout.h"
#include "plan.h"

/* Timed iterations a candidate may ask for: enough for any median, few enough to stay a tuning. */
#define AUTOTUNE_MAX_ITERATIONS 1000

void dtrAutotuneConfigInit(dtrAutotuneConfig_t* config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  dtrConfigInit(&config->transpose);
  config->fft_kind = dtrFftC2C;
  config->howmany = 1;
  config->halo_pencil = dtrPencilX;
  for (int d = 0; d < 3; d++) config->halo[d] = 1, config->periodic[d] = 1;
  config->iterations = 3;
}

static const char* const targetNames[dtrNumAutotuneTargets] = {"the FFT", "the pencil transposes", "the halo exchange"};

typedef struct {
  MPI_Comm comm; /* a duplicate of the caller's: the tuner's own collectives */
  int rank, nranks;
  const int64_t* shape;
  dtrDataType_t type;
  dtrAutotuneTarget_t what;
  const dtrAutotuneConfig_t* cfg;
  double timeout;
  cudaStream_t stream; /* where the GPU candidates run, on the plans' device */
} Tuner;

/* What one candidate holds while it is timed. */
typedef struct {
  dtrGrid_t grid;
  dtrFftPlan_t fft;
  dtrPlan_t chain[4];
  int nchain;
  dtrHaloPlan_t halo;
  void* buf[2];
  int gpu;
} Candidate;

/* ---- arguments ------------------------------------------------------------------------------ */

/* Local: the call's arguments and config. */
static dtrResult_t checkArgs(const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                             const dtrAutotuneConfig_t* c, const int* pr, const int* pc) {
  if (!pr || !pc) return dtrSetError(dtrInvalidArgument, "%s is NULL", !pr ? "pr" : "pc");
  if (!shape) return dtrSetError(dtrInvalidArgument, "shape is NULL");
  static const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++)
    if (shape[d] < 1)
      return dtrSetError(dtrInvalidArgument, "shape[%d] (n%c) = %lld: must be at least 1", d, axis[d], (long long)shape[d]);
  if ((int)what < 0 || what >= dtrNumAutotuneTargets)
    return dtrSetError(dtrInvalidArgument, "what = %d: expected dtrAutotuneFft (0), dtrAutotuneTransposes (1) or dtrAutotuneHalo (2)",
                       (int)what);
  if ((int)type < 0 || type >= dtrNumTypes) return dtrSetError(dtrInvalidArgument, "unknown data type %d", (int)type);
  size_t entry = dtrDataTypeSize(type);
  if (what == dtrAutotuneFft) {
    if ((int)c->fft_kind < 0 || c->fft_kind >= dtrNumFftKinds)
      return dtrSetError(dtrInvalidArgument, "config.fft_kind = %d: expected dtrFftC2C (0) or dtrFftR2C (1)", (int)c->fft_kind);
    if (c->fft_kind == dtrFftC2C && type != dtrComplex64 && type != dtrComplex128)
      return dtrSetError(dtrInvalidArgument, "a C2C FFT takes type c64 or c128, not %s", dtrDataTypeName(type));
    if (c->fft_kind == dtrFftR2C && type != dtrFloat32 && type != dtrFloat64)
      return dtrSetError(dtrInvalidArgument, "an R2C FFT takes the real side's type, fp32 or fp64, not %s", dtrDataTypeName(type));
    entry = type == dtrFloat32 || type == dtrComplex64 ? 8 : 16; /* the complex side: the larger */
  } else {
    if (c->howmany < 1 || c->howmany > (1L << 30))
      return dtrSetError(dtrInvalidArgument, "config.howmany = %lld: must be 1 to 2^30", (long long)c->howmany);
    entry *= (size_t)c->howmany;
  }
  if (what == dtrAutotuneHalo) {
    if ((int)c->halo_pencil < 0 || c->halo_pencil >= dtrNumPencils)
      return dtrSetError(dtrInvalidArgument, "config.halo_pencil = %d: expected 0..2 (X, Y, Z)", (int)c->halo_pencil);
    for (int d = 0; d < 3; d++) {
      if (c->halo[d] < 0 || c->halo[d] > (1 << 20))
        return dtrSetError(dtrInvalidArgument, "config.halo[%d] = %d: must be 0 to 2^20", d, c->halo[d]);
      if (c->periodic[d] != 0 && c->periodic[d] != 1)
        return dtrSetError(dtrInvalidArgument, "config.periodic[%d] = %d: must be 0 or 1", d, c->periodic[d]);
    }
  }
  if (dtrGeometryOverflows(shape[0], shape[1], shape[2], entry))
    return dtrSetError(dtrInvalidArgument, "nx x ny x nz x entry = %lld x %lld x %lld x %zu bytes overflows 64-bit sizes",
                       (long long)shape[0], (long long)shape[1], (long long)shape[2], entry);
  if (c->iterations < 1 || c->iterations > AUTOTUNE_MAX_ITERATIONS)
    return dtrSetError(dtrInvalidArgument, "config.iterations = %d: must be 1 to %d", c->iterations, AUTOTUNE_MAX_ITERATIONS);
  if (c->capacity < 0) return dtrSetError(dtrInvalidArgument, "config.capacity = %d: must be 0 or more", c->capacity);
  if (c->capacity > 0 && !c->timings)
    return dtrSetError(dtrInvalidArgument, "config.timings is NULL but config.capacity is %d", c->capacity);
  if (c->transpose.workspace != dtrWorkspaceOwn || c->transpose.inplace != 0)
    return dtrSetError(dtrInvalidArgument,
                       "config.transpose.workspace and .inplace are the tuner's business: leave them at their defaults");
  return dtrCheckConfig(&c->transpose);
}

/* Collective: everything that shapes the candidates is the same on every rank. */
static dtrResult_t agreeArgs(MPI_Comm comm, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                             const dtrAutotuneConfig_t* c) {
  const dtrAgreedValue args[] = {{"shape[0] (nx)", shape[0], dtrValueNumber},
                                 {"shape[1] (ny)", shape[1], dtrValueNumber},
                                 {"shape[2] (nz)", shape[2], dtrValueNumber},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"what", (int64_t)what, dtrValueNumber},
                                 {"config.fft_kind", (int64_t)c->fft_kind, dtrValueNumber},
                                 {"config.howmany", c->howmany, dtrValueNumber},
                                 {"config.halo_pencil", (int64_t)c->halo_pencil, dtrValuePencil},
                                 {"config.halo[0]", c->halo[0], dtrValueNumber},
                                 {"config.halo[1]", c->halo[1], dtrValueNumber},
                                 {"config.halo[2]", c->halo[2], dtrValueNumber},
                                 {"config.periodic[0]", c->periodic[0], dtrValueNumber},
                                 {"config.periodic[1]", c->periodic[1], dtrValueNumber},
                                 {"config.periodic[2]", c->periodic[2], dtrValueNumber},
                                 {"config.iterations", c->iterations, dtrValueNumber}};
  return dtrAgreeCall(comm, args, (int)(sizeof args / sizeof args[0]), &c->transpose);
}

/* ---- one candidate ---------------------------------------------------------------------------- */

static void* allocate(int gpu, size_t bytes, cudaStream_t stream) {
  void* p = NULL;
  if (!bytes) bytes = 256; /* empty boxes still get a pointer the executes accept */
  if (gpu) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      return NULL;
    }
    /* Zeros: a round trip of FFTs keeps them zeros (no overflow over the iterations). On the tuner's
     * stream, ahead of the iterations. */
    if (cudaMemsetAsync(p, 0, bytes, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      cudaFree(p);
      return NULL;
    }
    return p;
  }
  /* Zeros on the host too: touched now, not in the first timed iteration, and no subnormals in FFTW's passes. */
  return calloc(1, bytes);
}

static void release(int gpu, void* p) {
  if (!p) return;
  if (gpu) cudaFree(p);
  else free(p);
}

static dtrResult_t allocateBuffers(Candidate* k, size_t bytes0, size_t bytes1, cudaStream_t stream) {
  const size_t need[2] = {bytes0, bytes1};
  for (int i = 0; i < 2; i++)
    if (need[i] != (size_t)-1 && !(k->buf[i] = allocate(k->gpu, need[i], stream)))
      return dtrSetError(dtrOutOfMemory, "cannot allocate the tuner's %zu-byte buffer %s", need[i],
                         k->gpu ? "on the GPU" : "on the host");
  (void)cudaGetLastError();
  return dtrSuccess;
}

static void freeCandidate(Candidate* k) {
  if (k->fft) dtrFftPlanDestroy(k->fft);
  for (int i = 0; i < k->nchain; i++)
    if (k->chain[i]) dtrPlanDestroy(k->chain[i]);
  if (k->halo) dtrHaloPlanDestroy(k->halo);
  for (int i = 0; i < 2; i++) release(k->gpu, k->buf[i]);
  if (k->grid) dtrGridDestroy(k->grid);
  memset(k, 0, sizeof *k);
}

static size_t largest(const dtrBox_t* b, int n) {
  size_t m = 0;
  for (int i = 0; i < n; i++)
    if (b[i].bytes > m) m = b[i].bytes;
  return m;
}

/* Collective: the candidate's grid, plans and buffers. Every failure is agreed (the public calls agree
 * their own; the buffers here). */
static dtrResult_t makeStream(Tuner* T) {
  if (!T->stream) CUDACHECK(cudaStreamCreateWithFlags(&T->stream, cudaStreamNonBlocking));
  return dtrSuccess;
}

static dtrResult_t build(Tuner* T, Candidate* k, int pr, int pc, dtrBackend_t backend) {
  const dtrAutotuneConfig_t* c = T->cfg;
  k->gpu = backend != dtrBackendCpu;
  DTRCHECK(dtrGridCreate(&k->grid, T->comm, pr, pc));
  dtrConfig_t tc = c->transpose;
  tc.backend = backend;
  size_t bytes[2] = {0, (size_t)-1}; /* (size_t)-1: no second buffer */
  if (T->what == dtrAutotuneFft) {
    dtrFftConfig_t fc;
    dtrFftConfigInit(&fc);
    fc.transpose = tc;
    fc.howmany = c->howmany;
    DTRCHECK(dtrFftPlanCreate(&k->fft, k->grid, T->shape, c->fft_kind, T->type, &fc));
    dtrBox_t box[2];
    dtrFftGetBox(k->fft, dtrFftInputSide, &box[0]);
    dtrFftGetBox(k->fft, dtrFftOutputSide, &box[1]);
    bytes[0] = box[0].bytes, bytes[1] = box[1].bytes;
  } else if (T->what == dtrAutotuneTransposes) {
    /* The chain an FFT code's steps run, one stream, so the plans share the grid's exchange buffers. */
    static const dtrPencil_t pencils[5] = {dtrPencilX, dtrPencilY, dtrPencilZ, dtrPencilY, dtrPencilX};
    static const dtrPencil_t slabs[3] = {dtrPencilX, dtrPencilZ, dtrPencilX};
    const dtrPencil_t* path = pr == 1 ? slabs : pencils;
    k->nchain = pr == 1 ? 2 : 4;
    tc.workspace = dtrWorkspaceGrid;
    for (int i = 0; i < k->nchain; i++)
      DTRCHECK(dtrPlanCreatePencil(&k->chain[i], k->grid, T->shape, path[i], path[i + 1], T->type, c->howmany, &tc));
    dtrBox_t box[3];
    for (int i = 0; i < 3; i++) dtrPencilBox(k->grid, T->shape, (dtrPencil_t)i, T->type, c->howmany, -1, &box[i]);
    bytes[0] = bytes[1] = largest(box, 3);
  } else {
    /* The halo exchange of one padded array, in place. */
    DTRCHECK(dtrHaloPlanCreate(&k->halo, k->grid, T->shape, c->halo_pencil, T->type, c->howmany, c->halo, c->periodic, &tc));
    dtrBox_t padded;
    DTRCHECK(dtrHaloGetBox(k->halo, &padded));
    bytes[0] = padded.bytes;
  }
  DTRCHECK(dtrAgree(T->comm, k->gpu ? makeStream(T) : dtrSuccess));
  return dtrAgree(T->comm, allocateBuffers(k, bytes[0], bytes[1], T->stream));
}

/* One iteration of the target's work, issued on the tuner's stream (the cpu backend's: done on return). */
static dtrResult_t iterate(const Tuner* T, Candidate* k) {
  if (k->fft) {
    DTRCHECK(dtrFftExecute(k->fft, k->buf[0], k->buf[1], dtrFftForward, T->stream));
    return dtrFftExecute(k->fft, k->buf[1], k->buf[0], dtrFftInverse, T->stream);
  }
  for (int i = 0; i < k->nchain; i++) DTRCHECK(dtrExecute(k->chain[i], k->buf[i % 2], k->buf[(i + 1) % 2], T->stream));
  if (k->halo) return dtrHaloExecute(k->halo, k->buf[0], T->stream);
  return dtrSuccess;
}

/* Collective: one untimed iteration, then `iterations` timed ones; *seconds the median over iterations
 * of the slowest rank's time, the same value on every rank. */
static dtrResult_t measure(const Tuner* T, Candidate* k, double* seconds) {
  const int n = T->cfg->iterations;
  double* t = calloc((size_t)n, sizeof *t);
  double* slowest = calloc((size_t)n, sizeof *slowest);
  dtrResult_t res = dtrAgree(T->comm, t && slowest ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate %d timings", n));
  for (int it = -1; it < n && res == dtrSuccess; it++) {
    const dtrDeadline saved = dtrDeadlineEnter(T->timeout);
    if (k->gpu) CUDACHECKGOTO(cudaStreamSynchronize(T->stream), res, agree);
    DTRCHECKGOTO(dtrBarrier(T->comm, "the other ranks to start an iteration of the tuning"), res, agree);
    const double t0 = MPI_Wtime();
    res = iterate(T, k);
    if (res == dtrSuccess && k->gpu) CUDACHECKGOTO(cudaStreamSynchronize(T->stream), res, agree);
    if (it >= 0) t[it] = MPI_Wtime() - t0;
  agree:
    if (res != dtrTimeout) res = dtrAgree(T->comm, res);
    dtrDeadlineLeave(saved);
  }
  if (res == dtrSuccess) {
    const dtrDeadline saved = dtrDeadlineEnter(T->timeout);
    res = dtrAllreduce(t, slowest, n, MPI_DOUBLE, MPI_MAX, T->comm, "the slowest rank's times");
    dtrDeadlineLeave(saved);
  }
  if (res == dtrSuccess) *seconds = dtrMedian(slowest, n);
  free(t);
  free(slowest);
  return res;
}

/* ---- the tuning ------------------------------------------------------------------------------- */

/* Which failures end the tuning rather than skip a candidate: a rank that cannot be reached, or MPI
 * itself failing, would leave the next candidate's collectives unmatched. */
static int fatal(dtrResult_t res) { return res == dtrTimeout || res == dtrMpiError || res == dtrInternalError; }

static void describe(const Tuner* T, char* buf, size_t len) {
  const dtrAutotuneConfig_t* c = T->cfg;
  if (T->what == dtrAutotuneFft)
    snprintf(buf, len, "the %s FFT of %lld x %lld x %lld %s", c->fft_kind == dtrFftR2C ? "R2C" : "C2C", (long long)T->shape[0],
             (long long)T->shape[1], (long long)T->shape[2], dtrDataTypeName(T->type));
  else if (T->what == dtrAutotuneTransposes)
    snprintf(buf, len, "%s of %lld x %lld x %lld %s (howmany %lld)", targetNames[T->what], (long long)T->shape[0],
             (long long)T->shape[1], (long long)T->shape[2], dtrDataTypeName(T->type), (long long)c->howmany);
  else
    snprintf(buf, len, "%s of %lld x %lld x %lld %s (howmany %lld) in %s-pencils, widths %d %d %d, periodic %d %d %d",
             targetNames[T->what], (long long)T->shape[0], (long long)T->shape[1], (long long)T->shape[2],
             dtrDataTypeName(T->type), (long long)c->howmany, dtrPencilName(c->halo_pencil), c->halo[0], c->halo[1], c->halo[2],
             c->periodic[0], c->periodic[1], c->periodic[2]);
}

static dtrResult_t tune(Tuner* T, int* pr, int* pc, dtrBackend_t* backend) {
  const dtrAutotuneConfig_t* c = T->cfg;
  /* The backends: the one asked for (by the config, else DTR_BACKEND); for auto every GPU backend where
   * every rank has a GPU (each plan refuses where its backend cannot serve), else the cpu backend. */
  dtrBackend_t backends[2];
  int nb = 0;
  const dtrBackend_t asked = c->transpose.backend != dtrBackendAuto ? c->transpose.backend : dtrEnvParamsGet()->backend;
  if (asked != dtrBackendAuto) {
    backends[nb++] = asked;
  } else {
    int gpus = 0;
    const dtrDeadline saved = dtrDeadlineEnter(T->timeout);
    const dtrResult_t res = dtrEveryRankHasGpu(T->comm, &gpus);
    dtrDeadlineLeave(saved);
    DTRCHECK(res);
    if (gpus) backends[nb++] = dtrBackendP2p, backends[nb++] = dtrBackendNccl;
    else backends[nb++] = dtrBackendCpu;
  }
  /* The GPU candidates' stream is made on the device their plans take (config.device, else the current
   * one), once the first of them has been built; a device that cannot be used is their plans' to report. */
  int gpu = 0;
  for (int i = 0; i < nb; i++) gpu |= backends[i] != dtrBackendCpu;
  if (gpu && c->transpose.device >= 0 && cudaSetDevice(c->transpose.device) != cudaSuccess) (void)cudaGetLastError();

  int ncand = 0;
  for (int r = 1; r <= T->nranks; r++) ncand += T->nranks % r == 0;
  ncand *= nb;
  dtrAutotuneTiming_t* all = calloc((size_t)ncand, sizeof *all);
  if (!all) return dtrSetError(dtrOutOfMemory, "cannot allocate the tuner's %d timings", ncand);
  char what[160];
  describe(T, what, sizeof what);
  int best = -1, n = 0;
  dtrResult_t res = dtrSuccess, last = dtrSuccess;
  char lastMessage[512] = "";
  for (int r = 1; r <= T->nranks && !fatal(res); r++) {
    if (T->nranks % r) continue;
    for (int b = 0; b < nb && !fatal(res); b++) {
      dtrAutotuneTiming_t* e = &all[n++];
      *e = (dtrAutotuneTiming_t){r, T->nranks / r, backends[b], dtrSuccess, 0};
      Candidate k;
      memset(&k, 0, sizeof k);
      const dtrDeadline saved = dtrDeadlineEnter(T->timeout);
      const double t0 = MPI_Wtime();
      res = build(T, &k, e->pr, e->pc, e->backend);
      dtrDeadlineLeave(saved);
      const double t1 = MPI_Wtime();
      if (res == dtrSuccess) res = measure(T, &k, &e->seconds);
      const double t2 = MPI_Wtime();
      freeCandidate(&k);
      /* Where a tuning's time goes (plans made, iterations, plans destroyed), this rank's view. */
      INFO("autotune: %d x %d on %s: built in %.1f ms, timed in %.1f ms, freed in %.1f ms", e->pr, e->pc,
           dtrBackendName(e->backend), (t1 - t0) * 1e3, (t2 - t1) * 1e3, (MPI_Wtime() - t2) * 1e3);
      e->result = res;
      if (res != dtrSuccess) {
        e->seconds = 0;
        last = res;
        snprintf(lastMessage, sizeof lastMessage, "%s", dtrGetLastError());
        INFO("autotune: %d x %d on %s skipped: %s: %s", e->pr, e->pc, dtrBackendName(e->backend), dtrGetErrorString(res),
             lastMessage);
        continue;
      }
      /* Strictly faster only: a tie keeps the earlier candidate, on every rank alike. */
      if (best < 0 || e->seconds < all[best].seconds) best = n - 1;
    }
  }
  if (fatal(res)) {
    free(all);
    return res;
  }
  if (T->rank == 0 && dtrLogLevelGet() >= dtrLogInfo) {
    INFO("autotune: %s on %d ranks, %d candidates, %d iterations each:", what, T->nranks, n, c->iterations);
    for (int i = 0; i < n; i++) {
      if (all[i].result == dtrSuccess)
        INFO("autotune:   %4d x %-4d %-5s %12.1f us%s", all[i].pr, all[i].pc, dtrBackendName(all[i].backend),
             all[i].seconds * 1e6, i == best ? "   <- chosen" : "");
      else
        INFO("autotune:   %4d x %-4d %-5s      skipped (%s)", all[i].pr, all[i].pc, dtrBackendName(all[i].backend),
             dtrGetErrorString(all[i].result));
    }
  }
  if (c->timings)
    for (int i = 0; i < n && i < c->capacity; i++) c->timings[i] = all[i];
  if (c->count) *c->count = n;
  if (best < 0) {
    const dtrAutotuneTiming_t* e = &all[n - 1];
    res = dtrSetError(last, "no grid could run %s on %d ranks: every one of the %d candidates failed; the last, %d x %d on %s: %s",
                      what, T->nranks, n, e->pr, e->pc, dtrBackendName(e->backend), lastMessage);
    free(all);
    return res;
  }
  *pr = all[best].pr, *pc = all[best].pc;
  if (backend) *backend = all[best].backend;
  free(all);
  return dtrSuccess;
}

dtrResult_t dtrGridAutotuneF(MPI_Fint comm, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                             const dtrAutotuneConfig_t* config, int* pr, int* pc, dtrBackend_t* backend) {
  return dtrGridAutotune(MPI_Comm_f2c(comm), shape, type, what, config, pr, pc, backend);
}

dtrResult_t dtrGridAutotune(MPI_Comm comm, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                            const dtrAutotuneConfig_t* config, int* pr, int* pc, dtrBackend_t* backend) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return dtrSetError(dtrInvalidArgument, "MPI is not initialized: call MPI_Init before tuning a grid");
  if (comm == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  dtrAutotuneConfig_t cfg;
  dtrAutotuneConfigInit(&cfg);
  if (config) cfg = *config;
  const dtrDeviceGuard guard = dtrDeviceSave();
  Tuner T;
  memset(&T, 0, sizeof T);
  T.shape = shape, T.type = type, T.what = what, T.cfg = &cfg;
  if (MPI_Comm_dup(comm, &T.comm) != MPI_SUCCESS)
    return dtrSetError(dtrMpiError, "MPI_Comm_dup of the tuner's communicator failed");
  MPI_Comm_rank(T.comm, &T.rank);
  MPI_Comm_size(T.comm, &T.nranks);
  /* The timeout first: it decides whether the collectives after it block or are polled. */
  T.timeout = dtrConfigTimeout(&cfg.transpose);
  dtrResult_t res = dtrAgreeTimeout(T.comm, (int64_t)llround(T.timeout * 1000));
  if (res == dtrSuccess) {
    const dtrDeadline saved = dtrDeadlineEnter(T.timeout);
    res = dtrAgree(T.comm, checkArgs(shape, type, what, &cfg, pr, pc));
    if (res == dtrSuccess) res = agreeArgs(T.comm, shape, type, what, &cfg);
    dtrDeadlineLeave(saved);
  }
  if (res == dtrSuccess) res = tune(&T, pr, pc, backend);
  if (T.stream) {
    cudaStreamSynchronize(T.stream);
    cudaStreamDestroy(T.stream);
  }
  MPI_Comm_free(&T.comm);
  return dtrDeviceRestore(guard, res);
}
