/*
 * No hang on a stalled rank, under mpiexec: the last rank stalls, and every other rank must get
 * dtrTimeout from the call it waits in within the timeout (and a margin for aborting), a clear
 * message, dtrTimeout at once from the next call on the plan, and a destroy that returns at once.
 *
 *   test_timeout BACKEND WHERE [--timeout SECONDS]
 *     BACKEND  cpu, nccl or p2p
 *     WHERE    create   the last rank does not call dtrPlanCreate
 *              execute  the last rank does not call dtrExecute (its host never arrives)
 *              stream   (GPU backends) the last rank calls dtrExecute, but its stream is held by a
 *                       host function for two timeouts: its GPU does not take part in time
 *
 * The stalled rank sleeps for two timeouts, then joins the others in a final barrier: nothing is
 * left waiting. Every rank prints what it got and after how long. A rank that wakes up after the
 * others have timed out must not call the library on that plan again (its collectives would meet
 * the ones the others left behind): where its host stalled, it leaves the plan as it is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core/names.h"
#include "disttranspose.h"
#include "harness.h"

/* Slack over the timeout for a rank to notice, abort NCCL and return. */
static const double kMarginSeconds = 3.0;

static void CUDART_CB holdStream(void* seconds) { usleep((useconds_t)(*(double*)seconds * 1e6)); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  dtrBackend_t backend = dtrBackendCpu;
  const char* where = argc > 2 ? argv[2] : "";
  double timeout = 2.0;
  for (int i = 3; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--timeout")) timeout = atof(argv[i + 1]);
  if (argc < 3 || dtrParseBackend(argv[1], &backend) ||
      (strcmp(where, "create") && strcmp(where, "execute") && strcmp(where, "stream")) || !(timeout > 0)) {
    if (rank == 0) fprintf(stderr, "usage: test_timeout cpu|nccl|p2p create|execute|stream [--timeout SECONDS]\n");
    MPI_Finalize();
    return 2;
  }
  const int gpu = backend != dtrBackendCpu;
  if (nranks < 2 || (!gpu && !strcmp(where, "stream"))) {
    if (rank == 0) printf("SKIP: needs 2 ranks or more, and a GPU backend for 'stream'\n");
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  dtrTestMemory mem;
  if (dtrTestMemoryInit(&mem, backend) == DTR_TEST_SKIP) {
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  const int stalled = rank == nranks - 1;
  const double hold = 2 * timeout;

  const int64_t rows = 300, cols = 257;
  dtrLocalSize_t ls;
  dtrLocalSize(rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, -1, &ls);
  void* a = dtrTestAlloc(&mem, ls.in_bytes);
  void* b = dtrTestAlloc(&mem, ls.out_bytes);
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.timeout = timeout;

  dtrPlan_t plan = NULL;
  dtrResult_t res = dtrSuccess;
  const char* call = "dtrPlanCreate";
  double t0 = MPI_Wtime();
  if (!strcmp(where, "create") && stalled) {
    usleep((useconds_t)(hold * 1e6));
  } else {
    res = dtrPlanCreate(&plan, rows, cols, dtrFloat32, 1, MPI_COMM_WORLD, &cfg);
    if (res == dtrSuccess) {
      /* One execute with everybody first: the transport is set up, so the stall is met in the
       * exchange itself rather than in its first connection. */
      res = dtrExecute(plan, a, b, mem.stream);
      EXPECT(res == dtrSuccess, "rank %d: the first execute: %s", rank, dtrGetLastError());
      call = "dtrExecute";
      if (stalled && !strcmp(where, "execute")) {
        usleep((useconds_t)(hold * 1e6));
      } else {
        if (stalled) EXPECT(cudaLaunchHostFunc(mem.stream, holdStream, (void*)&hold) == cudaSuccess, "cudaLaunchHostFunc");
        t0 = MPI_Wtime();
        res = dtrExecute(plan, a, b, mem.stream);
      }
    }
  }
  const double waited = MPI_Wtime() - t0;
  const int reported = !(stalled && strcmp(where, "stream"));
  if (reported) {
    printf("rank %d: %s returned %s after %.2f s (timeout %.2f s): %s\n", rank, call, dtrGetErrorString(res), waited,
           timeout, res == dtrSuccess ? "" : dtrGetLastError());
    fflush(stdout);
  }
  if (!stalled) {
    EXPECT(res == dtrTimeout, "rank %d: %s returned %s, not a timeout", rank, call, dtrGetErrorString(res));
    EXPECT(waited >= timeout * 0.95 && waited <= timeout + kMarginSeconds,
           "rank %d: %s took %.2f s for a timeout of %.2f s", rank, call, waited, timeout);
    EXPECT(strstr(dtrGetLastError(), "timed out") != NULL, "rank %d: the message does not say so: %s", rank,
           dtrGetLastError());
  }
  if (plan && !(stalled && !strcmp(where, "execute"))) {
    if (res == dtrTimeout) {
      /* The plan is spent: the next call says so at once, and destroying it waits for no one. */
      t0 = MPI_Wtime();
      const dtrResult_t again = dtrExecute(plan, a, b, mem.stream);
      EXPECT(again == dtrTimeout && MPI_Wtime() - t0 < 1, "rank %d: an execute after the timeout returned %s after %.2f s",
             rank, dtrGetErrorString(again), MPI_Wtime() - t0);
    }
    t0 = MPI_Wtime();
    EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "rank %d: destroy: %s", rank, dtrGetLastError());
    EXPECT(MPI_Wtime() - t0 < 1, "rank %d: destroy took %.2f s", rank, MPI_Wtime() - t0);
  }
  if (gpu) cudaStreamSynchronize(mem.stream);
  dtrTestRelease(&mem, a);
  dtrTestRelease(&mem, b);
  dtrTestMemoryFree(&mem);

  int failures = dtrTestFailures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s backend, stall in %s, %d ranks, timeout %.2f s\n", total ? "FAILED" : "PASSED",
                        dtrBackendName(backend), where, nranks, timeout);
  MPI_Finalize();
  return total ? 1 : 0;
}
