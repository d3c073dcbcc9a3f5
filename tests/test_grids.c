/*
 * Plans on communicators other than the world, under mpiexec, on the backend named by argv[1]
 * (cpu: host buffers, in CI; nccl or p2p: one GPU per rank, the current one):
 *   - the world split in halves, a plan on each half beside a plan on the world, default config,
 *     buffers allocated before the plans, executes interleaved on one stream and on two; the caller's
 *     current device checked after every call;
 *   - every pencil transpose on every grid the rank count factors into (1 x P, P x 1, 2 x 2, 2 x 3,
 *     3 x 1, ...), shapes that do not divide (boxes empty included), every type, howmany 1 and 2,
 *     own and grid-shared workspace, each checked bit for bit against the pattern of global indices;
 *   - round trips X -> Y -> Z -> Y -> X (and X -> Z -> X on slabs) back to the original bits.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "disttranspose.h"
#include "launch.h"
#include "support/pattern_host.h"
#include "harness.h"

static int rank, nranks, gpu, myDevice = -1;
static dtrBackend_t backend = dtrBackendCpu;
static dtrTestMemory mem; /* its stream is the first of the two the tests interleave on */
static cudaStream_t stream2;

/* The calling thread's device is the one it chose, whatever the library did. */
static void expectDevice(const char* after) {
  if (!gpu) return;
  int d = -1;
  cudaGetDevice(&d);
  EXPECT(d == myDevice, "after %s the current device is %d, not %d", after, d, myDevice);
}

static uint64_t sumRanks(uint64_t v) {
  uint64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static dtrConfig_t config(dtrWorkspace_t ws) {
  dtrConfig_t c;
  dtrConfigInit(&c);
  c.backend = backend;
  c.workspace = ws;
  return c;
}

/* ---- split communicators --------------------------------------------------------------------- */

static void splitCommunicators(void) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank < nranks / 2, rank, &half);
  /* The user's way: default config (backend auto: NCCL where every rank has a GPU). */
  dtrConfig_t def;
  dtrConfigInit(&def);
  if (backend != dtrBackendNccl) def.backend = backend;
  dtrTestMatrix h, w;
  EXPECT(dtrTestMatrixInit(&h, &mem, half, 37, 101, dtrComplex64, 1, &def) == dtrSuccess, "plan on a half: %s",
         dtrGetLastError());
  expectDevice("dtrPlanCreate");
  EXPECT(dtrTestMatrixInit(&w, &mem, MPI_COMM_WORLD, 64, 29, dtrComplex64, 1, &def) == dtrSuccess,
         "plan on the world: %s", dtrGetLastError());
  expectDevice("dtrPlanCreate");
  /* h's plan is agreed within its half only: were one half to return here, the other would wait for it
   * in w's executes. */
  if (!dtrTestAll(h.plan && w.plan)) {
    dtrTestMatrixFree(&h, &mem);
    dtrTestMatrixFree(&w, &mem);
    MPI_Comm_free(&half);
    return;
  }
  uint64_t wrong = 0;
  /* Interleaved on one stream, then on two streams. */
  for (int round = 0; round < 2; round++) {
    dtrTestPattern(&mem, dtrPatternPoison, h.b, &h.out, h.ls.entry_bytes);
    dtrTestPattern(&mem, dtrPatternPoison, w.b, &w.out, w.ls.entry_bytes);
    EXPECT(dtrExecute(h.plan, h.a, h.b, mem.stream) == dtrSuccess, "half execute: %s", dtrGetLastError());
    expectDevice("dtrExecute");
    EXPECT(dtrExecute(w.plan, w.a, w.b, round ? stream2 : mem.stream) == dtrSuccess, "world execute: %s", dtrGetLastError());
    expectDevice("dtrExecute");
    EXPECT(dtrExecute(h.plan, h.a, h.b, mem.stream) == dtrSuccess, "half execute again: %s", dtrGetLastError());
    if (gpu) cudaStreamSynchronize(stream2);
    wrong += dtrTestPattern(&mem, dtrPatternCheck, h.b, &h.out, h.ls.entry_bytes) +
             dtrTestPattern(&mem, dtrPatternCheck, w.b, &w.out, w.ls.entry_bytes);
  }
  /* The caller's own copies keep working on its device. */
  if (gpu && h.ls.in_bytes) {
    void* host = malloc(h.ls.in_bytes);
    EXPECT(cudaMemcpy(host, h.a, h.ls.in_bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy after the plans: %s",
           cudaGetErrorString(cudaGetLastError()));
    free(host);
  }
  int d = -2;
  EXPECT(dtrPlanGetDevice(h.plan, &d) == dtrSuccess && (!gpu || d == myDevice), "the plan's device %d, current %d", d, myDevice);
  dtrTestMatrixFree(&h, &mem);
  dtrTestMatrixFree(&w, &mem);
  expectDevice("dtrPlanDestroy");
  MPI_Comm_free(&half);
  wrong = sumRanks(wrong);
  EXPECT(wrong == 0, "split communicators: %llu wrong entries", (unsigned long long)wrong);
  if (rank == 0) printf("split communicators (halves beside the world): %llu wrong\n", (unsigned long long)wrong);
}

/* ---- pencils --------------------------------------------------------------------------------- */

typedef struct {
  dtrGrid_t grid;
  const int64_t* shape;
  dtrDataType_t type;
  int64_t howmany;
  dtrBox_t box[3];
  void* data[3]; /* one buffer per pencil */
} PencilCase;

static dtrPatternBox boxOf(const PencilCase* c, int pencil) { return dtrPatternBoxOfPencil(&c->box[pencil], c->shape); }

/* One transpose from -> to: fill from's box, poison to's, execute, count to's wrong entries. */
static uint64_t runDirection(PencilCase* c, dtrPlan_t plan, int from, int to) {
  const dtrPatternBox in = boxOf(c, from), out = boxOf(c, to);
  const size_t e = c->box[from].entry_bytes;
  dtrTestPattern(&mem, dtrPatternFill, c->data[from], &in, e);
  dtrTestPattern(&mem, dtrPatternPoison, c->data[to], &out, e);
  dtrResult_t res = dtrExecute(plan, c->data[from], c->data[to], mem.stream);
  EXPECT(res == dtrSuccess, "%s->%s execute: %s", dtrPencilName(from), dtrPencilName(to), dtrGetLastError());
  expectDevice("dtrExecute (pencil)");
  return dtrTestPattern(&mem, dtrPatternCheck, c->data[to], &out, e);
}

static uint64_t pencilCase(dtrGrid_t grid, int pr, const int64_t shape[3], dtrDataType_t type, int64_t howmany,
                           dtrWorkspace_t ws, int* directions) {
  PencilCase c;
  memset(&c, 0, sizeof c);
  c.grid = grid, c.shape = shape, c.type = type, c.howmany = howmany;
  for (int p = 0; p < 3; p++) {
    EXPECT(dtrPencilBox(grid, shape, (dtrPencil_t)p, type, howmany, -1, &c.box[p]) == dtrSuccess, "box");
    c.data[p] = dtrTestAlloc(&mem, c.box[p].bytes);
  }
  /* X->Y, Y->Z, Z->Y, Y->X; on slabs X->Z, Z->X too. */
  const int pairs[6][2] = {{0, 1}, {1, 2}, {2, 1}, {1, 0}, {0, 2}, {2, 0}};
  const int npairs = pr == 1 ? 6 : 4;
  dtrPlan_t plans[6] = {NULL};
  const dtrConfig_t cfg = config(ws);
  uint64_t wrong = 0;
  for (int i = 0; i < npairs; i++) {
    dtrResult_t res = dtrPlanCreatePencil(&plans[i], grid, shape, (dtrPencil_t)pairs[i][0], (dtrPencil_t)pairs[i][1],
                                          type, howmany, &cfg);
    EXPECT(res == dtrSuccess, "%s->%s plan: %s", dtrPencilName(pairs[i][0]), dtrPencilName(pairs[i][1]), dtrGetLastError());
    expectDevice("dtrPlanCreatePencil");
    if (res != dtrSuccess) continue;
    const uint64_t w = runDirection(&c, plans[i], pairs[i][0], pairs[i][1]);
    EXPECT(w == 0, "%s->%s: %llu wrong", dtrPencilName(pairs[i][0]), dtrPencilName(pairs[i][1]), (unsigned long long)w);
    wrong += w;
    (*directions)++;
  }
  /* Round trip X -> Y -> Z -> Y -> X: the pattern again, bit for bit, in X's buffer (poisoned first). */
  if (plans[0] && plans[1] && plans[2] && plans[3]) {
    const dtrPatternBox x = boxOf(&c, 0);
    const size_t e = c.box[0].entry_bytes;
    dtrTestPattern(&mem, dtrPatternFill, c.data[0], &x, e);
    dtrExecute(plans[0], c.data[0], c.data[1], mem.stream);
    dtrTestPattern(&mem, dtrPatternPoison, c.data[0], &x, e);
    dtrExecute(plans[1], c.data[1], c.data[2], mem.stream);
    dtrExecute(plans[2], c.data[2], c.data[1], mem.stream);
    dtrExecute(plans[3], c.data[1], c.data[0], mem.stream);
    uint64_t w = dtrTestPattern(&mem, dtrPatternCheck, c.data[0], &x, e);
    if (pr == 1 && plans[4] && plans[5]) {
      dtrExecute(plans[4], c.data[0], c.data[2], mem.stream);
      dtrTestPattern(&mem, dtrPatternPoison, c.data[0], &x, e);
      dtrExecute(plans[5], c.data[2], c.data[0], mem.stream);
      w += dtrTestPattern(&mem, dtrPatternCheck, c.data[0], &x, e);
    }
    EXPECT(w == 0, "round trip: %llu wrong", (unsigned long long)w);
    wrong += w;
  }
  /* Grid-shared workspace: Y->X, made last of the four, takes the largest buffer of the three before
   * it, since it needs no more than X->Y (the same messages, the other way). */
  if (ws == dtrWorkspaceGrid && plans[0] && plans[1] && plans[2] && plans[3]) {
    size_t b[4] = {0};
    for (int i = 0; i < 4; i++) dtrPlanGetWorkspaceSize(plans[i], &b[i]);
    size_t most = b[0] > b[1] ? b[0] : b[1];
    most = most > b[2] ? most : b[2];
    EXPECT(b[3] == 0 || b[3] == most, "shared workspace: Y->X holds %zu bytes, the largest before it %zu", b[3], most);
  }
  for (int i = 0; i < npairs; i++)
    if (plans[i]) EXPECT(dtrPlanDestroy(plans[i]) == dtrSuccess, "destroy");
  for (int p = 0; p < 3; p++) dtrTestRelease(&mem, c.data[p]);
  return wrong;
}

/* In place: one buffer of the largest box carries the array X -> Y -> Z -> Y -> X (and X -> Z -> X
 * on slabs), every box checked against the pattern on the way; the buffer is poisoned first, so
 * that what lies past a box is never mistaken for data. */
static uint64_t pencilInPlace(dtrGrid_t grid, int pr, const int64_t shape[3], dtrDataType_t type, int64_t howmany,
                              dtrWorkspace_t ws) {
  PencilCase c;
  memset(&c, 0, sizeof c);
  c.grid = grid, c.shape = shape, c.type = type, c.howmany = howmany;
  size_t bytes = 0;
  for (int p = 0; p < 3; p++) {
    EXPECT(dtrPencilBox(grid, shape, (dtrPencil_t)p, type, howmany, -1, &c.box[p]) == dtrSuccess, "box");
    if (c.box[p].bytes > bytes) bytes = c.box[p].bytes;
  }
  const size_t e = c.box[0].entry_bytes;
  void* buf = dtrTestAlloc(&mem, bytes);
  const dtrPatternBox whole = dtrPatternSlabA(1, (int64_t)(bytes / e), 0);
  dtrTestPattern(&mem, dtrPatternPoison, buf, &whole, e);
  const dtrPatternBox x = boxOf(&c, 0);
  dtrTestPattern(&mem, dtrPatternFill, buf, &x, e);
  const int path[][2] = {{0, 1}, {1, 2}, {2, 1}, {1, 0}, {0, 2}, {2, 0}};
  const int steps = pr == 1 ? 6 : 4;
  dtrConfig_t cfg = config(ws);
  cfg.inplace = 1;
  uint64_t wrong = 0;
  for (int i = 0; i < steps; i++) {
    const int from = path[i][0], to = path[i][1];
    dtrPlan_t plan = NULL;
    dtrResult_t res = dtrPlanCreatePencil(&plan, grid, shape, (dtrPencil_t)from, (dtrPencil_t)to, type, howmany, &cfg);
    EXPECT(res == dtrSuccess, "%s->%s in-place plan: %s", dtrPencilName(from), dtrPencilName(to), dtrGetLastError());
    if (res != dtrSuccess) break;
    res = dtrExecute(plan, buf, buf, mem.stream);
    EXPECT(res == dtrSuccess, "%s->%s in place: %s", dtrPencilName(from), dtrPencilName(to), dtrGetLastError());
    const dtrPatternBox out = boxOf(&c, to);
    const uint64_t w = dtrTestPattern(&mem, dtrPatternCheck, buf, &out, e);
    EXPECT(w == 0, "%s->%s in place: %llu wrong", dtrPencilName(from), dtrPencilName(to), (unsigned long long)w);
    wrong += w;
    EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy");
  }
  dtrTestRelease(&mem, buf);
  return wrong;
}

static void pencils(void) {
  const int64_t shapes[][3] = {{17, 33, 65}, {2, 3, 5}, {1, 1, 1}, {8, 8, 8}, {5, 1, 7}};
  const int nshapes = sizeof shapes / sizeof shapes[0];
  uint64_t wrong = 0;
  int cases = 0, directions = 0;
  for (int pr = 1; pr <= nranks; pr++) {
    if (nranks % pr) continue;
    const int pc = nranks / pr;
    dtrGrid_t grid = NULL;
    dtrResult_t res = dtrGridCreate(&grid, MPI_COMM_WORLD, pr, pc);
    EXPECT(res == dtrSuccess, "grid %dx%d: %s", pr, pc, dtrGetLastError());
    if (res != dtrSuccess) continue;
    for (int s = 0; s < nshapes; s++)
      for (int t = 0; t < dtrNumTypes; t++) {
        const int64_t howmany = (s + t) % 3 == 0 ? 2 : 1;
        const dtrWorkspace_t ws = (s + t) % 2 ? dtrWorkspaceGrid : dtrWorkspaceOwn;
        const uint64_t w = sumRanks(pencilCase(grid, pr, shapes[s], (dtrDataType_t)t, howmany, ws, &directions) +
                                    pencilInPlace(grid, pr, shapes[s], (dtrDataType_t)t, howmany, ws));
        if (w && rank == 0)
          fprintf(stderr, "FAIL grid %dx%d %lldx%lldx%lld %s x%lld: %llu wrong\n", pr, pc, (long long)shapes[s][0],
                  (long long)shapes[s][1], (long long)shapes[s][2], dtrDataTypeName((dtrDataType_t)t), (long long)howmany,
                  (unsigned long long)w);
        wrong += w;
        cases++;
      }
    EXPECT(dtrGridDestroy(grid) == dtrSuccess, "grid destroy");
  }
  /* A Cartesian communicator gives the grid its own dimensions. */
  int dims[2] = {0, 0}, periods[2] = {0, 0};
  MPI_Dims_create(nranks, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  dtrGrid_t grid = NULL;
  int pr = 0, pc = 0;
  EXPECT(dtrGridCreate(&grid, cart, 0, 0) == dtrSuccess && dtrGridGetDims(grid, &pr, &pc, NULL, NULL) == dtrSuccess &&
             pr == dims[0] && pc == dims[1],
         "Cartesian grid %dx%d, expected %dx%d", pr, pc, dims[0], dims[1]);
  if (grid) {
    wrong += sumRanks(pencilCase(grid, pr, shapes[0], dtrComplex128, 1, dtrWorkspaceGrid, &directions));
    dtrGridDestroy(grid);
  }
  MPI_Comm_free(&cart);
  EXPECT(wrong == 0, "pencils: %llu wrong entries", (unsigned long long)wrong);
  if (rank == 0)
    printf("pencils on every %d-rank grid: %d cases, %d transposes (and each case in place), %llu wrong\n", nranks,
           cases + 1, directions,
           (unsigned long long)wrong);
}

/* Bad pencil arguments fail on every rank with a message naming them. */
static void badPencils(void) {
  dtrGrid_t grid = NULL;
  EXPECT(dtrGridCreate(&grid, MPI_COMM_WORLD, nranks + 1, 1) == dtrInvalidArgument, "grid larger than the communicator");
  EXPECT(dtrGridCreate(&grid, MPI_COMM_WORLD, 0, 0) == dtrSuccess, "grid chosen: %s", dtrGetLastError());
  int pr = 0, pc = 0;
  dtrGridGetDims(grid, &pr, &pc, NULL, NULL);
  EXPECT(pr * pc == nranks && pr <= pc, "chosen grid %dx%d", pr, pc);
  const int64_t shape[3] = {9, 10, 11}, bad[3] = {9, 0, 11};
  dtrPlan_t plan = NULL;
  const dtrConfig_t cfg = config(dtrWorkspaceOwn);
  EXPECT(dtrPlanCreatePencil(&plan, grid, bad, dtrPencilX, dtrPencilY, dtrFloat32, 1, &cfg) == dtrInvalidArgument &&
             strstr(dtrGetLastError(), "ny"),
         "zero ny: %s", dtrGetLastError());
  EXPECT(dtrPlanCreatePencil(&plan, grid, shape, dtrPencilY, dtrPencilY, dtrFloat32, 1, &cfg) == dtrInvalidArgument,
         "Y -> Y accepted");
  if (pr > 1)
    EXPECT(dtrPlanCreatePencil(&plan, grid, shape, dtrPencilX, dtrPencilZ, dtrFloat32, 1, &cfg) == dtrInvalidArgument &&
               strstr(dtrGetLastError(), "1 x P"),
           "X -> Z on %dx%d: %s", pr, pc, dtrGetLastError());
  if (nranks > 1) {
    const int64_t mine[3] = {9, 10, rank == 0 ? 12 : 11};
    EXPECT(dtrPlanCreatePencil(&plan, grid, mine, dtrPencilX, dtrPencilY, dtrFloat32, 1, &cfg) == dtrMismatch &&
               strstr(dtrGetLastError(), "shape[2]"),
           "shapes differ: %s", dtrGetLastError());
  }
  EXPECT(plan == NULL, "a failed create leaves the plan NULL");
  dtrGridDestroy(grid);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc > 1 && !strcmp(argv[1], "nccl")) backend = dtrBackendNccl;
  if (argc > 1 && !strcmp(argv[1], "p2p")) backend = dtrBackendP2p;
  if (argc > 1 && !strcmp(argv[1], "auto")) backend = dtrBackendAuto;
  gpu = backend != dtrBackendCpu;
  /* The program picks its GPU (the node-local rank's, test_memory.h); the library takes the current one. */
  if (dtrTestMemoryInit(&mem, backend) == DTR_TEST_SKIP) {
    MPI_Finalize();
    return DTR_TEST_SKIP;
  }
  if (gpu) {
    cudaGetDevice(&myDevice);
    cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking);
  }
  splitCommunicators();
  pencils();
  badPencils();
  if (gpu) cudaStreamDestroy(stream2);
  dtrTestMemoryFree(&mem);
  int failures = dtrTestFailures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks (%s): %d failed checks\n", nranks, dtrBackendName(backend), all);
  MPI_Finalize();
  return all ? 1 : 0;
}
