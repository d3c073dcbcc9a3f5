/* The verification pattern on the GPU: fill A, poison B, count B's wrong entries. Nothing is
 * gathered anywhere: each rank checks its own slab from the global indices alone. */
#include <stdint.h>

#include "launch.h"
#include "pattern.h"
#include "support.h"
#include "variants.h"

namespace dtr {

/* Fill writes the pattern, Poison its complement (so that every byte of an entry left unwritten
 * differs from what the check expects), Check counts the entries that differ from it. */
template <dtrPatternRole R>
__global__ void patternKernel(uint8_t* data, dtrPatternBox box, uint32_t e, unsigned long long* wrong) {
  unsigned long long bad = 0;
  const int64_t n = box.size[0] * box.size[1] * box.size[2];
  for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x) {
    const uint64_t index = dtrPatternBoxIndex(&box, x);
    uint8_t* p = data + x * e;
    bool ok = true;
    for (uint32_t b = 0; b < e; b += 8) {
      const uint64_t w = dtrPatternWordAt(index, b);
      const uint32_t nb = (e - b < 8) ? e - b : 8;
      for (uint32_t y = 0; y < nb; y++) {
        const uint8_t v = (uint8_t)(w >> (8 * y));
        if (R == dtrPatternFill) p[b + y] = v;
        else if (R == dtrPatternPoison) p[b + y] = (uint8_t)~v;
        else ok &= (p[b + y] == v);
      }
    }
    bad += !ok;
  }
  if (R == dtrPatternCheck) {
    for (int off = 16; off > 0; off /= 2) bad += __shfl_down_sync(0xffffffffu, bad, off);
    if ((threadIdx.x & 31) == 0 && bad) atomicAdd(wrong, bad);
  }
}

template <dtrPatternRole R>
static cudaError_t launchPattern(void* data, const dtrPatternBox& box, size_t e, unsigned long long* wrong,
                                 cudaStream_t stream) {
  const int64_t n = box.size[0] * box.size[1] * box.size[2];
  if (n <= 0) return cudaSuccess;
  DeviceInfo d;
  cudaError_t err = deviceInfo(&d);
  if (err != cudaSuccess) return err;
  const int64_t threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > (int64_t)d.sms * 16) blocks = (int64_t)d.sms * 16;
  patternKernel<R><<<(unsigned)blocks, (unsigned)threads, 0, stream>>>(static_cast<uint8_t*>(data), box, (uint32_t)e, wrong);
  return cudaGetLastError();
}

}  // namespace dtr

using namespace dtr;

extern "C" cudaError_t dtrPatternBoxLaunch(dtrPatternRole role, void* data, const dtrPatternBox* box, size_t entry_bytes,
                                           unsigned long long* wrong, cudaStream_t stream) {
  switch (role) {
    case dtrPatternFill: return launchPattern<dtrPatternFill>(data, *box, entry_bytes, nullptr, stream);
    case dtrPatternPoison: return launchPattern<dtrPatternPoison>(data, *box, entry_bytes, nullptr, stream);
    default: return launchPattern<dtrPatternCheck>(data, *box, entry_bytes, wrong, stream);
  }
}

extern "C" cudaError_t dtrPatternFillLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                            size_t entry_bytes, cudaStream_t stream) {
  const dtrPatternBox box = dtrPatternSlabA(rows, cols, row_start);
  return dtrPatternBoxLaunch(dtrPatternFill, slab, &box, entry_bytes, nullptr, stream);
}

extern "C" cudaError_t dtrPatternPoisonLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                              int64_t a_cols, size_t entry_bytes, cudaStream_t stream) {
  const dtrPatternBox box = dtrPatternSlabB(rows, cols, row_start, a_cols);
  return dtrPatternBoxLaunch(dtrPatternPoison, slab, &box, entry_bytes, nullptr, stream);
}

extern "C" cudaError_t dtrPatternCheckLaunch(const void* slab, int64_t rows, int64_t cols, int64_t row_start,
                                             int64_t a_cols, size_t entry_bytes, unsigned long long* wrong,
                                             cudaStream_t stream) {
  const dtrPatternBox box = dtrPatternSlabB(rows, cols, row_start, a_cols);
  return dtrPatternBoxLaunch(dtrPatternCheck, const_cast<void*>(slab), &box, entry_bytes, wrong, stream);
}
