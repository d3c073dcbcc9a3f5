/*
 * fft3d: a distributed complex 3-D FFT built on disttranspose, the way an FFT code uses it.
 *
 *   mpirun -np 4 fft3d --shape 1024x1024x1024 --grid 2x2 --dtype c64
 *
 * Pencils (pr x pc grid, pr > 1): 1-D transforms along x in X-pencils, X->Y, along y, Y->Z, along
 * z; the result is in Z-pencils. Slabs (1 x P): 2-D transforms of the (y, x) planes of each z-slab,
 * X->Z, along z. The inverse runs the same steps backwards. Local transforms: cuFFT on GPUs (NCCL
 * backend), FFTW on the host (CPU backend).
 *
 * Checks: the round trip (forward, inverse, 1/N) against the input, relative L2 error within 1e-5
 * (c64) or 1e-12 (c128); and, where the whole array fits one GPU (or on the host), the forward result
 * against a single-process 3-D FFT of the same data (cuFFT, or FFTW), within the same bounds.
 * Reports each stage's time (median of the slowest rank), the total, and GFLOP/s = 5 N log2 N / t;
 * with --json FILE the same as one JSON object (the README's FFT table is generated from those).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <disttranspose.h>
#include <mpi.h>

#include "local_fft.h"

#define MAX_STAGES 5
#define MAX_ITERS 1000

typedef struct {
  long long shape[3];
  int pr, pc;
  int dbl;     /* c128 */
  int gpu;     /* a GPU backend and cuFFT; else the CPU backend and FFTW */
  dtrBackend_t backend; /* of the transposes: auto (p2p on one host, else NCCL), nccl, p2p or cpu */
  int iters, warmup, reference;
  const char* json; /* --json: where rank 0 writes the results, or NULL */
} Options;

static int rank, nranks;

static void usage(void) {
  if (rank) return;
  printf("Usage: mpirun -np N fft3d [--shape NXxNYxNZ | N] [--grid PRxPC] [--dtype c64|c128] [--backend auto|nccl|p2p|cpu]\n"
         "                     [--iters N] [--warmup N] [--reference 0|1] [--json FILE]\n"
         "A forward and inverse complex 3-D FFT on slabs (1xP) or pencils, checked and timed per stage.\n");
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
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  (void)cudaGetLastError();
  int any = gpus > 0, all = 0;
  MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  *o = (Options){{64, 64, 64}, 0, 0, 0, all, all ? dtrBackendAuto : dtrBackendCpu, 10, 3, 1, NULL};
  for (int i = 1; i < argc; i++) {
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    long long g[2];
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    if (!v) goto bad;
    if (!strcmp(argv[i], "--shape")) {
      if (parseDims(v, 3, o->shape)) goto bad;
    } else if (!strcmp(argv[i], "--grid")) {
      if (parseDims(v, 2, g) || g[0] > 65536 || g[1] > 65536) goto bad;
      o->pr = (int)g[0], o->pc = (int)g[1];
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
    } else if (!strcmp(argv[i], "--iters") || !strcmp(argv[i], "--warmup") || !strcmp(argv[i], "--reference")) {
      char* end;
      long n = strtol(v, &end, 10);
      if (*end || n < 0 || n > MAX_ITERS || (!strcmp(argv[i], "--iters") && n < 1)) goto bad;
      if (!strcmp(argv[i], "--iters")) o->iters = (int)n;
      else if (!strcmp(argv[i], "--warmup")) o->warmup = (int)n;
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

/* The input: a hash of the global index, in [-1, 1) for the real and imaginary parts. */
static double inputValue(uint64_t index, int part) {
  uint64_t x = index * 2 + (uint64_t)part + 0x9e3779b97f4a7c15ull;
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 27, x *= 0x94d049bb133111ebull, x ^= x >> 31;
  return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Element u (memory order) of a box: its global index x + nx (y + ny z). */
static uint64_t boxIndex(const dtrBox_t* b, const long long n[3], size_t u) {
  long long c[3];
  for (int d = 0; d < 3; d++) {
    const int axis = b->order[d];
    c[axis] = b->start[axis] + (long long)(u % (size_t)b->size[axis]);
    u /= (size_t)b->size[axis];
  }
  return (uint64_t)(c[0] + n[0] * (c[1] + n[1] * c[2]));
}

static size_t boxCount(const dtrBox_t* b) { return (size_t)(b->size[0] * b->size[1] * b->size[2]); }

static double get(const void* h, int dbl, size_t i, int part) {
  return dbl ? ((const double*)h)[2 * i + part] : ((const float*)h)[2 * i + part];
}
static void set(void* h, int dbl, size_t i, int part, double v) {
  if (dbl) ((double*)h)[2 * i + part] = v;
  else ((float*)h)[2 * i + part] = (float)v;
}

/* Host copies of device data (or the data itself on the host). */
static void* toHost(const Options* o, const void* data, size_t bytes) {
  if (!o->gpu || !bytes) return (void*)data;
  void* h = malloc(bytes);
  if (h && cudaMemcpy(h, data, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    free(h);
    return NULL;
  }
  return h;
}
static void freeHost(const Options* o, void* h) {
  if (o->gpu) free(h);
}

/* Relative L2 error over all ranks of (scale * got - want), want given by `ref` (or the input). */
static double relError(double diff2, double ref2) {
  double in[2] = {diff2, ref2}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out[1] > 0 ? sqrt(out[0] / out[1]) : sqrt(out[0]);
}

typedef struct {
  const char* name;
  LocalFft* fft; /* a local pass, or */
  dtrPlan_t plan; /* a transpose from buffer `in` to `out` */
  int in, out;
} Stage;

typedef struct {
  Options o;
  dtrGrid_t grid;
  dtrBox_t box[3];
  void* buf[3];          /* one buffer per pencil */
  void* pristine;        /* the input, X-pencil */
  cudaStream_t stream;
  Stage fwd[MAX_STAGES], inv[MAX_STAGES];
  int nstages;
} Fft;

static int runStage(Fft* f, Stage* s, int sign) {
  if (s->fft) return localFftExecute(s->fft, sign);
  return dtrExecute(s->plan, f->buf[s->in], f->buf[s->out], f->stream) != dtrSuccess;
}

static double now(void) { return MPI_Wtime(); }

/* Runs the stages once, timing each: CUDA events on GPUs, the host clock (after each stage) else. */
static int runTimed(Fft* f, Stage* st, int sign, double* t, cudaEvent_t* ev) {
  if (f->o.gpu) {
    cudaEventRecord(ev[0], f->stream);
    for (int i = 0; i < f->nstages; i++) {
      if (runStage(f, &st[i], sign)) return -1;
      cudaEventRecord(ev[i + 1], f->stream);
    }
    if (cudaEventSynchronize(ev[f->nstages]) != cudaSuccess) return -1;
    for (int i = 0; i < f->nstages; i++) {
      float ms;
      cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
      t[i] = ms * 1e-3;
    }
    return 0;
  }
  for (int i = 0; i < f->nstages; i++) {
    const double t0 = now();
    if (runStage(f, &st[i], sign)) return -1;
    t[i] = now() - t0;
  }
  return 0;
}

static int cmpDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median over iterations of the slowest rank, per stage and for the sum. */
static void summarize(int iters, int nstages, double (*t)[MAX_STAGES + 1], double* med) {
  double* col = malloc((size_t)iters * sizeof *col);
  for (int s = 0; s <= nstages; s++) {
    for (int i = 0; i < iters; i++) col[i] = t[i][s];
    MPI_Allreduce(MPI_IN_PLACE, col, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(col, (size_t)iters, sizeof *col, cmpDouble);
    med[s] = iters % 2 ? col[iters / 2] : 0.5 * (col[iters / 2 - 1] + col[iters / 2]);
  }
  free(col);
}

static int setup(Fft* f, char* err, size_t errlen) {
  const Options* o = &f->o;
  const dtrDataType_t type = o->dbl ? dtrComplex128 : dtrComplex64;
  const int64_t shape[3] = {o->shape[0], o->shape[1], o->shape[2]};
  if (dtrGridCreate(&f->grid, MPI_COMM_WORLD, o->pr, o->pc) != dtrSuccess) {
    snprintf(err, errlen, "grid: %s", dtrGetLastError());
    return -1;
  }
  dtrGridGetDims(f->grid, &f->o.pr, &f->o.pc, NULL, NULL);
  const int slabs = f->o.pr == 1;
  for (int p = 0; p < 3; p++) {
    dtrPencilBox(f->grid, shape, (dtrPencil_t)p, type, 1, -1, &f->box[p]);
    const size_t bytes = f->box[p].bytes ? f->box[p].bytes : 16;
    if (o->gpu ? cudaMalloc(&f->buf[p], bytes) != cudaSuccess : !(f->buf[p] = malloc(bytes))) {
      snprintf(err, errlen, "cannot allocate %zu bytes for the %s-pencil", bytes, dtrPencilName((dtrPencil_t)p));
      return -1;
    }
  }
  const size_t xb = f->box[0].bytes ? f->box[0].bytes : 16;
  if (o->gpu ? cudaMalloc(&f->pristine, xb) != cudaSuccess : !(f->pristine = malloc(xb))) {
    snprintf(err, errlen, "cannot allocate the input copy");
    return -1;
  }
  if (o->gpu) cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking);

  /* The transposes: one workspace for all of them (they run one after the other on one stream). */
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = o->gpu ? o->backend : dtrBackendCpu;
  cfg.workspace = dtrWorkspaceGrid;
  const dtrPencil_t path[3] = {dtrPencilX, slabs ? dtrPencilZ : dtrPencilY, dtrPencilZ};
  dtrPlan_t plans[4] = {NULL};
  const int ntrans = slabs ? 1 : 2;
  for (int i = 0; i < ntrans; i++) {
    if (dtrPlanCreatePencil(&plans[2 * i], f->grid, shape, path[i], path[i + 1], type, 1, &cfg) != dtrSuccess ||
        dtrPlanCreatePencil(&plans[2 * i + 1], f->grid, shape, path[i + 1], path[i], type, 1, &cfg) != dtrSuccess) {
      snprintf(err, errlen, "plan: %s", dtrGetLastError());
      return -1;
    }
  }
  /* The local passes along each pencil's own axis (the (y, x) planes on slabs). */
  LocalFft* pass[3] = {NULL};
  const dtrBox_t* b = f->box;
  for (int i = 0; i <= ntrans; i++) {
    const int p = path[i];
    int n[2] = {(int)o->shape[p], 0};
    long long batch = (long long)(boxCount(&b[p]) / (size_t)o->shape[p]);
    int dims = 1;
    if (slabs && p == dtrPencilX) n[0] = (int)o->shape[1], n[1] = (int)o->shape[0], batch = b[p].size[2], dims = 2;
    if (!(pass[i] = localFftCreate(o->gpu, o->dbl, dims, n, boxCount(&b[p]) ? batch : 0, f->buf[p], f->stream, err, errlen)))
      return -1;
  }
  static const char* const axisName[3] = {"fft x", "fft y", "fft z"};
  f->nstages = 2 * ntrans + 1;
  for (int i = 0; i <= ntrans; i++) {
    f->fwd[2 * i] = (Stage){slabs && i == 0 ? "fft yx" : axisName[path[i]], pass[i], NULL, 0, 0};
    f->inv[f->nstages - 1 - 2 * i] = f->fwd[2 * i];
    if (i == ntrans) break;
    f->fwd[2 * i + 1] = (Stage){NULL, NULL, plans[2 * i], path[i], path[i + 1]};
    f->inv[f->nstages - 2 - 2 * i] = (Stage){NULL, NULL, plans[2 * i + 1], path[i + 1], path[i]};
  }
  return 0;
}

static void teardown(Fft* f) {
  /* Each pass and each plan appears once in the forward stages and once in the inverse ones. */
  for (int i = 0; i < f->nstages; i++) {
    if (f->fwd[i].fft) localFftDestroy(f->fwd[i].fft);
    if (f->fwd[i].plan) dtrPlanDestroy(f->fwd[i].plan);
    if (f->inv[i].plan) dtrPlanDestroy(f->inv[i].plan);
  }
  for (int p = 0; p < 3; p++) f->o.gpu ? (void)cudaFree(f->buf[p]) : free(f->buf[p]);
  f->o.gpu ? (void)cudaFree(f->pristine) : free(f->pristine);
  if (f->stream) cudaStreamDestroy(f->stream);
  if (f->grid) dtrGridDestroy(f->grid);
}

/* The results as one JSON object (rank 0); an error not measured (or not finite) is null. */
static int writeJson(const Options* o, const Fft* f, const double* medF, const double* medI, double flops, double roundTrip,
                     double tol, double refError, int compared, int status);

static const char* stageName(const Stage* s, char* buf, size_t len) {
  if (s->name) return s->name;
  dtrBackend_t b = dtrBackendAuto;
  dtrPlanGetBackend(s->plan, &b);
  snprintf(buf, len, "%s->%s %s", dtrPencilName((dtrPencil_t)s->in), dtrPencilName((dtrPencil_t)s->out), dtrBackendName(b));
  return buf;
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
    if (rank == 0) fprintf(stderr, "fft3d: no GPUs and no FFTW in this build: nothing to run the local transforms\n");
    MPI_Finalize();
    return 2;
  }
  if (o->gpu) {
    /* The program picks its GPU (the node-local rank's, modulo the GPUs: more ranks than GPUs share
     * them, which the p2p backend serves); the library takes the current one. */
    MPI_Comm local;
    int localRank, count = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &localRank);
    MPI_Comm_free(&local);
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) cudaSetDevice(localRank % count);
  }
  char err[512] = "";
  int bad = setup(&f, err, sizeof err) != 0, anyBad = 0;
  MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (anyBad) {
    if (bad) fprintf(stderr, "fft3d: rank %d: %s\n", rank, err);
    MPI_Finalize();
    return 1;
  }
  const size_t e = o->dbl ? 16 : 8;
  const dtrBox_t* bx = &f.box[0];
  const dtrBox_t* bz = &f.box[2];
  const double N = (double)o->shape[0] * (double)o->shape[1] * (double)o->shape[2];
  const double tol = o->dbl ? 1e-12 : 1e-5;

  /* The input, made on the host from the formula, kept as the pristine copy. */
  void* h = malloc(bx->bytes + 16);
  for (size_t u = 0; u < boxCount(bx); u++)
    for (int part = 0; part < 2; part++) set(h, o->dbl, u, part, inputValue(boxIndex(bx, o->shape, u), part));
  if (o->gpu) cudaMemcpy(f.pristine, h, bx->bytes, cudaMemcpyHostToDevice);
  else memcpy(f.pristine, h, bx->bytes);

  /* Timed: forward and inverse, the input restored before each forward. */
  const int iters = o->iters;
  double (*tf)[MAX_STAGES + 1] = calloc((size_t)iters, sizeof *tf), (*ti)[MAX_STAGES + 1] = calloc((size_t)iters, sizeof *ti);
  cudaEvent_t ev[MAX_STAGES + 1];
  if (o->gpu)
    for (int i = 0; i <= f.nstages; i++) cudaEventCreate(&ev[i]);
  int failed = 0;
  for (int it = -o->warmup; it < iters && !failed; it++) {
    if (o->gpu) cudaMemcpyAsync(f.buf[0], f.pristine, bx->bytes, cudaMemcpyDeviceToDevice, f.stream);
    else memcpy(f.buf[0], f.pristine, bx->bytes);
    if (o->gpu) cudaStreamSynchronize(f.stream);
    MPI_Barrier(MPI_COMM_WORLD);
    double tmp[2][MAX_STAGES + 1] = {{0}};
    failed |= runTimed(&f, f.fwd, -1, tmp[0], ev);
    if (o->gpu) cudaStreamSynchronize(f.stream);
    MPI_Barrier(MPI_COMM_WORLD);
    failed |= runTimed(&f, f.inv, +1, tmp[1], ev);
    if (it < 0) continue;
    for (int s = 0; s < f.nstages; s++) {
      tf[it][s] = tmp[0][s], ti[it][s] = tmp[1][s];
      tf[it][f.nstages] += tmp[0][s], ti[it][f.nstages] += tmp[1][s];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) {
    if (rank == 0) fprintf(stderr, "fft3d: a stage failed: %s\n", dtrGetLastError());
    MPI_Finalize();
    return 1;
  }
  double medF[MAX_STAGES + 1], medI[MAX_STAGES + 1];
  summarize(iters, f.nstages, tf, medF);
  summarize(iters, f.nstages, ti, medI);

  /* Round trip: the last inverse, scaled by 1/N, against the input. */
  void* back = toHost(o, f.buf[0], bx->bytes);
  double d2 = 0, r2 = 0;
  for (size_t u = 0; back && u < boxCount(bx); u++)
    for (int part = 0; part < 2; part++) {
      const double want = get(h, o->dbl, u, part), got = get(back, o->dbl, u, part) / N;
      d2 += (got - want) * (got - want);
      r2 += want * want;
    }
  freeHost(o, back);
  const double roundTrip = relError(d2, r2);

  /* The forward result against a single-process 3-D FFT of the whole array, where it fits. */
  if (o->gpu) cudaMemcpyAsync(f.buf[0], f.pristine, bx->bytes, cudaMemcpyDeviceToDevice, f.stream);
  else memcpy(f.buf[0], f.pristine, bx->bytes);
  for (int s = 0; s < f.nstages; s++) failed |= runStage(&f, &f.fwd[s], -1);
  if (o->gpu && cudaStreamSynchronize(f.stream) != cudaSuccess) failed = 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  double refError = -1;
  int refStatus = 2; /* 0 done, 1 does not fit, 2 not asked, -1 failed */
  if (o->reference) {
    const size_t all = (size_t)N * e;
    void* full = NULL;
    if (o->gpu) {
      size_t freeMem = 0, total = 0;
      cudaMemGetInfo(&freeMem, &total);
      /* The array and cuFFT's work area, about as large again. */
      refStatus = freeMem > 2 * all + ((size_t)1 << 30) && cudaMalloc(&full, all) == cudaSuccess ? 0 : 1;
    } else {
      refStatus = (full = malloc(all)) ? 0 : 1;
    }
    void* hf = refStatus == 0 ? malloc(all) : NULL;
    if (refStatus == 0 && !hf) refStatus = 1;
    if (refStatus == 0) {
      for (size_t u = 0; u < (size_t)N; u++)
        for (int part = 0; part < 2; part++) set(hf, o->dbl, u, part, inputValue(u, part));
      if (o->gpu) cudaMemcpy(full, hf, all, cudaMemcpyHostToDevice);
      else memcpy(full, hf, all);
      refStatus = referenceFft3d(o->gpu, o->dbl, o->shape, full, f.stream);
      if (refStatus == 0 && o->gpu) cudaMemcpy(hf, full, all, cudaMemcpyDeviceToHost);
      else if (refStatus == 0) memcpy(hf, full, all);
    }
    int worst = refStatus, best = refStatus;
    MPI_Allreduce(&refStatus, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&refStatus, &best, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    refStatus = best < 0 ? -1 : worst;
    if (refStatus == 0) {
      void* got = toHost(o, f.buf[2], bz->bytes);
      d2 = r2 = 0;
      for (size_t u = 0; got && u < boxCount(bz); u++) {
        const size_t at = (size_t)boxIndex(bz, o->shape, u);
        for (int part = 0; part < 2; part++) {
          const double want = get(hf, o->dbl, at, part), v = get(got, o->dbl, u, part);
          d2 += (v - want) * (v - want);
          r2 += want * want;
        }
      }
      freeHost(o, got);
      refError = relError(d2, r2);
    }
    free(hf);
    if (o->gpu) cudaFree(full);
    else free(full);
  }

  const double flops = 5.0 * N * log2(N);
  int status = !failed && roundTrip <= tol && (refStatus != 0 || refError <= tol) && refStatus >= 0 ? 0 : 1;
  if (rank == 0) {
    char name[32];
    printf("# fft3d: %lld x %lld x %lld %s on a %d x %d grid (%s), %d ranks, %s; iters %d, warmup %d\n", o->shape[0],
           o->shape[1], o->shape[2], o->dbl ? "c128" : "c64", o->pr, o->pc, o->pr == 1 ? "slabs" : "pencils", nranks,
           o->gpu ? "GPUs, cuFFT" : "CPU backend, FFTW", iters, o->warmup);
    printf("# %-10s %12s %12s\n", "stage", "forward(us)", "inverse(us)");
    for (int s = 0; s < f.nstages; s++)
      printf("  %-10s %12.1f %12.1f\n", stageName(&f.fwd[s], name, sizeof name), medF[s] * 1e6,
             medI[f.nstages - 1 - s] * 1e6);
    printf("  %-10s %12.1f %12.1f\n", "total", medF[f.nstages] * 1e6, medI[f.nstages] * 1e6);
    printf("# forward: %.1f GFLOP/s (5 N log2 N / time); inverse: %.1f GFLOP/s\n", flops / medF[f.nstages] * 1e-9,
           flops / medI[f.nstages] * 1e-9);
    printf("# round trip: relative L2 error %.3g (bound %.0e) %s\n", roundTrip, tol, roundTrip <= tol ? "OK" : "FAILED");
    if (refStatus == 0)
      printf("# against %s: relative L2 error %.3g (bound %.0e) %s\n", o->gpu ? "cuFFT's single-GPU 3-D FFT" : "FFTW's 3-D FFT",
             refError, tol, refError <= tol ? "OK" : "FAILED");
    else if (refStatus == 1)
      printf("# reference: the whole array does not fit one %s; not compared\n", o->gpu ? "GPU" : "process");
    else if (refStatus < 0)
      printf("# reference: the single-process FFT failed\n");
    printf("# %s\n", status ? "FAILED" : "PASSED");
    if (o->json && writeJson(o, &f, medF, medI, flops, roundTrip, tol, refError, refStatus == 0, status)) {
      fprintf(stderr, "fft3d: cannot write %s\n", o->json);
      status = 1;
    }
  }
  free(h);
  free(tf);
  free(ti);
  if (o->gpu)
    for (int i = 0; i <= f.nstages; i++) cudaEventDestroy(ev[i]);
  teardown(&f);
  MPI_Finalize();
  return status;
}

static void jsonNumber(FILE* out, double v) {
  if (isfinite(v)) fprintf(out, "%.3g", v);
  else fprintf(out, "null");
}

static int writeJson(const Options* o, const Fft* f, const double* medF, const double* medI, double flops, double roundTrip,
                     double tol, double refError, int compared, int status) {
  FILE* out = fopen(o->json, "w");
  if (!out) return -1;
  char name[32];
  fprintf(out, "{\"shape\": [%lld, %lld, %lld], \"dtype\": \"%s\", \"grid\": [%d, %d], \"layout\": \"%s\", \"ranks\": %d,\n",
          o->shape[0], o->shape[1], o->shape[2], o->dbl ? "c128" : "c64", o->pr, o->pc, o->pr == 1 ? "slabs" : "pencils", nranks);
  fprintf(out, " \"local\": \"%s\", \"iters\": %d, \"warmup\": %d,\n \"stages\": [", o->gpu ? "cuFFT" : "FFTW", o->iters, o->warmup);
  for (int s = 0; s < f->nstages; s++)
    fprintf(out, "%s\n  {\"stage\": \"%s\", \"forward_us\": %.3f, \"inverse_us\": %.3f}", s ? "," : "",
            stageName(&f->fwd[s], name, sizeof name), medF[s] * 1e6, medI[f->nstages - 1 - s] * 1e6);
  fprintf(out, "],\n \"forward_us\": %.3f, \"inverse_us\": %.3f, \"forward_gflops\": %.1f, \"inverse_gflops\": %.1f,\n",
          medF[f->nstages] * 1e6, medI[f->nstages] * 1e6, flops / medF[f->nstages] * 1e-9, flops / medI[f->nstages] * 1e-9);
  fprintf(out, " \"round_trip_error\": ");
  jsonNumber(out, roundTrip);
  fprintf(out, ", \"error_bound\": %.0e, \"reference_error\": ", tol);
  jsonNumber(out, compared ? refError : NAN);
  fprintf(out, ", \"passed\": %s}\n", status ? "false" : "true");
  return fclose(out) ? -1 : 0;
}
