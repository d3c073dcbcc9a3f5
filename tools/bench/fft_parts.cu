/*
 * fft-parts: the pieces a slab FFT's overlap is made of, measured on two GPUs of one host from one
 * process, to choose how the exchange should move its bytes:
 *   - peer copies by the copy engines (one way, both ways at once, 2-D with whole rows), and by a
 *     copy kernel of a given number of blocks;
 *   - cuFFT's pass along z, contiguous (Z-pencil in place) and transposing (reading the planes of a
 *     [z][y][x] array, writing the [y][x][z] Z-pencil);
 *   - a 2-D pass beside a peer copy: how much the two slow each other down.
 *   fft-parts [n]   (default 512: an n^3 c64 array on two slabs)
 */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <cufft.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define FK(x)                                                              \
  do {                                                                     \
    cufftResult r_ = (x);                                                  \
    if (r_ != CUFFT_SUCCESS) {                                             \
      fprintf(stderr, "%s:%d %s: cufft %d\n", __FILE__, __LINE__, #x, r_); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void copyKernel(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t words) {
  const size_t stride = (size_t)gridDim.x * blockDim.x * 4;
  for (size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4; i < words; i += stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u < words) v[u] = src[i + u];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u < words) dst[i + u] = v[u];
  }
}

template <typename F>
static float timeIt(cudaStream_t s, F&& f, int reps = 10) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaStreamSynchronize(s));
  float best = 1e30f, all[64];
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a, s));
    f();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&all[r], a, b));
  }
  std::qsort(all, reps, sizeof(float), [](const void* x, const void* y) {
    return (int)(*(const float*)x > *(const float*)y) - (int)(*(const float*)x < *(const float*)y);
  });
  best = all[reps / 2];
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best * 1e3f; /* microseconds, median */
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 512;
  const long half = n / 2;
  const size_t slab = (size_t)n * n * half * 8;  /* one rank's c64 slab */
  const size_t remote = slab / 2;                /* what crosses the link */
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (count < 2) {
    printf("fft-parts: needs 2 GPUs\n");
    return 77;
  }
  char *a0, *b0, *a1, *b1;
  cudaStream_t s0, s1, t0;
  CK(cudaSetDevice(1));
  CK(cudaDeviceEnablePeerAccess(0, 0));
  CK(cudaMalloc(&a1, slab));
  CK(cudaMalloc(&b1, slab));
  CK(cudaStreamCreate(&s1));
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaMalloc(&a0, slab));
  CK(cudaMalloc(&b0, slab));
  CK(cudaMemset(a0, 1, slab));
  CK(cudaStreamCreate(&s0));
  CK(cudaStreamCreate(&t0));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("# fft-parts: %ld^3 c64 on 2 slabs: %zu MiB a slab, %zu MiB across the link\n", n, slab >> 20, remote >> 20);
  auto gbs = [&](size_t bytes, float us) { return bytes / (us * 1e3); };

  float us = timeIt(s0, [&] { CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, s0)); });
  printf("  copy engine 0 -> 1, %zu MiB:             %9.1f us  %6.1f GB/s\n", remote >> 20, us, gbs(remote, us));
  us = timeIt(s0, [&] {
    CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, s0));
    CK(cudaSetDevice(1));
    CK(cudaMemcpyAsync(b0, a1, remote, cudaMemcpyDeviceToDevice, s1));
    CK(cudaStreamSynchronize(s1));
    CK(cudaSetDevice(0));
  });
  printf("  copy engines both ways at once:           %9.1f us  %6.1f GB/s each way\n", us, gbs(remote, us));
  /* 2-D: half the rows of each plane (the rows a peer owns), plane after plane. */
  const size_t row = (size_t)n * half * 8, pitch = 2 * row;
  us = timeIt(s0, [&] { CK(cudaMemcpy2DAsync(b1, pitch, a0, pitch, row, half, cudaMemcpyDeviceToDevice, s0)); });
  printf("  copy engine 2-D (%zu KiB rows of %ld planes): %9.1f us  %6.1f GB/s\n", row >> 10, half, us, gbs(remote, us));
  for (int ctas : {8, 16, 32, 64, sms}) {
    us = timeIt(s0, [&] { copyKernel<<<ctas, 256, 0, s0>>>((uint4*)b1, (const uint4*)a0, remote / 16); });
    printf("  copy kernel 0 -> 1, %3d blocks:           %9.1f us  %6.1f GB/s\n", ctas, us, gbs(remote, us));
  }

  /* cuFFT along z: the Z-pencil in place, and transposing from [z][y][x] (this rank's y rows of every
   * plane) into the [y][x][z] Z-pencil. */
  const long rows = half * n; /* (y, x) lines of this rank */
  cufftHandle zc, zt, xy;
  size_t work;
  long long nz[1] = {n};
  FK(cufftCreate(&zc));
  FK(cufftMakePlanMany64(zc, 1, nz, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, rows, &work));
  long long inembed[1] = {n}, onembed[1] = {n};
  FK(cufftCreate(&zt));
  FK(cufftMakePlanMany64(zt, 1, nz, inembed, (long long)n * n, 1, onembed, 1, n, CUFFT_C2C, rows, &work));
  long long nyx[2] = {n, n};
  FK(cufftCreate(&xy));
  FK(cufftMakePlanMany64(xy, 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, half, &work));
  FK(cufftSetStream(zc, s0));
  FK(cufftSetStream(zt, s0));
  FK(cufftSetStream(xy, s0));
  /* The transposing pass reads a [z][n][x] array (all n rows of each plane, this rank's half of them):
   * a whole array's worth of rows a plane, which a slab's two buffers hold between them. */
  char* full;
  CK(cudaMalloc(&full, 2 * slab));
  CK(cudaMemset(full, 0, 2 * slab));
  us = timeIt(s0, [&] { FK(cufftExecC2C(zc, (cufftComplex*)a0, (cufftComplex*)a0, CUFFT_FORWARD)); });
  printf("  cuFFT z, Z-pencil in place:               %9.1f us  %6.1f GB/s\n", us, gbs(2 * slab, us));
  us = timeIt(s0, [&] { FK(cufftExecC2C(zt, (cufftComplex*)full, (cufftComplex*)b0, CUFFT_FORWARD)); });
  printf("  cuFFT z, transposing [z][y][x] -> Z:      %9.1f us  %6.1f GB/s\n", us, gbs(2 * slab, us));
  const float xyAlone = timeIt(s0, [&] { FK(cufftExecC2C(xy, (cufftComplex*)a0, (cufftComplex*)b0, CUFFT_FORWARD)); });
  printf("  cuFFT 2-D (y, x), out of place:           %9.1f us  %6.1f GB/s\n", xyAlone, gbs(4 * slab, xyAlone));
  for (int way = 0; way < 3; way++) {
    const char* what = way == 0 ? "copy engine" : way == 1 ? "copy kernel 32 blocks" : "copy kernel all blocks";
    us = timeIt(s0, [&] {
      cudaEvent_t fork, join;
      CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
      CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
      CK(cudaEventRecord(fork, s0));
      CK(cudaStreamWaitEvent(t0, fork, 0));
      if (way == 0) CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, t0));
      else copyKernel<<<way == 1 ? 32 : sms, 256, 0, t0>>>((uint4*)b1, (const uint4*)a0, remote / 16);
      FK(cufftExecC2C(xy, (cufftComplex*)full, (cufftComplex*)b0, CUFFT_FORWARD));
      CK(cudaEventRecord(join, t0));
      CK(cudaStreamWaitEvent(s0, join, 0));
      cudaEventDestroy(fork);
      cudaEventDestroy(join);
    });
    printf("  cuFFT 2-D beside a %-24s %9.1f us  (2-D alone %.1f)\n", what, us, xyAlone);
  }
  printf("# done\n");
  return 0;
}
