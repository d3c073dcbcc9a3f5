/*
 * A GPU backend under mpiexec, one GPU per rank (argument: nccl, the default, or p2p): every shape
 * and type and each kernel variant, with and without pipeline stages, verified on the GPU bit for
 * bit; CUDA-graph captures of execute (one stage and three); back-to-back executes into the same
 * buffers with no host synchronisation between them (B poisoned before each, checked after each:
 * a peer that writes too early or a result read too soon shows as wrong entries); device-buffer
 * checks; in-place executes (one buffer) the same way; one plan on buffers freed and allocated again
 * before each execute. Argument auto: the same with the backend auto
 * chooses. With more ranks on a node than GPUs the ranks share them (p2p, auto); on NCCL it checks
 * instead that every rank fails cleanly, and that auto takes p2p.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "disttranspose.h"
#include "launch.h"
#include "node_local.h"
#include "support/support.h"
#include "transpose_cases.h"

static int rank, nranks;
static cudaStream_t stream;
static unsigned long long* dWrong;
static dtrBackend_t backend = dtrBackendNccl;
static int sharedGpu; /* ranks share GPUs (p2p and auto only) */

static uint64_t sumRanks(uint64_t v) {
  uint64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Poisons B, runs `execute` (a plain execute, or a graph replay), counts B's wrong entries. */
static uint64_t verify(const dtrLocalSize_t* ls, int64_t rows, int64_t cols, void* b, dtrResult_t (*run)(void*), void* ctx) {
  const size_t e = ls->entry_bytes;
  if (b) dtrPatternPoisonLaunch(b, ls->out_rows, rows, ls->out_row_start, cols, e, stream);
  dtrResult_t res = run(ctx);
  EXPECT(res == dtrSuccess, "execute: %s", dtrGetLastError());
  unsigned long long w = 0;
  cudaMemsetAsync(dWrong, 0, sizeof w, stream);
  if (b) dtrPatternCheckLaunch(b, ls->out_rows, rows, ls->out_row_start, cols, e, dWrong, stream);
  cudaMemcpyAsync(&w, dWrong, sizeof w, cudaMemcpyDeviceToHost, stream);
  EXPECT(cudaStreamSynchronize(stream) == cudaSuccess, "stream: %s", cudaGetErrorString(cudaGetLastError()));
  return w;
}

typedef struct {
  dtrPlan_t plan;
  void *a, *b;
  cudaGraphExec_t graph;
} Ctx;

/* Poison, execute, check, eight times over on the stream, then one synchronisation. */
static uint64_t backToBack(const dtrLocalSize_t* ls, int64_t rows, int64_t cols, Ctx* c) {
  const size_t e = ls->entry_bytes;
  unsigned long long w = 0;
  cudaMemsetAsync(dWrong, 0, sizeof w, stream);
  for (int i = 0; i < 8; i++) {
    if (c->b) dtrPatternPoisonLaunch(c->b, ls->out_rows, rows, ls->out_row_start, cols, e, stream);
    dtrResult_t res = dtrExecute(c->plan, c->a, c->b, stream);
    EXPECT(res == dtrSuccess, "execute %d back to back: %s", i, dtrGetLastError());
    if (c->b) dtrPatternCheckLaunch(c->b, ls->out_rows, rows, ls->out_row_start, cols, e, dWrong, stream);
  }
  cudaMemcpyAsync(&w, dWrong, sizeof w, cudaMemcpyDeviceToHost, stream);
  EXPECT(cudaStreamSynchronize(stream) == cudaSuccess, "stream: %s", cudaGetErrorString(cudaGetLastError()));
  return w;
}

static dtrResult_t runExecute(void* p) {
  Ctx* c = p;
  return dtrExecute(c->plan, c->a, c->b, stream);
}

static dtrResult_t runGraph(void* p) {
  Ctx* c = p;
  return cudaGraphLaunch(c->graph, stream) == cudaSuccess ? dtrSuccess : dtrCudaError;
}

static uint64_t runCase(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, dtrKernel_t kernel, int graph,
                        int stages) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.kernel = kernel;
  cfg.stages = stages;
  Ctx c = {0};
  dtrResult_t res = dtrPlanCreate(&c.plan, rows, cols, type, howmany, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrSuccess, "plan %lldx%lld %s: %s", (long long)rows, (long long)cols, dtrDataTypeName(type), dtrGetLastError());
  if (res != dtrSuccess) return 1;
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, type, howmany, MPI_COMM_WORLD, -1, &ls);
  if (ls.in_bytes) cudaMalloc(&c.a, ls.in_bytes);
  if (ls.out_bytes) cudaMalloc(&c.b, ls.out_bytes);
  if (c.a) dtrPatternFillLaunch(c.a, ls.in_rows, cols, ls.in_row_start, ls.entry_bytes, stream);
  uint64_t wrong = verify(&ls, rows, cols, c.b, runExecute, &c);
  wrong += verify(&ls, rows, cols, c.b, runExecute, &c); /* the plan is reusable */
  wrong += backToBack(&ls, rows, cols, &c);
  if (graph) {
    cudaGraph_t g;
    EXPECT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess, "begin capture");
    res = dtrExecute(c.plan, c.a, c.b, stream);
    EXPECT(res == dtrSuccess, "execute under capture: %s", dtrGetLastError());
    EXPECT(cudaStreamEndCapture(stream, &g) == cudaSuccess, "end capture");
    EXPECT(cudaGraphInstantiate(&c.graph, g, 0) == cudaSuccess, "instantiate");
    wrong += verify(&ls, rows, cols, c.b, runGraph, &c);
    wrong += verify(&ls, rows, cols, c.b, runGraph, &c);
    cudaGraphExecDestroy(c.graph);
    cudaGraphDestroy(g);
  }
  cudaFree(c.a);
  cudaFree(c.b);
  dtrPlanDestroy(c.plan);
  return wrong;
}

/* One plan, and its buffers freed and allocated again before each execute (CUDA hands the same
 * addresses back, small ones from a block it keeps): the peers still hold the freed ones mapped, and
 * must map the new ones all the same. A small matrix and one of a few MiB a rank. */
static uint64_t freshBuffers(int64_t rows, int64_t cols) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  Ctx c = {0};
  dtrResult_t res = dtrPlanCreate(&c.plan, rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrSuccess, "plan for fresh buffers: %s", dtrGetLastError());
  if (res != dtrSuccess) return 1;
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, -1, &ls);
  uint64_t wrong = 0;
  for (int round = 0; round < 6; round++) {
    EXPECT(cudaMalloc(&c.a, ls.in_bytes ? ls.in_bytes : 16) == cudaSuccess, "round %d: cudaMalloc", round);
    EXPECT(cudaMalloc(&c.b, ls.out_bytes ? ls.out_bytes : 16) == cudaSuccess, "round %d: cudaMalloc", round);
    dtrPatternFillLaunch(c.a, ls.in_rows, cols, ls.in_row_start, ls.entry_bytes, stream);
    wrong += verify(&ls, rows, cols, c.b, runExecute, &c);
    cudaFree(c.a);
    cudaFree(c.b);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  dtrPlanDestroy(c.plan);
  return wrong;
}

/* In place: one buffer of max(in, out) bytes; eight rounds of poison, fill A, execute, check B on the
 * stream with no host synchronisation (a peer storing into a rank's buffer before that rank has
 * read its A shows as wrong entries), then graph replays of the same. */
static uint64_t inPlaceRounds(const dtrLocalSize_t* ls, int64_t rows, int64_t cols, dtrPlan_t plan, void* buf,
                              size_t bytes, cudaGraphExec_t graph, int rounds) {
  const size_t e = ls->entry_bytes;
  unsigned long long w = 0;
  cudaMemsetAsync(dWrong, 0, sizeof w, stream);
  for (int i = 0; i < rounds; i++) {
    if (buf) dtrPatternPoisonLaunch(buf, (int64_t)(bytes / e), 1, 0, 1, e, stream);
    if (ls->in_bytes) dtrPatternFillLaunch(buf, ls->in_rows, cols, ls->in_row_start, e, stream);
    dtrResult_t res = graph ? (cudaGraphLaunch(graph, stream) == cudaSuccess ? dtrSuccess : dtrCudaError)
                            : dtrExecute(plan, buf, buf, stream);
    EXPECT(res == dtrSuccess, "in-place execute %d: %s", i, dtrGetLastError());
    if (ls->out_bytes) dtrPatternCheckLaunch(buf, ls->out_rows, rows, ls->out_row_start, cols, e, dWrong, stream);
  }
  cudaMemcpyAsync(&w, dWrong, sizeof w, cudaMemcpyDeviceToHost, stream);
  EXPECT(cudaStreamSynchronize(stream) == cudaSuccess, "stream: %s", cudaGetErrorString(cudaGetLastError()));
  return w;
}

static uint64_t inPlaceCase(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, int stages, int graph) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.stages = stages;
  cfg.inplace = 1;
  dtrPlan_t plan;
  dtrResult_t res = dtrPlanCreate(&plan, rows, cols, type, howmany, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrSuccess, "in-place plan %lldx%lld %s: %s", (long long)rows, (long long)cols, dtrDataTypeName(type),
         dtrGetLastError());
  if (res != dtrSuccess) return 1;
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, type, howmany, MPI_COMM_WORLD, -1, &ls);
  const size_t bytes = ls.in_bytes > ls.out_bytes ? ls.in_bytes : ls.out_bytes;
  void* buf = NULL;
  if (bytes) cudaMalloc(&buf, bytes);
  uint64_t wrong = inPlaceRounds(&ls, rows, cols, plan, buf, bytes, NULL, 8);
  if (graph) {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    EXPECT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess, "begin capture");
    res = dtrExecute(plan, buf, buf, stream);
    EXPECT(res == dtrSuccess, "in-place execute under capture: %s", dtrGetLastError());
    EXPECT(cudaStreamEndCapture(stream, &g) == cudaSuccess, "end capture");
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess, "instantiate");
    wrong += inPlaceRounds(&ls, rows, cols, plan, buf, bytes, exec, 3);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
  }
  cudaFree(buf);
  dtrPlanDestroy(plan);
  return wrong;
}

static void badBuffers(void) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  dtrPlan_t plan;
  const int64_t rows = 1024 * nranks, cols = 1024 * nranks; /* buffers of MiBs: allocation granularity */
  if (dtrPlanCreate(&plan, rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, &cfg) != dtrSuccess) {
    EXPECT(0, "plan: %s", dtrGetLastError());
    return;
  }
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, -1, &ls);
  void *a, *b, *small;
  cudaMalloc(&a, ls.in_bytes + 256); /* room for the misaligned pointer below, inside its own allocation */
  cudaMalloc(&b, ls.out_bytes);
  cudaMalloc(&small, ls.out_bytes / 2);
  void* host = malloc(ls.out_bytes);
  dtrResult_t res = dtrExecute(plan, a, rank == 0 ? host : b, stream);
  EXPECT(res == dtrInvalidArgument && strstr(dtrGetLastError(), "host memory"), "host buffer: %d %s", res, dtrGetLastError());
  res = dtrExecute(plan, a, rank == nranks - 1 ? small : b, stream);
  EXPECT(res == dtrInvalidArgument && strstr(dtrGetLastError(), "allocation"), "small buffer: %d %s", res, dtrGetLastError());
  res = dtrExecute(plan, (char*)a + 2, b, stream);
  EXPECT(res == dtrInvalidArgument && strstr(dtrGetLastError(), "aligned"), "misaligned: %d %s", res, dtrGetLastError());
  res = dtrExecute(plan, a, b, stream);
  EXPECT(res == dtrSuccess, "good execute after bad ones: %s", dtrGetLastError());
  cudaStreamSynchronize(stream);
  free(host);
  cudaFree(a);
  cudaFree(b);
  cudaFree(small);
  dtrPlanDestroy(plan);
}

/* A plan whose workspace no GPU has: refused before allocating, on every rank, with the bytes
 * needed and free. In place, so that the workspace holds the rank's own block at least, whatever
 * the backend and the rank count. */
static void outOfMemory(void) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.inplace = 1;
  dtrPlan_t plan = NULL;
  const int64_t side = (int64_t)1 << 20; /* c64: 8 TB in all */
  dtrResult_t res = dtrPlanCreate(&plan, side, side, dtrComplex64, 1, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrOutOfMemory && strstr(dtrGetLastError(), "not enough memory on GPU") &&
             strstr(dtrGetLastError(), "available"),
         "plan beyond GPU memory: %d '%s'", res, dtrGetLastError());
  if (rank == 0) printf("plan beyond GPU memory refused: %s\n", dtrGetLastError());
  if (res == dtrSuccess) dtrPlanDestroy(plan);
}

/* Auto picks p2p on one host with several GPUs (or ranks sharing one); an out buffer CUDA IPC cannot
 * share (a stream-ordered pool's, as frameworks' allocators hand out) lands in the plan's own buffer
 * and is copied into it: exact, back to back, and exact again on a plain buffer after it, and with
 * only rank 0's out pooled. */
static void autoChoice(void) {
  const int64_t rows = 300 * nranks + 7, cols = 200 * nranks + 3;
  dtrPlan_t plan;
  dtrResult_t res = dtrPlanCreate(&plan, rows, cols, dtrComplex64, 1, MPI_COMM_WORLD, NULL);
  EXPECT(res == dtrSuccess, "auto plan: %s", dtrGetLastError());
  if (res != dtrSuccess) return;
  dtrBackend_t b;
  dtrPlanGetBackend(plan, &b);
  EXPECT(b == (nranks > 1 ? dtrBackendP2p : dtrBackendNccl), "auto chose %s on %d ranks of one host", dtrBackendName(b), nranks);
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, dtrComplex64, 1, MPI_COMM_WORLD, -1, &ls);
  Ctx c = {plan, NULL, NULL, NULL};
  void *plain = NULL, *pooled = NULL;
  cudaMalloc(&c.a, ls.in_bytes);
  cudaMalloc(&plain, ls.out_bytes);
  cudaMallocAsync(&pooled, ls.out_bytes, stream);
  c.b = pooled;
  dtrPatternFillLaunch(c.a, ls.in_rows, cols, ls.in_row_start, ls.entry_bytes, stream);
  uint64_t wrong = verify(&ls, rows, cols, c.b, runExecute, &c) + backToBack(&ls, rows, cols, &c);
  EXPECT(wrong == 0, "auto with pooled buffers: %llu wrong", (unsigned long long)wrong);
  c.b = plain;
  wrong = verify(&ls, rows, cols, c.b, runExecute, &c);
  EXPECT(wrong == 0, "auto with plain buffers after pooled ones: %llu wrong", (unsigned long long)wrong);
  c.b = rank == 0 ? pooled : plain;
  wrong = verify(&ls, rows, cols, c.b, runExecute, &c);
  EXPECT(wrong == 0, "auto with rank 0's buffer pooled: %llu wrong", (unsigned long long)wrong);
  cudaFreeAsync(pooled, stream);
  cudaStreamSynchronize(stream);
  cudaFree(c.a);
  cudaFree(plain);
  dtrPlanDestroy(plan);
}

/* Ranks that share a GPU on the NCCL backend: the plan fails on every rank, naming NCCL's rule and
 * the backends that serve; auto takes p2p there. */
static void sharedGpuRefusal(int count, int localSize) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = dtrBackendNccl;
  dtrPlan_t plan;
  dtrResult_t res = dtrPlanCreate(&plan, 100, 100, dtrFloat32, 1, MPI_COMM_WORLD, &cfg);
  EXPECT(res == dtrNoDevice && strstr(dtrGetLastError(), "NCCL allows one rank per GPU") &&
             strstr(dtrGetLastError(), "p2p") && strstr(dtrGetLastError(), "share GPU"),
         "%d ranks on %d GPUs: %d '%s'", localSize, count, res, dtrGetLastError());
  if (rank == 0) printf("%d ranks on %d GPUs, nccl refused: %s\n", localSize, count, dtrGetLastError());
  if (res == dtrSuccess) dtrPlanDestroy(plan);
  res = dtrPlanCreate(&plan, 100, 100, dtrFloat32, 1, MPI_COMM_WORLD, NULL);
  EXPECT(res == dtrSuccess, "auto on a shared GPU: %s", dtrGetLastError());
  if (res != dtrSuccess) return;
  dtrBackend_t b;
  dtrPlanGetBackend(plan, &b);
  EXPECT(b == dtrBackendP2p, "auto chose %s where ranks share a GPU", dtrBackendName(b));
  dtrPlanDestroy(plan);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc > 1 && strcmp(argv[1], "p2p") == 0) backend = dtrBackendP2p;
  if (argc > 1 && strcmp(argv[1], "auto") == 0) backend = dtrBackendAuto;
  int localRank, localSize, shared = 0;
  const int count = dtrTestPickGpu(&shared);
  dtrTestNodeLocal(&localRank, &localSize);
  int none = count == 0, anyNone = 0;
  MPI_Allreduce(&none, &anyNone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (anyNone) {
    if (rank == 0) printf("SKIP: no GPU\n");
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  if (shared && backend == dtrBackendNccl) {
    sharedGpuRefusal(count, localSize);
  } else {
    sharedGpu = shared;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMalloc((void**)&dWrong, sizeof *dWrong);
    dtrShape shapes[32];
    const int n = dtrTestShapes(nranks, shapes);
    uint64_t wrong = 0;
    int cases = 0;
    /* Every type on every shape; howmany 3 on every third shape; pipeline stages by size (1 at
     * these sizes), 2, 3 or 7 in turn, graphs of shape 8 with one stage and three. */
    const int stageChoices[] = {0, 2, 3, 7};
    for (int s = 0; s < n; s++)
      for (int t = 0; t < dtrNumTypes; t++)
        for (int h = 1; h <= (s % 3 == 0 ? 3 : 1); h += 2) {
          const int stages = s == 8 ? (t % 2 ? 3 : 1) : stageChoices[(s + t + h) % 4];
          uint64_t w = sumRanks(runCase(shapes[s].rows, shapes[s].cols, (dtrDataType_t)t, h, dtrKernelAuto, s == 8, stages));
          if (w && rank == 0)
            fprintf(stderr, "FAIL %lldx%lld %s x%d: %llu wrong\n", (long long)shapes[s].rows, (long long)shapes[s].cols,
                    dtrDataTypeName((dtrDataType_t)t), h, (unsigned long long)w);
          wrong += w;
          cases++;
        }
    /* Each variant forced, on shapes where the vector kernels can and cannot serve. */
    const dtrDataType_t forcedTypes[] = {dtrInt8, dtrBfloat16, dtrFloat32, dtrComplex128};
    for (int k = dtrKernelSimt; k < dtrNumKernels; k++)
      for (int ti = 0; ti < 4; ti++) {
        const dtrDataType_t t = forcedTypes[ti];
        const int64_t sh[][2] = {{1000, 1003}, {512 * nranks, 384 * nranks}};
        for (int i = 0; i < 2; i++) {
          uint64_t w = sumRanks(runCase(sh[i][0], sh[i][1], t, 1, (dtrKernel_t)k, 0, 1 + 3 * i));
          if (w && rank == 0)
            fprintf(stderr, "FAIL kernel %s %lldx%lld %s: %llu wrong\n", dtrKernelName((dtrKernel_t)k), (long long)sh[i][0],
                    (long long)sh[i][1], dtrDataTypeName(t), (unsigned long long)w);
          wrong += w;
          cases++;
        }
      }
    outOfMemory();
    /* In place: every shape and type, stages in turn, a graph on shape 8. */
    int inPlaceCases = 0;
    for (int s = 0; s < n; s++)
      for (int t = 0; t < dtrNumTypes; t++) {
        const int h = (s + t) % 3 == 0 ? 3 : 1;
        uint64_t w = sumRanks(inPlaceCase(shapes[s].rows, shapes[s].cols, (dtrDataType_t)t, h, stageChoices[(s + t) % 4],
                                          s == 8 && t == dtrComplex64));
        if (w && rank == 0)
          fprintf(stderr, "FAIL in place %lldx%lld %s x%d: %llu wrong\n", (long long)shapes[s].rows,
                  (long long)shapes[s].cols, dtrDataTypeName((dtrDataType_t)t), h, (unsigned long long)w);
        wrong += w;
        inPlaceCases++;
      }
    /* Large enough for the vector kernels and several stages. */
    wrong += sumRanks(inPlaceCase(512 * nranks + 3, 384 * nranks, dtrFloat32, 1, 3, 0));
    wrong += sumRanks(inPlaceCase(512 * nranks, 768 * nranks, dtrComplex64, 1, 0, 1));
    inPlaceCases += 2;
    cases += inPlaceCases;
    if (backend != dtrBackendNccl) {
      const int64_t fresh[][2] = {{6 * nranks + 1, 5 * nranks}, {512 * nranks + 7, 384 * nranks + 1}};
      for (int i = 0; i < 2; i++) {
        const uint64_t w = sumRanks(freshBuffers(fresh[i][0], fresh[i][1]));
        if (w && rank == 0)
          fprintf(stderr, "FAIL fresh buffers %lldx%lld: %llu wrong\n", (long long)fresh[i][0], (long long)fresh[i][1],
                  (unsigned long long)w);
        wrong += w;
        cases++;
      }
    }
    badBuffers();
    if (backend != dtrBackendNccl) autoChoice();
    EXPECT(wrong == 0, "%llu wrong entries", (unsigned long long)wrong);
    if (rank == 0)
      printf("%s, %d ranks, %d cases (%d in place): %llu wrong entries\n", dtrBackendName(backend), nranks, cases,
             inPlaceCases, (unsigned long long)wrong);
    cudaFree(dWrong);
    cudaStreamDestroy(stream);
  }
  int failures = dtrTestFailures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all ? 1 : 0;
}
