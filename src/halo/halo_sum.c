#include "halo_sum.h"

#include <stdint.h>
#include <string.h>

dtrHaloScalar dtrHaloScalarOf(dtrDataType_t type) {
  switch (type) {
    case dtrFloat16: return dtrHaloFloat16;
    case dtrBfloat16: return dtrHaloBfloat16;
    case dtrFloat32:
    case dtrComplex64: return dtrHaloFloat32;
    case dtrFloat64:
    case dtrComplex128: return dtrHaloFloat64;
    default: return dtrHaloInt8;
  }
}

static float floatOfBits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t bitsOfFloat(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* fp16 -> fp32, exact. */
static float floatOfHalf(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 31) return floatOfBits(sign | 0x7f800000u | m << 13);
  if (e) return floatOfBits(sign | (e + 112) << 23 | m << 13);
  const float tiny = (float)m * 0x1p-24f; /* a subnormal (or zero): m units of 2^-24, exact in fp32 */
  return sign ? -tiny : tiny;
}

/* fp32 -> fp16, rounded to nearest even; NaN is the GPU's canonical one (the kernels' __float2half_rn). */
static uint16_t halfOfFloat(float f) {
  const uint32_t x = bitsOfFloat(f), a = x & 0x7fffffffu;
  const uint16_t sign = (uint16_t)(x >> 16 & 0x8000u);
  if (a > 0x7f800000u) return 0x7fff;
  if (a >= 0x477ff000u) return sign | 0x7c00u; /* 65520 and beyond round to infinity */
  if (a >= 0x38800000u) {                       /* a normal fp16 (2^-14 and beyond): rebias, round 13 bits off */
    uint32_t r = a - (112u << 23);
    r += 0xfffu + (r >> 13 & 1u);
    return sign | (uint16_t)(r >> 13);
  }
  if (a < 0x33000000u) return sign; /* below 2^-25: zero (2^-25 itself ties to even, zero too) */
  /* A subnormal fp16: the significand with its leading bit, in units of 2^-24. */
  const uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126 - (a >> 23), rest = m & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  uint32_t k = m >> shift;
  if (rest > halfway || (rest == halfway && (k & 1u))) k++;
  return sign | (uint16_t)k;
}

/* fp32 -> bf16, rounded to nearest even; NaN the GPU's canonical one (the kernels' __float2bfloat16_rn). */
static uint16_t bfloat16OfFloat(float f) {
  const uint32_t x = bitsOfFloat(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return (uint16_t)((x + 0x7fffu + (x >> 16 & 1u)) >> 16);
}

/* dst += src for one scalar. Each sum passes through a volatile so that no wider format (x87's) or
 * contraction changes its rounding. */
static void addOne(dtrHaloScalar scalar, const char* src, char* dst) {
  switch (scalar) {
    case dtrHaloInt8: *dst = (char)(uint8_t)((uint8_t)*dst + (uint8_t)*src); return;
    case dtrHaloFloat16:
    case dtrHaloBfloat16: {
      uint16_t a, b;
      memcpy(&a, dst, 2), memcpy(&b, src, 2);
      const int half = scalar == dtrHaloFloat16;
      volatile float sum = half ? floatOfHalf(a) : floatOfBits((uint32_t)a << 16);
      sum = sum + (half ? floatOfHalf(b) : floatOfBits((uint32_t)b << 16));
      a = half ? halfOfFloat(sum) : bfloat16OfFloat(sum);
      memcpy(dst, &a, 2);
      return;
    }
    case dtrHaloFloat32: {
      float a, b;
      memcpy(&a, dst, 4), memcpy(&b, src, 4);
      volatile float sum = a + b;
      a = sum;
      memcpy(dst, &a, 4);
      return;
    }
    case dtrHaloFloat64: {
      double a, b;
      memcpy(&a, dst, 8), memcpy(&b, src, 8);
      volatile double sum = a + b;
      a = sum;
      memcpy(dst, &a, 8);
      return;
    }
  }
}

void dtrHaloHostSum(dtrHaloScalar scalar, char* src, char* dst, dtrHaloStrided c, size_t e, int move) {
  static const size_t bytes[] = {1, 2, 2, 4, 8};
  const size_t row = (size_t)c.count[0] * e, size = bytes[scalar];
  for (int64_t z = 0; z < c.count[2]; z++)
    for (int64_t y = 0; y < c.count[1]; y++) {
      char* to = dst + (size_t)(c.dstOffset + z * c.dstPitch[1] + y * c.dstPitch[0]) * e;
      char* from = src + (size_t)(c.srcOffset + z * c.srcPitch[1] + y * c.srcPitch[0]) * e;
      for (size_t i = 0; i < row; i += size) addOne(scalar, from + i, to + i);
      if (move) memset(from, 0, row);
    }
}
