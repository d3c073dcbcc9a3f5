#include "tune.h"

#include <stdlib.h>

#include "core/checks.h"
#include "core/params.h"
#include "launch.h"

/* The measurement runs on the plan's largest transpose itself, at its own pitches, where both buffers
 * fit the budget (DTR_TUNE_MIB, 128 MiB by default: past the L2, so that it measures memory, and
 * milliseconds to run; 0: the whole block), and never past a quarter of the free device memory.
 * Beyond it, on a block of the same aspect ratio, packed, halved until it fits: on one H200 the
 * kernels ranked alike at 128 MiB and at 1 GiB (docs/performance.md). */
static size_t probeBudget(void) {
  size_t freeBytes = 0, totalBytes = 0;
  if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) freeBytes = 0;
  const int mib = dtrEnvParamsGet()->tune_mib;
  size_t budget = freeBytes / 4;
  if (mib > 0 && (size_t)mib << 20 < budget) budget = (size_t)mib << 20;
  return budget;
}

static int cmpFloat(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

/* Median time (ms) of `iters` launches of `kernel`, after one warm-up; negative on failure. */
static float timeKernel(dtrKernel_t kernel, const dtrTransposeArgs* args, int iters, cudaEvent_t* ev) {
  float t[64], ms;
  if (iters > 64) iters = 64;
  if (dtrTransposeLaunch(kernel, args, 0, NULL) != cudaSuccess) return -1.f;
  for (int i = 0; i < iters; i++) {
    cudaEventRecord(ev[0], 0);
    if (dtrTransposeLaunch(kernel, args, 0, NULL) != cudaSuccess) return -1.f;
    cudaEventRecord(ev[1], 0);
    if (cudaEventSynchronize(ev[1]) != cudaSuccess || cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess)
      return -1.f;
    t[i] = ms;
  }
  qsort(t, (size_t)iters, sizeof t[0], cmpFloat);
  return t[iters / 2];
}

/* The largest block this rank transposes in one launch: a pack (outer batch layout) or an unpack
 * (middle layout) of the first pipeline stage, whose pieces are the largest, or, without peers, one
 * matrix of the self block. */
static dtrBlock largestTranspose(dtrPlan_t plan) {
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank;
  dtrBlock best = {0};
  for (int p = 0; p < g->nranks; p++) {
    if (p == r) continue;
    const dtrBlock k[2] = {dtrPackStage(g, &plan->layout, r, p, plan->stages, 0),
                           dtrUnpackStage(g, &plan->layout, r, p, plan->stages, 0)};
    for (int i = 0; i < 2; i++)
      if (k[i].transpose && k[i].rows * k[i].cols > best.rows * best.cols) best = k[i];
  }
  if (best.rows * best.cols == 0 && dtrSelfBlock(g, r).batch > 0) best = dtrSelfBlock(g, r);
  return best;
}

static dtrResult_t measure(dtrPlan_t plan, dtrKernel_t* best) {
  const dtrGeometry* g = &plan->geo;
  const size_t e = g->entry_bytes;
  *best = dtrKernelSimt;
  const dtrBlock block = largestTranspose(plan);
  int64_t rows = block.rows, cols = block.cols;
  if (rows == 0 || cols == 0) return dtrSuccess;
  /* The vector kernels need 16-byte pitches: with the block's real pitches that is a property of the
   * plan, known now. */
  dtrTransposeArgs probe = {(const void*)(uintptr_t)256, block.src_ld, (void*)(uintptr_t)256, block.dst_ld, rows, cols, e,
                            1, 0, 0};
  if (!dtrTransposeSupported(dtrKernelSimt16, &probe)) return dtrSuccess;
  const int iters = dtrEnvParamsGet()->tune_iters;
  if (iters == 0) {
    *best = dtrTransposeSupported(dtrKernelTma, &probe) ? dtrKernelTma : dtrKernelSimt16;
    return dtrSuccess;
  }
  /* Each buffer within the budget: the block's own pitches where they fit, else packed pitches
   * (rounded up to 16 bytes, as the real ones are) on a block halved until it fits. */
  const size_t budget = probeBudget();
  int64_t lds = block.src_ld, ldd = block.dst_ld;
  if ((size_t)rows * (size_t)lds * e > budget || (size_t)cols * (size_t)ldd * e > budget) {
    for (;;) {
      lds = (int64_t)(((size_t)cols * e + 15) / 16 * 16 / e), ldd = (int64_t)(((size_t)rows * e + 15) / 16 * 16 / e);
      if (((size_t)rows * (size_t)lds * e <= budget && (size_t)cols * (size_t)ldd * e <= budget) || (rows == 1 && cols == 1))
        break;
      if (rows > 1) rows = (rows + 1) / 2;
      if (cols > 1) cols = (cols + 1) / 2;
    }
  }
  void *src = NULL, *dst = NULL;
  cudaEvent_t ev[2] = {NULL, NULL};
  dtrResult_t res = dtrSuccess;
  CUDACHECKGOTO(cudaMalloc(&src, (size_t)rows * lds * e), res, done);
  CUDACHECKGOTO(cudaMalloc(&dst, (size_t)cols * ldd * e), res, done);
  CUDACHECKGOTO(cudaMemset(src, 0x5a, (size_t)rows * lds * e), res, done);
  CUDACHECKGOTO(cudaEventCreate(&ev[0]), res, done);
  CUDACHECKGOTO(cudaEventCreate(&ev[1]), res, done);
  dtrTransposeArgs args = {src, lds, dst, ldd, rows, cols, e, 1, 0, 0};
  const dtrKernel_t candidates[] = {dtrKernelTma, dtrKernelSimt16, dtrKernelTmaMc2, dtrKernelTmaMc4, dtrKernelSimt};
  float bestMs = -1.f;
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    if (!dtrTransposeSupported(candidates[i], &args)) continue;
    float ms = timeKernel(candidates[i], &args, iters, ev);
    INFO("tune: %lld x %lld entries of %zu bytes, kernel %s: %.3f ms", (long long)rows, (long long)cols, e,
         dtrKernelName(candidates[i]), ms);
    if (ms >= 0.f && (bestMs < 0.f || ms < bestMs)) {
      bestMs = ms;
      *best = candidates[i];
    }
  }
  CUDACHECKGOTO(cudaGetLastError(), res, done);
done:
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (ev[1]) cudaEventDestroy(ev[1]);
  cudaFree(src);
  cudaFree(dst);
  return res;
}

dtrResult_t dtrTuneKernel(dtrPlan_t plan, dtrKernel_t forced, dtrKernel_t* chosen) {
  dtrKernel_t k = forced;
  if (k == dtrKernelAuto) k = dtrEnvParamsGet()->kernel;
  dtrResult_t res = dtrSuccess;
  if (k == dtrKernelAuto) res = measure(plan, &k);
  DTRCHECK(dtrAgree(plan->comm.comm, res));
  int v = (int)k;
  DTRCHECK(dtrBcast(&v, 1, MPI_INT, 0, plan->comm.comm, "rank 0's choice of kernel"));
  *chosen = (dtrKernel_t)v;
  return dtrSuccess;
}
