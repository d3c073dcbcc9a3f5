/*
 * The local transpose kernels on one GPU: every variant and element size, odd and prime shapes,
 * pitches and pointers that force the fallback, tuple entries, a run past 2^31 elements, and the
 * raw swizzled stage against the CPU emulation. Bitwise, with the padding beyond each result row
 * checked untouched.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core/names.h"
#include "support/cuda_check.h"
#include "launch.h"
#include "peer_flags_check.h"
#include "stage_emulation.h"
#include "support/pattern.h"
#include "support/pattern_host.h"
#include "support/support.h"
#include "tile_layout.h"

static size_t roundUp(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* One transpose's buffers on the GPU: the source filled with the pattern, the destination with the
 * complement of what it should hold, padding included. */
typedef struct {
  int64_t rows, cols, lds, ldd;
  size_t e, srcBytes, dstBytes;
  int shift;
  uint8_t *src, *dst;
} Case;

static Case caseSetup(int64_t rows, int64_t cols, size_t e, int64_t lds, int64_t ldd, int shift) {
  Case c = {rows, cols, lds, ldd, e, (size_t)(rows * lds) * e + shift, (size_t)(cols * ldd) * e + shift, shift, NULL, NULL};
  uint8_t* h = malloc(c.srcBytes > c.dstBytes ? c.srcBytes : c.dstBytes);
  CUDA_OK(cudaMalloc((void**)&c.src, c.srcBytes));
  CUDA_OK(cudaMalloc((void**)&c.dst, c.dstBytes));
  /* Source: pattern entry (i, j) of a matrix with lds columns. Destination: the complement of the
   * expected values everywhere, padding included (entries i >= rows of each result row). */
  dtrHostPatternFill(h + shift, rows, lds, 0, e);
  CUDA_OK(cudaMemcpy(c.src, h, c.srcBytes, cudaMemcpyHostToDevice));
  dtrHostPatternPoison(h + shift, cols, ldd, 0, lds, e);
  CUDA_OK(cudaMemcpy(c.dst, h, c.dstBytes, cudaMemcpyHostToDevice));
  free(h);
  return c;
}

static dtrTransposeArgs caseArgs(const Case* c) {
  return (dtrTransposeArgs){c->src + c->shift, c->lds, c->dst + c->shift, c->ldd, c->rows, c->cols, c->e, 1, 0, 0};
}

/* Every entry and every padding entry of the destination, once the GPU is done; then frees the case. */
static void caseCheck(Case* c, const char* what) {
  uint8_t* h = malloc(c->dstBytes);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(h, c->dst, c->dstBytes, cudaMemcpyDeviceToHost));
  uint64_t wrong = 0, padding = 0;
  for (int64_t j = 0; j < c->cols; j++)
    for (int64_t i = 0; i < c->ldd; i++) {
      const uint8_t* p = h + c->shift + (j * c->ldd + i) * c->e;
      int ok = 1;
      for (size_t b = 0; b < c->e; b++)
        ok &= p[b] == (uint8_t)(i < c->rows ? dtrPatternByte(i, j, c->lds, b) : ~dtrPatternByte(i, j, c->lds, b));
      if (!ok) (i < c->rows ? wrong++ : padding++);
    }
  EXPECT(wrong == 0 && padding == 0, "%s %lldx%lld e=%zu lds=%lld ldd=%lld shift=%d: %llu wrong, %llu padding entries overwritten",
         what, (long long)c->rows, (long long)c->cols, c->e, (long long)c->lds, (long long)c->ldd, c->shift,
         (unsigned long long)wrong, (unsigned long long)padding);
  cudaFree(c->src);
  cudaFree(c->dst);
  free(h);
}

/*
 * Transposes rows x cols entries of e bytes from a pitch of lds into a pitch of ldd, with the
 * pointers `shift` bytes past an allocation of exactly the bytes needed (so a read or write past
 * either end is one compute-sanitizer sees), and checks every entry and every padding entry.
 */
static void runCase(dtrKernel_t kernel, int64_t rows, int64_t cols, size_t e, int64_t lds, int64_t ldd, int shift,
                    dtrKernel_t expectRan) {
  snprintf(dtrTestCase, sizeof dtrTestCase, "--case %s %lld %lld %zu %lld %lld %d", dtrKernelName(kernel),
           (long long)rows, (long long)cols, e, (long long)lds, (long long)ldd, shift);
  Case c = caseSetup(rows, cols, e, lds, ldd, shift);
  dtrTransposeArgs args = caseArgs(&c);
  dtrKernel_t ran;
  CUDA_OK(dtrTransposeLaunch(kernel, &args, 0, &ran));
  caseCheck(&c, dtrKernelName(kernel));
  EXPECT(ran == expectRan, "%s %lldx%lld e=%zu: ran %s, expected %s", dtrKernelName(kernel), (long long)rows,
         (long long)cols, e, dtrKernelName(ran), dtrKernelName(expectRan));
  dtrTestCase[0] = 0;
}

/* Grouped launches (the p2p backend's, here into this GPU's own memory): members of one entry size
 * at pitches that send them to each of the grouped kernels (16-byte, word, word-wide) and alone, with
 * shapes large enough for interior tiles, all checked; then the same with the barriers of a one-rank
 * group, folded into the kernel where the members take one launch and around the launches where
 * they take more, and with no members at all. The mixed case adds a member of 9 rows, which goes
 * alone (the few-rows kernel). */
static void testGroup(void) {
  const size_t sizes[] = {1, 2, 4, 8, 16};
  const int64_t shapes[][2] = {{300, 131}, {1009, 997}, {257, 1000}, {2048, 600}, {9, 1300}};
  dtrPeerFlags flags = {{NULL}, 0, 1, NULL};
  CUDA_OK(cudaMalloc((void**)&flags.peer[0], DTR_PEER_FLAG_WORDS(1) * sizeof(uint64_t)));
  CUDA_OK(cudaMemset(flags.peer[0], 0, DTR_PEER_FLAG_WORDS(1) * sizeof(uint64_t)));
  uint64_t epochs = 0;
  for (int synced = 0; synced < 2; synced++)
    for (size_t s = 0; s < 5; s++)
      for (int variant = 0; variant < 3; variant++) {
        const size_t e = sizes[s];
        /* Synced, the last variant takes one member of each kind of launch, and a thin one. */
        const int mixed = synced && variant == 2, n = mixed ? 5 : 4;
        Case cases[5];
        dtrTransposeArgs members[5];
        for (int i = 0; i < n; i++) {
          const int64_t rows = shapes[i][0], cols = shapes[i][1];
          const int v = mixed ? i % 3 : variant;
          /* 0: whole 128-byte lines; 1: odd pitches; 2: a pointer off the entry's alignment. */
          const int64_t lds = v == 1 ? cols + 1 : (int64_t)(roundUp((size_t)cols * e, 128) / e);
          const int64_t ldd = v == 1 ? rows + 3 : (int64_t)(roundUp((size_t)rows * e, 128) / e);
          cases[i] = caseSetup(rows, cols, e, lds, ldd, v == 2 ? 1 : 0);
          members[i] = caseArgs(&cases[i]);
        }
        CUDA_OK(dtrTransposeGroupLaunch(dtrKernelAuto, members, n, 0, synced ? &flags : NULL, 0));
        char what[80];
        snprintf(what, sizeof what, "%sgroup of %zu-byte entries, variant %s", synced ? "synced " : "", e,
                 mixed ? "mixed" : variant == 0 ? "0" : variant == 1 ? "1" : "2");
        for (int i = 0; i < n; i++) caseCheck(&cases[i], what);
        if (synced) expectPeerFlagsSettled(flags.peer[0], 1, ++epochs, what);
      }
  CUDA_OK(dtrTransposeGroupLaunch(dtrKernelAuto, NULL, 0, 0, &flags, 0));
  CUDA_OK(cudaDeviceSynchronize());
  expectPeerFlagsSettled(flags.peer[0], 1, ++epochs, "synced group without members");
  cudaFree(flags.peer[0]);
}

/* --small: the shapes compute-sanitizer can get through quickly. */
static int small = 0;

/* The kernel that serves a request: the one asked for where it can, else the fallback. The probe's
 * pointers carry the case's alignment (allocations are 256-byte aligned). */
static dtrKernel_t expectedRun(dtrKernel_t kernel, int64_t rows, int64_t cols, size_t e, int64_t lds, int64_t ldd,
                               int shift) {
  dtrTransposeArgs probe = {(void*)(uintptr_t)(256 + shift), lds, (void*)(uintptr_t)(256 + shift), ldd, rows, cols, e, 1, 0, 0};
  return dtrTransposeSupported(kernel, &probe) ? kernel : dtrKernelSimt;
}

static void testVariants(void) {
  const dtrKernel_t kernels[] = {dtrKernelSimt, dtrKernelSimt16, dtrKernelTma, dtrKernelTmaMc2, dtrKernelTmaMc4};
  const size_t sizes[] = {1, 2, 4, 8, 16};
  const int64_t shapes[][2] = {{1, 1}, {31, 33}, {129, 127}, {300, 1}, {33, 31}, {127, 129}, {1, 300},
                               {1009, 997}, {257, 1000}, {2048, 600}};
  const size_t nshapes = small ? 4 : sizeof shapes / sizeof shapes[0];
  for (size_t k = 0; k < 5; k++)
    for (size_t s = 0; s < 5; s++)
      for (size_t i = 0; i < nshapes; i++) {
        const int64_t rows = shapes[i][0], cols = shapes[i][1];
        const size_t e = sizes[s];
        /* 16-byte pitches: the variant itself runs where it fits. */
        const int64_t lds = (int64_t)(roundUp((size_t)cols * e, 16) / e), ldd = (int64_t)(roundUp((size_t)rows * e, 16) / e);
        runCase(kernels[k], rows, cols, e, lds, ldd + 16 / e, 0, expectedRun(kernels[k], rows, cols, e, lds, ldd + 16 / e, 0));
        /* An odd pitch (for elements under 16 bytes) and an unaligned pointer force the fallback. */
        if (e < 16) {
          const int64_t oddLds = cols + 1 + (16 / e) * 2;
          runCase(kernels[k], rows, cols, e, oddLds, ldd + 1, 0, expectedRun(kernels[k], rows, cols, e, oddLds, ldd + 1, 0));
          runCase(kernels[k], rows, cols, e, lds, ldd, (int)e, expectedRun(kernels[k], rows, cols, e, lds, ldd, (int)e));
        }
      }
  /* The variants must really run where they are eligible, on this device. */
  dtrTransposeArgs aligned = {(void*)(uintptr_t)256, 1024, (void*)(uintptr_t)256, 1024, 1024, 1024, 4, 1, 0, 0};
  EXPECT(dtrTransposeSupported(dtrKernelTma, &aligned), "TMA not available on this device");
  EXPECT(dtrTransposeSupported(dtrKernelTmaMc4, &aligned), "TMA multicast not available on this device");
}

/* Entries of 1, 2 and 4 bytes in the word-wide fallback: every pointer offset within a word on
 * either side, pitches of every residue, shapes around its 128-row tile, with tiles 128 bytes wide
 * (one box) and 256 (two): interior tiles of either width (600 x 1300), and narrow matrices many tiles
 * tall whose edge tiles load past their row ends into later rows (1000 x 5, 700 x 37). Where the
 * output pitch is the row count (pad 0) one result row ends inside the sector where the next
 * begins, and the tiles at the two ends each write their part of it: result rows of one tile row
 * (40, 37 rows), rows past a tile that reach the matrix's end (140), a full last tile row (256) and
 * short ones (900, 1000). */
static void testSubword(void) {
  const size_t sizes[] = {1, 2, 4};
  const int64_t shapes[][2] = {{1, 1},       {3, 5},      {129, 127}, {128, 256}, {300, 131},
                               {37, 1000},   {600, 1300}, {1000, 5},  {700, 37},  {40, 700},
                               {140, 700},   {256, 300},  {900, 1300}, {1000, 700}};
  const size_t nShapes = sizeof shapes / sizeof shapes[0];
  const int boxes[] = {1, 2};
  for (int w = 0; w < 2; w++) {
    dtrKernelTuningSet(boxes[w], 0, 0, 0);
    for (size_t s = 0; s < 3; s++)
      for (size_t i = 0; i < (small ? 3u : nShapes); i++)
        for (int shift = 0; shift < 4; shift++)
          for (int64_t pad = 0; pad < 4; pad++) {
            const int64_t rows = shapes[i][0], cols = shapes[i][1];
            runCase(dtrKernelSimt, rows, cols, sizes[s], cols + pad, rows + (pad * 3) % 4, shift, dtrKernelSimt);
          }
  }
  dtrKernelTuningSet(0, 0, 0, 0);
}

/* A batch of rows x cols transposes of e-byte entries, sources srcStride entries apart with a pitch
 * of lds, results joined (pitch rows, one after another) `shift` bytes into their buffer, which is
 * poisoned first; checked byte for byte against the host, bytes before the results included. */
static void checkBatch(dtrKernel_t kernel, size_t e, int64_t batch, int64_t rows, int64_t cols, int64_t lds,
                       int64_t srcStride, int shift, size_t seed) {
  const int64_t dstStride = rows * cols;
  const size_t srcBytes = (size_t)(batch * srcStride) * e, dstBytes = (size_t)(batch * dstStride) * e + shift;
  uint8_t *hs = malloc(srcBytes), *hd = malloc(dstBytes), *expect = malloc(dstBytes);
  for (size_t x = 0; x < srcBytes; x++) hs[x] = (uint8_t)dtrMix64(x + seed);
  for (size_t x = 0; x < dstBytes; x++) expect[x] = (uint8_t)~dtrMix64(x);
  memcpy(hd, expect, dstBytes);
  for (int64_t b = 0; b < batch; b++)
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++)
        memcpy(expect + shift + (size_t)(b * dstStride + c * rows + r) * e, hs + (size_t)(b * srcStride + r * lds + c) * e, e);
  uint8_t *src, *dst;
  CUDA_OK(cudaMalloc((void**)&src, srcBytes));
  CUDA_OK(cudaMalloc((void**)&dst, dstBytes));
  CUDA_OK(cudaMemcpy(src, hs, srcBytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dst, hd, dstBytes, cudaMemcpyHostToDevice));
  dtrTransposeArgs args = {src, lds, dst + shift, rows, rows, cols, e, batch, srcStride, dstStride};
  CUDA_OK(dtrTransposeLaunch(kernel, &args, 0, NULL));
  CUDA_OK(cudaMemcpy(hd, dst, dstBytes, cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t x = 0; x < dstBytes; x++) wrong += hd[x] != expect[x];
  EXPECT(wrong == 0, "%zu bytes wrong", wrong);
  cudaFree(src);
  cudaFree(dst);
  free(hs);
  free(hd);
  free(expect);
  dtrTestCase[0] = 0;
}

/* Batches of the word-wide kernel whose result rows follow one another with no gap (output pitch =
 * rows, batch after batch), at a shifted output: each batch's first and last result rows start and
 * end inside sectors that the neighbouring batch's rows share. Checked byte for byte against the
 * host, bytes before the output included. */
static void testJoinedBatch(void) {
  const size_t sizes[] = {1, 2};
  const int64_t shapes[][2] = {{200, 301}, {1000, 77}, {45, 1000}};
  for (size_t s = 0; s < 2; s++)
    for (size_t i = 0; i < 3; i++) {
      const size_t e = sizes[s];
      const int64_t rows = shapes[i][0], cols = shapes[i][1], lds = cols + 1;
      snprintf(dtrTestCase, sizeof dtrTestCase, "joined batch of 3, %lldx%lld e=%zu", (long long)rows, (long long)cols, e);
      checkBatch(dtrKernelSimt, e, 3, rows, cols, lds, rows * lds + 5, 3 * (int)e, 11 * i + 7 * e);
    }
}

/* Thin matrices, at most 32 rows or at most 32 columns (the thin kernels, whatever kernel is asked
 * for; 16 for 1- and 2-byte entries): every entry size, thin sides around the limits (17 and 33 go to
 * the tile kernels for their entries), long sides within one tile, a ragged last tile and many
 * tiles, result rows joined (ldd = rows) or padded, odd source pitches and pointers off their
 * alignment, each shape both ways round; then batches whose result rows follow one another. */
static void testThin(void) {
  const dtrKernel_t kernels[] = {dtrKernelSimt, dtrKernelTma, dtrKernelSimt16};
  const size_t sizes[] = {1, 2, 4, 8, 16};
  const int64_t thinList[] = {1, 2, 3, 8, 16, 17, 32, 33};
  const int64_t longList[] = {1, 37, 513, 70001};
  for (size_t s = 0; s < 5; s++)
    for (size_t t = 0; t < sizeof thinList / sizeof thinList[0]; t++)
      for (size_t l = 0; l < (small ? 3u : 4u); l++)
        for (int fewCols = 0; fewCols < 2; fewCols++) {
          const size_t e = sizes[s];
          const int64_t rows = fewCols ? longList[l] : thinList[t], cols = fewCols ? thinList[t] : longList[l];
          const int64_t aligned = (int64_t)(roundUp((size_t)cols * e, 16) / e);
          for (size_t k = 0; k < 3; k++)
            runCase(kernels[k], rows, cols, e, aligned, rows, 0, expectedRun(kernels[k], rows, cols, e, aligned, rows, 0));
          runCase(dtrKernelSimt, rows, cols, e, cols, rows + 1, 0, dtrKernelSimt);
          runCase(dtrKernelSimt, rows, cols, e, cols + 3, rows + 5, (int)(e > 1 ? e / 2 : 1), dtrKernelSimt);
          /* Result rows padded to 16 bytes: a few-rows result's lines then take 16-byte chunks, the last
           * one of a line in part where the line is not a multiple of 16 bytes. */
          runCase(dtrKernelSimt, rows, cols, e, cols + 1, (int64_t)(roundUp((size_t)rows * e, 16) / e), 0, dtrKernelSimt);
        }
  const int64_t batchShapes[][2] = {{7, 1001}, {1001, 7}};
  for (size_t s = 0; s < 5; s++)
    for (size_t i = 0; i < 2; i++) {
      const size_t e = sizes[s];
      const int64_t rows = batchShapes[i][0], cols = batchShapes[i][1], lds = cols + 2;
      snprintf(dtrTestCase, sizeof dtrTestCase, "thin batch of 3, %lldx%lld e=%zu", (long long)rows, (long long)cols, e);
      checkBatch(dtrKernelTma, e, 3, rows, cols, lds, rows * lds + 3, 0, 5 * e + i);
    }
}

/* Word entries in columns of tiles longer than two waves of blocks, at pitches off the 128-byte
 * lines: the word kernel then takes whole tile rows at a time (tileGroupForShape). */
static void testLongColumns(void) {
  const size_t sizes[] = {4, 8};
  const int64_t shapes[][2] = {{140000, 70}, {100003, 129}};
  for (size_t s = 0; s < 2; s++)
    for (size_t i = 0; i < 2; i++) {
      const int64_t rows = shapes[i][0], cols = shapes[i][1];
      runCase(dtrKernelSimt, rows, cols, sizes[s], cols + 1, rows + 3, 0, dtrKernelSimt);
      runCase(dtrKernelSimt, rows, cols, sizes[s], cols + 5, rows + 8, 0, dtrKernelSimt);
    }
}

static void testTuples(void) {
  /* Entries of howmany elements that are not one machine word: the SIMT kernel's tuple paths. */
  const size_t sizes[] = {3, 6, 12, 20, 24, 32, 40, 48, 64, 592};
  const int64_t shapes[][2] = {{1, 1}, {33, 31}, {97, 89}, {300, 7}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t i = 0; i < (small ? 2u : 4u); i++) {
      runCase(dtrKernelAuto, shapes[i][0], shapes[i][1], sizes[s], shapes[i][1], shapes[i][0], 0, dtrKernelSimt);
      runCase(dtrKernelTma, shapes[i][0], shapes[i][1], sizes[s], shapes[i][1] + 3, shapes[i][0] + 5, 0, dtrKernelSimt);
    }
}

/* More than 2^31 entries (int8, 46352 x 46352, a multiple of 16 so that the vector kernels take
 * it), filled and checked by the device pattern kernels: 64-bit indexing end to end. */
static void testHuge(dtrKernel_t kernel) {
  const int64_t n = 46352;
  const size_t bytes = (size_t)n * n;
  uint8_t *a = NULL, *b = NULL;
  unsigned long long* wrong;
  if (cudaMalloc((void**)&a, bytes) != cudaSuccess || cudaMalloc((void**)&b, bytes) != cudaSuccess) {
    printf("SKIP huge case: not enough GPU memory\n");
    (void)cudaGetLastError();
    cudaFree(a);
    return;
  }
  CUDA_OK(cudaMalloc((void**)&wrong, sizeof *wrong));
  CUDA_OK(cudaMemset(wrong, 0, sizeof *wrong));
  CUDA_OK(dtrPatternFillLaunch(a, n, n, 0, 1, 0));
  CUDA_OK(dtrPatternPoisonLaunch(b, n, n, 0, n, 1, 0));
  dtrTransposeArgs args = {a, n, b, n, n, n, 1, 1, 0, 0};
  dtrKernel_t ran;
  CUDA_OK(dtrTransposeLaunch(kernel, &args, 0, &ran));
  CUDA_OK(dtrPatternCheckLaunch(b, n, n, 0, n, 1, wrong, 0));
  unsigned long long w = 0;
  CUDA_OK(cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost));
  EXPECT(ran == kernel, "huge case ran %s", dtrKernelName(ran));
  EXPECT(w == 0, "huge case %s (%lld x %lld int8): %llu wrong", dtrKernelName(kernel), (long long)n, (long long)n, w);
  printf("huge case %s: %lld x %lld int8 (%.3f G entries), %llu wrong\n", dtrKernelName(kernel), (long long)n,
         (long long)n, (double)bytes / 1e9, w);
  cudaFree(a);
  cudaFree(b);
  cudaFree(wrong);
}

/* The kernels' shared-memory step, byte for byte against the CPU emulation of the layout. */
static void testStageLayout(void) {
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; i++) {
    const uint32_t s = sizes[i], T = dtrTileRows(s), bytes = T * 128;
    uint8_t *logical = malloc(bytes), *stage = malloc(bytes), *expect = calloc(bytes, 1), *got = malloc(bytes);
    for (uint32_t x = 0; x < bytes; x++) logical[x] = (uint8_t)dtrMix64(x + 77 * s);
    dtrSwizzleStage(logical, stage, T, 1);
    dtrEmulateShare(stage, expect, s, T, T / dtrVecElems(s), 0, 1);
    void *dIn, *dOut;
    CUDA_OK(cudaMalloc(&dIn, bytes));
    CUDA_OK(cudaMalloc(&dOut, bytes));
    CUDA_OK(cudaMemcpy(dIn, stage, bytes, cudaMemcpyHostToDevice));
    CUDA_OK(dtrDebugStageTranspose(dIn, dOut, s, 0));
    CUDA_OK(cudaMemcpy(got, dOut, bytes, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(got, expect, bytes) == 0, "s=%u: the GPU's swizzled result differs from the emulation", s);
    cudaFree(dIn);
    cudaFree(dOut);
    free(logical);
    free(stage);
    free(expect);
    free(got);
  }
}

/* The benchmark's copy ceilings: every mode, sizes around the chunk and vector boundaries. */
static void testCopy(void) {
  const size_t sizes[] = {1, 15, 16, 4096, 32768 * 5 + 48, 32768 * 300 + 7, (size_t)64 << 20};
  const int modes[] = {0, 1, 4};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int m = 0; m < 3; m++) {
      const size_t n = sizes[i];
      uint8_t *h = malloc(n), *back = malloc(n), *a, *b;
      for (size_t x = 0; x < n; x++) h[x] = (uint8_t)dtrMix64(x + 3 * m);
      CUDA_OK(cudaMalloc((void**)&a, n));
      CUDA_OK(cudaMalloc((void**)&b, n));
      CUDA_OK(cudaMemcpy(a, h, n, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(b, 0, n));
      CUDA_OK(dtrCopyLaunch(b, a, n, modes[m], 0));
      CUDA_OK(cudaMemcpy(back, b, n, cudaMemcpyDeviceToHost));
      EXPECT(memcmp(h, back, n) == 0, "copy mode %d of %zu bytes differs", modes[m], n);
      cudaFree(a);
      cudaFree(b);
      free(h);
      free(back);
    }
}

/* The 2-D copy of the unpack, by every method: every word width, narrow and wide rows, source and
 * destination rows at every offset within 16 bytes of each other (odd pitches), the last source row
 * ending where its allocation does, bytes outside the rows untouched. */
static void testCopy2d(void) {
  const size_t cases[][6] = {/* width, height, spitch, dpitch, source offset, destination offset */
                             {4, 1000, 4, 36, 0, 0},        {16, 333, 16, 48, 0, 0},     {4000, 77, 4000, 4096, 0, 0},
                             {32768, 64, 32768, 131072, 0, 0}, {7, 100, 7, 31, 1, 1},    {24, 50, 24, 40, 8, 8},
                             {1, 1, 1, 1, 0, 0},            {1002, 9, 1002, 2006, 2, 2}, {64, 40, 64, 1001, 0, 3},
                             {65, 33, 65, 67, 1, 0},        {100, 50, 112, 1003, 0, 517}, {4099, 21, 4099, 8191, 5, 11},
                             {32749, 17, 32752, 65521, 0, 32772}, {1000, 300, 1000, 1000, 3, 0}, {96, 16, 96, 97, 15, 1},
                             {300, 45, 301, 307, 7, 9}};
  const dtrCopy2dMethod methods[] = {dtrCopy2dAuto, dtrCopy2dWords, dtrCopy2dShifted};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t m = 0; m < 3; m++) {
      const size_t w = cases[i][0], h = cases[i][1], sp = cases[i][2], dp = cases[i][3], so = cases[i][4],
                   off = cases[i][5];
      const size_t sbytes = sp * (h - 1) + w + so, dbytes = dp * h + off;
      uint8_t *hs = malloc(sbytes), *hd = malloc(dbytes), *ds, *dd;
      for (size_t x = 0; x < sbytes; x++) hs[x] = (uint8_t)dtrMix64(x + 7 * i);
      memset(hd, 0xa5, dbytes);
      CUDA_OK(cudaMalloc((void**)&ds, sbytes));
      CUDA_OK(cudaMalloc((void**)&dd, dbytes));
      CUDA_OK(cudaMemcpy(ds, hs, sbytes, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(dd, hd, dbytes, cudaMemcpyHostToDevice));
      CUDA_OK(dtrCopy2dLaunchWith(methods[m], dd + off, dp, ds + so, sp, w, h, 0));
      CUDA_OK(cudaMemcpy(hd, dd, dbytes, cudaMemcpyDeviceToHost));
      size_t bad = 0;
      for (size_t x = 0; x < dbytes; x++) {
        const size_t r = x < off ? (size_t)-1 : (x - off) / dp, c = x < off ? 0 : (x - off) % dp;
        const uint8_t want = (r < h && c < w) ? hs[so + r * sp + c] : 0xa5;
        bad += hd[x] != want;
      }
      EXPECT(bad == 0, "copy2d method %d width %zu height %zu pitches %zu/%zu offsets %zu/%zu: %zu bytes wrong",
             (int)methods[m], w, h, sp, dp, so, off, bad);
      cudaFree(ds);
      cudaFree(dd);
      free(hs);
      free(hd);
    }
}

/* Batches of 2-D copies (the unpack of padded segment rows of a pencil): the b-th copy from source
 * offset b * sstride into destination offset b * dstride, rows interleaved with those of the other
 * copies as a pencil's are; every byte of the destination checked, the untouched ones included. */
static void testCopy2dBatch(void) {
  const size_t cases[][9] = {/* width, height, spitch, dpitch, batch, sstride, dstride, source and destination offsets */
                             {40, 4, 128, 264, 3, 40, 88, 0, 0},     {7, 13, 32, 36, 4, 7, 9, 1, 3},
                             {100, 20, 320, 314, 3, 101, 103, 5, 2}, {16, 64, 48, 48, 3, 16, 16, 0, 0},
                             {1, 1, 1, 1, 70000, 1, 1, 0, 0},        {200, 3, 1000, 1003, 5, 200, 200, 16, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const size_t w = cases[i][0], h = cases[i][1], sp = cases[i][2], dp = cases[i][3], n = cases[i][4],
                 ss = cases[i][5], dst = cases[i][6], so = cases[i][7], off = cases[i][8];
    const size_t sbytes = so + ss * (n - 1) + sp * (h - 1) + w, dbytes = off + dst * (n - 1) + dp * (h - 1) + w + 5;
    uint8_t *hs = malloc(sbytes), *hd = malloc(dbytes), *want = malloc(dbytes), *ds, *dd;
    for (size_t x = 0; x < sbytes; x++) hs[x] = (uint8_t)dtrMix64(x + 13 * i);
    memset(hd, 0x5a, dbytes);
    memcpy(want, hd, dbytes);
    for (size_t b = 0; b < n; b++)
      for (size_t r = 0; r < h; r++) memcpy(want + off + b * dst + r * dp, hs + so + b * ss + r * sp, w);
    CUDA_OK(cudaMalloc((void**)&ds, sbytes));
    CUDA_OK(cudaMalloc((void**)&dd, dbytes));
    CUDA_OK(cudaMemcpy(ds, hs, sbytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dd, hd, dbytes, cudaMemcpyHostToDevice));
    CUDA_OK(dtrCopy2dBatchLaunch(dd + off, dp, dst, ds + so, sp, ss, w, h, n, 0));
    CUDA_OK(cudaMemcpy(hd, dd, dbytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t x = 0; x < dbytes; x++) bad += hd[x] != want[x];
    EXPECT(bad == 0, "copy2d batch %zu of width %zu height %zu pitches %zu/%zu strides %zu/%zu offsets %zu/%zu: %zu bytes wrong",
           n, w, h, sp, dp, ss, dst, so, off, bad);
    cudaFree(ds);
    cudaFree(dd);
    free(hs);
    free(hd);
    free(want);
  }
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("SKIP: no GPU\n");
    return DTR_TEST_SKIP;
  }
  /* --quick: no run past 2^31 entries; --small: only small shapes as well (for compute-sanitizer). */
  small = argc > 1 && !strcmp(argv[1], "--small");
  const int quick = small || (argc > 1 && !strcmp(argv[1], "--quick"));
  /* --case kernel rows cols entry-bytes lds ldd shift: one case alone, as a failure names it. */
  if (argc == 9 && !strcmp(argv[1], "--case")) {
    dtrKernel_t kernel;
    if (dtrParseKernel(argv[2], &kernel)) return 2;
    const int64_t rows = atoll(argv[3]), cols = atoll(argv[4]), lds = atoll(argv[6]), ldd = atoll(argv[7]);
    const size_t e = (size_t)atoll(argv[5]);
    const int shift = atoi(argv[8]);
    runCase(kernel, rows, cols, e, lds, ldd, shift, expectedRun(kernel, rows, cols, e, lds, ldd, shift));
    printf("%s\n", dtrTestFailures ? "case failed" : "case passed");
    return dtrTestFailures ? 1 : 0;
  }
  testStageLayout();
  testCopy();
  testCopy2d();
  testCopy2dBatch();
  /* Every variant with its measured defaults (one or two tiles per block), persistent blocks, and
   * three tiles per block (a TMA ring of three stages that wraps, tiles strided by the grid). */
  const int tilesPerCta[] = {0, -1, 3};
  for (int i = 0; i < 3; i++) {
    dtrKernelTuningSet(0, 0, 0, tilesPerCta[i]);
    testVariants();
  }
  dtrKernelTuningSet(0, 0, 0, 0);
  testTuples();
  testSubword();
  testJoinedBatch();
  testThin();
  testGroup();
  if (!small) testLongColumns();
  if (!quick) {
    testHuge(dtrKernelSimt);
    testHuge(dtrKernelTma);
    testHuge(dtrKernelSimt16);
  }
  return dtrTestEnd("GPU kernel");
}
