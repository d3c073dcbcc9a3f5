/*
 * copy-study: how fast can the SMs copy device memory on this GPU, and how does that compare with
 * cudaMemcpyAsync? The transposes are judged against the best copy, so the ceiling must be real.
 * Each line is one way to copy the same bytes: grid shape, bytes in flight per thread, cache hints.
 * Also a read-only and a write-only pass (the two halves of a copy), and whether cudaMemcpyAsync
 * still runs while every SM is held by another kernel (that is, whether it uses the SMs at all).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#include "support/cuda_check.h"

/* Load flavours: 0 plain, 1 non-coherent with no L1 allocation and a 256-byte L2 prefetch,
 * 2 evict-first. Store flavours: 0 plain, 1 evict-first (.cs), 2 no L1 allocation. */
template <int LD>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if (LD == 1)
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  else if (LD == 2)
    v = __ldcs(p);
  else
    v = *p;
  return v;
}

template <int ST>
__device__ __forceinline__ void store16(uint4* p, uint4 v) {
  if (ST == 1)
    __stcs(p, v);
  else if (ST == 2)
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
  else
    *p = v;
}

/* A block copies chunks of blockDim.x * U vectors, each thread U loads then U stores; chunks go to
 * blocks round-robin (a grid smaller than the chunk count loops). */
template <int U, int LD, int ST>
__global__ void chunkCopy(uint4* __restrict__ dst, const uint4* __restrict__ src, uint64_t n) {
  const uint64_t chunk = (uint64_t)blockDim.x * U, chunks = (n + chunk - 1) / chunk;
  for (uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const uint64_t base = c * chunk + threadIdx.x;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (base + (uint64_t)u * blockDim.x < n) v[u] = load16<LD>(src + base + (uint64_t)u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; u++)
      if (base + (uint64_t)u * blockDim.x < n) store16<ST>(dst + base + (uint64_t)u * blockDim.x, v[u]);
  }
}

/* Each block copies one contiguous 1/gridDim share of the buffer (many far-apart streams at once). */
template <int U>
__global__ void sliceCopy(uint4* __restrict__ dst, const uint4* __restrict__ src, uint64_t n) {
  const uint64_t per = (n + gridDim.x - 1) / gridDim.x, lo = blockIdx.x * per, hi = min(n, lo + per);
  for (uint64_t i = lo + threadIdx.x; i < hi; i += (uint64_t)blockDim.x * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (i + (uint64_t)u * blockDim.x < hi) v[u] = src[i + (uint64_t)u * blockDim.x];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (i + (uint64_t)u * blockDim.x < hi) dst[i + (uint64_t)u * blockDim.x] = v[u];
  }
}

__global__ void readOnly(const uint4* __restrict__ src, uint64_t n, uint32_t* sink) {
  uint32_t acc = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x * 4) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      const uint64_t j = i + (uint64_t)u * gridDim.x * blockDim.x;
      v[u] = j < n ? src[j] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x9e3779b9u) *sink = acc; /* keeps the loads alive */
}

__global__ void writeOnly(uint4* __restrict__ dst, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    dst[i] = make_uint4((uint32_t)i, 1, 2, 3);
}

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

template <typename F>
static float medianMs(F launch, int warmup, int iters) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  std::vector<float> t(iters);
  for (int i = 0; i < warmup; i++) launch();
  for (int i = 0; i < iters; i++) {
    CUDA_OK(cudaEventRecord(a));
    launch();
    CUDA_OK(cudaEventRecord(b));
    CUDA_OK(cudaEventSynchronize(b));
    CUDA_OK(cudaEventElapsedTime(&t[i], a, b));
  }
  CUDA_OK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[iters / 2];
}

int main(int argc, char** argv) {
  const size_t bytes = (size_t)(argc > 1 ? atof(argv[1]) : 1024) * (1 << 20);
  const int iters = 15, warmup = 3;
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  uint4 *src, *dst;
  uint32_t* sink;
  CUDA_OK(cudaMalloc(&src, bytes));
  CUDA_OK(cudaMalloc(&dst, bytes));
  CUDA_OK(cudaMalloc(&sink, 4));
  CUDA_OK(cudaMemset(src, 0x5a, bytes));
  CUDA_OK(cudaMemset(dst, 0, bytes));
  const uint64_t n = bytes / 16;
  printf("# copy-study on %s (%d SMs): %.0f MiB, GB/s = bytes read + written over the median of %d\n", prop.name, sms,
         bytes / 1048576.0, iters);
  auto report = [&](const char* what, float ms, double moved) {
    printf("  %-44s %9.1f us %8.0f GB/s\n", what, ms * 1e3, moved / (ms * 1e6));
    fflush(stdout);
  };
  char label[96];
  /* One copy kernel (chunkCopy or sliceCopy) on a grid, bytes read plus written. */
  auto copy = [&](const char* what, void (*kernel)(uint4*, const uint4*, uint64_t), unsigned blocks, int threads) {
    report(what, medianMs([&] { kernel<<<blocks, threads>>>(dst, src, n); }, warmup, iters), 2.0 * bytes);
  };

  report("cudaMemcpyAsync", medianMs([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); }, warmup, iters),
         2.0 * bytes);
  report("read only (4 x 16 B in flight)",
         medianMs([&] { readOnly<<<sms * 4, 512>>>(src, n, sink); }, warmup, iters), (double)bytes);
  report("write only (16 B stores)", medianMs([&] { writeOnly<<<sms * 4, 512>>>(dst, n); }, warmup, iters),
         (double)bytes);

  /* Grid-stride with one vector per thread: chunkCopy<1> with a grid of k blocks per SM. */
  for (int threads : {256, 512, 1024})
    for (int k : {1, 2, 4, 8, 32}) {
      if (threads * k > 2048) continue;
      snprintf(label, sizeof label, "stride  U1 %4d thr x %2d/SM", threads, k);
      copy(label, chunkCopy<1, 0, 0>, sms * k, threads);
    }
  /* One block per chunk, not persistent. */
  auto grid = [&](int threads, int u) { return (unsigned)((n + (uint64_t)threads * u - 1) / ((uint64_t)threads * u)); };
  for (int threads : {64, 128, 256, 512, 1024}) {
    snprintf(label, sizeof label, "chunks  U1 %4d thr, one block per chunk", threads);
    copy(label, chunkCopy<1, 0, 0>, grid(threads, 1), threads);
  }
  copy("chunks  U2  128 thr, one block per chunk", chunkCopy<2, 0, 0>, grid(128, 2), 128);
  copy("chunks  U2  256 thr, one block per chunk", chunkCopy<2, 0, 0>, grid(256, 2), 256);
  copy("chunks  U1  256 thr, .cs loads + .cs stores", chunkCopy<1, 2, 1>, grid(256, 1), 256);
  copy("chunks  U1  256 thr, no_allocate stores", chunkCopy<1, 0, 2>, grid(256, 1), 256);
  copy("chunks  U4  256 thr, one block per chunk", chunkCopy<4, 0, 0>, grid(256, 4), 256);
  copy("chunks  U8  128 thr, one block per chunk", chunkCopy<8, 0, 0>, grid(128, 8), 128);
  copy("chunks  U4  256 thr, L2::256B loads", chunkCopy<4, 1, 0>, grid(256, 4), 256);
  copy("chunks  U4  256 thr, .cs loads + .cs stores", chunkCopy<4, 2, 1>, grid(256, 4), 256);
  copy("chunks  U4  256 thr, L2::256B + no_allocate st", chunkCopy<4, 1, 2>, grid(256, 4), 256);
  /* Persistent, several vectors in flight. */
  for (int k : {2, 4, 8}) {
    const struct {
      const char* name;
      void (*kernel)(uint4*, const uint4*, uint64_t);
    } persistent[] = {{"U4  256 thr x %d/SM", chunkCopy<4, 0, 0>},
                      {"U8  256 thr x %d/SM", chunkCopy<8, 0, 0>},
                      {"U4  256 thr x %d/SM, L2::256B", chunkCopy<4, 1, 0>},
                      {"U4  256 thr x %d/SM, .cs/.cs", chunkCopy<4, 2, 1>}};
    for (const auto& v : persistent) {
      char name[64];
      snprintf(name, sizeof name, v.name, k);
      snprintf(label, sizeof label, "persist %s", name);
      copy(label, v.kernel, sms * k, 256);
    }
  }
  for (int k : {1, 4}) {
    snprintf(label, sizeof label, "slices  U4  512 thr x %d/SM", k);
    copy(label, sliceCopy<4>, sms * k, 512);
  }

  /* Does cudaMemcpyAsync need the SMs? Hold every SM with a spinning kernel on one stream and copy
   * on another: a copy engine finishes long before the spin ends, an SM kernel only after it. */
  {
    cudaStream_t s1, s2;
    CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t t0, tSpin, tCopy;
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&tSpin));
    CUDA_OK(cudaEventCreate(&tCopy));
    int khz = 0;
    CUDA_OK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long cycles = (long long)khz * 50; /* about 50 ms */
    CUDA_OK(cudaEventRecord(t0, s1));
    CUDA_OK(cudaStreamWaitEvent(s2, t0, 0));
    spin<<<sms * 2048 / 64, 64, 0, s1>>>(cycles);
    CUDA_OK(cudaEventRecord(tSpin, s1));
    CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s2));
    CUDA_OK(cudaEventRecord(tCopy, s2));
    CUDA_OK(cudaDeviceSynchronize());
    float spinMs, copyMs;
    CUDA_OK(cudaEventElapsedTime(&spinMs, t0, tSpin));
    CUDA_OK(cudaEventElapsedTime(&copyMs, t0, tCopy));
    printf("# every SM held for %.1f ms: cudaMemcpyAsync done after %.2f ms (%s)\n", spinMs, copyMs,
           copyMs < 0.5 * spinMs ? "it does not need the SMs: a copy engine" : "it waited for the SMs");
  }
  cudaFree(src);
  cudaFree(dst);
  cudaFree(sink);
  return 0;
}
