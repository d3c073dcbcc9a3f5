/*
 * fft3d: the library's distributed 3-D FFT (dtrFftPlanCreate / dtrFftExecute), driven and checked the
 * way an FFT code uses it, and timed beside its parts.
 *
 *   mpirun -np 2 fft3d --shape 1024 --grid 1x2 --dtype c64          # complex, slabs
 *   mpirun -np 4 fft3d --shape 512 --grid 2x2 --dtype c64 --r2c      # real to complex, pencils
 *
 * Each iteration times, runs alternated: the FFT forward and inverse; the same with one chunk (no
 * overlap of the local passes with the exchanges); the local passes alone (cuFFT or FFTW plans of the
 * same transforms, made here); the exchanges alone (the library's pencil transposes between the same
 * pencils). The overlap works where the FFT's time approaches max(passes, exchanges) rather than their sum.
 *
 * Checks: the round trip (forward, inverse, 1/N) against the input, relative L2 error within 1e-5 (c64)
 * or 1e-12 (c128); and, where the whole array fits one GPU (or on the host), the forward result against
 * a single-process 3-D FFT of the same data (cuFFT, or FFTW), within the same bounds. Times are medians
 * of the slowest rank; GFLOP/s = 5 N log2 N / t (2.5 N log2 N for real input). --json FILE writes the
 * results as one JSON object (docs/performance.md's FFT table is generated from those).
 *
 * --howmany N: also the plan of N fields (dtrFftConfig_t.howmany, one exchange for all), timed in the same
 * loop against N executes of the single-field plan on N arrays of their own, and checked: its round trip,
 * and each field's forward against the single-field plan's of the same field; both plans' chunks and
 * workspaces are printed beside (the rule may cut the fields' bytes otherwise, and their plan holds copies).
 *
 * --grid auto: the grid (and, with --backend auto, the backend) is chosen by dtrGridAutotune on the FFT
 * first; --all-grids then times the FFT on every candidate grid (and backend) with the same loop, so that
 * the tuner's choice can be held against the best of them (docs/fft.md, "Choosing the grid"). Both go
 * into the JSON.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <disttranspose.h>
#include <mpi.h>

#include "common/example_support.h"
#include "common/timing.h"
#include "local_fft.h"

#define MAX_ITERS 1000
#define MAX_STEPS 3
#define MAX_FIELDS 64

typedef struct {
  long long shape[3];
  int pr, pc;
  int dbl;              /* double precision */
  int real;             /* --r2c */
  int gpu;              /* a GPU backend and cuFFT; else the CPU backend and FFTW */
  dtrBackend_t backend; /* of the exchanges: auto (p2p on one host, else NCCL), nccl, p2p or cpu */
  int chunks;           /* 0: the library's rule */
  int iters, warmup, reference;
  const char* json;
  int autogrid;         /* --grid auto: dtrGridAutotune on the FFT */
  int allGrids;         /* --all-grids: the FFT timed on every grid (and tuned backend) too */
  int howmany;          /* --howmany: fields of the batched plan (1: none) */
} Options;

#define MAX_CANDIDATES 64

/* What --grid auto measured, and what --all-grids timed with the FFT's own loop. */
typedef struct {
  int pr, pc;
  dtrBackend_t backend;
  dtrResult_t result;
  double seconds;            /* the tuner's: forward + inverse, median of the slowest rank */
  double forward, inverse;   /* --all-grids: medians of the slowest rank; -1 where it could not run */
  int chunks;
} Candidate;

static struct {
  int tuned, iterations, count;
  int pr, pc;
  dtrBackend_t backend;
  double wall;               /* seconds the whole dtrGridAutotune call took, on the slowest rank */
  Candidate c[MAX_CANDIDATES];
  int timed;                 /* --all-grids ran */
} tuning;

static int rank, nranks;

static void usage(void) {
  if (rank) return;
  printf("Usage: mpirun -np N fft3d [--shape NXxNYxNZ | N] [--grid PRxPC | auto] [--all-grids] [--dtype c64|c128] [--r2c]\n"
         "                     [--backend auto|nccl|p2p|cpu] [--chunks N] [--iters N] [--warmup N] [--reference 0|1]\n"
         "                     [--howmany N] [--json FILE]\n"
         "The library's 3-D FFT on slabs (1xP) or pencils, forward and inverse, checked and timed beside its parts.\n"
         "--r2c: real input (fp32 for --dtype c64, fp64 for c128). --chunks: 0 (default) the library's rule.\n"
         "--grid auto: the grid (and with --backend auto the backend) the FFT ran fastest on, measured by\n"
         "dtrGridAutotune. --all-grids: also time the FFT on every grid (each backend the tuner tried).\n"
         "--howmany N: also time the plan of N fields against N executes of the single-field plan.\n");
}

static int parseDims(const char* s, int n, long long* out) {
  int k = 0;
  const char* p = s;
  while (*p && k < n) {
    char* end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 1) return -1;
    out[k++] = v;
    p = end;
    if (*p == 'x' || *p == 'X') p++;
    else if (*p) return -1;
  }
  if (*p) return -1;
  if (k == 1 && n == 3) out[1] = out[2] = out[0], k = 3;
  return k == n ? 0 : -1;
}

static int parse(int argc, char** argv, Options* o) {
  const int all = exEveryRank(exGpuCount() > 0);
  *o = (Options){{64, 64, 64}, 0, 0, 0, 0, all, all ? dtrBackendAuto : dtrBackendCpu, 0, 10, 3, 1, NULL, 0, 0, 1};
  for (int i = 1; i < argc; i++) {
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    long long g[2];
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    if (!strcmp(argv[i], "--r2c")) {
      o->real = 1;
      continue;
    }
    if (!strcmp(argv[i], "--all-grids")) {
      o->allGrids = 1;
      continue;
    }
    if (!v) goto bad;
    if (!strcmp(argv[i], "--shape")) {
      if (parseDims(v, 3, o->shape)) goto bad;
    } else if (!strcmp(argv[i], "--grid")) {
      o->autogrid = !strcmp(v, "auto");
      if (o->autogrid) o->pr = o->pc = 0;
      else if (parseDims(v, 2, g) || g[0] > 65536 || g[1] > 65536) goto bad;
      else o->pr = (int)g[0], o->pc = (int)g[1];
    } else if (!strcmp(argv[i], "--dtype")) {
      if (strcmp(v, "c64") && strcmp(v, "c128")) goto bad;
      o->dbl = !strcmp(v, "c128");
    } else if (!strcmp(argv[i], "--backend")) {
      if (!strcmp(v, "auto")) o->backend = dtrBackendAuto;
      else if (!strcmp(v, "nccl")) o->backend = dtrBackendNccl;
      else if (!strcmp(v, "p2p")) o->backend = dtrBackendP2p;
      else if (!strcmp(v, "cpu")) o->backend = dtrBackendCpu;
      else goto bad;
      o->gpu = o->backend != dtrBackendCpu;
    } else if (!strcmp(argv[i], "--json")) {
      o->json = v;
    } else if (!strcmp(argv[i], "--iters") || !strcmp(argv[i], "--warmup") || !strcmp(argv[i], "--reference") ||
               !strcmp(argv[i], "--chunks") || !strcmp(argv[i], "--howmany")) {
      char* end;
      long n = strtol(v, &end, 10);
      if (*end || n < 0 || n > MAX_ITERS || (!strcmp(argv[i], "--iters") && n < 1) ||
          (!strcmp(argv[i], "--chunks") && n > DTR_FFT_MAX_CHUNKS) ||
          (!strcmp(argv[i], "--howmany") && (n < 1 || n > MAX_FIELDS)))
        goto bad;
      if (!strcmp(argv[i], "--iters")) o->iters = (int)n;
      else if (!strcmp(argv[i], "--howmany")) o->howmany = (int)n;
      else if (!strcmp(argv[i], "--warmup")) o->warmup = (int)n;
      else if (!strcmp(argv[i], "--chunks")) o->chunks = (int)n;
      else o->reference = n != 0;
    } else {
      goto bad;
    }
    i++;
    continue;
  bad:
    if (rank == 0) fprintf(stderr, "fft3d: bad option '%s%s%s' (see --help)\n", argv[i], v ? " " : "", v ? v : "");
    return -1;
  }
  return 0;
}

/* The input: a hash of the global index, in [-1, 1) for the real and imaginary parts; field k of the
 * batched plan's at index + k 2^40 (field 0 the single-field plan's). */
static double inputValue(uint64_t index, int part) {
  uint64_t x = index * 2 + (uint64_t)part + 0x9e3779b97f4a7c15ull;
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 27, x *= 0x94d049bb133111ebull, x ^= x >> 31;
  return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Element u (memory order) of a box: its coordinates c, returned as the index x + n0 (y + ny z). */
static uint64_t boxIndex(const dtrBox_t* b, long long n0, long long ny, size_t u) {
  long long c[3];
  for (int d = 0; d < 3; d++) {
    const int axis = b->order[d];
    c[axis] = b->start[axis] + (long long)(u % (size_t)b->size[axis]);
    u /= (size_t)b->size[axis];
  }
  return (uint64_t)(c[0] + n0 * (c[1] + ny * c[2]));
}

static size_t boxCount(const dtrBox_t* b) { return (size_t)(b->size[0] * b->size[1] * b->size[2]); }

static double get(const void* h, int dbl, size_t i) { return dbl ? ((const double*)h)[i] : ((const float*)h)[i]; }
static void set(void* h, int dbl, size_t i, double v) {
  if (dbl) ((double*)h)[i] = v;
  else ((float*)h)[i] = (float)v;
}

static void* allocate(const Options* o, size_t bytes) {
  void* p = NULL;
  if (!bytes) bytes = 16;
  if (o->gpu) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
  return malloc(bytes);
}
static void release(const Options* o, void* p) {
  if (o->gpu) cudaFree(p);
  else free(p);
}
static void copyTo(const Options* o, void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind) {
  if (o->gpu) cudaMemcpy(dst, src, bytes, kind);
  else memcpy(dst, src, bytes);
}

/* The relative L2 error over all ranks from this rank's sums of squared differences and of references. */
static double relError(double diff2, double ref2) {
  double in[2] = {diff2, ref2}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out[1] > 0 ? sqrt(out[0] / out[1]) : sqrt(out[0]);
}

/* A part timed apart from the FFT: a local pass or an exchange, forward and inverse. */
typedef struct {
  char name[32];
  LocalFft* pass;
  dtrPlan_t forward, inverse; /* the exchange, from buffer a to b and back */
  void *a, *b;
} Step;

typedef struct {
  Options o;
  dtrGrid_t grid;
  dtrFftPlan_t fft, oneChunk; /* oneChunk: NULL where the FFT has one chunk already */
  dtrBox_t input, output, pencil[3]; /* the sides, and the complex pencils along the path */
  int npencils;
  void *in, *out, *back;             /* the FFT's buffers */
  void *partIn, *buf[3];             /* the parts': the input side (the first pass's real side for R2C), a pencil each */
  cudaStream_t stream;
  cudaEvent_t ev[2];
  Step passes[MAX_STEPS], exchanges[MAX_STEPS];
  int npasses, nexchanges;
  int chunks;
  char backend[16];
  dtrFftPlan_t batched;              /* --howmany: the plan of howmany fields, and its buffers */
  dtrBox_t batchedInput, batchedOutput;
  /* Its chunks and both plans' workspaces: the rule may cut the fields' bytes into other chunks, and
   * the plan of fields may hold copies of them; both weigh on the comparison. */
  int batchedChunks;
  size_t batchedWorkspace, singleWorkspace;
  void *bIn, *bOut, *bBack;
  void *fieldIn[MAX_FIELDS], *fieldOut[MAX_FIELDS]; /* the single-field plan's arrays, a field each ([0]: in, out) */
} Fft;

static int setup(Fft* f, char* err, size_t errlen) {
  Options* o = &f->o;
  const dtrDataType_t type = o->real ? (o->dbl ? dtrFloat64 : dtrFloat32) : (o->dbl ? dtrComplex128 : dtrComplex64);
  const dtrDataType_t ctype = o->dbl ? dtrComplex128 : dtrComplex64;
  const int64_t shape[3] = {o->shape[0], o->shape[1], o->shape[2]};
  const int64_t cshape[3] = {o->real ? o->shape[0] / 2 + 1 : o->shape[0], o->shape[1], o->shape[2]};
  if (dtrGridCreate(&f->grid, MPI_COMM_WORLD, o->pr, o->pc) != dtrSuccess) {
    snprintf(err, errlen, "grid: %s", dtrGetLastError());
    return -1;
  }
  dtrGridGetDims(f->grid, &o->pr, &o->pc, NULL, NULL);
  if (o->gpu) cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking);
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  cfg.transpose.backend = o->gpu ? o->backend : dtrBackendCpu;
  cfg.chunks = o->chunks;
  if (dtrFftPlanCreate(&f->fft, f->grid, shape, o->real ? dtrFftR2C : dtrFftC2C, type, &cfg) != dtrSuccess) {
    snprintf(err, errlen, "FFT plan: %s", dtrGetLastError());
    return -1;
  }
  dtrBackend_t b = dtrBackendAuto;
  dtrFftGetChunks(f->fft, &f->chunks);
  dtrFftGetBackend(f->fft, &b);
  snprintf(f->backend, sizeof f->backend, "%s", dtrBackendName(b));
  cfg.chunks = 1;
  if (f->chunks > 1 && dtrFftPlanCreate(&f->oneChunk, f->grid, shape, o->real ? dtrFftR2C : dtrFftC2C, type, &cfg) != dtrSuccess) {
    snprintf(err, errlen, "FFT plan of one chunk: %s", dtrGetLastError());
    return -1;
  }
  dtrFftGetBox(f->fft, dtrFftInputSide, &f->input);
  dtrFftGetBox(f->fft, dtrFftOutputSide, &f->output);
  if (!(f->in = allocate(o, f->input.bytes)) || !(f->out = allocate(o, f->output.bytes)) || !(f->back = allocate(o, f->input.bytes)) ||
      !(f->partIn = allocate(o, f->input.bytes))) {
    snprintf(err, errlen, "cannot allocate the FFT's buffers");
    return -1;
  }
  if (o->howmany > 1) {
    cfg.chunks = o->chunks;
    cfg.howmany = o->howmany;
    if (dtrFftPlanCreate(&f->batched, f->grid, shape, o->real ? dtrFftR2C : dtrFftC2C, type, &cfg) != dtrSuccess) {
      snprintf(err, errlen, "FFT plan of %d fields: %s", o->howmany, dtrGetLastError());
      return -1;
    }
    dtrFftGetBox(f->batched, dtrFftInputSide, &f->batchedInput);
    dtrFftGetBox(f->batched, dtrFftOutputSide, &f->batchedOutput);
    dtrFftGetChunks(f->batched, &f->batchedChunks);
    dtrFftGetWorkspaceSize(f->batched, &f->batchedWorkspace);
    dtrFftGetWorkspaceSize(f->fft, &f->singleWorkspace);
    f->fieldIn[0] = f->in, f->fieldOut[0] = f->out;
    int ok = (f->bIn = allocate(o, f->batchedInput.bytes)) && (f->bOut = allocate(o, f->batchedOutput.bytes)) &&
             (f->bBack = allocate(o, f->batchedInput.bytes));
    for (int k = 1; k < o->howmany && ok; k++)
      ok = (f->fieldIn[k] = allocate(o, f->input.bytes)) && (f->fieldOut[k] = allocate(o, f->output.bytes));
    if (!ok) {
      snprintf(err, errlen, "cannot allocate the buffers of %d fields", o->howmany);
      return -1;
    }
  }

  /* The parts: the same pencils, transposes and transforms as the FFT runs, timed one by one. */
  const int slabs = o->pr == 1;
  f->npencils = slabs ? 2 : 3;
  const dtrPencil_t path[3] = {dtrPencilX, slabs ? dtrPencilZ : dtrPencilY, dtrPencilZ};
  for (int i = 0; i < f->npencils; i++) {
    dtrPencilBox(f->grid, cshape, path[i], ctype, 1, -1, &f->pencil[i]);
    if (!(f->buf[i] = allocate(o, f->pencil[i].bytes))) {
      snprintf(err, errlen, "cannot allocate the %s-pencil", dtrPencilName(path[i]));
      return -1;
    }
  }
  dtrConfig_t xc;
  dtrConfigInit(&xc);
  xc.backend = cfg.transpose.backend;
  xc.workspace = dtrWorkspaceGrid;
  for (int i = 0; i + 1 < f->npencils; i++) {
    Step* s = &f->exchanges[f->nexchanges++];
    if (dtrPlanCreatePencil(&s->forward, f->grid, cshape, path[i], path[i + 1], ctype, 1, &xc) != dtrSuccess ||
        dtrPlanCreatePencil(&s->inverse, f->grid, cshape, path[i + 1], path[i], ctype, 1, &xc) != dtrSuccess) {
      snprintf(err, errlen, "pencil plan: %s", dtrGetLastError());
      return -1;
    }
    dtrPlanGetBackend(s->forward, &b);
    snprintf(s->name, sizeof s->name, "%s->%s %s", dtrPencilName(path[i]), dtrPencilName(path[i + 1]), dtrBackendName(b));
    s->a = f->buf[i], s->b = f->buf[i + 1];
  }
  static const char* const axis[3] = {"fft x", "fft y", "fft z"};
  for (int i = 0; i < f->npencils; i++) {
    const int p = path[i];
    const dtrBox_t* bx = &f->pencil[i];
    int n[2] = {(int)o->shape[p], 0}, dims = 1;
    long long batch = bx->size[p] ? (long long)(boxCount(bx) / (size_t)bx->size[p]) : 0;
    if (slabs && p == dtrPencilX) n[0] = (int)o->shape[1], n[1] = (int)o->shape[0], batch = bx->size[2], dims = 2;
    /* The first pass reads an input of its own (real for R2C, whose inverse writes it) into the X-pencil;
     * the others run in place. */
    const int first = i == 0;
    Step* s = &f->passes[f->npasses++];
    snprintf(s->name, sizeof s->name, "%s", slabs && first ? "fft yx" : axis[p]);
    if (!(s->pass = localFftCreate(o->gpu, o->dbl, first && o->real, dims, n, boxCount(bx) ? batch : 0,
                                   first ? f->partIn : f->buf[i], f->buf[i], f->stream, err, errlen)))
      return -1;
  }
  cudaEventCreate(&f->ev[0]);
  cudaEventCreate(&f->ev[1]);
  return 0;
}

static void teardown(Fft* f) {
  for (int i = 0; i < f->npasses; i++) localFftDestroy(f->passes[i].pass);
  for (int i = 0; i < f->nexchanges; i++) {
    if (f->exchanges[i].forward) dtrPlanDestroy(f->exchanges[i].forward);
    if (f->exchanges[i].inverse) dtrPlanDestroy(f->exchanges[i].inverse);
  }
  if (f->fft) dtrFftPlanDestroy(f->fft);
  if (f->oneChunk) dtrFftPlanDestroy(f->oneChunk);
  if (f->batched) dtrFftPlanDestroy(f->batched);
  void* const batchedBuffers[3] = {f->bIn, f->bOut, f->bBack};
  for (int i = 0; i < 3; i++)
    if (batchedBuffers[i]) release(&f->o, batchedBuffers[i]);
  for (int k = 1; k < MAX_FIELDS; k++) {
    if (f->fieldIn[k]) release(&f->o, f->fieldIn[k]);
    if (f->fieldOut[k]) release(&f->o, f->fieldOut[k]);
  }
  for (int i = 0; i < 3; i++)
    if (f->buf[i]) release(&f->o, f->buf[i]);
  if (f->in) release(&f->o, f->in);
  if (f->out) release(&f->o, f->out);
  if (f->back) release(&f->o, f->back);
  if (f->partIn) release(&f->o, f->partIn);
  if (f->o.gpu) {
    cudaEventDestroy(f->ev[0]);
    cudaEventDestroy(f->ev[1]);
    if (f->stream) cudaStreamDestroy(f->stream);
  }
  if (f->grid) dtrGridDestroy(f->grid);
}

/* What one timed run does: the FFT (or its one-chunk twin) one way, or a part; with --howmany, the plan
 * of howmany fields, and howmany executes of the single-field plan. */
typedef enum { runFft, runOneChunk, runPasses, runExchanges, runBatched, runSingles, nRuns } RunKind;
static const char* const runNames[nRuns] = {"FFT", "FFT, 1 chunk", "local passes alone", "exchanges alone", "FFT of fields",
                                            "single-field FFTs"};

/* Whether this run has a run of `kind`. */
static int hasRun(const Fft* f, RunKind kind) {
  if (kind == runOneChunk) return f->oneChunk != NULL;
  return kind < runBatched || f->batched != NULL;
}

/* Step i of a part (forward order), in direction `sign`; 0 on success. */
static int runStep(Fft* f, RunKind kind, int i, int sign) {
  if (kind == runPasses) return localFftExecute(f->passes[i].pass, sign);
  const Step* s = &f->exchanges[i];
  return sign < 0 ? dtrExecute(s->forward, s->a, s->b, f->stream) != dtrSuccess
                  : dtrExecute(s->inverse, s->b, s->a, f->stream) != dtrSuccess;
}

/* One run, timed by events on GPUs and the host clock on the CPU backend; the time, or -1 on failure. */
static double timed(Fft* f, RunKind kind, int sign, double* steps) {
  const int gpu = f->o.gpu;
  if (gpu) cudaStreamSynchronize(f->stream);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (gpu) cudaEventRecord(f->ev[0], f->stream);
  int bad = 0;
  if (kind == runFft || kind == runOneChunk) {
    dtrFftPlan_t p = kind == runFft ? f->fft : f->oneChunk;
    bad = sign < 0 ? dtrFftExecute(p, f->in, f->out, dtrFftForward, f->stream) != dtrSuccess
                   : dtrFftExecute(p, f->out, f->back, dtrFftInverse, f->stream) != dtrSuccess;
  } else if (kind == runBatched) {
    bad = sign < 0 ? dtrFftExecute(f->batched, f->bIn, f->bOut, dtrFftForward, f->stream) != dtrSuccess
                   : dtrFftExecute(f->batched, f->bOut, f->bBack, dtrFftInverse, f->stream) != dtrSuccess;
  } else if (kind == runSingles) {
    /* The inverses into the FFT's own `back`, field 0's last: it holds the round trip checked below. */
    for (int j = 0, H = f->o.howmany; j < H && !bad; j++)
      bad = sign < 0 ? dtrFftExecute(f->fft, f->fieldIn[j], f->fieldOut[j], dtrFftForward, f->stream) != dtrSuccess
                     : dtrFftExecute(f->fft, f->fieldOut[H - 1 - j], f->back, dtrFftInverse, f->stream) != dtrSuccess;
  } else {
    const int n = kind == runPasses ? f->npasses : f->nexchanges;
    for (int j = 0; j < n && !bad; j++) {
      const int i = sign < 0 ? j : n - 1 - j;
      double s0 = MPI_Wtime();
      bad = runStep(f, kind, i, sign);
      /* Steps apart on the host clock only where nothing is asynchronous (the CPU backend). */
      if (!gpu) steps[i] = MPI_Wtime() - s0;
    }
  }
  if (gpu) {
    cudaEventRecord(f->ev[1], f->stream);
    if (cudaEventSynchronize(f->ev[1]) != cudaSuccess) bad = 1;
    float ms = 0;
    cudaEventElapsedTime(&ms, f->ev[0], f->ev[1]);
    return bad ? -1 : ms * 1e-3;
  }
  return bad ? -1 : MPI_Wtime() - t0;
}

/* On GPUs the parts' steps are timed one by one in runs of their own after the main loop. */
static double timeStep(Fft* f, RunKind kind, int i, int sign, int iters) {
  double* t = calloc((size_t)iters, sizeof *t);
  for (int it = -1; it < iters; it++) {
    if (f->o.gpu) cudaStreamSynchronize(f->stream);
    MPI_Barrier(MPI_COMM_WORLD);
    double dt = 0;
    if (f->o.gpu) {
      cudaEventRecord(f->ev[0], f->stream);
      runStep(f, kind, i, sign);
      cudaEventRecord(f->ev[1], f->stream);
      cudaEventSynchronize(f->ev[1]);
      float ms = 0;
      cudaEventElapsedTime(&ms, f->ev[0], f->ev[1]);
      dt = ms * 1e-3;
    }
    if (it >= 0) t[it] = dt;
  }
  const double m = exSlowestMedian(t, iters);
  free(t);
  return m;
}

static int writeJson(const Fft* f, double med[nRuns][2], double stepMed[2][MAX_STEPS][2], double flops, double roundTrip,
                     double tol, double refError, int compared, int status, double batchedTrip, double batchedFields);

/* --grid auto: the tuner on the FFT this run makes; the grid (and, for --backend auto, the backend) it
 * chose go into the options. Collective; 0 on success. */
static int autotune(Options* o) {
  dtrAutotuneConfig_t cfg;
  dtrAutotuneConfigInit(&cfg);
  cfg.transpose.backend = o->gpu ? o->backend : dtrBackendCpu;
  cfg.fft_kind = o->real ? dtrFftR2C : dtrFftC2C;
  cfg.timings = (dtrAutotuneTiming_t[MAX_CANDIDATES]){{0}};
  cfg.capacity = MAX_CANDIDATES;
  cfg.count = &tuning.count;
  const dtrDataType_t type = o->real ? (o->dbl ? dtrFloat64 : dtrFloat32) : (o->dbl ? dtrComplex128 : dtrComplex64);
  const int64_t shape[3] = {o->shape[0], o->shape[1], o->shape[2]};
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  const dtrResult_t res = dtrGridAutotune(MPI_COMM_WORLD, shape, type, dtrAutotuneFft, &cfg, &tuning.pr, &tuning.pc, &tuning.backend);
  double wall = MPI_Wtime() - t0;
  MPI_Allreduce(&wall, &tuning.wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (res != dtrSuccess) {
    if (rank == 0) fprintf(stderr, "fft3d: --grid auto: %s: %s\n", dtrGetErrorString(res), dtrGetLastError());
    return -1;
  }
  tuning.tuned = 1;
  tuning.iterations = cfg.iterations;
  if (tuning.count > MAX_CANDIDATES) tuning.count = MAX_CANDIDATES;
  for (int i = 0; i < tuning.count; i++) {
    const dtrAutotuneTiming_t* t = &cfg.timings[i];
    tuning.c[i] = (Candidate){t->pr, t->pc, t->backend, t->result, t->seconds, -1, -1, 0};
  }
  o->pr = tuning.pr, o->pc = tuning.pc;
  if (o->gpu && o->backend == dtrBackendAuto) o->backend = tuning.backend;
  return 0;
}

/* --all-grids: the FFT alone on each candidate (the tuner's, else every grid on the asked backend), with
 * the timing loop of the main run: warm-ups, then forward and inverse alternated, medians of the slowest
 * rank. A candidate that cannot be set up is marked and skipped on every rank. */
static void timeEveryGrid(const Options* asked) {
  if (!tuning.tuned) {
    tuning.count = 0;
    for (int r = 1; r <= nranks && tuning.count < MAX_CANDIDATES; r++)
      if (nranks % r == 0)
        tuning.c[tuning.count++] = (Candidate){r, nranks / r, asked->gpu ? asked->backend : dtrBackendCpu, dtrSuccess, 0, -1, -1, 0};
  }
  tuning.timed = 1;
  for (int i = 0; i < tuning.count; i++) {
    Candidate* c = &tuning.c[i];
    Fft g;
    memset(&g, 0, sizeof g);
    g.o = *asked;
    g.o.pr = c->pr, g.o.pc = c->pc, g.o.backend = c->backend, g.o.gpu = c->backend != dtrBackendCpu;
    char err[512] = "";
    int bad = setup(&g, err, sizeof err) != 0, anyBad = 0;
    MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!anyBad) {
      /* Zeros in: the same work whatever the values, and no subnormals on the host. */
      if (g.o.gpu) {
        cudaMemsetAsync(g.in, 0, g.input.bytes ? g.input.bytes : 16, g.stream);
        cudaStreamSynchronize(g.stream);
      } else {
        memset(g.in, 0, g.input.bytes ? g.input.bytes : 16);
      }
      double* t[2] = {calloc((size_t)asked->iters, sizeof(double)), calloc((size_t)asked->iters, sizeof(double))};
      int failed = 0;
      for (int it = -asked->warmup; it < asked->iters && !failed; it++)
        for (int s = 0; s < 2 && !failed; s++) {
          const double dt = timed(&g, runFft, s ? +1 : -1, NULL);
          failed |= dt < 0;
          if (it >= 0) t[s][it] = dt;
        }
      MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (!failed) {
        c->forward = exSlowestMedian(t[0], asked->iters);
        c->inverse = exSlowestMedian(t[1], asked->iters);
        c->chunks = g.chunks;
      }
      free(t[0]);
      free(t[1]);
    } else if (rank == 0) {
      fprintf(stderr, "fft3d: --all-grids: %d x %d on %s skipped: %s\n", c->pr, c->pc, dtrBackendName(c->backend),
              bad ? err : dtrGetLastError());
    }
    teardown(&g);
  }
}

/* The candidate the tuner chose, and the fastest of --all-grids (forward + inverse); -1 where none. */
static void bestOfGrids(int* chosen, int* best) {
  *chosen = *best = -1;
  for (int i = 0; i < tuning.count; i++) {
    const Candidate* c = &tuning.c[i];
    if (tuning.tuned && c->pr == tuning.pr && c->backend == tuning.backend) *chosen = i;
    if (c->forward >= 0 && (*best < 0 || c->forward + c->inverse < tuning.c[*best].forward + tuning.c[*best].inverse)) *best = i;
  }
}

static void printTuning(void) {
  if (rank || (!tuning.tuned && !tuning.timed)) return;
  int chosen, best;
  bestOfGrids(&chosen, &best);
  if (tuning.tuned)
    printf("# --grid auto: %d x %d on %s, chosen in %.3f s (FFT forward + inverse, median of %d iterations)\n", tuning.pr,
           tuning.pc, dtrBackendName(tuning.backend), tuning.wall, tuning.iterations);
  printf("# %-9s %-7s %14s %14s %14s\n", "grid", "backend", "tuner(us)", "forward(us)", "inverse(us)");
  for (int i = 0; i < tuning.count; i++) {
    const Candidate* c = &tuning.c[i];
    char grid[32], tuner[32] = "-", fwd[32] = "-", inv[32] = "-";
    snprintf(grid, sizeof grid, "%dx%d", c->pr, c->pc);
    if (tuning.tuned && c->result == dtrSuccess) snprintf(tuner, sizeof tuner, "%.1f", c->seconds * 1e6);
    else if (tuning.tuned) snprintf(tuner, sizeof tuner, "skipped");
    if (c->forward >= 0) snprintf(fwd, sizeof fwd, "%.1f", c->forward * 1e6), snprintf(inv, sizeof inv, "%.1f", c->inverse * 1e6);
    printf("  %-9s %-7s %14s %14s %14s%s%s\n", grid, dtrBackendName(c->backend), tuner, fwd, inv, i == chosen ? "  chosen" : "",
           i == best && tuning.timed ? "  best" : "");
  }
  if (tuning.tuned && tuning.timed && chosen >= 0 && best >= 0 && tuning.c[chosen].forward >= 0) {
    const Candidate *c = &tuning.c[chosen], *b = &tuning.c[best];
    printf("# the tuner's grid against the best grid: %.3f (forward + inverse), %.3f (forward)\n",
           (c->forward + c->inverse) / (b->forward + b->inverse), c->forward / b->forward);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  Fft f;
  memset(&f, 0, sizeof f);
  const int pr = parse(argc, argv, &f.o);
  if (pr) {
    if (pr > 0) usage();
    MPI_Finalize();
    return pr > 0 ? 0 : 2;
  }
  Options* o = &f.o;
  if (!o->gpu && !localFftHaveHost()) {
    if (rank == 0) fprintf(stderr, "fft3d: no GPUs and no FFTW in this build: nothing to time the local passes with\n");
    MPI_Finalize();
    return 2;
  }
  /* A rank without a usable GPU is left to the plans, which refuse it with the library's message. */
  if (o->gpu) (void)exUseNodeLocalGpu(exGpuCount(), NULL);
  if (o->autogrid && autotune(o)) {
    MPI_Finalize();
    return 1;
  }
  if (o->allGrids) timeEveryGrid(o);
  char err[512] = "";
  int bad = setup(&f, err, sizeof err) != 0, anyBad = 0;
  MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (anyBad) {
    if (bad) fprintf(stderr, "fft3d: rank %d: %s\n", rank, err);
    MPI_Finalize();
    return 1;
  }
  const int dbl = o->dbl, parts = o->real ? 1 : 2;
  const double N = (double)o->shape[0] * (double)o->shape[1] * (double)o->shape[2];
  const double tol = dbl ? 1e-12 : 1e-5;

  /* The input, made on the host from the formula. */
  const size_t inputCount = boxCount(&f.input) * (size_t)parts;
  void* h = malloc(f.input.bytes + 16);
  for (size_t u = 0; u < boxCount(&f.input); u++)
    for (int part = 0; part < parts; part++)
      set(h, dbl, u * (size_t)parts + (size_t)part, inputValue(boxIndex(&f.input, o->shape[0], o->shape[1], u), part));
  copyTo(o, f.in, h, f.input.bytes, cudaMemcpyHostToDevice);
  copyTo(o, f.partIn, h, f.input.bytes, cudaMemcpyHostToDevice);
  /* --howmany: field k's input in an array of its own, and at each point of the batched plan's input. */
  const int H = o->howmany;
  void* hb = f.batched ? malloc(f.batchedInput.bytes + 16) : NULL;
  if (f.batched) {
    void* hk = malloc(f.input.bytes + 16);
    for (int k = 0; k < H; k++) {
      for (size_t u = 0; u < boxCount(&f.input); u++)
        for (int part = 0; part < parts; part++) {
          const double v = inputValue(boxIndex(&f.input, o->shape[0], o->shape[1], u) + ((uint64_t)k << 40), part);
          set(hk, dbl, u * (size_t)parts + (size_t)part, v);
          set(hb, dbl, (u * (size_t)H + (size_t)k) * (size_t)parts + (size_t)part, v);
        }
      if (k) copyTo(o, f.fieldIn[k], hk, f.input.bytes, cudaMemcpyHostToDevice);
    }
    copyTo(o, f.bIn, hb, f.batchedInput.bytes, cudaMemcpyHostToDevice);
    free(hk);
  }

  /* Timed, runs alternated: FFT, one chunk, passes, exchanges; forward then inverse each. */
  const int iters = o->iters;
  double* t[nRuns][2];
  for (int k = 0; k < nRuns; k++)
    for (int s = 0; s < 2; s++) t[k][s] = calloc((size_t)iters, sizeof(double));
  double stepT[2][MAX_STEPS][2] = {{{0}}}; /* [passes/exchanges][step][direction]: sums on the CPU backend */
  int failed = 0;
  for (int it = -o->warmup; it < iters && !failed; it++)
    for (int k = 0; k < nRuns && !failed; k++) {
      if (!hasRun(&f, (RunKind)k)) continue;
      for (int s = 0; s < 2 && !failed; s++) {
        double steps[MAX_STEPS] = {0};
        const double dt = timed(&f, (RunKind)k, s ? +1 : -1, steps);
        failed |= dt < 0;
        if (it < 0) continue;
        t[k][s][it] = dt;
        if (k == runPasses || k == runExchanges)
          for (int i = 0; i < MAX_STEPS; i++) stepT[k - runPasses][i][s] += steps[i] / iters;
      }
    }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) {
    if (rank == 0) fprintf(stderr, "fft3d: a run failed: %s\n", dtrGetLastError());
    MPI_Finalize();
    return 1;
  }
  double med[nRuns][2];
  for (int k = 0; k < nRuns; k++)
    for (int s = 0; s < 2; s++) med[k][s] = k == runOneChunk && !f.oneChunk ? med[runFft][s] : hasRun(&f, (RunKind)k) ? exSlowestMedian(t[k][s], iters) : 0;
  double stepMed[2][MAX_STEPS][2];
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < (w ? f.nexchanges : f.npasses); i++)
      for (int s = 0; s < 2; s++)
        stepMed[w][i][s] = o->gpu ? timeStep(&f, runPasses + w, i, s ? +1 : -1, iters) : stepT[w][i][s];

  /* Round trip: the FFT's last inverse, scaled by 1/N, against the input (the FFT left its input as it was). */
  void* got = malloc(f.input.bytes + 16);
  copyTo(o, got, f.back, f.input.bytes, cudaMemcpyDeviceToHost);
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < inputCount; i++) {
    const double want = get(h, dbl, i), v = get(got, dbl, i) / N;
    d2 += (v - want) * (v - want);
    r2 += want * want;
  }
  copyTo(o, got, f.in, f.input.bytes, cudaMemcpyDeviceToHost);
  int untouched = memcmp(got, h, f.input.bytes) == 0, allUntouched = 0;
  MPI_Allreduce(&untouched, &allUntouched, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  free(got);
  const double roundTrip = relError(d2, r2);

  /* --howmany: the batched plan's last round trip (1/N) against its input, and each field of its last
   * forward against the single-field plan's last forward of that field. */
  double batchedTrip = -1, batchedFields = -1;
  if (f.batched) {
    void* gb = malloc(f.batchedInput.bytes + 16);
    copyTo(o, gb, f.bBack, f.batchedInput.bytes, cudaMemcpyDeviceToHost);
    d2 = r2 = 0;
    for (size_t i = 0; i < inputCount * (size_t)H; i++) {
      const double want = get(hb, dbl, i), v = get(gb, dbl, i) / N;
      d2 += (v - want) * (v - want);
      r2 += want * want;
    }
    batchedTrip = relError(d2, r2);
    free(gb);
    void* ob = malloc(f.batchedOutput.bytes + 16);
    void* os = malloc(f.output.bytes + 16);
    copyTo(o, ob, f.bOut, f.batchedOutput.bytes, cudaMemcpyDeviceToHost);
    d2 = r2 = 0;
    for (int k = 0; k < H; k++) {
      copyTo(o, os, f.fieldOut[k], f.output.bytes, cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < 2 * boxCount(&f.output); i++) {
        const double want = get(os, dbl, i), v = get(ob, dbl, (i / 2 * (size_t)H + (size_t)k) * 2 + i % 2);
        d2 += (v - want) * (v - want);
        r2 += want * want;
      }
    }
    batchedFields = relError(d2, r2);
    free(ob);
    free(os);
  }

  /* The forward result against a single-process 3-D FFT of the whole array, where it fits. */
  failed = dtrFftExecute(f.fft, f.in, f.out, dtrFftForward, f.stream) != dtrSuccess;
  if (o->gpu && cudaStreamSynchronize(f.stream) != cudaSuccess) failed = 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  double refError = -1;
  int refStatus = 2; /* 0 done, 1 does not fit, 2 not asked, -1 failed */
  const long long nxc = o->real ? o->shape[0] / 2 + 1 : o->shape[0];
  if (o->reference && !failed) {
    const size_t e = dbl ? 8 : 4;
    const size_t inAll = (size_t)N * e * (size_t)parts, outAll = (size_t)nxc * (size_t)(o->shape[1] * o->shape[2]) * 2 * e;
    void *full = NULL, *fullOut = NULL;
    if (o->gpu) {
      size_t freeMem = 0, total = 0;
      cudaMemGetInfo(&freeMem, &total);
      /* The arrays and cuFFT's work area, about as large again. */
      refStatus = freeMem > 2 * (inAll + outAll) + ((size_t)1 << 30) && cudaMalloc(&full, inAll) == cudaSuccess &&
                          (!o->real || cudaMalloc(&fullOut, outAll) == cudaSuccess)
                      ? 0
                      : 1;
    } else {
      refStatus = (full = malloc(inAll)) && (!o->real || (fullOut = malloc(outAll))) ? 0 : 1;
    }
    void* hf = refStatus == 0 ? malloc(inAll > outAll ? inAll : outAll) : NULL;
    if (refStatus == 0 && !hf) refStatus = 1;
    if (refStatus == 0) {
      for (size_t u = 0; u < (size_t)N; u++)
        for (int part = 0; part < parts; part++) set(hf, dbl, u * (size_t)parts + (size_t)part, inputValue(u, part));
      copyTo(o, full, hf, inAll, cudaMemcpyHostToDevice);
      refStatus = referenceFft3d(o->gpu, dbl, o->real, o->shape, full, fullOut, f.stream);
      if (refStatus == 0) copyTo(o, hf, o->real ? fullOut : full, o->real ? outAll : inAll, cudaMemcpyDeviceToHost);
    }
    int worst = refStatus, best = refStatus;
    MPI_Allreduce(&refStatus, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&refStatus, &best, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    refStatus = best < 0 ? -1 : worst;
    if (refStatus == 0) {
      void* res = malloc(f.output.bytes + 16);
      copyTo(o, res, f.out, f.output.bytes, cudaMemcpyDeviceToHost);
      d2 = r2 = 0;
      for (size_t u = 0; u < boxCount(&f.output); u++) {
        const size_t at = (size_t)boxIndex(&f.output, nxc, o->shape[1], u);
        for (int part = 0; part < 2; part++) {
          const double want = get(hf, dbl, 2 * at + (size_t)part), v = get(res, dbl, 2 * u + (size_t)part);
          d2 += (v - want) * (v - want);
          r2 += want * want;
        }
      }
      free(res);
      refError = relError(d2, r2);
    }
    free(hf);
    if (o->gpu) {
      cudaFree(full);
      cudaFree(fullOut);
    } else {
      free(full);
      free(fullOut);
    }
  }

  const double flops = (o->real ? 2.5 : 5.0) * N * log2(N);
  const double passes = med[runPasses][0], exchanges = med[runExchanges][0];
  int status = !failed && allUntouched && roundTrip <= tol && (refStatus != 0 || refError <= tol) && refStatus >= 0 &&
                       (!f.batched || (batchedTrip <= tol && batchedFields <= tol))
                   ? 0
                   : 1;
  if (rank == 0) {
    printf("# fft3d: %lld x %lld x %lld %s %s on a %d x %d grid (%s), %d ranks, %s; %s exchanges, %d chunks; iters %d, "
           "warmup %d\n",
           o->shape[0], o->shape[1], o->shape[2], o->real ? (dbl ? "fp64" : "fp32") : (dbl ? "c128" : "c64"),
           o->real ? "R2C" : "C2C", o->pr, o->pc, o->pr == 1 ? "slabs" : "pencils", nranks,
           o->gpu ? "GPUs, cuFFT" : "CPU backend, FFTW", f.backend, f.chunks, iters, o->warmup);
    printf("# %-22s %12s %12s\n", "run", "forward(us)", "inverse(us)");
    for (int k = 0; k < nRuns; k++) {
      if (!hasRun(&f, (RunKind)k)) continue;
      char label[48];
      snprintf(label, sizeof label, "%s", k == runFft ? "FFT" : runNames[k]);
      if (k == runFft) snprintf(label, sizeof label, "FFT, %d chunk%s", f.chunks, f.chunks == 1 ? "" : "s");
      if (k == runBatched) snprintf(label, sizeof label, "FFT of %d fields", o->howmany);
      if (k == runSingles) snprintf(label, sizeof label, "%d single-field FFTs", o->howmany);
      printf("  %-22s %12.1f %12.1f\n", label, med[k][0] * 1e6, med[k][1] * 1e6);
      if (k == runPasses || k == runExchanges)
        for (int i = 0; i < (k == runPasses ? f.npasses : f.nexchanges); i++)
          printf("    %-20s %12.1f %12.1f\n", k == runPasses ? f.passes[i].name : f.exchanges[i].name,
                 stepMed[k - runPasses][i][0] * 1e6, stepMed[k - runPasses][i][1] * 1e6);
    }
    const double larger = passes > exchanges ? passes : exchanges;
    printf("# forward: %.1f GFLOP/s; FFT / max(passes, exchanges) = %.3f, / their sum = %.3f, / one chunk = %.3f\n",
           flops / med[runFft][0] * 1e-9, med[runFft][0] / larger, med[runFft][0] / (passes + exchanges),
           med[runFft][0] / med[runOneChunk][0]);
    printf("# input unchanged by the forward: %s\n", allUntouched ? "yes" : "NO");
    printf("# round trip: relative L2 error %.3g (bound %.0e) %s\n", roundTrip, tol, roundTrip <= tol ? "OK" : "FAILED");
    if (f.batched) {
      printf("# %d fields in one plan against %d single-field executes: forward %.3f, inverse %.3f of their time\n", H, H,
             med[runBatched][0] / med[runSingles][0], med[runBatched][1] / med[runSingles][1]);
      printf("# %d fields: %d chunks, workspace %.1f MiB; one field: %d chunks, workspace %.1f MiB\n", H, f.batchedChunks,
             (double)f.batchedWorkspace / 1048576.0, f.chunks, (double)f.singleWorkspace / 1048576.0);
      printf("# %d fields: round trip error %.3g, each field's forward against the single-field plan's %.3g (bound %.0e) %s\n",
             H, batchedTrip, batchedFields, tol, batchedTrip <= tol && batchedFields <= tol ? "OK" : "FAILED");
    }
    if (refStatus == 0)
      printf("# against %s: relative L2 error %.3g (bound %.0e) %s\n", o->gpu ? "cuFFT's single-GPU 3-D FFT" : "FFTW's 3-D FFT",
             refError, tol, refError <= tol ? "OK" : "FAILED");
    else if (refStatus == 1)
      printf("# reference: the whole array does not fit one %s; not compared\n", o->gpu ? "GPU" : "process");
    else if (refStatus < 0)
      printf("# reference: the single-process FFT failed\n");
    printTuning();
    printf("# %s\n", status ? "FAILED" : "PASSED");
    if (o->json && writeJson(&f, med, stepMed, flops, roundTrip, tol, refError, refStatus == 0, status, batchedTrip, batchedFields)) {
      fprintf(stderr, "fft3d: cannot write %s\n", o->json);
      status = 1;
    }
  }
  free(h);
  free(hb);
  for (int k = 0; k < nRuns; k++)
    for (int s = 0; s < 2; s++) free(t[k][s]);
  teardown(&f);
  MPI_Finalize();
  return status;
}

static void jsonNumber(FILE* out, double v) {
  if (isfinite(v)) fprintf(out, "%.3g", v);
  else fprintf(out, "null");
}

static void jsonSteps(FILE* out, const Step* steps, int n, double med[MAX_STEPS][2]) {
  fprintf(out, "[");
  for (int i = 0; i < n; i++)
    fprintf(out, "%s{\"stage\": \"%s\", \"forward_us\": %.3f, \"inverse_us\": %.3f}", i ? ", " : "", steps[i].name,
            med[i][0] * 1e6, med[i][1] * 1e6);
  fprintf(out, "]");
}

/* --grid auto's candidates and choice, and --all-grids' times of each, where they ran. */
static void jsonTuning(FILE* out) {
  if (!tuning.tuned && !tuning.timed) return;
  int chosen, best;
  bestOfGrids(&chosen, &best);
  if (tuning.tuned)
    fprintf(out, ",\n \"autotune\": {\"target\": \"fft\", \"grid\": [%d, %d], \"backend\": \"%s\", \"iterations\": %d, "
            "\"seconds\": %.4f}", tuning.pr, tuning.pc, dtrBackendName(tuning.backend), tuning.iterations, tuning.wall);
  fprintf(out, ",\n \"candidates\": [");
  for (int i = 0; i < tuning.count; i++) {
    const Candidate* c = &tuning.c[i];
    fprintf(out, "%s\n  {\"grid\": [%d, %d], \"backend\": \"%s\", \"chosen\": %s, \"autotune_us\": ", i ? "," : "", c->pr, c->pc,
            dtrBackendName(c->backend), i == chosen ? "true" : "false");
    if (tuning.tuned && c->result == dtrSuccess) fprintf(out, "%.3f", c->seconds * 1e6);
    else fprintf(out, "null");
    fprintf(out, ", \"autotune_result\": \"%s\"",
            !tuning.tuned ? "not tuned" : c->result == dtrSuccess ? "success" : dtrGetErrorString(c->result));
    if (tuning.timed && c->forward >= 0)
      fprintf(out, ", \"chunks\": %d, \"forward_us\": %.3f, \"inverse_us\": %.3f}", c->chunks, c->forward * 1e6, c->inverse * 1e6);
    else
      fprintf(out, ", \"chunks\": null, \"forward_us\": null, \"inverse_us\": null}");
  }
  fprintf(out, "]");
  if (tuning.tuned && tuning.timed && chosen >= 0 && best >= 0 && tuning.c[chosen].forward >= 0) {
    const Candidate *c = &tuning.c[chosen], *b = &tuning.c[best];
    fprintf(out, ",\n \"best_grid\": [%d, %d], \"best_backend\": \"%s\", \"autotuned_over_best\": %.4f, "
            "\"autotuned_over_best_forward\": %.4f", b->pr, b->pc, dtrBackendName(b->backend),
            (c->forward + c->inverse) / (b->forward + b->inverse), c->forward / b->forward);
  }
}

static int writeJson(const Fft* f, double med[nRuns][2], double stepMed[2][MAX_STEPS][2], double flops, double roundTrip,
                     double tol, double refError, int compared, int status, double batchedTrip, double batchedFields) {
  const Options* o = &f->o;
  FILE* out = fopen(o->json, "w");
  if (!out) return -1;
  fprintf(out, "{\"shape\": [%lld, %lld, %lld], \"dtype\": \"%s\", \"kind\": \"%s\", \"grid\": [%d, %d], \"layout\": \"%s\", "
          "\"ranks\": %d,\n", o->shape[0], o->shape[1], o->shape[2], o->dbl ? "c128" : "c64", o->real ? "R2C" : "C2C", o->pr,
          o->pc, o->pr == 1 ? "slabs" : "pencils", nranks);
  fprintf(out, " \"local\": \"%s\", \"backend\": \"%s\", \"chunks\": %d, \"iters\": %d, \"warmup\": %d,\n",
          o->gpu ? "cuFFT" : "FFTW", f->backend, f->chunks, o->iters, o->warmup);
  fprintf(out, " \"forward_us\": %.3f, \"inverse_us\": %.3f, \"forward_gflops\": %.1f,\n", med[runFft][0] * 1e6,
          med[runFft][1] * 1e6, flops / med[runFft][0] * 1e-9);
  fprintf(out, " \"one_chunk\": {\"forward_us\": %.3f, \"inverse_us\": %.3f},\n", med[runOneChunk][0] * 1e6,
          med[runOneChunk][1] * 1e6);
  fprintf(out, " \"passes\": {\"forward_us\": %.3f, \"inverse_us\": %.3f, \"steps\": ", med[runPasses][0] * 1e6,
          med[runPasses][1] * 1e6);
  jsonSteps(out, f->passes, f->npasses, stepMed[0]);
  fprintf(out, "},\n \"exchanges\": {\"forward_us\": %.3f, \"inverse_us\": %.3f, \"steps\": ", med[runExchanges][0] * 1e6,
          med[runExchanges][1] * 1e6);
  jsonSteps(out, f->exchanges, f->nexchanges, stepMed[1]);
  fprintf(out, "},\n \"round_trip_error\": ");
  jsonNumber(out, roundTrip);
  fprintf(out, ", \"error_bound\": %.0e, \"reference_error\": ", tol);
  jsonNumber(out, compared ? refError : NAN);
  fprintf(out, ", \"passed\": %s,\n \"howmany\": %d", status ? "false" : "true", o->howmany);
  if (f->batched) {
    /* The plan of howmany fields against as many executes of the single-field plan, in the same loop. */
    fprintf(out, ", \"fields\": {\"forward_us\": %.3f, \"inverse_us\": %.3f, \"singles_forward_us\": %.3f, "
            "\"singles_inverse_us\": %.3f, \"forward_over_singles\": %.4f, \"inverse_over_singles\": %.4f, "
            "\"chunks\": %d, \"workspace_bytes\": %zu, \"singles_workspace_bytes\": %zu, \"round_trip_error\": ",
            med[runBatched][0] * 1e6, med[runBatched][1] * 1e6, med[runSingles][0] * 1e6, med[runSingles][1] * 1e6,
            med[runBatched][0] / med[runSingles][0], med[runBatched][1] / med[runSingles][1], f->batchedChunks,
            f->batchedWorkspace, f->singleWorkspace);
    jsonNumber(out, batchedTrip);
    fprintf(out, ", \"against_singles_error\": ");
    jsonNumber(out, batchedFields);
    fprintf(out, "}");
  }
  jsonTuning(out);
  fprintf(out, "}\n");
  return fclose(out) ? -1 : 0;
}
