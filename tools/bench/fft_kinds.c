/*
 * fft-kinds: the FFT with real-to-real axes (dtrFftConfig_t.axes) against the periodic FFT of the same
 * shape, type, grid and backend, and the padded FFT (dtrFftConfig_t.padding) against the periodic FFT of
 * its padded grid, in the same run. The variants' executes alternate within each iteration (forward,
 * then inverse, of each in turn), every execute starting after a barrier and ending when every rank's
 * stream is done (the slowest rank counts); medians after warm-up. Each variant's last round trip (norm
 * inverse) is checked against its input; a padded one's from the kept modes of its input's forward, whose
 * Nyquist modes are zeroed (the padded inverse halves them), through the inverse and the forward again.
 *
 * fft-kinds [--shape N | NXxNYxNZ] [--grid PRxPC] [--dtype c64|c128|fp32|fp64] [--axes KX,KY,KZ]...
 *           [--padding F]... [--unnormalized 1] [--backend auto|nccl|p2p|cpu] [--iters N] [--warmup N] [--json FILE]
 * A kind is P (periodic), DCT2, DCT3, DST2 or DST3; --axes repeats (default, without --axes or --padding:
 * one real-to-real axis on z, on y, on x where the type allows, and every axis real-to-real). --padding F
 * (e.g. 1.5) adds the plan of the shape's modes padded by F on every axis and the periodic plan of the
 * padded grid (m = floor(n F) points per axis), its yardstick. fp32 and fp64 are R2C plans.
 * --unnormalized 1 adds the periodic plan with norm none beside the normalized one (every other
 * variant's norm is inverse): what the normalization costs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "disttranspose.h"
#include "support/pattern.h"

#define MAX_VARIANTS 12
#define MAX_ITERS 1000

static int rank;

static void fail(const char* what) {
  if (rank == 0) fprintf(stderr, "fft-kinds: %s\n", what);
  MPI_Finalize();
  exit(1);
}

static int cmpDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static const char* const kKindNames[dtrNumFftAxes] = {"P", "DCT2", "DCT3", "DST2", "DST3"};

static int parseAxes(const char* s, dtrFftAxis_t axes[3]) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  char* save = NULL;
  int d = 0;
  for (char* t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), d++) {
    if (d == 3) return -1;
    int k = 0;
    while (k < dtrNumFftAxes && strcmp(t, kKindNames[k])) k++;
    if (k == dtrNumFftAxes) return -1;
    axes[d] = (dtrFftAxis_t)k;
  }
  return d == 3 ? 0 : -1;
}

typedef struct {
  dtrFftAxis_t axes[3];
  double padding;    /* 0: none, else the factor on every axis */
  int unnormalized;  /* norm none (a round trip multiplies by the points), else norm inverse */
  int64_t shape[3];  /* the plan's shape: the modes' for a padded plan */
  dtrFftPlan_t plan;
  void *in, *out, *back;
  size_t inBytes, outBytes;
  double* t[2]; /* seconds of each timed forward, inverse */
  double error;
} Variant;

static double timed(dtrFftPlan_t plan, const void* in, void* out, dtrFftDirection_t dir, cudaStream_t stream, int gpu) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  dtrResult_t res = dtrFftExecute(plan, in, out, dir, stream);
  if (gpu && res == dtrSuccess && cudaStreamSynchronize(stream) != cudaSuccess) res = dtrCudaError;
  double t = MPI_Wtime() - t0;
  int bad = res != dtrSuccess;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) fail(dtrGetLastError());
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

/* The modes of a padded plan's output box whose index along some axis is n / 2 for an even n, set to 0. */
static void zeroNyquist(char* data, const dtrBox_t* box, const int64_t shape[3]) {
  const int64_t* size = box->size;
  const int64_t sf = size[box->order[0]], sm = size[box->order[1]], ss = size[box->order[2]];
  for (int64_t c = 0; c < ss; c++)
    for (int64_t b = 0; b < sm; b++)
      for (int64_t a = 0; a < sf; a++) {
        const int64_t at[3] = {a, b, c};
        int nyquist = 0;
        for (int i = 0; i < 3; i++) {
          const int d = box->order[i];
          nyquist |= shape[d] % 2 == 0 && box->start[d] + at[i] == shape[d] / 2;
        }
        if (nyquist) memset(data + (size_t)((c * sm + b) * sf + a) * box->entry_bytes, 0, box->entry_bytes);
      }
}

static void copyOut(void* host, const void* from, size_t bytes, int gpu) {
  if (gpu) cudaMemcpy(host, from, bytes, cudaMemcpyDeviceToHost);
  else memcpy(host, from, bytes);
}

static void copyIn(void* to, const void* host, size_t bytes, int gpu) {
  if (gpu) cudaMemcpy(to, host, bytes, cudaMemcpyHostToDevice);
  else memcpy(to, host, bytes);
}

/* The relative L2 distance of two arrays of `numbers` reals over every rank. */
static double distance(const void* a, const void* b, size_t numbers, int dbl) {
  double s[2] = {0, 0};
  for (size_t i = 0; i < numbers; i++) {
    const double x = dbl ? ((const double*)a)[i] : ((const float*)a)[i], y = dbl ? ((const double*)b)[i] : ((const float*)b)[i];
    s[0] += (x - y) * (x - y), s[1] += x * x;
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s[1] > 0 ? sqrt(s[0] / s[1]) : sqrt(s[0]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int64_t shape[3] = {256, 256, 256};
  int pr = 1, pc = nranks, iters = 20, warmup = 3, nvariants = 1;
  dtrDataType_t type = dtrComplex64;
  dtrBackend_t backend = dtrBackendAuto;
  const char* json = NULL;
  Variant v[MAX_VARIANTS];
  memset(v, 0, sizeof v);
  int given = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!val) fail("every option takes a value (see the file's comment)");
    i++;
    if (!strcmp(a, "--shape")) {
      char* end = NULL;
      for (int d = 0; d < 3; d++) {
        shape[d] = strtoll(d ? end + 1 : val, &end, 10);
        if (shape[d] < 1) fail("--shape: N or NXxNYxNZ, each at least 1");
        if (!*end) {
          for (int k = d + 1; k < 3; k++) shape[k] = shape[d];
          break;
        }
        if (*end != 'x') fail("--shape: N or NXxNYxNZ");
      }
    } else if (!strcmp(a, "--grid")) {
      if (sscanf(val, "%dx%d", &pr, &pc) != 2 || pr < 1 || pc < 1 || pr * pc != nranks) fail("--grid PRxPC with PR PC = ranks");
    } else if (!strcmp(a, "--dtype")) {
      type = !strcmp(val, "c64") ? dtrComplex64 : !strcmp(val, "c128") ? dtrComplex128 : !strcmp(val, "fp32") ? dtrFloat32
             : !strcmp(val, "fp64") ? dtrFloat64 : dtrNumTypes;
      if (type == dtrNumTypes) fail("--dtype: c64, c128, fp32 or fp64");
    } else if (!strcmp(a, "--axes")) {
      if (nvariants == MAX_VARIANTS) fail("too many --axes");
      if (parseAxes(val, v[nvariants].axes)) fail("--axes KX,KY,KZ: each P, DCT2, DCT3, DST2 or DST3");
      nvariants++, given = 1;
    } else if (!strcmp(a, "--padding")) {
      char* end = NULL;
      const double f = strtod(val, &end);
      if (*end || !(f > 1.0 && f <= 4.0)) fail("--padding F: a factor above 1 and at most 4 (e.g. 1.5)");
      if (nvariants + 2 > MAX_VARIANTS) fail("too many --padding");
      v[nvariants++].padding = f;
      v[nvariants++].padding = -f; /* its yardstick: the periodic plan of the padded grid (its shape below) */
      given = 1;
    } else if (!strcmp(a, "--unnormalized")) {
      if (strcmp(val, "1")) fail("--unnormalized 1");
      if (nvariants == MAX_VARIANTS) fail("too many variants");
      v[nvariants++].unnormalized = 1;
    } else if (!strcmp(a, "--backend")) {
      backend = !strcmp(val, "auto") ? dtrBackendAuto : !strcmp(val, "nccl") ? dtrBackendNccl : !strcmp(val, "p2p") ? dtrBackendP2p
                : !strcmp(val, "cpu") ? dtrBackendCpu : dtrNumBackends;
      if (backend == dtrNumBackends) fail("--backend: auto, nccl, p2p or cpu");
    } else if (!strcmp(a, "--iters") || !strcmp(a, "--warmup")) {
      const int n = atoi(val);
      if (n < (strcmp(a, "--iters") ? 0 : 1) || n > MAX_ITERS) fail("--iters 1..1000, --warmup 0..1000");
      if (!strcmp(a, "--iters")) iters = n;
      else warmup = n;
    } else if (!strcmp(a, "--json")) {
      json = val;
    } else {
      fail("unknown option (see the file's comment)");
    }
  }
  const int real = type == dtrFloat32 || type == dtrFloat64;
  const dtrFftAxis_t P = dtrFftPeriodic;
  if (!given) {
    const dtrFftAxis_t defaults[4][3] = {{P, P, dtrFftDct2}, {P, dtrFftDst2, P}, {dtrFftDct2, P, P}, {dtrFftDst2, dtrFftDst2, dtrFftDst2}};
    for (int k = 0; k < 4; k++) {
      if (real && k == 2) continue; /* an R2C plan keeps x periodic unless every axis is real-to-real */
      memcpy(v[nvariants++].axes, defaults[k], sizeof defaults[k]);
    }
  }
  const int gpu = backend != dtrBackendCpu;
  if (gpu) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) fail("no GPU (use --backend cpu)");
    MPI_Comm local;
    int localRank = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &localRank);
    MPI_Comm_free(&local);
    cudaSetDevice(localRank % devices);
  }
  cudaStream_t stream = NULL;
  if (gpu) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  dtrGrid_t grid = NULL;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, pr, pc) != dtrSuccess) fail(dtrGetLastError());
  const int dbl = type == dtrFloat64 || type == dtrComplex128;
  for (int k = 0; k < nvariants; k++) {
    dtrFftConfig_t cfg;
    dtrFftConfigInit(&cfg);
    cfg.transpose.backend = backend;
    cfg.norm = v[k].unnormalized ? dtrFftNormNone : dtrFftNormInverse;
    memcpy(cfg.axes, v[k].axes, sizeof cfg.axes);
    for (int d = 0; d < 3; d++) {
      v[k].shape[d] = v[k].padding < 0 ? (int64_t)floor((double)shape[d] * -v[k].padding) : shape[d];
      cfg.padding[d] = v[k].padding > 0 ? v[k].padding : 0;
    }
    if (dtrFftPlanCreate(&v[k].plan, grid, v[k].shape, real ? dtrFftR2C : dtrFftC2C, type, &cfg) != dtrSuccess)
      fail(dtrGetLastError());
    dtrBox_t ib, ob;
    dtrFftGetBox(v[k].plan, dtrFftInputSide, &ib);
    dtrFftGetBox(v[k].plan, dtrFftOutputSide, &ob);
    v[k].inBytes = ib.bytes, v[k].outBytes = ob.bytes;
    const size_t numbers = ib.bytes / (dbl ? 8 : 4);
    void* h = malloc(ib.bytes + 16);
    /* Uniform in [-0.5, 0.5), a hash of the rank and the index (pattern.h): as random as rand() for the
     * transforms, and 16 times faster, which at 512^3 is seconds a variant of a GPU machine's time. */
    for (size_t i = 0; i < numbers; i++) {
      const double x = dtrUnitOf(dtrMix64(((uint64_t)rank << 40) + i)) - 0.5;
      if (dbl) ((double*)h)[i] = x;
      else ((float*)h)[i] = (float)x;
    }
    if (gpu) {
      if (cudaMalloc(&v[k].in, ib.bytes + 16) != cudaSuccess || cudaMalloc(&v[k].out, ob.bytes + 16) != cudaSuccess ||
          cudaMalloc(&v[k].back, ib.bytes + 16) != cudaSuccess)
        fail("out of GPU memory");
      cudaMemcpy(v[k].in, h, ib.bytes, cudaMemcpyHostToDevice);
      cudaDeviceSynchronize();
    } else {
      v[k].in = malloc(ib.bytes + 16), v[k].out = malloc(ob.bytes + 16), v[k].back = malloc(ib.bytes + 16);
      memcpy(v[k].in, h, ib.bytes);
    }
    free(h);
    v[k].t[0] = malloc(sizeof(double) * (size_t)iters), v[k].t[1] = malloc(sizeof(double) * (size_t)iters);
  }
  for (int i = -warmup; i < iters; i++)
    for (int k = 0; k < nvariants; k++) {
      const double f = timed(v[k].plan, v[k].in, v[k].out, dtrFftForward, stream, gpu);
      const double b = timed(v[k].plan, v[k].out, v[k].back, dtrFftInverse, stream, gpu);
      if (i >= 0) v[k].t[0][i] = f, v[k].t[1][i] = b;
    }
  /* The last round trip against the input: the relative L2 error over all ranks. A padded plan's from the
   * kept modes of its input (Nyquist modes zeroed) through the inverse and the forward again. */
  for (int k = 0; k < nvariants; k++) {
    const size_t bytes = v[k].inBytes, numbers = bytes / (dbl ? 8 : 4);
    char* a = malloc((bytes > v[k].outBytes ? bytes : v[k].outBytes) + 16);
    char* b = malloc((bytes > v[k].outBytes ? bytes : v[k].outBytes) + 16);
    if (v[k].padding > 0) {
      dtrBox_t ob;
      dtrFftGetBox(v[k].plan, dtrFftOutputSide, &ob);
      timed(v[k].plan, v[k].in, v[k].out, dtrFftForward, stream, gpu);
      copyOut(a, v[k].out, v[k].outBytes, gpu);
      zeroNyquist(a, &ob, v[k].shape);
      copyIn(v[k].out, a, v[k].outBytes, gpu);
      timed(v[k].plan, v[k].out, v[k].back, dtrFftInverse, stream, gpu);
      timed(v[k].plan, v[k].back, v[k].out, dtrFftForward, stream, gpu);
      copyOut(b, v[k].out, v[k].outBytes, gpu);
      v[k].error = distance(a, b, v[k].outBytes / (dbl ? 8 : 4), dbl);
    } else {
      copyOut(a, v[k].in, bytes, gpu);
      copyOut(b, v[k].back, bytes, gpu);
      if (v[k].unnormalized) {
        const double points = (double)v[k].shape[0] * (double)v[k].shape[1] * (double)v[k].shape[2];
        for (size_t i = 0; i < numbers; i++)
          if (dbl) ((double*)b)[i] /= points;
          else ((float*)b)[i] = (float)(((float*)b)[i] / points);
      }
      v[k].error = distance(a, b, numbers, dbl);
    }
    free(a);
    free(b);
    for (int d = 0; d < 2; d++) qsort(v[k].t[d], (size_t)iters, sizeof(double), cmpDouble);
  }
  /* A variant's yardstick: the first unpadded variant of its (padded) grid with every axis periodic. */
  int yardstick[MAX_VARIANTS];
  for (int k = 0; k < nvariants; k++) {
    yardstick[k] = -1;
    for (int j = 0; j < nvariants && yardstick[k] < 0; j++) {
      int same = v[j].padding <= 0 && !v[j].unnormalized && !v[j].axes[0] && !v[j].axes[1] && !v[j].axes[2];
      for (int d = 0; d < 3; d++)
        same &= v[j].shape[d] == (v[k].padding > 0 ? (int64_t)floor((double)shape[d] * v[k].padding) : v[k].shape[d]);
      if (same) yardstick[k] = j;
    }
  }
  int device = -1;
  if (gpu) cudaGetDevice(&device);
  char deviceName[256] = "cpu";
  if (gpu) {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) snprintf(deviceName, sizeof deviceName, "%s", prop.name);
  }
  const double tol = dbl ? 1e-12 : 1e-5;
  int passed = 1;
  if (rank == 0) {
    printf("# fft-kinds %lld x %lld x %lld %s on %d x %d (%s), %d iterations, medians of the slowest rank\n",
           (long long)shape[0], (long long)shape[1], (long long)shape[2], dtrDataTypeName(type), pr, pc, deviceName, iters);
    printf("# %-26s %12s %12s %10s %10s %10s\n", "axes (x,y,z)", "forward us", "inverse us", "fwd / P", "inv / P", "trip err");
  }
  for (int k = 0; k < nvariants; k++) {
    const double f = v[k].t[0][iters / 2] * 1e6, b = v[k].t[1][iters / 2] * 1e6;
    const int y = yardstick[k];
    const double fb = y >= 0 ? v[y].t[0][iters / 2] * 1e6 : NAN, bb = y >= 0 ? v[y].t[1][iters / 2] * 1e6 : NAN;
    passed &= v[k].error <= tol;
    if (rank == 0) {
      char axes[64];
      int at = snprintf(axes, sizeof axes, "%s,%s,%s", kKindNames[v[k].axes[0]], kKindNames[v[k].axes[1]], kKindNames[v[k].axes[2]]);
      if (v[k].unnormalized) snprintf(axes + at, sizeof axes - (size_t)at, " norm none");
      else if (v[k].padding > 0) snprintf(axes + at, sizeof axes - (size_t)at, " padded %g", v[k].padding);
      else if (v[k].padding < 0) snprintf(axes + at, sizeof axes - (size_t)at, " on %lldx%lldx%lld", (long long)v[k].shape[0],
                                          (long long)v[k].shape[1], (long long)v[k].shape[2]);
      printf("  %-26s %12.1f %12.1f %10.3f %10.3f %10.2e\n", axes, f, b, f / fb, b / bb, v[k].error);
    }
  }
  if (rank == 0) printf("# %s\n", passed ? "PASSED" : "FAILED: a round trip is off");
  if (rank == 0 && json) {
    FILE* out = fopen(json, "w");
    if (!out) fail("cannot write the JSON file");
    fprintf(out, "{\"tool\": \"fft-kinds\", \"shape\": [%lld, %lld, %lld], \"dtype\": \"%s\", \"grid\": [%d, %d],"
                 " \"ranks\": %d, \"device\": \"%s\", \"iters\": %d, \"warmup\": %d, \"passed\": %s,\n \"variants\": [",
            (long long)shape[0], (long long)shape[1], (long long)shape[2], dtrDataTypeName(type), pr, pc, nranks, deviceName,
            iters, warmup, passed ? "true" : "false");
    for (int k = 0; k < nvariants; k++)
      fprintf(out, "%s\n  {\"axes\": [\"%s\", \"%s\", \"%s\"], \"norm\": \"%s\", \"padding\": %g, \"shape\": [%lld, %lld, %lld], \"yardstick\": %d,"
                   " \"forward_us\": %.2f, \"inverse_us\": %.2f, \"round_trip_error\": %.3e}",
              k ? "," : "", kKindNames[v[k].axes[0]], kKindNames[v[k].axes[1]], kKindNames[v[k].axes[2]],
              v[k].unnormalized ? "none" : "inverse", v[k].padding > 0 ? v[k].padding : 0, (long long)v[k].shape[0], (long long)v[k].shape[1], (long long)v[k].shape[2],
              yardstick[k], v[k].t[0][iters / 2] * 1e6, v[k].t[1][iters / 2] * 1e6, v[k].error);
    fprintf(out, "\n]}\n");
    fclose(out);
  }
  for (int k = 0; k < nvariants; k++) {
    dtrFftPlanDestroy(v[k].plan);
    if (gpu) cudaFree(v[k].in), cudaFree(v[k].out), cudaFree(v[k].back);
    else free(v[k].in), free(v[k].out), free(v[k].back);
    free(v[k].t[0]), free(v[k].t[1]);
  }
  dtrGridDestroy(grid);
  if (stream) cudaStreamDestroy(stream);
  MPI_Finalize();
  return passed ? 0 : 1;
}
