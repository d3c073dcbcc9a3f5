/*
 * The FFT's real-to-real axes (dtrFftConfig_t.axes: DCT-II/III, DST-II/III) under mpiexec, on the
 * backend argv[1] names (cpu: FFTW's r2r kinds, in CI; gpu: the library's kernels around cuFFT), against
 * the transforms' defining sums applied axis by axis to the whole array in double precision (no FFT
 * library involved), on every rank alike:
 *   - every grid the rank count factors into, shapes with 1-point axes, primes, R != C, fewer planes
 *     than ranks, 2-D ones (nz = 1), and powers of two from 8 to 4096, which the GPU passes run in one
 *     trip (an odd count of real lines among them, the last of its pair alone; 2048 and 4096 points,
 *     whose lines take a whole block);
 *   - C2C c64 and c128 with any mix of kinds (a real-to-real kind acts on both parts of complex data),
 *     R2C fp32 and fp64 with x periodic and kinds on y and z, and R2C with every axis real-to-real (a
 *     real plan: real arrays of the input's shape on both sides, in place too);
 *   - the inverse's normalization folded into a real-to-real z pass (powers of two, 12 points, 1 point);
 *   - norms none and inverse (N counting 2n for a real-to-real axis), chunks 1, 2, 3 and 64, one and two
 *     fields, out of place (the input checked bit for bit) and in place; outputs poisoned with NaNs;
 *   - the forward against the sums (relative L2 error over all ranks: doubles 1e-12, singles 1e-5), the
 *     round trip back to the input with the normalization's factor;
 *   - each half of the world a grid of its own, the halves' plans running at the same time;
 *   - bad input on every rank: an unknown kind, a real-to-real x in an R2C plan whose other axes are not,
 *     norm ortho with a real-to-real axis, kinds that differ between ranks.
 * test_fft_r2r cpu|gpu [-v]
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "check.h"
#include "check_everywhere.h"
#include "disttranspose.h"
#include "fft_test_support.h"
#include "node_local.h"

static int rank, nranks, gpu, verbose, myDevice = -1;
static MPI_Comm caseComm; /* the ranks of the case's grid: the world, or half of it */
static cudaStream_t stream;


/* One forward transform of `kind` of a line of n complex points (stride s), by its defining sum; the
 * real-to-real kinds are FFTW's (REDFT10, REDFT01, RODFT10, RODFT01), on each part alike. */
static void transformLine(double* a, int64_t n, int64_t s, dtrFftAxis_t kind, double* line) {
  for (int64_t k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; j++) {
      const double* v = a + 2 * j * s;
      double w = 0;
      switch (kind) {
        case dtrFftPeriodic: {
          const double t = -2.0 * M_PI * (double)((j * k) % n) / (double)n, c = cos(t), sn = sin(t);
          re += v[0] * c - v[1] * sn;
          im += v[0] * sn + v[1] * c;
          continue;
        }
        case dtrFftDct2: w = 2 * cos(M_PI * (double)(2 * j + 1) * (double)k / (double)(2 * n)); break;
        case dtrFftDct3: w = j == 0 ? 1 : 2 * cos(M_PI * (double)j * (double)(2 * k + 1) / (double)(2 * n)); break;
        case dtrFftDst2: w = 2 * sin(M_PI * (double)(2 * j + 1) * (double)(k + 1) / (double)(2 * n)); break;
        default:
          w = j == n - 1 ? (k % 2 ? -1 : 1) : 2 * sin(M_PI * (double)(j + 1) * (double)(2 * k + 1) / (double)(2 * n));
          break;
      }
      re += w * v[0], im += w * v[1];
    }
    line[2 * k] = re, line[2 * k + 1] = im;
  }
  for (int64_t k = 0; k < n; k++) a[2 * k * s] = line[2 * k], a[2 * k * s + 1] = line[2 * k + 1];
}

/* The forward transform of field f of the whole input ([z][y][x], complex doubles; real: parts 0). */
static double* reference(const int64_t n[3], const dtrFftAxis_t axes[3], int real, int64_t field) {
  const int64_t N = n[0] * n[1] * n[2];
  double* a = malloc((size_t)N * 2 * sizeof *a);
  double* line = malloc((size_t)(n[0] + n[1] + n[2]) * 2 * sizeof *line);
  for (int64_t i = 0; i < N; i++) {
    const uint64_t index = fftTestFieldIndex((uint64_t)i, field);
    a[2 * i] = fftTestValue(index, 0), a[2 * i + 1] = real ? 0 : fftTestValue(index, 1);
  }
  for (int64_t z = 0; z < n[2]; z++)
    for (int64_t y = 0; y < n[1]; y++) transformLine(a + 2 * (z * n[1] + y) * n[0], n[0], 1, axes[0], line);
  for (int64_t z = 0; z < n[2]; z++)
    for (int64_t x = 0; x < n[0]; x++) transformLine(a + 2 * (z * n[1] * n[0] + x), n[1], n[0], axes[1], line);
  for (int64_t y = 0; y < n[1]; y++)
    for (int64_t x = 0; x < n[0]; x++) transformLine(a + 2 * (y * n[0] + x), n[2], n[0] * n[1], axes[2], line);
  free(line);
  return a;
}


static int execute(dtrFftPlan_t plan, const void* in, void* out, dtrFftDirection_t dir) {
  int bad = dtrFftExecute(plan, in, out, dir, stream) != dtrSuccess;
  if (gpu) bad |= cudaStreamSynchronize(stream) != cudaSuccess;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, caseComm);
  return bad;
}
static double sumAll(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, caseComm);
  return v;
}

typedef struct {
  int64_t shape[3];
  int pr, pc;
  dtrFftKind_t kind;
  dtrDataType_t type;
  dtrFftAxis_t axes[3];
  dtrFftNorm_t norm;
  int chunks, inplace;
  int64_t howmany;
} Case;

static void runCase(const Case* c) {
  static const char* const kindNames[] = {"P", "DCT2", "DCT3", "DST2", "DST3"};
  char name[200];
  snprintf(name, sizeof name, "%lldx%lldx%lld %s %s (%s, %s, %s) on %dx%d, norm %d, chunks %d%s, howmany %lld",
           (long long)c->shape[0], (long long)c->shape[1], (long long)c->shape[2], c->kind == dtrFftR2C ? "R2C" : "C2C",
           dtrDataTypeName(c->type), kindNames[c->axes[0]], kindNames[c->axes[1]], kindNames[c->axes[2]], c->pr, c->pc,
           (int)c->norm, c->chunks, c->inplace ? ", in place" : "", (long long)c->howmany);
  if (rank == 0 && verbose) printf("case %s\n", name), fflush(stdout);
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, caseComm, c->pr, c->pc) != dtrSuccess) {
    EXPECT(0, "%s: grid: %s", name, dtrGetLastError());
    return;
  }
  dtrFftConfig_t cfg;
  fftTestConfig(gpu, &cfg);
  cfg.chunks = c->chunks, cfg.norm = c->norm, cfg.howmany = c->howmany;
  memcpy(cfg.axes, c->axes, sizeof cfg.axes);
  dtrFftPlan_t plan = NULL;
  const dtrResult_t made = dtrFftPlanCreate(&plan, grid, c->shape, c->kind, c->type, &cfg);
  fftTestExpectDevice(gpu, myDevice, "dtrFftPlanCreate");
  dtrGridDestroy(grid);
  if (made != dtrSuccess) {
    EXPECT(0, "%s: plan: %s", name, dtrGetLastError());
    return;
  }
  const int realPlan = c->kind == dtrFftR2C && c->axes[0] && c->axes[1] && c->axes[2];
  const int dbl = c->type == dtrFloat64 || c->type == dtrComplex128;
  const int inParts = c->kind == dtrFftR2C ? 1 : 2, outParts = realPlan ? 1 : 2;
  const int64_t H = c->howmany > 1 ? c->howmany : 1;
  const size_t number = dbl ? 8 : 4;
  dtrBox_t ib, ob;
  dtrFftGetBox(plan, dtrFftInputSide, &ib);
  dtrFftGetBox(plan, dtrFftOutputSide, &ob);
  EXPECT(ib.entry_bytes == number * inParts * (size_t)H && ob.entry_bytes == number * outParts * (size_t)H,
         "%s: box entries %zu and %zu bytes", name, ib.entry_bytes, ob.entry_bytes);
  const int64_t nxc = c->kind == dtrFftR2C && !realPlan ? c->shape[0] / 2 + 1 : c->shape[0];
  EXPECT(ob.start[0] + ob.size[0] <= nxc, "%s: the output box reaches x = %lld", name, (long long)(ob.start[0] + ob.size[0]));

  /* The input from the formula, every field's at each point. */
  const size_t inNumbers = fftTestCount(&ib) * (size_t)(H * inParts);
  double* h = malloc(inNumbers * sizeof *h + 16);
  void* hin = malloc(ib.bytes + 16);
  for (size_t u = 0; u < fftTestCount(&ib); u++) {
    int64_t g[3];
    fftTestCoords(&ib, u, g);
    const uint64_t index = (uint64_t)(g[0] + c->shape[0] * (g[1] + c->shape[1] * g[2]));
    for (int64_t f = 0; f < H; f++)
      for (int part = 0; part < inParts; part++) {
        const size_t at = (u * (size_t)H + (size_t)f) * (size_t)inParts + (size_t)part;
        h[at] = fftTestValue(index + ((uint64_t)f << 40), part);
        if (dbl) ((double*)hin)[at] = h[at];
        else ((float*)hin)[at] = (float)h[at], h[at] = ((float*)hin)[at];
      }
  }
  const size_t larger = ib.bytes > ob.bytes ? ib.bytes : ob.bytes;
  void* in = fftTestAlloc(gpu, c->inplace ? larger : ib.bytes);
  void* out = c->inplace ? in : fftTestAlloc(gpu, ob.bytes);
  void* back = fftTestAlloc(gpu, ib.bytes);
  void* got = malloc(larger + 16);
  fftTestToDevice(gpu, in, hin, ib.bytes);
  if (!c->inplace) fftTestPoison(gpu, out, ob.bytes);
  fftTestPoison(gpu, back, ib.bytes);

  double N = 1;
  for (int d = 0; d < 3; d++) N *= (double)c->shape[d] * (c->axes[d] ? 2.0 : 1.0);
  const double tripFactor = c->norm == dtrFftNormNone ? N : 1;
  const double tol = dbl ? 1e-12 : 1e-5;
  int failed = execute(plan, in, out, dtrFftForward);
  EXPECT(!failed, "%s: forward: %s", name, dtrGetLastError());
  fftTestExpectDevice(gpu, myDevice, "dtrFftExecute");
  if (!failed) {
    fftTestToHost(gpu, got, out, ob.bytes);
    for (int64_t f = 0; f < H; f++) {
      double* ref = reference(c->shape, c->axes, c->kind == dtrFftR2C, f);
      double d2 = 0, r2 = 0;
      for (size_t u = 0; u < fftTestCount(&ob); u++) {
        int64_t g[3];
        fftTestCoords(&ob, u, g);
        const double* want = ref + 2 * (g[0] + c->shape[0] * (g[1] + c->shape[1] * g[2]));
        for (int part = 0; part < outParts; part++) {
          const size_t at = (u * (size_t)H + (size_t)f) * (size_t)outParts + (size_t)part;
          const double v = dbl ? ((double*)got)[at] : ((float*)got)[at];
          d2 += (v - want[part]) * (v - want[part]), r2 += want[part] * want[part];
        }
      }
      free(ref);
      d2 = sumAll(d2), r2 = sumAll(r2);
      const double err = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
      EXPECT(err <= tol, "%s: forward error %.3g of field %lld (bound %.0e)", name, err, (long long)f, tol);
    }
    if (!c->inplace) {
      fftTestToHost(gpu, got, in, ib.bytes);
      EXPECT(!memcmp(got, hin, ib.bytes), "%s: the forward changed its input", name);
    }
    void* target = c->inplace ? in : back;
    failed = execute(plan, out, target, dtrFftInverse);
    EXPECT(!failed, "%s: inverse: %s", name, dtrGetLastError());
    if (!failed) {
      fftTestToHost(gpu, got, target, ib.bytes);
      double d2 = 0, r2 = 0;
      for (size_t i = 0; i < inNumbers; i++) {
        const double v = dbl ? ((double*)got)[i] : ((float*)got)[i], w = h[i] * tripFactor;
        d2 += (v - w) * (v - w), r2 += w * w;
      }
      d2 = sumAll(d2), r2 = sumAll(r2);
      const double trip = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
      EXPECT(trip <= tol, "%s: round trip error %.3g (bound %.0e)", name, trip, tol);
    }
  }
  EXPECT(dtrFftPlanDestroy(plan) == dtrSuccess, "%s: destroy: %s", name, dtrGetLastError());
  fftTestRelease(gpu, in);
  if (!c->inplace) fftTestRelease(gpu, out);
  fftTestRelease(gpu, back);
  free(h);
  free(hin);
  free(got);
}

static void badInput(void) {
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, 0, 0) != dtrSuccess) {
    EXPECT(0, "grid: %s", dtrGetLastError());
    return;
  }
  const int64_t shape[3] = {12, 10, 9};
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  if (!gpu) cfg.transpose.backend = dtrBackendCpu;
  dtrFftPlan_t plan = NULL;
  dtrFftConfig_t bad = cfg;
  bad.axes[1] = (dtrFftAxis_t)5;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument, "axes[1] = 5");
  bad = cfg;
  bad.axes[2] = (dtrFftAxis_t)-1;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrInvalidArgument, "axes[2] = -1");
  bad = cfg;
  bad.axes[0] = dtrFftDct2;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrFloat32, &bad), dtrInvalidArgument,
                   "R2C with a DCT on x and periodic y, z");
  bad = cfg;
  bad.axes[2] = dtrFftDst2, bad.norm = dtrFftNormOrtho;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex128, &bad), dtrInvalidArgument,
                   "norm ortho with a DST");
  if (nranks > 1) {
    bad = cfg;
    bad.axes[1] = rank == nranks - 1 ? dtrFftDct3 : dtrFftDct2;
    dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex64, &bad), dtrMismatch,
                     "axes differing between ranks");
  }
  /* Padding is for periodic axes only: refused by name, on every rank, on a real-to-real one. */
  bad = cfg;
  bad.axes[2] = dtrFftDst2, bad.padding[2] = 1.5;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftC2C, dtrComplex128, &bad), dtrInvalidArgument,
                   "padding on a DST axis");
  EXPECT(strstr(dtrGetLastError(), "config.padding[2] (z)") && strstr(dtrGetLastError(), "real-to-real"),
         "padding on a DST axis: the message names the axis: %s", dtrGetLastError());
  bad = cfg;
  bad.axes[1] = dtrFftDct2, bad.padding[0] = 1.5, bad.padding[1] = 1.5;
  dtrTestExpectEverywhere(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrFloat64, &bad), dtrInvalidArgument,
                   "R2C padding on a DCT axis y");
  EXPECT(strstr(dtrGetLastError(), "config.padding[1] (y)") != NULL, "padding on a DCT axis y: %s", dtrGetLastError());
  /* Padding a periodic axis beside a real-to-real one: the kept modes' round trip (inverse, then forward)
   * is the identity with dtrFftNormInverse, the real-to-real axis counting 2n in both N and M. */
  for (int t = 0; t < 2; t++) {
    bad = cfg;
    bad.axes[2] = dtrFftDct2, bad.padding[0] = 1.5, bad.padding[1] = t ? 0 : 1.5, bad.norm = dtrFftNormInverse;
    const dtrFftKind_t kind = t ? dtrFftR2C : dtrFftC2C;
    const char* what = t ? "R2C padded x with a DCT z" : "C2C padded x, y with a DCT z";
    EXPECT(dtrFftPlanCreate(&plan, grid, shape, kind, t ? dtrFloat64 : dtrComplex128, &bad) == dtrSuccess, "%s: %s", what,
           dtrGetLastError());
    if (!plan) continue;
    dtrBox_t ib, ob;
    dtrFftGetBox(plan, dtrFftInputSide, &ib);
    dtrFftGetBox(plan, dtrFftOutputSide, &ob);
    const size_t count = ob.bytes / sizeof(double);
    double* modes = malloc(ob.bytes + 16);
    double* back = malloc(ob.bytes + 16);
    for (size_t i = 0; i < count; i++) modes[i] = sin(0.37 * (double)i + rank);
    /* R2C's kept modes hold Hermitian planes: make the input real by a forward of a real field first. */
    void* din = fftTestAlloc(gpu, ib.bytes + 16);
    void* dout = fftTestAlloc(gpu, ob.bytes + 16);
    if (t) {
      double* field = malloc(ib.bytes + 16);
      for (size_t i = 0; i < ib.bytes / sizeof(double); i++) field[i] = cos(0.11 * (double)i + rank);
      fftTestToDevice(gpu, din, field, ib.bytes);
      dtrTestExpectEverywhere(dtrFftExecute(plan, din, dout, dtrFftForward, stream), dtrSuccess, what);
      if (gpu) cudaStreamSynchronize(stream);
      fftTestToHost(gpu, modes, dout, ob.bytes);
      free(field);
    } else {
      fftTestToDevice(gpu, dout, modes, ob.bytes);
    }
    /* R2C: the forward of the padded field keeps modes that a further round trip must return unchanged. */
    dtrTestExpectEverywhere(dtrFftExecute(plan, dout, din, dtrFftInverse, stream), dtrSuccess, what);
    dtrTestExpectEverywhere(dtrFftExecute(plan, din, dout, dtrFftForward, stream), dtrSuccess, what);
    if (gpu) cudaStreamSynchronize(stream);
    fftTestToHost(gpu, back, dout, ob.bytes);
    double err = 0, ref = 0;
    for (size_t i = 0; i < count; i++) {
      err = fmax(err, fabs(back[i] - modes[i]));
      ref = fmax(ref, fabs(modes[i]));
    }
    double all = 0;
    MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double refAll = 0;
    MPI_Allreduce(&ref, &refAll, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(all <= 1e-10 * (refAll > 1 ? refAll : 1), "%s: round trip of the kept modes off by %g (of %g)", what, all, refAll);
    fftTestRelease(gpu, din);
    fftTestRelease(gpu, dout);
    free(modes);
    free(back);
    dtrFftPlanDestroy(plan);
    plan = NULL;
  }
  /* A real plan runs in place; an R2C plan with a periodic x does not. */
  bad = cfg;
  for (int d = 0; d < 3; d++) bad.axes[d] = dtrFftDst3;
  bad.norm = dtrFftNormNone;
  EXPECT(dtrFftPlanCreate(&plan, grid, shape, dtrFftR2C, dtrFloat64, &bad) == dtrSuccess, "real plan: %s", dtrGetLastError());
  if (plan) {
    dtrBox_t ib, ob;
    dtrFftGetBox(plan, dtrFftInputSide, &ib);
    dtrFftGetBox(plan, dtrFftOutputSide, &ob);
    void* both = fftTestAlloc(gpu, ib.bytes > ob.bytes ? ib.bytes : ob.bytes);
    if (gpu) cudaMemset(both, 0, ib.bytes > ob.bytes ? ib.bytes : ob.bytes), cudaDeviceSynchronize();
    else memset(both, 0, ib.bytes > ob.bytes ? ib.bytes : ob.bytes);
    dtrTestExpectEverywhere(dtrFftExecute(plan, both, both, dtrFftForward, stream), dtrSuccess, "a real plan in place");
    if (gpu) cudaStreamSynchronize(stream);
    fftTestRelease(gpu, both);
    dtrFftPlanDestroy(plan);
  }
  dtrGridDestroy(grid);
}

int main(int argc, char** argv) {
  if (dtrTestStart(&argc, &argv, "test_fft_r2r", &rank, &nranks, &gpu, &verbose, &myDevice)) return DTR_TEST_SKIP;
  caseComm = MPI_COMM_WORLD;
  if (gpu) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  int grids[8][2];
  const int ngrids = dtrTestGrids(nranks, grids);
  static const int64_t shapes[][3] = {{8, 6, 5}, {9, 7, 4}, {1, 1, 1}, {5, 3, 2}, {2, 13, 3}, {12, 9, 1}, {16, 16, 16},
                                      {8, 3, 3}, {32, 5, 64}, {2048, 2, 1}, {4096, 1, 1}};
  const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  const dtrFftAxis_t P = dtrFftPeriodic, C2 = dtrFftDct2, C3 = dtrFftDct3, S2 = dtrFftDst2, S3 = dtrFftDst3;
  /* C2C: any mix; R2C: x periodic, or every axis real-to-real. */
  static const dtrFftAxis_t complexAxes[][3] = {{C2, P, P}, {P, S2, C3}, {P, P, S3}, {C3, S3, C2}, {S2, P, C2}, {S3, C2, P}};
  static const dtrFftAxis_t realAxes[][3] = {{P, C2, S2}, {P, P, C3}, {P, S3, P}, {C2, S2, C3}, {S3, C3, S2}};
  static const int chunkCounts[4] = {1, 2, 3, 64};
  int n = 0;
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < nshapes; s++)
      for (int t = 0; t < 4; t++, n++) {
        const int complex = t < 2;
        Case c = {{shapes[s][0], shapes[s][1], shapes[s][2]}, grids[g][0], grids[g][1], complex ? dtrFftC2C : dtrFftR2C,
                  t == 0 ? dtrComplex64 : t == 1 ? dtrComplex128 : t == 2 ? dtrFloat32 : dtrFloat64, {P, P, P},
                  (dtrFftNorm_t)(n % 2), chunkCounts[(n / 2 + s) % 4], 0, n % 5 == 4 ? 2 : 0};
        const dtrFftAxis_t* axes = complex ? complexAxes[(n + g) % 6] : realAxes[(n + g) % 5];
        memcpy(c.axes, axes, sizeof c.axes);
        const int realPlan = !complex && axes[0] != P;
        c.inplace = (complex || realPlan) && n % 3 == 1;
        runCase(&c);
      }
  /* The one-trip passes' shapes (a plane's columns along y, of every kind, at lengths whose radix
   * passes start with 8, 2 and 4; and the DFT over the columns after a real-to-real x): checked against
   * the defining sums on the GPU as on the host. */
  static const int64_t columnShapes[][3] = {{4, 64, 2}, {3, 128, 2}, {2, 512, 3}, {1, 1024, 2}, {128, 32, 1}, {64, 512, 1}};
  const dtrFftAxis_t kinds[4] = {C2, C3, S2, S3};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < 6; s++)
      for (int t = 0; t < 4; t++, n++) {
        const int xWall = s >= 4, complex = xWall || t < 2;
        const dtrDataType_t type = t == 0 ? dtrComplex64 : t == 1 ? dtrComplex128 : t == 2 ? dtrFloat32 : dtrFloat64;
        Case c = {{columnShapes[s][0], columnShapes[s][1], columnShapes[s][2]}, grids[g][0], grids[g][1],
                  complex ? dtrFftC2C : dtrFftR2C, complex && t >= 2 ? (t == 2 ? dtrComplex64 : dtrComplex128) : type,
                  {P, P, P}, (dtrFftNorm_t)(n % 2), 1 + (s + t) % 3, 0, 0};
        c.axes[xWall ? 0 : 1] = kinds[(s + t) % 4];
        c.inplace = t == 1;
        runCase(&c);
      }
  /* The inverse's normalization folded into its first pass, a real-to-real z: powers of two (the one-trip
   * kernel), 12 points (the kernels around cuFFT) and 1 point; every kind and type, norm inverse. */
  static const int64_t wallShapes[][3] = {{6, 5, 64}, {3, 4, 512}, {5, 3, 8}, {4, 3, 12}, {4, 3, 1}};
  for (int g = 0; g < ngrids; g++)
    for (int s = 0; s < 5; s++)
      for (int t = 0; t < 4; t++, n++) {
        const int complex = t < 2;
        Case c = {{wallShapes[s][0], wallShapes[s][1], wallShapes[s][2]}, grids[g][0], grids[g][1], complex ? dtrFftC2C : dtrFftR2C,
                  t == 0 ? dtrComplex64 : t == 1 ? dtrComplex128 : t == 2 ? dtrFloat32 : dtrFloat64, {P, P, P},
                  dtrFftNormInverse, 1 + (s + t) % 3, 0, 0};
        c.axes[2] = kinds[(s + t + g) % 4];
        c.inplace = complex && (s + t) % 2;
        runCase(&c);
      }
  /* Each half of the world a grid of its own (slabs both ways), the halves' plans made and run at the
   * same time: the kinds on a communicator that is not the world. */
  if (nranks > 1) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &caseComm);
    int half = 0;
    MPI_Comm_size(caseComm, &half);
    static const dtrFftAxis_t splitAxes[4][3] = {{P, C2, S3}, {S2, P, C3}, {P, P, S2}, {C3, S2, C2}};
    for (int t = 0; t < 4; t++, n++) {
      const int complex = t < 2;
      Case c = {{16, 9, 8}, t % 2 ? half : 1, t % 2 ? 1 : half, complex ? dtrFftC2C : dtrFftR2C,
                t == 0 ? dtrComplex64 : t == 1 ? dtrComplex128 : t == 2 ? dtrFloat32 : dtrFloat64,
                {splitAxes[t][0], splitAxes[t][1], splitAxes[t][2]}, (dtrFftNorm_t)(t % 2), 1 + t, t == 1, 0};
      runCase(&c);
    }
    MPI_Comm_free(&caseComm);
    caseComm = MPI_COMM_WORLD;
  }
  badInput();
  if (gpu) cudaStreamDestroy(stream);
  const int result = dtrTestEndEverywhere("test_fft_r2r", gpu, n);
  MPI_Finalize();
  return result;
}
