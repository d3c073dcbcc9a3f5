/*
 * halo-bench: a halo exchange (dtrHaloExecute) and its adjoint (dtrHaloExecuteAdjoint, the same messages
 * the other way and the sums) against the bare exchange of the same bytes with the same peers on the
 * plan's transport (NCCL send/recv on the GPU backends, MPI on the cpu one: one message each way a peer
 * and step, of its segment's size), in the same run. Each timed iteration
 * starts after a barrier and ends when every rank's work is done (the slowest rank's time counts);
 * medians after warm-up.
 *
 * halo-bench [--shape NX[xNYxNZ]] [--grid PRxPC] [--pencil X|Y|Z] [--dtype T] [--halo W[xWYxWZ]]
 *            [--open] [--backend auto|nccl|p2p|cpu] [--iters N] [--warmup N] [--json FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"
#include "grid.h"
#include "halo/halo_plan.h"

static int rank;

static int parseTriple(const char* s, int64_t v[3]) {
  char* end = NULL;
  for (int d = 0; d < 3; d++) {
    v[d] = strtoll(s, &end, 10);
    if (end == s || v[d] < 0) return -1;
    if (!*end) {
      for (int k = d + 1; k < 3; k++) v[k] = v[d];
      return 0;
    }
    if (*end != 'x') return -1;
    s = end + 1;
  }
  return *end ? -1 : 0;
}

static int cmpDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void fail(const char* what) {
  if (rank == 0) fprintf(stderr, "halo-bench: %s\n", what);
  MPI_Finalize();
  exit(1);
}

/* What an iteration runs. */
typedef enum { kExecute, kAdjoint, kBare } Run;

/* The slowest rank's seconds for `iters` runs of one of them, median. */
static double timeIt(dtrHaloPlan_t plan, int gpu, void* buf, void* send, void* recv, Run run, int iters, int warmup,
                     cudaStream_t stream) {
  double* t = malloc((size_t)(iters > 0 ? iters : 1) * sizeof *t);
  for (int i = -warmup; i < iters; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const dtrResult_t res = run == kBare      ? dtrHaloBareExchange(plan, send, recv, stream)
                            : run == kAdjoint ? dtrHaloExecuteAdjoint(plan, buf, stream)
                                              : dtrHaloExecute(plan, buf, stream);
    if (gpu) cudaStreamSynchronize(stream);
    double dt = MPI_Wtime() - t0;
    if (res != dtrSuccess) fail(dtrGetLastError());
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (i >= 0) t[i] = dt;
  }
  qsort(t, (size_t)iters, sizeof *t, cmpDouble);
  const double m = iters ? t[iters / 2] : 0;
  free(t);
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int64_t shape[3] = {512, 512, 512}, width[3] = {2, 2, 2}, grid2[3] = {0, 0, 0};
  dtrPencil_t pencil = dtrPencilX;
  dtrDataType_t type = dtrComplex64;
  dtrBackend_t backend = dtrBackendAuto;
  int iters = 20, warmup = 5, open = 0;
  const char* json = NULL;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    int used = 1;
    if (!strcmp(a, "--shape")) used = parseTriple(v, shape) == 0 ? 2 : 0;
    else if (!strcmp(a, "--halo")) used = parseTriple(v, width) == 0 ? 2 : 0;
    else if (!strcmp(a, "--grid")) used = sscanf(v, "%ldx%ld", (long*)&grid2[0], (long*)&grid2[1]) == 2 ? 2 : 0;
    else if (!strcmp(a, "--pencil")) {
      used = 0;
      for (int p = 0; p < dtrNumPencils; p++)
        if (!strcmp(v, dtrPencilName((dtrPencil_t)p))) pencil = (dtrPencil_t)p, used = 2;
    } else if (!strcmp(a, "--dtype")) {
      used = 0;
      for (int t = 0; t < dtrNumTypes; t++)
        if (!strcmp(v, dtrDataTypeName((dtrDataType_t)t))) type = (dtrDataType_t)t, used = 2;
    } else if (!strcmp(a, "--backend")) {
      used = 0;
      for (int b = 0; b < dtrNumBackends; b++)
        if (!strcmp(v, dtrBackendName((dtrBackend_t)b))) backend = (dtrBackend_t)b, used = 2;
    } else if (!strcmp(a, "--iters")) iters = atoi(v), used = 2;
    else if (!strcmp(a, "--warmup")) warmup = atoi(v), used = 2;
    else if (!strcmp(a, "--json")) json = v, used = 2;
    else if (!strcmp(a, "--open")) open = 1;
    else used = 0;
    if (!used || iters < 1 || warmup < 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "bad option or value: %s %s", a, v);
      fail(msg);
    }
    i += used - 1;
  }
  /* The program picks its GPU (the node-local rank's, modulo the GPUs); the library takes the current one. */
  int localRank = 0, gpus = 0;
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &localRank);
  MPI_Comm_free(&local);
  if (backend != dtrBackendCpu && cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) cudaSetDevice(localRank % gpus);
  dtrGrid_t grid;
  if (dtrGridCreate(&grid, MPI_COMM_WORLD, (int)grid2[0], (int)grid2[1]) != dtrSuccess) fail(dtrGetLastError());
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  const int halo[3] = {(int)width[0], (int)width[1], (int)width[2]}, periodic[3] = {!open, !open, !open};
  dtrHaloPlan_t plan;
  if (dtrHaloPlanCreate(&plan, grid, shape, pencil, type, 1, halo, periodic, &cfg) != dtrSuccess) fail(dtrGetLastError());
  dtrBackend_t used;
  dtrHaloGetBackend(plan, &used);
  const int gpu = used != dtrBackendCpu;
  dtrBox_t box;
  dtrHaloGetBox(plan, &box);
  const size_t bare = dtrHaloBareBytes(plan);
  cudaStream_t stream = NULL;
  void *buf = NULL, *send = NULL, *recv = NULL;
  if (gpu) {
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMalloc(&buf, box.bytes + 16), cudaMalloc(&send, bare + 16), cudaMalloc(&recv, bare + 16);
    cudaMemset(buf, 0, box.bytes + 16), cudaMemset(send, 1, bare + 16);
  } else {
    buf = calloc(1, box.bytes + 16), send = calloc(1, bare + 16), recv = calloc(1, bare + 16);
  }
  const double haloUs = timeIt(plan, gpu, buf, send, recv, kExecute, iters, warmup, stream) * 1e6;
  const double adjointUs = timeIt(plan, gpu, buf, send, recv, kAdjoint, iters, warmup, stream) * 1e6;
  const double bareUs = timeIt(plan, gpu, buf, send, recv, kBare, iters, warmup, stream) * 1e6;
  const double ratio = bareUs > 0 ? haloUs / bareUs : 0, adjointRatio = bareUs > 0 ? adjointUs / bareUs : 0;
  /* The bytes each rank sends over its steps, the largest over the ranks. */
  long long sent = 0;
  for (int i = 0; i < plan->layout.nsteps; i++) sent += (long long)plan->layout.steps[i].sendTotal * (long long)box.entry_bytes;
  MPI_Allreduce(MPI_IN_PLACE, &sent, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  int pr, pc;
  dtrGridGetDims(grid, &pr, &pc, NULL, NULL);
  if (rank == 0) {
    printf("halo %lldx%lldx%lld %s %s-pencils, widths %d %d %d %s, %d x %d grid, %s: halo %.1f us (%.2f x), adjoint %.1f us "
           "(%.2f x), bare exchange %.1f us, %lld bytes sent per rank\n",
           (long long)shape[0], (long long)shape[1], (long long)shape[2], dtrDataTypeName(type), dtrPencilName(pencil), halo[0],
           halo[1], halo[2], open ? "open" : "periodic", pr, pc, dtrBackendName(used), haloUs, ratio, adjointUs, adjointRatio,
           bareUs, sent);
    if (json) {
      FILE* f = fopen(json, "w");
      if (f) {
        fprintf(f,
                "[{\"shape\": [%lld, %lld, %lld], \"dtype\": \"%s\", \"pencil\": \"%s\", \"halo\": [%d, %d, %d], "
                "\"periodic\": %s, \"grid\": [%d, %d], \"ranks\": %d, \"backend\": \"%s\", \"iters\": %d, \"warmup\": %d, "
                "\"bytes_sent_per_rank\": %lld, \"halo_us\": %.3f, \"bare_us\": %.3f, \"ratio\": %.4f, \"adjoint_us\": %.3f, "
                "\"adjoint_ratio\": %.4f}]\n",
                (long long)shape[0], (long long)shape[1], (long long)shape[2], dtrDataTypeName(type), dtrPencilName(pencil),
                halo[0], halo[1], halo[2], open ? "false" : "true", pr, pc, nranks, dtrBackendName(used), iters, warmup,
                sent, haloUs, bareUs, ratio, adjointUs, adjointRatio);
        fclose(f);
      }
    }
  }
  dtrHaloPlanDestroy(plan);
  dtrGridDestroy(grid);
  if (gpu) {
    cudaFree(buf), cudaFree(send), cudaFree(recv);
    cudaStreamDestroy(stream);
  } else {
    free(buf), free(send), free(recv);
  }
  MPI_Finalize();
  return 0;
}
