/*
 * poisson: a spectral solver of -lap u = f on [0, 2 pi)^2 x (0, Lz), periodic in x and y, u = 0 on the
 * walls z = 0 and z = Lz, on the library's distributed FFT with a real-to-real axis: one R2C plan whose
 * z axis is a DST-II (config.axes = {periodic, periodic, dtrFftDst2}), so that z lies on the DST-II's
 * points z_k = (k + 1/2) Lz / nz and the transform's modes are sines that vanish on both walls.
 *
 *   mpirun -np 4 poisson --shape 256x256x128 --grid 2x2 --check
 *
 * One solve: the forward transform of f (its X-pencil to the Z-pencil of the (nx/2 + 1) x ny x nz
 * coefficients), each coefficient divided by -lap's eigenvalue kx^2 + ky^2 + (pi (k + 1) / Lz)^2, the
 * inverse transform (dtrFftNormInverse: scaled by 1 / (nx ny 2 nz), so the round trip is the identity).
 * f is that of a manufactured solution made of such modes (problem.h), for which the discrete solve is
 * exact up to rounding. Values fp64 or fp32 (--type; their transforms c128 or c64). On the cpu backend
 * the arrays are host memory and the pointwise work host loops; on the GPU backends device memory and
 * kernels on the stream the FFT runs on; both call the same functions at every point (problem.h).
 *
 * --check (every rank's exit status 1 where a check fails), each rank on its own boxes, the maxima
 * reduced over the ranks:
 *   1. the computed u against the manufactured solution at the grid points: max |u - u*| / max |u*|
 *      within 1e-12 for fp64, 1e-5 for fp32, times (Lz / pi)^2 where Lz > pi (why: the bounds below);
 *   2. the residual of the discrete equation, -lap u by a second transform (forward, times the
 *      eigenvalue, inverse) against f: max |-lap u - f| / (max |f| + lambda_max max |u*|), the scale of
 *      its two terms, within 1e-12 for fp64, 1e-5 for fp32. It checks the solve's consistency as a
 *      solver without a known solution could (the round trip, the boxes; a wrong eigenvalue too where
 *      it breaks the symmetry of a real field's transform); only the first check sees every wrong
 *      eigenvalue, as the residual's second transform multiplies by the same one.
 * The last line says whether every check passed. Time per solve (forward, division, inverse): the
 * median over --iters solves after a warm-up solve (the plan's first executes, the p2p backend's first
 * mapping of the arrays) of the slowest rank's time, printed and in the --json file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <disttranspose.h>
#include <mpi.h>

#include "common/arrays.h"
#include "common/example_support.h"
#include "common/options.h"
#include "common/failure.h"
#include "common/timing.h"
#include "pointwise.h"

/* MPI's calls are left unchecked on purpose: its default handler (MPI_ERRORS_ARE_FATAL) aborts the job
 * on any error before a result could be looked at. */

/*
 * The checks' bounds. The solve divides the rounding of f's transform (eps times f's size, which is
 * about 20 times u's: the fixed modes' eigenvalues) by each mode's eigenvalue, and the rounding lands on
 * every mode, also on those u does not have: the smallest eigenvalue, (pi / Lz)^2, amplifies it most.
 * So the bound on u's error is a base times max(1, (Lz / pi)^2). Measured on the cpu backend, 1 to 4
 * ranks, 5 x 7 x 3 to 128 x 128 x 64, slabs and pencils: fp64 6e-16 to 1.3e-15 for Lz <= pi, 3e-15 at
 * Lz = 20, 8.5e-12 at Lz = 1000 (1e-16 (Lz / pi)^2); fp32 1.9e-7 to 4.4e-7 for Lz <= 20, 1.7e-4 at
 * Lz = 1000. The bases, 1e-12 and 1e-5, leave room for larger grids and still fail any index or
 * eigenvalue error, which moves whole modes (0.18 to 0.52, or infinite, for a ky taken without its sign,
 * the sines counted from 0, a DCT in place of the DST, a spectral box's y start lost). The residual is
 * measured against the scale of its own terms, where the conditioning cancels: 1e-16 to 4e-16 (fp64),
 * 7e-8 to 1.8e-7 (fp32) for every Lz from 1e-3 to 1e4, within the bases themselves.
 */
#define PS_BOUND_FP64 1e-12
#define PS_BOUND_FP32 1e-5

typedef struct {
  long long shape[3];
  double lz;
  int iters;
  int pr, pc;           /* 0, 0: the library's choice */
  int autogrid;         /* --grid auto: dtrGridAutotune */
  dtrBackend_t backend; /* of the exchanges; auto: the library's among the GPU backends */
  int gpu;              /* device arrays and kernels (a GPU backend) */
  int dbl;              /* fp64 values (else fp32) */
  int check;
  const char* json;
  int everyGpu;         /* every rank sees a GPU: --backend auto takes the GPU backends */
} Options;

/* Its messages' prefix. */
#define PROGRAM "poisson"

static int rank, nranks;

static void usage(void) {
  if (rank) return;
  printf("Usage: mpirun -np P poisson [--n N | --shape NXxNYxNZ] [--lz LZ] [--iters I] [--grid PRxPC | auto]\n"
         "                            [--backend auto|cpu|nccl|p2p] [--type fp64|fp32] [--check] [--json FILE]\n"
         "Solves -lap u = f on [0, 2 pi)^2 x (0, LZ) (default pi), periodic in x and y, u = 0 at z = 0 and z = LZ, on\n"
         "NX x NY x NZ points (default 64^3; at least %d x %d x %d), by one R2C plan with a DST-II along z; times I solves\n"
         "(default 10) after a warm-up solve.\n"
         "--type: the real arrays' (fp64 default; their transform c128), fp32 (c64); c128 and c64 name them too.\n"
         "--grid: default the library's; auto: the grid the periodic R2C FFT of the shape ran fastest on.\n"
         "--backend: default auto (the library's choice of GPU backend where every rank has a GPU, else cpu).\n"
         "--check: u against the manufactured solution, and the residual -lap u - f by a second transform.\n",
         PS_MIN_NX, PS_MIN_NY, PS_MIN_NZ);
}

/* ---- options ------------------------------------------------------------------------------------- */

/* One option into *o (what usage says of it): NULL, or what it expected. */
static const char* takeOption(void* options, const char* a, const char* v) {
  Options* o = options;
  long long w;
  if (!strcmp(a, "--check")) {
    o->check = 1;
  } else if (!strcmp(a, "--n")) {
    if (exParseWhole(v, 1, 1 << 24, &w)) return "a whole number of points per axis";
    o->shape[0] = o->shape[1] = o->shape[2] = w;
  } else if (!strcmp(a, "--shape")) {
    if (exParseDims(v, 3, 1 << 24, o->shape)) return "NXxNYxNZ (three whole numbers, as 24x18x20) or N for N^3";
  } else if (!strcmp(a, "--lz")) {
    if (exParseReal(v, &o->lz) || !(o->lz > 0)) return "the distance between the walls, a number > 0";
  } else if (!strcmp(a, "--iters")) {
    if (exParseWhole(v, 1, 1000000, &w)) return "a whole number of timed solves from 1 to 1000000";
    o->iters = (int)w;
  } else if (!strcmp(a, "--grid")) {
    return exParseGrid(v, &o->autogrid, &o->pr, &o->pc);
  } else if (!strcmp(a, "--backend")) {
    return exParseBackend(v, o->everyGpu, &o->backend, &o->gpu);
  } else if (!strcmp(a, "--type")) {
    if (exParsePrecision(v, &o->dbl)) return "fp64 or fp32 (the real arrays'; c128 or c64, their transforms', name the same)";
  } else {
    o->json = v;
  }
  return NULL;
}

/* 0: run; 1: --help; -1: a bad option, described in msg. */
static int parse(int argc, char** argv, void* options, int everyGpu, char* msg, size_t len) {
  Options* o = options;
  static const char* const flags[] = {"--check", NULL};
  static const char* const valued[] = {"--n", "--shape", "--lz", "--iters", "--grid", "--backend", "--type", "--json", NULL};
  *o = (Options){{64, 64, 64}, PS_PI, 10, 0, 0, 0, everyGpu ? dtrBackendAuto : dtrBackendCpu, everyGpu, 1, 0, NULL, everyGpu};
  const int read = exReadOptions(argc, argv, flags, valued, takeOption, o, msg, len);
  if (read) return read;
  if (o->shape[0] < PS_MIN_NX || o->shape[1] < PS_MIN_NY || o->shape[2] < PS_MIN_NZ) {
    snprintf(msg, len,
             "the shape %lld x %lld x %lld is too small: the manufactured solution's modes (|kx| up to 2, |ky| up to 3, "
             "the third sine along z) need at least %d x %d x %d points",
             o->shape[0], o->shape[1], o->shape[2], PS_MIN_NX, PS_MIN_NY, PS_MIN_NZ);
    return -1;
  }
  return 0;
}

/* Every rank must run with the same options (an MPMD launch could give them different ones): the
 * options that shape the run. */
static int optionsAgree(const void* options, char* msg, size_t len) {
  const Options* o = options;
  static const char* const names[] = {"--shape", "--shape", "--shape", "--lz", "--iters", "--grid", "--grid",
                                      "--grid", "--backend", "--type", "--check"};
  const double mine[] = {(double)o->shape[0], (double)o->shape[1], (double)o->shape[2], o->lz, o->iters, o->pr,
                         o->pc, o->autogrid, o->backend, o->dbl, o->check};
  return exValuesAgree((int)(sizeof mine / sizeof mine[0]), mine, names, msg, len);
}

static int needsGpu(const void* options, const char** backend) {
  const Options* o = options;
  *backend = dtrBackendName(o->backend);
  return o->gpu;
}

static const ExCommandLine commandLine = {PROGRAM, usage, parse, optionsAgree, needsGpu};

/* ---- the solver ---------------------------------------------------------------------------------- */

typedef struct {
  PsDomain dom;
  ExBox phys, spec;     /* this rank's X-pencil of the real arrays, Z-pencil of their transforms */
  int dbl, gpu;
  cudaStream_t stream;  /* the FFT's and the kernels' (GPU backends) */
  dtrFftPlan_t plan;
  void* f;              /* physical: the right-hand side; after the residual's transform, -lap u */
  void* uh;             /* spectral: f's transform, divided into u's */
  void* u;              /* physical: the solution */
  ExFailure failure;    /* this rank's first failure, and what it was */
} Solver;

static size_t elementBytes(const Solver* s) { return s->dbl ? sizeof(double) : sizeof(float); }
static size_t physBytes(const Solver* s) { return (size_t)exBoxPoints(&s->phys) * elementBytes(s); }
static size_t specBytes(const Solver* s) { return (size_t)exBoxPoints(&s->spec) * 2 * elementBytes(s); }

static void allocateArrays(Solver* s) {
  void** const arrays[3] = {&s->f, &s->uh, &s->u};
  for (int i = 0; i < 3 && !s->failure.failed; i++) {
    const size_t bytes = i == 1 ? specBytes(s) : physBytes(s);
    if (!(*arrays[i] = exAllocate(s->gpu, bytes)))
      exFail(&s->failure, "cannot allocate %zu bytes of %s memory", bytes, s->gpu ? "device" : "host");
  }
}

/* 0, or -1 where cudaFree failed (a kernel's failure surfacing late). */
static int freeArrays(Solver* s) {
  void* const arrays[3] = {s->f, s->uh, s->u};
  int bad = 0;
  for (int i = 0; i < 3; i++) bad |= exRelease(s->gpu, arrays[i]) != 0;
  s->f = s->uh = s->u = NULL;
  return bad ? -1 : 0;
}

/* The library's FFT, refused once this rank has failed: 0, or -1 on every rank alike. */
static int transform(Solver* s, const void* in, void* out, int inverse) {
  return exFftExecute(&s->failure, s->plan, in, out, inverse, s->stream);
}

/* The pointwise work, skipped once this rank has failed (the next transform then refuses). */

static void rightHandSide(Solver* s) {
  if (s->failure.failed) return;
  if (s->gpu) exLaunched(&s->failure, psGpuRhs(&s->dom, &s->phys, s->dbl, s->f, s->stream), "right-hand side");
  else psHostRhs(&s->dom, &s->phys, s->dbl, s->f);
}

static void scaleSpectrum(Solver* s, PsScaling how) {
  if (s->failure.failed) return;
  if (s->gpu) exLaunched(&s->failure, psGpuScale(&s->dom, &s->spec, s->dbl, how, s->uh, s->stream), "eigenvalue");
  else psHostScale(&s->dom, &s->spec, s->dbl, how, s->uh);
}

/* One solve, f into u (stream-ordered on GPUs). The forward transform leaves f as it was (out of place),
 * so solves can repeat on the same f. */
static int solve(Solver* s) {
  if (transform(s, s->f, s->uh, 0)) return -1;
  scaleSpectrum(s, psDivide);
  return transform(s, s->uh, s->u, 1);
}

/* -lap u by the same plan, into f's array (the second check's). */
static int laplacian(Solver* s) {
  if (transform(s, s->u, s->uh, 0)) return -1;
  scaleSpectrum(s, psMultiply);
  return transform(s, s->uh, s->f, 1);
}

/* ---- the checks ---------------------------------------------------------------------------------- */

/* The max over the ranks, a NaN turned into infinity first: it must fail the check, and MPI_MAX's
 * treatment of NaN is not something to lean on. */
static void reduceMax(double* v, int count) {
  for (int i = 0; i < count; i++)
    if (isnan(v[i])) v[i] = INFINITY;
  MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/*
 * Collective: the two checks' relative errors from this rank's host copies of u and of -lap u (`lu`),
 * against the manufactured solution and its right-hand side at the same points. Written so that a NaN
 * in either array sticks (fmax would drop it).
 */
static void checkErrors(const Solver* s, const void* u, const void* lu, double* error, double* residual) {
  double m[4] = {0, 0, 0, 0}; /* max |u - u*|, max |u*|, max |-lap u - f|, max |f| */
  const int64_t points = exBoxPoints(&s->phys);
  for (int64_t p = 0; p < points; p++) {
    int64_t c[3];
    exBoxCoords(&s->phys, p, c);
    const double want = psSolution(&s->dom, c), rhs = psRightHandSide(&s->dom, c);
    const double du = fabs(exLoad(u, s->dbl, p) - want), dr = fabs(exLoad(lu, s->dbl, p) - rhs);
    if (!(du <= m[0])) m[0] = du;
    if (!(fabs(want) <= m[1])) m[1] = fabs(want);
    if (!(dr <= m[2])) m[2] = dr;
    if (!(fabs(rhs) <= m[3])) m[3] = fabs(rhs);
  }
  reduceMax(m, 4);
  *error = m[0] / m[1];
  *residual = m[2] / (m[3] + psLargestEigenvalue(&s->dom) * m[1]);
}

/* ---- output -------------------------------------------------------------------------------------- */

typedef struct {
  int pr, pc, chunks;
  const char* backend;
  double solve, solveMin, solveMax; /* seconds */
  double error, residual;
  double errorBound, residualBound;
  int checked, passed;
} Results;

static int writeJson(const Options* o, const Results* r) {
  FILE* f = fopen(o->json, "w");
  if (!f) return -1;
  fprintf(f, "{\"example\": \"poisson\", \"shape\": [%lld, %lld, %lld], \"lz\": %.17g, \"type\": \"%s\", \"kind\": \"R2C\",\n",
          o->shape[0], o->shape[1], o->shape[2], o->lz, o->dbl ? "fp64" : "fp32");
  fprintf(f, " \"axes\": [\"periodic\", \"periodic\", \"dst2\"], \"norm\": \"inverse\",\n");
  fprintf(f, " \"grid\": [%d, %d], \"autotuned\": %s, \"layout\": \"%s\", \"ranks\": %d, \"backend\": \"%s\", \"chunks\": %d,\n",
          r->pr, r->pc, o->autogrid ? "true" : "false", r->pr == 1 ? "slabs" : "pencils", nranks, r->backend, r->chunks);
  fprintf(f, " \"warmup_solves\": 1, \"timed_solves\": %d, \"solve_us\": %.3f, \"solve_us_min\": %.3f, \"solve_us_max\": %.3f,\n",
          o->iters, r->solve * 1e6, r->solveMin * 1e6, r->solveMax * 1e6);
  fprintf(f, " \"checked\": %s, \"error\": ", r->checked ? "true" : "false");
  exJsonNumber(f, r->checked ? r->error : NAN);
  fprintf(f, ", \"residual\": ");
  exJsonNumber(f, r->checked ? r->residual : NAN);
  fprintf(f, ", \"error_bound\": %.3g, \"residual_bound\": %.3g, \"passed\": %s}\n", r->errorBound, r->residualBound,
          r->passed ? "true" : "false");
  return fclose(f) ? -1 : 0;
}

/* ---- main ---------------------------------------------------------------------------------------- */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  Options o;
  int gpus = 0;
  const int stop = exStart(&commandLine, argc, argv, &o, &gpus);
  if (stop >= 0) {
    MPI_Finalize();
    return stop;
  }
  char msg[1024] = "";

  int status = 1;
  dtrGrid_t grid = NULL;
  Solver s;
  memset(&s, 0, sizeof s);
  void *hostU = NULL, *hostLu = NULL;
  ExTimer timer;
  memset(&timer, 0, sizeof timer);
  Results res;
  memset(&res, 0, sizeof res);

  if (o.gpu && exAgreeBad(PROGRAM, exOpenGpu(gpus, &s.stream, msg, sizeof msg) != 0, msg)) goto finish;

  const int64_t shape[3] = {o.shape[0], o.shape[1], o.shape[2]};
  const dtrDataType_t type = o.dbl ? dtrFloat64 : dtrFloat32;
  /* --grid auto: the tuner times the periodic R2C FFT of this shape: it takes no per-axis kinds, and the
   * DST changes only the pass along z, which is local on every grid; the exchanges it compares are this
   * plan's. */
  int refused = o.autogrid ? exGridAutotune(PROGRAM, shape, type, 1, &o.backend, &o.pr, &o.pc) : 0;
  if (!refused) refused = exGridCreate(PROGRAM, o.pr, o.pc, &grid);
  if (refused) {
    status = refused;
    goto finish;
  }
  dtrResult_t r;
  if ((r = dtrGridGetDims(grid, &res.pr, &res.pc, NULL, NULL)) != dtrSuccess) goto libraryFailed;

  /* One plan: the DFT along x (real to complex) and y, the DST-II along z, whose inverse (a DST-III)
   * brings the sines back to the same points. The inverse scales by 1 / (nx ny 2 nz), the norm's N with
   * the real-to-real axis counted as FFTW's logical size 2 nz, so that a round trip gives f back and the
   * division by the eigenvalue is all the solve does to the coefficients. */
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  cfg.transpose.backend = o.backend;
  cfg.norm = dtrFftNormInverse;
  cfg.axes[0] = dtrFftPeriodic;
  cfg.axes[1] = dtrFftPeriodic;
  cfg.axes[2] = dtrFftDst2;
  if ((r = dtrFftPlanCreate(&s.plan, grid, shape, dtrFftR2C, type, &cfg)) != dtrSuccess) goto libraryFailed;
  dtrBackend_t backend;
  dtrBox_t physBox, specBox;
  if ((r = dtrFftGetBackend(s.plan, &backend)) != dtrSuccess || (r = dtrFftGetChunks(s.plan, &res.chunks)) != dtrSuccess ||
      (r = dtrFftGetBox(s.plan, dtrFftInputSide, &physBox)) != dtrSuccess ||
      (r = dtrFftGetBox(s.plan, dtrFftOutputSide, &specBox)) != dtrSuccess)
    goto libraryFailed;
  res.backend = dtrBackendName(backend);

  for (int d = 0; d < 3; d++) {
    s.dom.n[d] = shape[d];
    s.phys.start[d] = physBox.start[d], s.phys.size[d] = physBox.size[d], s.phys.order[d] = physBox.order[d];
    s.spec.start[d] = specBox.start[d], s.spec.size[d] = specBox.size[d], s.spec.order[d] = specBox.order[d];
  }
  s.dom.lz = o.lz;
  s.dbl = o.dbl;
  s.gpu = o.gpu;
  allocateArrays(&s);
  if (!s.failure.failed && (physBox.bytes != physBytes(&s) || specBox.bytes != specBytes(&s)))
    exFail(&s.failure, "the plan's boxes hold %zu and %zu bytes, not the %zu and %zu of one real and one complex field",
           physBox.bytes, specBox.bytes, physBytes(&s), specBytes(&s));
  exTimerCreate(&timer, o.iters, o.gpu, s.stream, &s.failure);
  if (exAgreeBad(PROGRAM, s.failure.failed, s.failure.error)) goto finish;

  /* f where the solve reads it, then the warm-up solve. */
  rightHandSide(&s);
  if (solve(&s)) goto solveFailed;
  if (o.gpu && !s.failure.failed) {
    const cudaError_t e = cudaStreamSynchronize(s.stream);
    if (e != cudaSuccess) exFail(&s.failure, "the warm-up solve on the GPU: %s", cudaGetErrorString(e));
  }
  if (exAgreeBad(PROGRAM, s.failure.failed, s.failure.error)) goto finish;

  /* The timed solves. */
  exTimerStart(&timer, &s.failure);
  for (int i = 0; i < o.iters; i++) {
    if (solve(&s)) goto solveFailed;
    exTimerMark(&timer, i, &s.failure);
  }
  exTimerRead(&timer, "the solves", &s.failure);
  if (exAgreeBad(PROGRAM, s.failure.failed, s.failure.error)) goto finish;

  /* The slowest rank's time of each solve; the median over the solves. */
  res.solve = exSlowestMedian(timer.times, o.iters);
  res.solveMin = timer.times[0], res.solveMax = timer.times[o.iters - 1];

  res.residualBound = o.dbl ? PS_BOUND_FP64 : PS_BOUND_FP32;
  res.errorBound = res.residualBound * fmax(1.0, 1.0 / psSmallestEigenvalue(&s.dom));
  res.passed = 1;
  if (o.check) {
    /* u, then -lap u by the second transform into f's array; both to the host and compared there. */
    const size_t bytes = physBytes(&s);
    hostU = malloc(bytes ? bytes : 1);
    hostLu = malloc(bytes ? bytes : 1);
    if (!hostU || !hostLu) exFail(&s.failure, "cannot allocate %zu bytes of host memory for the check", 2 * bytes);
    else if (exCopy(s.gpu, s.stream, hostU, s.u, bytes, cudaMemcpyDeviceToHost))
      exFail(&s.failure, "cannot copy the solution from the GPU");
    if (laplacian(&s)) goto solveFailed;
    if (!s.failure.failed && exCopy(s.gpu, s.stream, hostLu, s.f, bytes, cudaMemcpyDeviceToHost))
      exFail(&s.failure, "cannot copy -lap u from the GPU");
    if (exAgreeBad(PROGRAM, s.failure.failed, s.failure.error)) goto finish;
    checkErrors(&s, hostU, hostLu, &res.error, &res.residual);
    res.checked = 1;
    res.passed = res.error <= res.errorBound && res.residual <= res.residualBound;
  }
  if (rank == 0) {
    printf("# poisson: -lap u = f on [0, 2 pi)^2 x (0, %g), u = 0 on the walls: %lld x %lld x %lld %s (R2C, DST-II along z), "
           "%d ranks on a %d x %d grid (%s), %s backend, %d chunk%s\n",
           o.lz, o.shape[0], o.shape[1], o.shape[2], o.dbl ? "fp64" : "fp32", nranks, res.pr, res.pc,
           o.autogrid ? (res.pr == 1 ? "slabs, chosen by dtrGridAutotune" : "pencils, chosen by dtrGridAutotune")
                      : (res.pr == 1 ? "slabs" : "pencils"),
           res.backend, res.chunks, res.chunks == 1 ? "" : "s");
    printf("# time per solve (forward, division, inverse): %.3f ms (median of %d solve%s after a warm-up solve, slowest rank; "
           "%.3f to %.3f ms)\n",
           res.solve * 1e3, o.iters, o.iters == 1 ? "" : "s", res.solveMin * 1e3, res.solveMax * 1e3);
    if (o.check) {
      printf("#   against the manufactured solution: max |u - u*| / max |u*| = %.2e (bound %.3g%s): %s\n", res.error,
             res.errorBound, res.errorBound > res.residualBound ? ", widened by (Lz / pi)^2" : "",
             res.error <= res.errorBound ? "OK" : "FAILED");
      if (res.errorBound > 1e-3)
        printf("#     (at Lz = %g the slowest sine's eigenvalue, (pi / Lz)^2, amplifies %s rounding past what this check can "
               "tell from a wrong mode; a smaller Lz or fp64 checks the solve)\n",
               o.lz, o.dbl ? "fp64" : "fp32");
      printf("#   the residual by a second transform: max |-lap u - f| / (max |f| + lambda_max max |u*|) = %.2e (bound %.0e): %s\n",
             res.residual, res.residualBound, res.residual <= res.residualBound ? "OK" : "FAILED");
    }
    if (o.json && writeJson(&o, &res)) {
      fprintf(stderr, PROGRAM ": cannot write %s\n", o.json);
      res.passed = 0;
    }
    if (o.check) printf(PROGRAM ": %s\n", res.passed ? "every check passed" : "a check FAILED");
  }
  MPI_Bcast(&res.passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  status = res.passed ? 0 : 1;
  goto finish;

libraryFailed:
  status = exLibraryFailure(PROGRAM, r);
  goto finish;
solveFailed:
  /* A transform failed, on every rank alike: a rank's own failure made it refuse, naming the rank. */
  if (rank == 0) fprintf(stderr, PROGRAM ": %s\n", s.failure.error);
  status = 1;
finish:
  /* Teardown: a failure here still fails a run that had passed (a kernel's error surfacing late). */
  {
    int clean = !(o.gpu && s.stream && cudaStreamSynchronize(s.stream) != cudaSuccess);
    clean &= exTimerDestroy(&timer) == 0;
    clean &= freeArrays(&s) == 0;
    if (s.plan) clean &= dtrFftPlanDestroy(s.plan) == dtrSuccess;
    if (grid) clean &= dtrGridDestroy(grid) == dtrSuccess;
    if (s.stream) clean &= cudaStreamDestroy(s.stream) == cudaSuccess;
    if (!clean) {
      fprintf(stderr, PROGRAM ": rank %d: releasing the plan, the arrays or the stream failed\n", rank);
      if (!status) status = 1;
    }
  }
  free(hostU);
  free(hostLu);
  MPI_Finalize();
  return status;
}
