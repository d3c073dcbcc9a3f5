/*
 * Running a per-point function over every point of a box: a host loop (the cpu backend's arrays) or a
 * grid-stride CUDA kernel on a stream (the GPU backends'), with the precision made a constant of each
 * instance, so that the per-point functions' fp64-or-fp32 loads and stores fold to plain ones once
 * inlined. The examples' pointwise_host.c and pointwise_gpu.cu are these around their own functions.
 */
#ifndef EX_POINT_LOOPS_H
#define EX_POINT_LOOPS_H

#include <stdint.h>

/* Host: call(1) for every point p of `points` where dbl, else call(0); `call` names a macro of one
 * argument that uses p. One loop per precision, so that `dbl` is a constant inside each. */
#define EX_FOR_POINTS(points, dbl, call)                                                                 \
  do {                                                                                                   \
    const int64_t points_ = (points);                                                                    \
    if (dbl)                                                                                             \
      for (int64_t p = 0; p < points_; p++) call(1);                                                     \
    else                                                                                                 \
      for (int64_t p = 0; p < points_; p++) call(0);                                                     \
  } while (0)

#ifdef __CUDACC__
#include <cuda_runtime.h>

namespace ex {

/* Grid-stride loops, one point a thread at a time: a capped grid serves any box, and each thread's
 * loop bound is the box's own point count. */
constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

inline dim3 blocksFor(int64_t points) {
  const int64_t b = (points + kThreads - 1) / kThreads;
  return dim3((unsigned)(b < kMaxBlocks ? b : kMaxBlocks));
}

__device__ inline int64_t firstPoint() { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline int64_t pointStride() { return (int64_t)gridDim.x * blockDim.x; }

/* Launches fp64(args...) where dbl, else fp32(args...) (a kernel template's two instances), over
 * `points` points on `stream`. Returns the launch's error: a kernel's own failure shows at the stream's
 * next synchronisation, as any stream-ordered work's does. */
template <typename... Params, typename... Args>
cudaError_t launchOverPoints(int64_t points, int dbl, void (*fp64)(Params...), void (*fp32)(Params...), cudaStream_t stream,
                             const Args&... args) {
  if (points == 0) return cudaSuccess; /* an empty box: a grid of zero blocks is a launch error */
  if (dbl) fp64<<<blocksFor(points), kThreads, 0, stream>>>(args...);
  else fp32<<<blocksFor(points), kThreads, 0, stream>>>(args...);
  return cudaGetLastError();
}

}  // namespace ex
#endif

#endif
