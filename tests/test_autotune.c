/*
 * The grid tuner (dtrGridAutotune) under mpiexec, on the backend argv[1] names (cpu: host buffers, in
 * CI; gpu: auto on the GPUs, one per rank or shared):
 *   - each target (the FFT C2C and R2C, the pencil transposes, the halo exchange) on shapes that divide
 *     and that do not, on the world and on both halves of a split communicator at once;
 *   - every rank gets the same grid and backend, a factorisation of its communicator's size that makes
 *     a grid; the report lists every candidate (each grid, each backend tried) in the order documented,
 *     the same on every rank, and the choice is its fastest (the earlier of equal ones);
 *   - a report shorter than the candidates, and none at all;
 *   - on GPUs, the caller's current device unchanged after every call;
 *   - bad input: the same error on every rank, from one rank's bad argument or an argument that differs;
 *     and a backend that serves no candidate, refused with a message naming it.
 * test_autotune cpu|gpu [-v]   (-v: each case's name before it runs)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "check_everywhere.h"
#include "disttranspose.h"
#include "node_local.h"

#define MAX_CANDIDATES 64

static int rank, nranks, gpu, verbose, myDevice = -1;

static void expectDevice(const char* after) {
  if (!gpu) return;
  int d = -1;
  cudaGetDevice(&d);
  EXPECT(d == myDevice, "after %s the current device is %d, not %d", after, d, myDevice);
}

/* The same value on every rank of comm. */
static int sameEverywhere(MPI_Comm comm, double v) {
  double lo = 0, hi = 0;
  MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, comm);
  return lo == hi;
}

static dtrAutotuneConfig_t baseConfig(void) {
  dtrAutotuneConfig_t c;
  dtrAutotuneConfigInit(&c);
  if (!gpu) c.transpose.backend = dtrBackendCpu;
  c.iterations = 2;
  return c;
}

static int candidatesPerGrid(void) { return gpu ? 2 : 1; }

/* One tuning on comm, checked. */
static void runCase(MPI_Comm comm, const char* name, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                    dtrAutotuneConfig_t c) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (verbose && rank == 0) printf("case %s\n", name);
  dtrAutotuneTiming_t report[MAX_CANDIDATES];
  memset(report, 0xff, sizeof report);
  int count = -1, pr = -1, pc = -1;
  dtrBackend_t backend = dtrNumBackends;
  c.timings = report;
  c.capacity = MAX_CANDIDATES;
  c.count = &count;
  const dtrResult_t res = dtrGridAutotune(comm, shape, type, what, &c, &pr, &pc, &backend);
  expectDevice(name);
  int ok = res == dtrSuccess, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  EXPECT(ok, "%s: %s: %s", name, dtrGetErrorString(res), dtrGetLastError());
  if (!all) return;
  EXPECT(sameEverywhere(comm, pr) && sameEverywhere(comm, pc) && sameEverywhere(comm, backend),
         "%s: the ranks chose different grids or backends (this one %d x %d %s)", name, pr, pc, dtrBackendName(backend));
  EXPECT(pr >= 1 && pc >= 1 && pr * pc == size, "%s: %d x %d is no grid of %d ranks", name, pr, pc, size);
  if (!gpu) EXPECT(backend == dtrBackendCpu, "%s: backend %s, not cpu", name, dtrBackendName(backend));
  /* Every candidate, in order: pr ascending, each backend tried. */
  int divisors = 0;
  for (int r = 1; r <= size; r++) divisors += size % r == 0;
  EXPECT(count == divisors * candidatesPerGrid(), "%s: %d candidates reported, expected %d", name, count,
         divisors * candidatesPerGrid());
  EXPECT(sameEverywhere(comm, count), "%s: the ranks report different counts", name);
  int at = 0, best = -1, succeeded = 0;
  for (int r = 1; r <= size && count <= MAX_CANDIDATES; r++) {
    if (size % r) continue;
    for (int b = 0; b < candidatesPerGrid(); b++, at++) {
      const dtrAutotuneTiming_t* e = &report[at];
      EXPECT(e->pr == r && e->pc == size / r, "%s: candidate %d is %d x %d, expected %d x %d", name, at, e->pr, e->pc, r, size / r);
      const dtrBackend_t want = gpu ? (b == 0 ? dtrBackendP2p : dtrBackendNccl) : dtrBackendCpu;
      EXPECT(e->backend == want, "%s: candidate %d on %s, expected %s", name, at, dtrBackendName(e->backend), dtrBackendName(want));
      EXPECT(sameEverywhere(comm, e->seconds) && sameEverywhere(comm, e->result), "%s: candidate %d differs between ranks", name, at);
      if (e->result == dtrSuccess) {
        succeeded++;
        EXPECT(e->seconds > 0, "%s: candidate %d took %g s", name, at, e->seconds);
        if (best < 0 || e->seconds < report[best].seconds) best = at;
      } else {
        EXPECT(e->seconds == 0, "%s: skipped candidate %d has a time", name, at);
      }
    }
  }
  /* The CPU backend serves every grid; on GPUs at least one backend must. */
  if (!gpu) EXPECT(succeeded == count, "%s: %d of %d candidates ran", name, succeeded, count);
  EXPECT(best >= 0, "%s: no candidate ran but the tuning succeeded", name);
  if (best >= 0)
    EXPECT(report[best].pr == pr && report[best].pc == pc && report[best].backend == backend,
           "%s: chose %d x %d %s, but the fastest reported is %d x %d %s", name, pr, pc, dtrBackendName(backend),
           report[best].pr, report[best].pc, dtrBackendName(report[best].backend));
  /* The choice makes a grid. */
  dtrGrid_t grid = NULL;
  EXPECT(dtrGridCreate(&grid, comm, pr, pc) == dtrSuccess, "%s: grid %d x %d: %s", name, pr, pc, dtrGetLastError());
  if (grid) dtrGridDestroy(grid);
}

/* Every rank gets `want`, whichever rank's argument was bad, and the caller's device is as it was. */
static void expectEverywhere(dtrResult_t got, dtrResult_t want, const char* what) {
  dtrTestExpectEverywhere(got, want, what);
  expectDevice(what);
}

static void reports(void) {
  const int64_t shape[3] = {12, 10, 9};
  dtrAutotuneConfig_t c = baseConfig();
  int pr = 0, pc = 0, count = -1;
  /* No report, no backend asked back. */
  EXPECT(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &c, &pr, &pc, NULL) == dtrSuccess,
         "without a report: %s", dtrGetLastError());
  EXPECT(pr * pc == nranks, "without a report: %d x %d", pr, pc);
  /* A report of one entry: the count says how many there were, nothing past the capacity is written. */
  dtrAutotuneTiming_t report[3];
  memset(report, 0xab, sizeof report);
  unsigned char untouched[sizeof report[1]];
  memset(untouched, 0xab, sizeof untouched);
  c.timings = report;
  c.capacity = 1;
  c.count = &count;
  EXPECT(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneTransposes, &c, &pr, &pc, NULL) == dtrSuccess,
         "short report: %s", dtrGetLastError());
  EXPECT(count >= 1, "short report: count %d", count);
  EXPECT(report[0].pr == 1 && report[0].pc == nranks, "short report: first candidate %d x %d", report[0].pr, report[0].pc);
  EXPECT(!memcmp(&report[1], untouched, sizeof untouched), "short report: an entry past the capacity was written");
  /* The defaults (config NULL): auto's backends. */
  if (gpu) {
    EXPECT(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, NULL, &pr, &pc, NULL) == dtrSuccess,
           "config NULL: %s", dtrGetLastError());
    expectDevice("config NULL");
  }
}

static void badInput(void) {
  const int64_t shape[3] = {12, 10, 9}, zero[3] = {12, 0, 9};
  const dtrAutotuneConfig_t c = baseConfig();
  dtrAutotuneConfig_t bad;
  int pr = 0, pc = 0;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &c, NULL, &pc, NULL), dtrInvalidArgument, "pr NULL");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &c, &pr, NULL, NULL), dtrInvalidArgument, "pc NULL");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, NULL, dtrComplex64, dtrAutotuneFft, &c, &pr, &pc, NULL), dtrInvalidArgument, "shape NULL");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, zero, dtrComplex64, dtrAutotuneFft, &c, &pr, &pc, NULL), dtrInvalidArgument, "shape with 0");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, (dtrAutotuneTarget_t)7, &c, &pr, &pc, NULL), dtrInvalidArgument,
                   "target 7");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, (dtrDataType_t)42, dtrAutotuneTransposes, &c, &pr, &pc, NULL),
                   dtrInvalidArgument, "type 42");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrInt8, dtrAutotuneFft, &c, &pr, &pc, NULL), dtrInvalidArgument, "C2C of int8");
  bad = c;
  bad.fft_kind = dtrFftR2C;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument, "R2C of c64");
  bad = c;
  bad.fft_kind = (dtrFftKind_t)5;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument, "kind 5");
  bad = c;
  bad.iterations = 0;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument, "iterations 0");
  bad = c;
  bad.howmany = 0;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrFloat32, dtrAutotuneTransposes, &bad, &pr, &pc, NULL), dtrInvalidArgument,
                   "howmany 0");
  bad = c;
  bad.transpose.workspace = dtrWorkspaceGrid;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrFloat32, dtrAutotuneTransposes, &bad, &pr, &pc, NULL), dtrInvalidArgument,
                   "transpose.workspace");
  bad = c;
  bad.capacity = 4;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument,
                   "capacity without timings");
  bad = c;
  bad.halo[1] = -1;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrFloat64, dtrAutotuneHalo, &bad, &pr, &pc, NULL), dtrInvalidArgument, "halo -1");
  bad = c;
  bad.periodic[2] = 2;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrFloat64, dtrAutotuneHalo, &bad, &pr, &pc, NULL), dtrInvalidArgument,
                   "periodic 2");
  bad = c;
  bad.transpose.backend = (dtrBackend_t)9;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument, "backend 9");
  expectEverywhere(dtrGridAutotune(MPI_COMM_NULL, shape, dtrComplex64, dtrAutotuneFft, &c, &pr, &pc, NULL), dtrInvalidArgument, "comm NULL");
  /* Only the last rank's argument is bad: every rank fails. */
  bad = c;
  if (rank == nranks - 1) bad.iterations = -3;
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrInvalidArgument,
                   "iterations -3 on one rank");
  expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &c, rank == nranks - 1 ? NULL : &pr, &pc, NULL),
                   dtrInvalidArgument, "pr NULL on one rank");
  if (nranks > 1) {
    const int64_t other[3] = {12, 10, rank == 0 ? 9 : 8};
    expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, other, dtrComplex64, dtrAutotuneFft, &c, &pr, &pc, NULL), dtrMismatch,
                     "nz differing between ranks");
    bad = c;
    bad.iterations = rank == 0 ? 2 : 3;
    expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneFft, &bad, &pr, &pc, NULL), dtrMismatch,
                     "iterations differing between ranks");
    expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, rank == 0 ? dtrAutotuneFft : dtrAutotuneTransposes, &c, &pr,
                                     &pc, NULL),
                     dtrMismatch, "targets differing between ranks");
    expectEverywhere(dtrGridAutotune(MPI_COMM_WORLD, shape, rank == 0 ? dtrComplex64 : dtrComplex128, dtrAutotuneFft, &c, &pr, &pc, NULL),
                     dtrMismatch, "types differing between ranks");
  }
  /* A backend that serves no candidate: where no rank has a GPU, p2p; the error names the candidates. */
  int count = 0, none = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  (void)cudaGetLastError();
  int mine = count == 0;
  MPI_Allreduce(&mine, &none, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (none) {
    bad = c;
    bad.transpose.backend = dtrBackendP2p;
    int n = -1;
    bad.count = &n;
    const dtrResult_t got = dtrGridAutotune(MPI_COMM_WORLD, shape, dtrComplex64, dtrAutotuneTransposes, &bad, &pr, &pc, NULL);
    int failed = got != dtrSuccess, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT(all, "p2p without GPUs: the tuning succeeded somewhere");
    EXPECT(strstr(dtrGetLastError(), "no grid could run") != NULL, "p2p without GPUs: message '%s'", dtrGetLastError());
    EXPECT(n >= 1, "p2p without GPUs: %d candidates reported", n);
  }
}

int main(int argc, char** argv) {
  if (dtrTestStart(&argc, &argv, "test_autotune", &rank, &nranks, &gpu, &verbose, &myDevice)) return DTR_TEST_SKIP;
  static const int64_t shapes[][3] = {{16, 12, 10}, {9, 7, 5}, {2, 3, 1}};
  int n = 0;
  for (int s = 0; s < 3; s++) {
    char name[96];
    dtrAutotuneConfig_t c = baseConfig();
    snprintf(name, sizeof name, "fft c2c c64 %lldx%lldx%lld", (long long)shapes[s][0], (long long)shapes[s][1], (long long)shapes[s][2]);
    runCase(MPI_COMM_WORLD, name, shapes[s], dtrComplex64, dtrAutotuneFft, c), n++;
    c.howmany = 1 + s; /* the FFT's fields */
    snprintf(name, sizeof name, "fft c2c c64 x%d %lldx%lldx%lld", 1 + s, (long long)shapes[s][0], (long long)shapes[s][1],
             (long long)shapes[s][2]);
    runCase(MPI_COMM_WORLD, name, shapes[s], dtrComplex64, dtrAutotuneFft, c), n++;
    c = baseConfig();
    c.fft_kind = dtrFftR2C;
    c.iterations = 1 + s;
    snprintf(name, sizeof name, "fft r2c fp64 %lldx%lldx%lld", (long long)shapes[s][0], (long long)shapes[s][1], (long long)shapes[s][2]);
    runCase(MPI_COMM_WORLD, name, shapes[s], dtrFloat64, dtrAutotuneFft, c), n++;
    c = baseConfig();
    c.howmany = 1 + s;
    snprintf(name, sizeof name, "transposes fp32 x%d %lldx%lldx%lld", 1 + s, (long long)shapes[s][0], (long long)shapes[s][1],
             (long long)shapes[s][2]);
    runCase(MPI_COMM_WORLD, name, shapes[s], dtrFloat32, dtrAutotuneTransposes, c), n++;
    c = baseConfig();
    c.halo_pencil = (dtrPencil_t)s;
    c.halo[0] = s, c.halo[1] = 1, c.halo[2] = 2 - s;
    c.periodic[0] = s != 1, c.periodic[1] = 1, c.periodic[2] = s == 1;
    snprintf(name, sizeof name, "halo %s c128 %lldx%lldx%lld", dtrPencilName((dtrPencil_t)s), (long long)shapes[s][0],
             (long long)shapes[s][1], (long long)shapes[s][2]);
    runCase(MPI_COMM_WORLD, name, shapes[s], dtrComplex128, dtrAutotuneHalo, c), n++;
  }
  /* Each half of the world tuned on its own, both at once. */
  if (nranks > 1) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    const int64_t s[3] = {10, 8, 6};
    runCase(half, "fft c2c c128 on a half", s, dtrComplex128, dtrAutotuneFft, baseConfig()), n++;
    runCase(half, "transposes c64 on a half", s, dtrComplex64, dtrAutotuneTransposes, baseConfig()), n++;
    MPI_Comm_free(&half);
  }
  reports();
  badInput();
  const int result = dtrTestEndEverywhere("test_autotune", gpu, n);
  MPI_Finalize();
  return result;
}
