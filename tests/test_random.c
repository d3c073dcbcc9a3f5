/*
 * Randomized sweeps under mpiexec, on the backend named by argv[1] (cpu: host buffers, in CI; nccl
 * or p2p: one GPU per rank). A seeded generator draws configurations the fixed tests do not list:
 * shapes with sides of 1, primes, fewer rows or columns than ranks, R != C; every type; howmany
 * 1-5; pipeline stages; in place or not; on GPUs a forced kernel; and pencil transposes on every
 * grid the rank count factors into, with their own or the grid's workspace. Each is executed twice
 * on the same buffers (output poisoned, input filled again between) and checked bit for bit.
 *
 *   test_random BACKEND [--count N] [--seed S] [--only I]
 *
 * The seed (from --seed, else DTR_TEST_SEED, else the clock) is printed first; case I of seed S is
 * the same on every run, so a failure names the command that repeats it alone.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core/names.h"
#include "disttranspose.h"
#include "launch.h"
#include "support/pattern.h"
#include "support/pattern_host.h"
#include "harness.h"

static int rank, nranks, gpu;
static dtrBackend_t backend = dtrBackendCpu;
static dtrTestMemory mem;

/* splitmix64: one stream per (seed, case), the same on every rank. */
typedef struct {
  uint64_t s;
} Rng;
static uint64_t next(Rng* r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int64_t below(Rng* r, int64_t n) { return n > 0 ? (int64_t)(next(r) % (uint64_t)n) : 0; }

/* A side: 1, a prime, just below or above the rank count, a multiple of 16, or anything up to 600. */
static int64_t side(Rng* r) {
  static const int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 31, 97, 127, 251, 509, 1009};
  switch (below(r, 6)) {
    case 0: return 1;
    case 1: return primes[below(r, (int64_t)(sizeof primes / sizeof primes[0]))];
    case 2: return nranks > 1 ? nranks - 1 : 1;
    case 3: return nranks + 1 + below(r, 3);
    case 4: return 16 * (1 + below(r, 32));
    default: return 1 + below(r, 600);
  }
}

typedef struct {
  int pencil;           /* 0: a 2-D matrix; 1: a pencil transpose */
  int64_t rows, cols;   /* 2-D */
  int64_t shape[3];     /* pencils */
  int pr;               /* grid rows (pencils) */
  dtrPencil_t from, to;
  dtrDataType_t type;
  int64_t howmany;
  int stages, inplace;
  dtrKernel_t kernel;
  dtrWorkspace_t workspace;
} Config;

static Config draw(uint64_t seed, int index) {
  Rng r = {seed ^ ((uint64_t)index * 0xd1b54a32d192ed03ull)};
  next(&r);
  Config c;
  memset(&c, 0, sizeof c);
  c.pencil = below(&r, 5) == 0;
  c.type = (dtrDataType_t)below(&r, dtrNumTypes);
  c.howmany = below(&r, 3) == 0 ? 1 + below(&r, 5) : 1;
  static const int stageChoices[] = {0, 1, 2, 3, 5, 8};
  c.stages = stageChoices[below(&r, 6)];
  c.inplace = below(&r, 4) == 0;
  static const dtrKernel_t kernels[] = {dtrKernelAuto, dtrKernelAuto, dtrKernelSimt, dtrKernelSimt16, dtrKernelTma};
  c.kernel = gpu ? kernels[below(&r, 5)] : dtrKernelAuto;
  if (!c.pencil) {
    c.rows = side(&r);
    c.cols = side(&r);
    return c;
  }
  /* A grid from the rank count's divisors; boxes may come out empty. */
  int divisors[64], nd = 0;
  for (int d = 1; d <= nranks; d++)
    if (nranks % d == 0) divisors[nd++] = d;
  c.pr = divisors[below(&r, nd)];
  for (int d = 0; d < 3; d++) c.shape[d] = below(&r, 3) == 0 ? side(&r) % 41 + 1 : 1 + below(&r, 24);
  static const dtrPencil_t pairs[6][2] = {{dtrPencilX, dtrPencilY}, {dtrPencilY, dtrPencilX}, {dtrPencilY, dtrPencilZ},
                                          {dtrPencilZ, dtrPencilY}, {dtrPencilX, dtrPencilZ}, {dtrPencilZ, dtrPencilX}};
  const int p = (int)below(&r, c.pr == 1 ? 6 : 4);
  c.from = pairs[p][0];
  c.to = pairs[p][1];
  c.workspace = below(&r, 2) ? dtrWorkspaceGrid : dtrWorkspaceOwn;
  return c;
}

static void describe(const Config* c, char* buf, size_t len) {
  if (c->pencil)
    snprintf(buf, len, "pencils %lldx%lldx%lld on %dx%d %s->%s %s x%lld stages %d%s%s", (long long)c->shape[0],
             (long long)c->shape[1], (long long)c->shape[2], c->pr, nranks / c->pr, dtrPencilName(c->from),
             dtrPencilName(c->to), dtrDataTypeName(c->type), (long long)c->howmany, c->stages,
             c->inplace ? " in place" : "", c->workspace == dtrWorkspaceGrid ? " grid workspace" : "");
  else
    snprintf(buf, len, "%lld x %lld %s x%lld stages %d kernel %s%s", (long long)c->rows, (long long)c->cols,
             dtrDataTypeName(c->type), (long long)c->howmany, c->stages, dtrKernelName(c->kernel),
             c->inplace ? " in place" : "");
}

/* The plan, the boxes of its input and output, and what each holds, for either kind of case. */
static uint64_t runConfig(const Config* c) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.kernel = c->kernel;
  cfg.stages = c->stages;
  cfg.inplace = c->inplace;
  cfg.workspace = c->workspace;
  dtrPlan_t plan = NULL;
  dtrGrid_t grid = NULL;
  dtrPatternBox in, out;
  size_t inBytes, outBytes, e;
  dtrResult_t res;
  if (c->pencil) {
    res = dtrGridCreate(&grid, MPI_COMM_WORLD, c->pr, nranks / c->pr);
    EXPECT(res == dtrSuccess, "grid: %s", dtrGetLastError());
    if (res != dtrSuccess) return 1;
    dtrBox_t bi, bo;
    dtrPencilBox(grid, c->shape, c->from, c->type, c->howmany, -1, &bi);
    dtrPencilBox(grid, c->shape, c->to, c->type, c->howmany, -1, &bo);
    in = dtrPatternBoxOfPencil(&bi, c->shape);
    out = dtrPatternBoxOfPencil(&bo, c->shape);
    inBytes = bi.bytes, outBytes = bo.bytes, e = bi.entry_bytes;
    res = dtrPlanCreatePencil(&plan, grid, c->shape, c->from, c->to, c->type, c->howmany, &cfg);
  } else {
    dtrLocalSize_t ls;
    dtrLocalSize(c->rows, c->cols, c->type, c->howmany, MPI_COMM_WORLD, -1, &ls);
    in = dtrPatternSlabA(ls.in_rows, c->cols, ls.in_row_start);
    out = dtrPatternSlabB(ls.out_rows, c->rows, ls.out_row_start, c->cols);
    inBytes = ls.in_bytes, outBytes = ls.out_bytes, e = ls.entry_bytes;
    res = dtrPlanCreate(&plan, c->rows, c->cols, c->type, c->howmany, MPI_COMM_WORLD, &cfg);
  }
  EXPECT(res == dtrSuccess, "plan: %s", dtrGetLastError());
  uint64_t wrong = res == dtrSuccess ? 0 : 1;
  if (res == dtrSuccess) {
    /* In place: one buffer of the larger box, poisoned as a whole before A goes in. */
    const size_t most = inBytes > outBytes ? inBytes : outBytes;
    void* a = dtrTestAlloc(&mem, c->inplace ? most : inBytes);
    void* b = c->inplace ? a : dtrTestAlloc(&mem, outBytes);
    const dtrPatternBox whole = dtrPatternSlabA((int64_t)(most / e), 1, 0);
    for (int round = 0; round < 2; round++) {
      if (c->inplace) dtrTestPattern(&mem, dtrPatternPoison, a, &whole, e);
      else dtrTestPattern(&mem, dtrPatternPoison, b, &out, e);
      dtrTestPattern(&mem, dtrPatternFill, a, &in, e);
      res = dtrExecute(plan, a, b, mem.stream);
      EXPECT(res == dtrSuccess, "execute: %s", dtrGetLastError());
      wrong += dtrTestPattern(&mem, dtrPatternCheck, b, &out, e);
      /* Out of place the input must come back untouched. */
      if (!c->inplace) wrong += dtrTestPattern(&mem, dtrPatternCheck, a, &in, e);
    }
    dtrTestRelease(&mem, a);
    if (!c->inplace) dtrTestRelease(&mem, b);
    EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy: %s", dtrGetLastError());
  }
  if (grid) dtrGridDestroy(grid);
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2 || dtrParseBackend(argv[1], &backend)) {
    if (rank == 0) fprintf(stderr, "usage: test_random cpu|nccl|p2p [--count N] [--seed S] [--only I]\n");
    MPI_Finalize();
    return 2;
  }
  int count = 100, only = -1;
  unsigned long long seed = 0;
  const char* env = getenv("DTR_TEST_SEED");
  if (env && *env) seed = strtoull(env, NULL, 0);
  else seed = (unsigned long long)time(NULL);
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--count")) count = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--only")) only = atoi(argv[i + 1]);
  }
  /* Every rank draws what rank 0 drew. */
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  gpu = backend != dtrBackendCpu;
  if (dtrTestMemoryInit(&mem, backend) == DTR_TEST_SKIP) {
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  if (rank == 0) printf("seed %llu: %d configurations on %d ranks, backend %s\n", seed, count, nranks, argv[1]);
  uint64_t wrongTotal = 0;
  int cases = 0, bad = 0, pencils = 0;
  for (int i = only >= 0 ? only : 0; i < (only >= 0 ? only + 1 : count); i++) {
    const Config c = draw(seed, i);
    const int before = dtrTestFailures;
    uint64_t w = runConfig(&c), all = 0;
    MPI_Allreduce(&w, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    int failed = dtrTestFailures > before || all, anyFailed = 0;
    MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anyFailed && rank == 0) {
      char what[256];
      describe(&c, what, sizeof what);
      fprintf(stderr, "FAIL case %d (%s): %llu wrong entries; alone: mpiexec -np %d test_random %s --seed %llu --only %d\n", i,
              what, (unsigned long long)all, nranks, argv[1], seed, i);
    }
    wrongTotal += all;
    bad += anyFailed;
    pencils += c.pencil;
    cases++;
  }
  int failures = dtrTestFailures, anyFailures = 0;
  MPI_Allreduce(&failures, &anyFailures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("seed %llu, %d ranks: %d configurations (%d pencil), %d failed, %llu wrong entries\n", seed, nranks, cases,
           pencils, bad, (unsigned long long)wrongTotal);
  dtrTestMemoryFree(&mem);
  MPI_Finalize();
  return (wrongTotal || anyFailures) ? 1 : 0;
}
