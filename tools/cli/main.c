/* disttranspose: verify and benchmark the distributed transpose on this machine (mpirun -np N). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "internal.h"
#include "options.h"
#include "pencil_bench.h"
#include "report.h"

#define DEFAULT_GPU_BYTES ((uint64_t)1 << 30)
#define DEFAULT_CPU_BYTES ((uint64_t)32 << 20)

/* A rank that timed out cannot reach the others to agree or to finalize: it says why, and ends the job
 * (mpirun then stops every rank, the stalled one too). */
static void abortOnTimeout(dtrResult_t res, int rank) {
  if (res != dtrTimeout) return;
  fprintf(stderr, "disttranspose: rank %d: %s: %s\n", rank, dtrGetErrorString(res), dtrGetLastError());
  fflush(stderr);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* --grid auto: the grid (and, for --backend auto, the backend) under which the chain of transposes
 * X->Y->Z->Y->X (X->Z->X on slabs) ran fastest, measured on every grid; the table on rank 0. Collective;
 * 0 on success, else the exit status. */
static int autotuneGrid(dtrCliOptions* o, int rank) {
  dtrAutotuneConfig_t cfg;
  dtrAutotuneConfigInit(&cfg);
  dtrCliConfig(o, &cfg.transpose);
  cfg.howmany = o->howmany;
  dtrAutotuneTiming_t timings[64];
  int count = 0;
  cfg.timings = timings;
  cfg.capacity = 64;
  cfg.count = &count;
  dtrBackend_t backend = dtrBackendAuto;
  const dtrResult_t res = dtrGridAutotune(MPI_COMM_WORLD, o->shape, o->type, dtrAutotuneTransposes, &cfg, &o->pr, &o->pc, &backend);
  abortOnTimeout(res, rank);
  if (res != dtrSuccess) {
    if (rank == 0) fprintf(stderr, "disttranspose: --grid auto: %s: %s\n", dtrGetErrorString(res), dtrGetLastError());
    return 1;
  }
  if (rank == 0) {
    printf("# --grid auto: the transposes X->Y->Z->Y->X (X->Z->X on 1xP) on every grid, median of %d iterations of the "
           "slowest rank:\n#   %-9s %-7s %14s\n", cfg.iterations, "grid", "backend", "chain(us)");
    for (int i = 0; i < count && i < 64; i++) {
      char grid[32];
      snprintf(grid, sizeof grid, "%dx%d", timings[i].pr, timings[i].pc);
      if (timings[i].result == dtrSuccess)
        printf("#   %-9s %-7s %14.1f%s\n", grid, dtrBackendName(timings[i].backend), timings[i].seconds * 1e6,
               timings[i].pr == o->pr && timings[i].backend == backend ? "  <- chosen" : "");
      else
        printf("#   %-9s %-7s %14s (%s)\n", grid, dtrBackendName(timings[i].backend), "skipped",
               dtrGetErrorString(timings[i].result));
    }
    printf("#\n");
  }
  /* The rows below run the chosen backend where the user left it to auto. */
  if (o->backend == dtrBackendAuto) o->backend = backend;
  return 0;
}

/* --shape: every pencil transpose of the array on the grid, one row each. Returns the exit status. */
static int runPencils(const dtrCliOptions* options, int gpus) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  dtrCliOptions chosen = *options;
  const dtrCliOptions* o = &chosen;
  /* The header first: the tuning's table belongs under it. */
  dtrReportHeader(o, gpus);
  if (options->autogrid) {
    const int status = autotuneGrid(&chosen, rank);
    if (status) return status;
  }
  dtrGrid_t grid = NULL;
  dtrResult_t res = dtrGridCreate(&grid, MPI_COMM_WORLD, o->pr, o->pc);
  if (res != dtrSuccess) {
    if (rank == 0) fprintf(stderr, "disttranspose: --grid: %s\n", dtrGetLastError());
    return 2;
  }
  int pr, pc;
  dtrGridGetDims(grid, &pr, &pc, NULL, NULL);
  dtrReportPencilHead(o, pr, pc);
  dtrPencil_t from[6], to[6];
  const int n = dtrPencilBenchDirections(pr, from, to);
  dtrPencilBenchResult results[6];
  int status = 0, done = 0;
  uint64_t wrong = 0;
  for (int i = 0; i < n; i++) {
    res = dtrPencilBenchRun(o, grid, from[i], to[i], &results[i]);
    abortOnTimeout(res, rank);
    if (res != dtrSuccess) {
      if (rank == 0)
        fprintf(stderr, "disttranspose: %s -> %s: %s: %s\n", dtrPencilName(from[i]), dtrPencilName(to[i]),
                dtrGetErrorString(res), dtrGetLastError());
      status = 1;
      break;
    }
    dtrReportPencilRow(&results[i]);
    wrong += results[i].wrong;
    done++;
  }
  if (rank == 0 && done)
    printf("# Wrong entries: %llu %s\n#\n", (unsigned long long)wrong, wrong ? "FAILED" : (o->check ? "OK" : "(not checked)"));
  if (wrong) status = 1;
  if (rank == 0 && o->json && done && dtrReportPencilJson(o->json, results, done)) {
    fprintf(stderr, "disttranspose: cannot write --json file '%s'\n", o->json);
    status = 1;
  }
  dtrGridDestroy(grid);
  return status;
}

/*
 * Collective, before the program's other collectives: every rank parsed its command line and read
 * the environment without a fault, and gave the same options and job settings (an MPMD launch, or an
 * mpirun -x on some ranks, can give them different ones: a different --iters would leave ranks in
 * different timing loops). Otherwise the lowest rank at fault says why, and every rank ends. Blocking
 * MPI on purpose: the ranks have not yet agreed on a timeout (DTR_TIMEOUT is among the values).
 */
static int agreeOnOptions(int parsed, const char* err, const dtrCliOptions* o, int rank, int nranks) {
  const dtrEnvParams* env = dtrEnvParamsGet();
  const int fault = parsed != 0 || env->bad;
  int mine = fault ? rank : nranks, first = nranks;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < nranks) {
    if (rank == first) fprintf(stderr, "disttranspose: rank %d: %s\n", rank, parsed ? err : env->bad_message);
    return -1;
  }
  dtrAgreedValue v[24 + DTR_ENV_AGREED] = {
      {"--rows", o->rows, dtrValueNumber},          {"--cols", o->cols, dtrValueNumber},
      {"--dtype", (int64_t)o->type, dtrValueType}, {"--howmany", o->howmany, dtrValueNumber},
      {"--backend", (int64_t)o->backend, dtrValueBackend},
      {"--kernel", (int64_t)o->kernel, dtrValueKernel},
      {"--stages", o->stages, dtrValueNumber},      {"--inplace", o->inplace, dtrValueNumber},
      {"--iters", o->iters, dtrValueNumber},        {"--warmup", o->warmup, dtrValueNumber},
      {"--check", o->check, dtrValueNumber},        {"--minbytes", (int64_t)o->minbytes, dtrValueNumber},
      {"--maxbytes", (int64_t)o->maxbytes, dtrValueNumber},
      {"--stepfactor (in thousandths)", llround(o->factor * 1000), dtrValueNumber},
      {"--shape nx", o->shape[0], dtrValueNumber},  {"--shape ny", o->shape[1], dtrValueNumber},
      {"--shape nz", o->shape[2], dtrValueNumber},  {"--grid rows", o->pr, dtrValueNumber},
      {"--grid columns", o->pc, dtrValueNumber},    {"--help", o->help, dtrValueNumber},
      {"DTR_TIMEOUT (in ms)", llround(env->timeout * 1000), dtrValueNumber},
      {"--grid auto", o->autogrid, dtrValueNumber}};
  int n = 22;
  n += dtrEnvParamsAgreed(env, v + n);
  if (dtrAgreeValues(MPI_COMM_WORLD, v, n) != dtrSuccess) {
    if (rank == 0) fprintf(stderr, "disttranspose: %s\n", dtrGetLastError());
    return -1;
  }
  return 0;
}

/* The square matrix closest to `bytes` per rank. */
static int64_t squareSide(uint64_t bytes, int nranks, size_t entry) {
  int64_t n = (int64_t)floor(sqrt((double)bytes * nranks / (double)entry));
  return n < 1 ? 1 : n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  dtrCliOptions o;
  char err[512] = "";
  const int parsed = dtrCliParse(argc, argv, &o, err, sizeof err);
  if (agreeOnOptions(parsed, err, &o, rank, nranks)) {
    MPI_Finalize();
    return 2;
  }
  if (o.help) {
    if (rank == 0) dtrCliUsage(stdout);
    MPI_Finalize();
    return 0;
  }

  int gpus = 0;
  dtrEveryRankHasGpu(MPI_COMM_WORLD, &gpus);
  dtrBackend_t likely = o.backend != dtrBackendAuto ? o.backend : dtrEnvParamsGet()->backend;
  if (likely == dtrBackendAuto) likely = gpus ? dtrBackendNccl : dtrBackendCpu;
  /* The program picks its GPU, the node-local rank's (modulo the GPUs: more ranks than GPUs share
   * them, which the p2p backend serves) unless --device says; the library takes the current one. A
   * device that does not exist is the plan's to report, on every rank. */
  if (gpus) {
    MPI_Comm local;
    int localRank = 0, count = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &localRank);
    MPI_Comm_free(&local);
    cudaGetDeviceCount(&count);
    const int dev = o.device >= 0 ? o.device : count > 0 ? localRank % count : 0;
    if (dev < count) cudaSetDevice(dev);
  }
  if (o.shape[0]) {
    const int status = runPencils(&o, likely != dtrBackendCpu && gpus);
    MPI_Finalize();
    return status;
  }
  const size_t entry = dtrDataTypeSize(o.type) * (size_t)o.howmany;

  /* The shapes to run: one given shape, a sweep of square ones, or the default size. */
  int64_t shapes[128][2];
  int n = 0;
  if (o.rows) {
    shapes[n][0] = o.rows;
    shapes[n++][1] = o.cols;
  } else {
    uint64_t lo = o.minbytes ? o.minbytes : (likely != dtrBackendCpu ? DEFAULT_GPU_BYTES : DEFAULT_CPU_BYTES);
    uint64_t hi = o.minbytes ? o.maxbytes : lo;
    for (double b = (double)lo; b <= (double)hi * (1 + 1e-9) && n < 128; b *= o.factor) {
      int64_t side = squareSide((uint64_t)b, nranks, entry);
      if (n && shapes[n - 1][0] == side) continue;
      shapes[n][0] = shapes[n][1] = side;
      n++;
    }
  }

  dtrReportHeader(&o, likely != dtrBackendCpu && gpus);
  dtrReportTableHead();
  dtrBenchResult* results = calloc((size_t)n, sizeof *results);
  int status = 0, done = 0;
  uint64_t wrong = 0;
  double busbwSum = 0;
  for (int i = 0; i < n; i++) {
    dtrResult_t res = dtrBenchRun(&o, shapes[i][0], shapes[i][1], &results[i]);
    abortOnTimeout(res, rank);
    if (res != dtrSuccess) {
      if (rank == 0)
        fprintf(stderr, "disttranspose: %lld x %lld %s: %s: %s\n", (long long)shapes[i][0], (long long)shapes[i][1],
                dtrDataTypeName(o.type), dtrGetErrorString(res), dtrGetLastError());
      status = 1;
      break;
    }
    dtrReportRow(&results[i]);
    wrong += results[i].wrong;
    busbwSum += results[i].busbw;
    done++;
  }
  if (rank == 0 && done) {
    printf("# Wrong entries: %llu %s\n", (unsigned long long)wrong, wrong ? "FAILED" : (o.check ? "OK" : "(not checked)"));
    printf("# Avg bus bandwidth: %.2f GB/s\n#\n", busbwSum / done);
  }
  if (wrong) status = 1;
  if (rank == 0 && o.json && done && dtrReportJson(o.json, results, done)) {
    fprintf(stderr, "disttranspose: cannot write --json file '%s'\n", o.json);
    status = 1;
  }
  free(results);
  MPI_Finalize();
  return status;
}
