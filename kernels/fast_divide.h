/* Division by a divisor that a launch fixes and a kernel uses for every thread: a multiply-high, an add
 * and a shift instead of the integer division's twenty-odd instructions (Granlund and Montgomery's
 * round-up method). Exact for dividends and divisors below 2^31. Plain C, so that the host tests check
 * the same code the kernels run. */
#ifndef DTR_FAST_DIVIDE_H
#define DTR_FAST_DIVIDE_H

#include <stdint.h>

#ifdef __CUDACC__
#define DTR_HOST_DEVICE __host__ __device__
#else
#define DTR_HOST_DEVICE
#endif

typedef struct {
  uint32_t magic; /* floor(2^32 (2^shift - d) / d) + 1 */
  int shift;      /* ceil(log2 d) */
} dtrFastDivisor;

/* d in [1, 2^31) */
static inline DTR_HOST_DEVICE dtrFastDivisor dtrFastDivisorOf(uint32_t d) {
  dtrFastDivisor f;
  int s = 0;
  while (((uint64_t)1 << s) < d) s++;
  f.shift = s;
  f.magic = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
  return f;
}

/* n / d for n in [0, 2^31) */
static inline DTR_HOST_DEVICE uint32_t dtrFastDivide(uint32_t n, dtrFastDivisor f) {
#ifdef __CUDA_ARCH__
  const uint32_t high = __umulhi(n, f.magic);
#else
  const uint32_t high = (uint32_t)(((uint64_t)n * f.magic) >> 32);
#endif
  return (uint32_t)(((uint64_t)high + n) >> f.shift);
}

#endif
