/*
 * The one-pass path's barriers among 2 to 8 ranks, emulated by streams in one process: each rank is
 * a stream with its own slab of A, its own slab of B and its own flags array, and its grouped launch
 * (dtrTransposeGroupLaunch with `sync`) stores straight into every rank's B, as the p2p backend's
 * does into its peers'. So the barrier protocol of any rank count runs on a machine of one GPU; where
 * the machine has several GPUs that are all peers, rank r runs on GPU r % GPUs, and the flags and
 * stores cross NVLink as in the backend.
 *
 * Each rank runs, on its stream and without the host in between: execute 1 (A into B), a snapshot
 * of its B (the owner reading its result), execute 2 (other data into the same B). The snapshot
 * must hold all of execute 1 (the finish barrier: every rank's stores into this B came first) and
 * nothing of execute 2 (the arrive barrier: no rank stores into this B before its owner has read
 * it). The sequence runs twice, so the epochs and block counts carry over; shapes give some ranks
 * no rows, and members that take several launches, so that both forms of the barriers (folded into
 * the pass kernel, and kernels of their own) meet among the ranks. Bitwise, B poisoned first.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core/geometry.h"
#include "support/cuda_check.h"
#include "launch.h"
#include "peer_flags_check.h"
#include "support/pattern_host.h"

enum { kMaxRanks = 8 };

/* The second execute's data: the pattern with every byte flipped by this mask (not the poison,
 * which flips every bit). */
static const uint8_t kSecondData = 0xA5;

typedef struct {
  int gpu;
  dtrRange rows, cols;       /* of A this rank owns; of A's columns, the rows of B it owns */
  uint8_t *a[2], *b, *snap;  /* A of the two executes, B, the snapshot of B between them */
  size_t aBytes, bBytes;
  cudaStream_t stream;
  uint64_t* flags;
} Rank;

static void xorBytes(uint8_t* p, size_t n, uint8_t mask) {
  for (size_t i = 0; i < n; i++) p[i] ^= mask;
}

/* Entries of a B slab (on the GPU) that differ from the transpose of A's pattern flipped by mask. */
static uint64_t wrongEntries(const Rank* q, const uint8_t* device, int64_t R, int64_t C, size_t e, uint8_t mask) {
  uint8_t* h = malloc(q->bBytes ? q->bBytes : 1);
  CUDA_OK(cudaMemcpy(h, device, q->bBytes, cudaMemcpyDeviceToHost));
  xorBytes(h, q->bBytes, mask);
  const uint64_t wrong = dtrHostPatternCheck(h, q->cols.count, R, q->cols.start, C, e);
  free(h);
  return wrong;
}

/* Waits for every stream; where they are not done in `seconds` (a barrier that never opens), raises
 * the abort word so that the kernels end, and says so. */
static int waitAll(Rank* ranks, int n, volatile unsigned* abortWord, double seconds) {
  const time_t start = time(NULL);
  for (;;) {
    int done = 0;
    for (int r = 0; r < n; r++) {
      cudaError_t e = cudaStreamQuery(ranks[r].stream);
      if (e == cudaSuccess) done++;
      else if (e != cudaErrorNotReady) CUDA_OK(e);
    }
    if (done == n) return 1;
    if (difftime(time(NULL), start) > seconds) {
      *abortWord = 1;
      for (int r = 0; r < n; r++) CUDA_OK(cudaStreamSynchronize(ranks[r].stream));
      *abortWord = 0;
      return 0;
    }
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
}

/* Rank r's members: its block of A for each rank q with columns, stored at r's rows of q's B. */
static int membersOf(const Rank* ranks, int n, int r, int source, int64_t R, int64_t C, size_t e,
                     dtrTransposeArgs* members) {
  int count = 0;
  if (ranks[r].rows.count == 0) return 0;
  for (int q = 0; q < n; q++) {
    if (ranks[q].cols.count == 0) continue;
    members[count++] = (dtrTransposeArgs){ranks[r].a[source] + (size_t)ranks[q].cols.start * e, C,
                                          ranks[q].b + (size_t)ranks[r].rows.start * e, R, ranks[r].rows.count,
                                          ranks[q].cols.count, e, 1, 0, 0};
  }
  return count;
}

static void testRanks(int n, int gpus, int64_t R, int64_t C, size_t e, int ctas) {
  Rank ranks[kMaxRanks];
  const size_t flagBytes = DTR_PEER_FLAG_WORDS(n) * sizeof(uint64_t);
  unsigned* abortHost;
  unsigned* abortDevice;
  CUDA_OK(cudaHostAlloc((void**)&abortHost, sizeof *abortHost, cudaHostAllocMapped | cudaHostAllocPortable));
  *abortHost = 0;
  CUDA_OK(cudaHostGetDevicePointer((void**)&abortDevice, abortHost, 0));

  for (int r = 0; r < n; r++) {
    Rank* k = &ranks[r];
    k->gpu = r % gpus;
    CUDA_OK(cudaSetDevice(k->gpu));
    k->rows = dtrSplit(R, n, r);
    k->cols = dtrSplit(C, n, r);
    k->aBytes = (size_t)(k->rows.count * C) * e;
    k->bBytes = (size_t)(k->cols.count * R) * e;
    const size_t larger = k->aBytes > k->bBytes ? k->aBytes : k->bBytes;
    uint8_t* h = malloc(larger ? larger : 1);
    for (int s = 0; s < 2; s++) {
      CUDA_OK(cudaMalloc((void**)&k->a[s], k->aBytes ? k->aBytes : 1));
      dtrHostPatternFill(h, k->rows.count, C, k->rows.start, e);
      xorBytes(h, k->aBytes, s ? kSecondData : 0);
      CUDA_OK(cudaMemcpy(k->a[s], h, k->aBytes, cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMalloc((void**)&k->b, k->bBytes ? k->bBytes : 1));
    CUDA_OK(cudaMalloc((void**)&k->snap, k->bBytes ? k->bBytes : 1));
    dtrHostPatternPoison(h, k->cols.count, R, k->cols.start, C, e);
    CUDA_OK(cudaMemcpy(k->b, h, k->bBytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(k->snap, 0, k->bBytes ? k->bBytes : 1));
    free(h);
    CUDA_OK(cudaStreamCreateWithFlags(&k->stream, cudaStreamNonBlocking));
    CUDA_OK(cudaMalloc((void**)&k->flags, flagBytes));
    CUDA_OK(cudaMemset(k->flags, 0, flagBytes));
  }
  for (int r = 0; r < n; r++) CUDA_OK(cudaStreamSynchronize(ranks[r].stream));

  char what[120];
  snprintf(what, sizeof what, "%d ranks on %d GPU%s, %lld x %lld, %zu-byte entries, %d blocks a member", n,
           gpus < n ? gpus : n, gpus > 1 ? "s" : "", (long long)R, (long long)C, e, ctas);
  const int rounds = 2;
  for (int round = 0; round < rounds; round++) {
    /* Every rank's whole sequence is queued before any is waited for: the ranks meet on the GPU. */
    for (int r = 0; r < n; r++) {
      CUDA_OK(cudaSetDevice(ranks[r].gpu));
      dtrPeerFlags sync = {{NULL}, r, n, abortDevice};
      for (int q = 0; q < n; q++) sync.peer[q] = ranks[q].flags;
      dtrTransposeArgs members[kMaxRanks];
      int count = membersOf(ranks, n, r, 0, R, C, e, members);
      CUDA_OK(dtrTransposeGroupLaunch(dtrKernelAuto, members, count, ctas, &sync, ranks[r].stream));
      CUDA_OK(cudaMemcpyAsync(ranks[r].snap, ranks[r].b, ranks[r].bBytes, cudaMemcpyDeviceToDevice, ranks[r].stream));
      count = membersOf(ranks, n, r, 1, R, C, e, members);
      CUDA_OK(dtrTransposeGroupLaunch(dtrKernelAuto, members, count, ctas, &sync, ranks[r].stream));
    }
    if (!waitAll(ranks, n, abortHost, 60)) {
      EXPECT(0, "%s, round %d: the ranks did not finish within 60 s (barriers aborted)", what, round);
      break;
    }
    for (int q = 0; q < n; q++) {
      const uint64_t first = wrongEntries(&ranks[q], ranks[q].snap, R, C, e, 0);
      const uint64_t second = wrongEntries(&ranks[q], ranks[q].b, R, C, e, kSecondData);
      EXPECT(first == 0 && second == 0,
             "%s, round %d, rank %d: %llu entries of the snapshot after execute 1 and %llu of B after execute 2 wrong",
             what, round, q, (unsigned long long)first, (unsigned long long)second);
      /* Epochs: two executes a round, each closed by both barriers. */
      char flagsOf[160];
      snprintf(flagsOf, sizeof flagsOf, "%s, round %d, rank %d", what, round, q);
      expectPeerFlagsSettled(ranks[q].flags, n, 2 * (uint64_t)(round + 1), flagsOf);
    }
  }

  for (int r = 0; r < n; r++) {
    cudaSetDevice(ranks[r].gpu);
    cudaFree(ranks[r].a[0]);
    cudaFree(ranks[r].a[1]);
    cudaFree(ranks[r].b);
    cudaFree(ranks[r].snap);
    cudaFree(ranks[r].flags);
    cudaStreamDestroy(ranks[r].stream);
  }
  cudaSetDevice(0);
  cudaFreeHost(abortHost);
  printf("%-72s %s\n", what, dtrTestFailures ? "(failures so far)" : "ok");
}

int main(void) {
  /* The ranks' kernels wait for one another, so they must run at once. CUDA loads a kernel's module
   * at its first launch by default, and loading may wait for the kernels already running: a rank's
   * first launch would then wait behind the others' waiting for it. Loaded up front, they cannot. */
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  setvbuf(stdout, NULL, _IOLBF, 0);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("SKIP: no GPU\n");
    return DTR_TEST_SKIP;
  }
  /* rows, cols, entry bytes: whole 128-byte lines (one launch a rank: the barriers in the kernel),
   * odd sides (members that start off their alignment take several launches on some ranks), fewer
   * rows or columns than ranks (ranks with no members), and every entry size. */
  const struct {
    int64_t rows, cols;
    size_t e;
  } shapes[] = {{2048, 1024, 4}, {1999, 2003, 4}, {1000, 3001, 1}, {777, 1531, 2}, {640, 384, 8}, {513, 511, 16},
                {3, 500, 4}, {700, 2, 8}, {1, 1, 1}};
  const int rankCounts[] = {2, 3, 4, 5, 8};
  /* One GPU, then (where there are several and each reaches every other) all of them. */
  int gpuCounts[2] = {1, count}, peers = count > 1;
  for (int d = 0; d < count && peers; d++)
    for (int o = 0; o < count && peers; o++) {
      int can = 0;
      if (o == d) continue;
      CUDA_OK(cudaDeviceCanAccessPeer(&can, d, o));
      if (!can) {
        peers = 0;
        break;
      }
      CUDA_OK(cudaSetDevice(d));
      const cudaError_t err = cudaDeviceEnablePeerAccess(o, 0);
      if (err == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
      else CUDA_OK(err);
    }
  if (count > 1 && !peers) printf("the %d GPUs are not all peers: one GPU only\n", count);
  for (int g = 0; g < 1 + peers; g++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (size_t k = 0; k < sizeof rankCounts / sizeof rankCounts[0]; k++)
        testRanks(rankCounts[k], gpuCounts[g], shapes[s].rows, shapes[s].cols, shapes[s].e, 1 + (int)(s % 3));
  printf("%s\n", dtrTestFailures ? "FAILED" : "all passed");
  return dtrTestFailures ? 1 : 0;
}
