/*
 * The halo exchange's copies: boxes of a padded array to and from dense segments and within the array;
 * and the adjoint's sums of boxes into the array.
 * A face a few entries wide in the fastest axis is many short rows: one thread a word, the words of the
 * whole box numbered in memory order, so that the dense side of a pack or unpack is read or written in
 * whole sectors and the strided side in as few as its rows allow (a 2-D copy per row would take one
 * transaction, or one launch, per row). Each box of a launch is one row of the grid. A sum's word is
 * one scalar of the element type, added in that type's arithmetic.
 */
#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "halo_launch.h"

namespace {

struct Item {
  const void* src;               /* a sum's NULL: zeros */
  void* dst;
  uint64_t words, rows, planes;  /* the box in words of (1 << shift) bytes */
  uint64_t srcPitch[2], dstPitch[2];
  uint32_t shift;
  uint32_t narrow;               /* its words and the grid's threads both number below 2^31 */
  uint32_t move;                 /* a sum's: its source zeroed after */
};

struct Batch {
  Item items[DTR_HALO_COPIES_PER_LAUNCH];
  int fence;
};

/* Word t of a box, in memory order: its offsets in the source and the destination. The index math is
 * 32-bit where the box allows (`narrow`): a 64-bit division costs several times a 32-bit one, and a face
 * of a few entries a row does little else per word. A box of one word a row (the wrap of a fastest
 * axis) divides once. */
template <typename I>
__device__ __forceinline__ void wordAt(const Item& it, I t, I words, I rows, uint64_t& s, uint64_t& d) {
  I x = 0, r = t;
  if (words != 1) x = t % words, r = t / words;
  const I y = r % rows, z = r / rows;
  s = (uint64_t)z * it.srcPitch[1] + (uint64_t)y * it.srcPitch[0] + x;
  d = (uint64_t)z * it.dstPitch[1] + (uint64_t)y * it.dstPitch[0] + x;
}

template <typename W, typename I>
__device__ __forceinline__ void copyBox(const Item& it, I first, I stride) {
  const W* __restrict__ src = static_cast<const W*>(it.src);
  W* __restrict__ dst = static_cast<W*>(it.dst);
  const I words = (I)it.words, rows = (I)it.rows, total = words * rows * (I)it.planes;
  for (I t = first; t < total; t += stride) {
    uint64_t s, d;
    wordAt(it, t, words, rows, s, d);
    dst[d] = src[s];
  }
}

template <typename W>
__device__ __forceinline__ void copyItem(const Item& it) {
  const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
  if (it.narrow) copyBox<W, uint32_t>(it, (uint32_t)first, (uint32_t)stride);
  else copyBox<W, uint64_t>(it, first, stride);
}

__global__ void __launch_bounds__(256) haloCopyKernel(const __grid_constant__ Batch batch) {
  const Item& it = batch.items[blockIdx.y];
  switch (it.shift) {
    case 4: copyItem<uint4>(it); break;
    case 3: copyItem<uint2>(it); break;
    case 2: copyItem<uint32_t>(it); break;
    case 1: copyItem<uint16_t>(it); break;
    default: copyItem<uint8_t>(it); break;
  }
  if (batch.fence) __threadfence_system();
}

/* The adds, on the scalars' bits. The _rn intrinsics are never contracted into a multiply-add. */
struct AddInt8 {
  using Bits = uint8_t;
  static __device__ __forceinline__ Bits add(Bits a, Bits b) { return (Bits)(a + b); }
};
struct AddFloat16 {
  using Bits = uint16_t;
  static __device__ __forceinline__ Bits add(Bits a, Bits b) {
    return __half_as_ushort(__float2half_rn(__fadd_rn(__half2float(__ushort_as_half(a)), __half2float(__ushort_as_half(b)))));
  }
};
struct AddBfloat16 {
  using Bits = uint16_t;
  static __device__ __forceinline__ Bits add(Bits a, Bits b) {
    return __bfloat16_as_ushort(
        __float2bfloat16_rn(__fadd_rn(__bfloat162float(__ushort_as_bfloat16(a)), __bfloat162float(__ushort_as_bfloat16(b)))));
  }
};
struct AddFloat32 {
  using Bits = uint32_t;
  static __device__ __forceinline__ Bits add(Bits a, Bits b) { return __float_as_uint(__fadd_rn(__uint_as_float(a), __uint_as_float(b))); }
};
struct AddFloat64 {
  using Bits = uint64_t;
  static __device__ __forceinline__ Bits add(Bits a, Bits b) {
    return (Bits)__double_as_longlong(__dadd_rn(__longlong_as_double((long long)a), __longlong_as_double((long long)b)));
  }
};

/* dst += src word by word (src NULL: dst = 0), src zeroed after where the item moves its cells. The
 * boxes of a launch share no written cell, so plain loads and stores do. */
template <typename Add, typename I>
__device__ __forceinline__ void sumBox(const Item& it, I first, I stride) {
  using B = typename Add::Bits;
  B* src = static_cast<B*>(const_cast<void*>(it.src));
  B* dst = static_cast<B*>(it.dst);
  const I words = (I)it.words, rows = (I)it.rows, total = words * rows * (I)it.planes;
  for (I t = first; t < total; t += stride) {
    uint64_t s, d;
    wordAt(it, t, words, rows, s, d);
    if (!src) {
      dst[d] = 0;
      continue;
    }
    dst[d] = Add::add(dst[d], src[s]);
    if (it.move) src[s] = 0;
  }
}

template <typename Add>
__device__ __forceinline__ void sumItem(const Item& it) {
  const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
  if (it.narrow) sumBox<Add, uint32_t>(it, (uint32_t)first, (uint32_t)stride);
  else sumBox<Add, uint64_t>(it, first, stride);
}

template <typename Add>
__global__ void __launch_bounds__(256) haloSumKernel(const __grid_constant__ Batch batch) {
  sumItem<Add>(batch.items[blockIdx.y]);
}

/* The widest word (log2 of its bytes, at most 4) that divides every address and length of a copy. */
uint32_t wordShift(const dtrHaloCopyArgs& c) {
  const uint64_t all = (uint64_t)(uintptr_t)c.src | (uint64_t)(uintptr_t)c.dst | c.width | c.srcPitch[0] | c.srcPitch[1] |
                       c.dstPitch[0] | c.dstPitch[1];
  uint32_t s = 0;
  while (s < 4 && !(all & ((2ull << s) - 1))) s++;
  return s;
}

/* Box i of a call in words of (1 << shift) bytes; false where it is empty. */
template <typename Args>
bool describe(const Args& c, uint32_t shift, Item& it) {
  if (!c.width || !c.rows || !c.planes) return false;
  it.shift = shift;
  it.src = c.src, it.dst = c.dst;
  it.words = c.width >> shift, it.rows = c.rows, it.planes = c.planes;
  for (int k = 0; k < 2; k++) it.srcPitch[k] = c.srcPitch[k] >> shift, it.dstPitch[k] = c.dstPitch[k] >> shift;
  it.narrow = it.words * it.rows * it.planes < (1ull << 31);
  it.move = 0;
  return true;
}

/* The `count` boxes in launches of up to DTR_HALO_COPIES_PER_LAUNCH: fill(i, item) describes box i
 * (false: empty), kernel runs a batch. */
template <typename Fill>
cudaError_t launchAll(int count, int fence, Fill fill, void (*kernel)(Batch), cudaStream_t stream) {
  const unsigned threads = 256, mostBlocks = 2048;
  for (int first = 0; first < count; first += DTR_HALO_COPIES_PER_LAUNCH) {
    Batch batch;
    unsigned n = 0, blocks = 1;
    for (int i = first; i < count && i < first + DTR_HALO_COPIES_PER_LAUNCH; i++) {
      Item& it = batch.items[n];
      if (!fill(i, it)) continue;
      n++;
      const uint64_t total = it.words * it.rows * it.planes, want = (total + threads - 1) / threads;
      if (want > blocks) blocks = want > mostBlocks ? mostBlocks : (unsigned)want;
    }
    if (!n) continue;
    batch.fence = fence;
    kernel<<<dim3(blocks, n), threads, 0, stream>>>(batch);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

extern "C" cudaError_t dtrHaloCopyLaunch(const dtrHaloCopyArgs* copies, int count, int fence, cudaStream_t stream) {
  return launchAll(
      count, fence, [&](int i, Item& it) { return describe(copies[i], wordShift(copies[i]), it); }, haloCopyKernel, stream);
}

extern "C" cudaError_t dtrHaloSumLaunch(const dtrHaloSumArgs* sums, int count, dtrHaloScalar scalar, cudaStream_t stream) {
  void (*kernel)(Batch) = haloSumKernel<AddInt8>;
  uint32_t shift = 0;
  switch (scalar) {
    case dtrHaloInt8: break;
    case dtrHaloFloat16: kernel = haloSumKernel<AddFloat16>, shift = 1; break;
    case dtrHaloBfloat16: kernel = haloSumKernel<AddBfloat16>, shift = 1; break;
    case dtrHaloFloat32: kernel = haloSumKernel<AddFloat32>, shift = 2; break;
    case dtrHaloFloat64: kernel = haloSumKernel<AddFloat64>, shift = 3; break;
    default: return cudaErrorInvalidValue;
  }
  return launchAll(
      count, 0,
      [&](int i, Item& it) {
        if (!describe(sums[i], shift, it)) return false;
        it.move = sums[i].move != 0;
        return true;
      },
      kernel, stream);
}
