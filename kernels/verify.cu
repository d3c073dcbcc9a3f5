/* The verification pattern on the GPU: fill A, poison B, count B's wrong entries. Nothing is
 * gathered anywhere: each rank checks its own slab from the global indices alone. */
#include <stdint.h>

#include "launch.h"
#include "pattern.h"
#include "variants.h"

namespace dtr {

/* Entry (r, c) of a slab whose rows start at global row row0 holds pattern entry (i, j) of A:
 * (row0 + r, c) in A itself, (c, row0 + r) in B. The poison is that entry's complement, so every
 * byte of an entry left unwritten differs from what the check expects. */
enum class Role { FillA, PoisonB, CheckB };

template <Role R>
__global__ void patternKernel(uint8_t* slab, int64_t rows, int64_t cols, int64_t row0, int64_t aCols, uint32_t e,
                              unsigned long long* wrong) {
  unsigned long long bad = 0;
  const int64_t n = rows * cols;
  for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = x / cols, c = x - r * cols;
    const int64_t i = (R == Role::FillA) ? row0 + r : c, j = (R == Role::FillA) ? c : row0 + r;
    uint8_t* p = slab + x * e;
    bool ok = true;
    for (uint32_t b = 0; b < e; b += 8) {
      const uint64_t w = dtrPatternWord(i, j, aCols, b);
      const uint32_t nb = (e - b < 8) ? e - b : 8;
      for (uint32_t y = 0; y < nb; y++) {
        const uint8_t v = (uint8_t)(w >> (8 * y));
        if (R == Role::FillA) p[b + y] = v;
        else if (R == Role::PoisonB) p[b + y] = (uint8_t)~v;
        else ok &= (p[b + y] == v);
      }
    }
    bad += !ok;
  }
  if (R == Role::CheckB) {
    for (int off = 16; off > 0; off /= 2) bad += __shfl_down_sync(0xffffffffu, bad, off);
    if ((threadIdx.x & 31) == 0 && bad) atomicAdd(wrong, bad);
  }
}

template <Role R>
static cudaError_t launchPattern(void* slab, int64_t rows, int64_t cols, int64_t row0, int64_t aCols, size_t e,
                                 unsigned long long* wrong, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  const int64_t n = rows * cols, threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > (int64_t)d.sms * 16) blocks = (int64_t)d.sms * 16;
  patternKernel<R><<<(unsigned)blocks, (unsigned)threads, 0, stream>>>(static_cast<uint8_t*>(slab), rows, cols, row0,
                                                                     aCols, (uint32_t)e, wrong);
  return cudaGetLastError();
}

}  // namespace dtr

using namespace dtr;

extern "C" cudaError_t dtrPatternFillLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                            size_t entry_bytes, cudaStream_t stream) {
  return launchPattern<Role::FillA>(slab, rows, cols, row_start, cols, entry_bytes, nullptr, stream);
}

extern "C" cudaError_t dtrPatternPoisonLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                              int64_t a_cols, size_t entry_bytes, cudaStream_t stream) {
  return launchPattern<Role::PoisonB>(slab, rows, cols, row_start, a_cols, entry_bytes, nullptr, stream);
}

extern "C" cudaError_t dtrPatternCheckLaunch(const void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                             int64_t a_cols, size_t entry_bytes, unsigned long long* wrong,
                                             cudaStream_t stream) {
  return launchPattern<Role::CheckB>(const_cast<void*>(slab), rows, cols, row_start, a_cols, entry_bytes, wrong,
                                     stream);
}
