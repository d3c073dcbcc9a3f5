/*
 * Unaligned 16-byte words made of aligned ones: the 1- and 2-byte paths meet rows at any byte
 * offset, and a 16-byte access must be aligned, so they load or store aligned words and shift the
 * bytes into place in registers (funnel shifts) instead of moving the bytes one by one. Host and
 * device: the host tests run the same code on the CPU.
 */
#ifndef DTR_SHIFTED_WORD_H
#define DTR_SHIFTED_WORD_H

#include <stdint.h>

#include <vector_types.h>

#ifdef __CUDACC__
#define DTR_HOST_DEVICE __host__ __device__ __forceinline__
#define DTR_UNROLL _Pragma("unroll")
#else
#define DTR_HOST_DEVICE inline
#define DTR_UNROLL
#endif

namespace dtr {

/* The low 32 bits of hi:lo shifted right by `bits` (0..31). */
DTR_HOST_DEVICE uint32_t funnelRight(uint32_t lo, uint32_t hi, uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __funnelshift_r(lo, hi, bits);
#else
  return (uint32_t)((((uint64_t)hi << 32) | lo) >> (bits & 31));
#endif
}

/* Bytes [shift, shift + 16) of the 32 bytes lo, hi (lo first), shift in 0..15. */
DTR_HOST_DEVICE uint4 shiftedWord(uint4 lo, uint4 hi, uint32_t shift) {
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const uint32_t q = shift >> 2, bits = 8 * (shift & 3);
  uint32_t v[5];
DTR_UNROLL
  for (int i = 0; i < 5; i++) v[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
  uint4 out;
  out.x = funnelRight(v[0], v[1], bits);
  out.y = funnelRight(v[1], v[2], bits);
  out.z = funnelRight(v[2], v[3], bits);
  out.w = funnelRight(v[3], v[4], bits);
  return out;
}

/* Byte k (0..15) of a 16-byte word; k known at compile time once unrolled. */
DTR_HOST_DEVICE uint8_t byteOf(uint4 v, int k) {
  const uint32_t w = k < 4 ? v.x : k < 8 ? v.y : k < 12 ? v.z : v.w;
  return (uint8_t)(w >> (8 * (k & 3)));
}

/* Four bytes, each the low byte of its argument, as one word (b0 lowest); two half-words likewise. */
DTR_HOST_DEVICE uint32_t joinBytes(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3) {
#ifdef __CUDA_ARCH__
  return __byte_perm(__byte_perm(b0, b1, 0x3340), __byte_perm(b2, b3, 0x3340), 0x5410);
#else
  return (b0 & 0xff) | (b1 & 0xff) << 8 | (b2 & 0xff) << 16 | (b3 & 0xff) << 24;
#endif
}
DTR_HOST_DEVICE uint32_t joinHalves(uint32_t h0, uint32_t h1) {
#ifdef __CUDA_ARCH__
  return __byte_perm(h0, h1, 0x5410);
#else
  return (h0 & 0xffff) | (h1 & 0xffff) << 16;
#endif
}

/* A word of 1, 2, 4, 8 or 16 bytes as the 32-bit words it holds (the low bytes of words[0] for the
 * narrow ones), and back. */
template <typename W>
DTR_HOST_DEVICE void wordsOf(W v, uint32_t* words) {
  if constexpr (sizeof(W) == 16) words[0] = v.x, words[1] = v.y, words[2] = v.z, words[3] = v.w;
  else if constexpr (sizeof(W) == 8) words[0] = (uint32_t)v, words[1] = (uint32_t)(v >> 32);
  else words[0] = v;
}
template <typename W>
DTR_HOST_DEVICE W wordFrom(const uint32_t* words) {
  if constexpr (sizeof(W) == 16) {
    W v;
    v.x = words[0], v.y = words[1], v.z = words[2], v.w = words[3];
    return v;
  } else if constexpr (sizeof(W) == 8) {
    return (W)words[0] | (W)words[1] << 32;
  } else {
    return (W)words[0];
  }
}

}  // namespace dtr

#endif
