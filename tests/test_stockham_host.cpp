/*
 * The one-trip kernel's FFT in registers (kernels/stockham_fft.cuh) run on the CPU: one line, its n / P
 * threads as threads of the host, __syncthreads as their barrier, the line's shared memory a buffer of its
 * pitch, the twiddles from the table the library makes (dtrAxisOneTripTable). Each thread's points in,
 * as the kernel reads them (point t + m T), and its spectrum points out, against a DFT in long double of
 * the same input: every length 8..4096 with eight points a thread, 16, 128 and 1024 with sixteen, forward
 * and inverse, both layouts of shared memory (lines side by side with a spare slot every eight points,
 * and every sixteen at sixteen points a thread; the fixed lengths' lines also interleaved, a line's
 * slots eight apart), the passes counted at run time and (256, 512, 1024) fixed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <barrier>
#include <thread>
#include <vector>

/* The header's device code as host code: a line's threads meet at a barrier of the host's threads. */
static thread_local std::barrier<>* lineBarrier;
static inline void __syncthreads() { lineBarrier->arrive_and_wait(); }
#define __device__
#define __forceinline__ inline
#include "stockham_fft.cuh"
#undef __device__
#undef __forceinline__

struct Complex32 {
  float x, y;
};

extern "C" void dtrAxisOneTripTable(int64_t n, int dbl, void* host);

static int untouchedFailures = 0;

/* The FFT of x (n points) with P points a thread, Swizzled or not, Passes8 radix-8 passes fixed (0:
 * counted at run time), the line's slots Stride apart (the block's lines interleaved: the line is one of
 * Stride, the others' slots poisoned and checked untouched); the spectrum in natural order. */
template <bool Inverse, bool Swizzled, int Passes8, int P, int Spread, int Stride>
static std::vector<Complex32> lineFft(const std::vector<Complex32>& x, const std::vector<Complex32>& table) {
  const int n = (int)x.size(), T = n / P, logn = (int)lround(log2((double)n)), r = Stride > 1 ? Stride - 3 : 0;
  const Complex32 poison = {-1e30f, 1e30f};
  std::vector<Complex32> lines((size_t)Stride * (n + n / 8 + 2), poison), out(n);
  std::barrier<> barrier(T);
  std::vector<std::thread> threads;
  for (int t = 0; t < T; t++) {
    threads.emplace_back([&, t] {
      lineBarrier = &barrier;
      Complex32 u[P];
      for (int m = 0; m < P; m++) u[m] = x[t + m * T];
      dtrStockham::fft<Inverse, Swizzled, Passes8, P, Spread, Stride>(u, lines.data() + r, t, T, n, logn, table.data());
      for (int s = 0; s < P; s++) out[t + s * T] = u[s];
    });
  }
  for (std::thread& th : threads) th.join();
  for (size_t i = 0; i < lines.size(); i++)
    if ((int)(i % Stride) != r && (lines[i].x != poison.x || lines[i].y != poison.y)) {
      untouchedFailures++;
      fprintf(stderr, "FAIL n %d, %d points a thread, slots %d apart: slot %zu of another line written\n", n, P, Stride, i);
      break;
    }
  return out;
}

/* The largest error of got against the DFT of x, over the largest of that DFT's magnitudes. */
static double relativeError(const std::vector<Complex32>& x, const std::vector<Complex32>& got, bool inverse) {
  const size_t n = x.size();
  std::vector<long double> c(n), s(n);
  for (size_t m = 0; m < n; m++) {
    const long double a = (inverse ? 2 : -2) * 3.14159265358979323846264338327950288L * (long double)m / (long double)n;
    c[m] = cosl(a), s[m] = sinl(a);
  }
  double worst = 0, largest = 0;
  for (size_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (size_t j = 0; j < n; j++) {
      const size_t m = (j * k) % n;
      re += x[j].x * c[m] - x[j].y * s[m];
      im += x[j].x * s[m] + x[j].y * c[m];
    }
    largest = fmax(largest, (double)sqrtl(re * re + im * im));
    worst = fmax(worst, hypot((double)(got[k].x - re), (double)(got[k].y - im)));
  }
  return worst / largest;
}

static int failures = 0, cases = 0;

template <bool Inverse, bool Swizzled, int Passes8, int P, int Spread = 8, int Stride = 1>
static void check(int n) {
  std::vector<Complex32> x(n), table(n < 8 ? 16 : 2 * n);
  dtrAxisOneTripTable(n, 0, table.data());
  uint32_t state = 2463534242u + (uint32_t)n * 7919u + (Inverse ? 1u : 0u);
  for (Complex32& v : x) { /* values that differ per point, in [-1, 1) */
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    v.x = (float)((double)(state >> 8) / (1 << 23) - 1);
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    v.y = (float)((double)(state >> 8) / (1 << 23) - 1);
  }
  const double err = relativeError(x, lineFft<Inverse, Swizzled, Passes8, P, Spread, Stride>(x, table), Inverse);
  /* single precision over log2 n passes: a few units in the last place times the passes */
  const double bound = 4e-7 * (log2((double)n) + 1);
  cases++;
  if (!(err <= bound)) {
    failures++;
    fprintf(stderr, "FAIL n %d, %d points a thread, %s, %s (spare slot every %d, slots %d apart), passes %s: error %.3g (bound %.3g)\n",
            n, P, Inverse ? "inverse" : "forward", Swizzled ? "swizzled" : "padded", Spread, Stride, Passes8 ? "fixed" : "counted", err,
            bound);
  }
}

template <bool Inverse, bool Swizzled>
static void everyLength() {
  for (int n = 8; n <= 4096; n *= 2) check<Inverse, Swizzled, 0, 8>(n);
  check<Inverse, Swizzled, 2, 8>(256);
  check<Inverse, Swizzled, 3, 8>(512);
  check<Inverse, Swizzled, 3, 8>(1024);
  for (int n : {16, 128, 1024}) check<Inverse, Swizzled, 0, 16>(n);
  check<Inverse, Swizzled, 2, 16>(1024);
  if constexpr (!Swizzled) { /* lines side by side with a spare slot every sixteen points */
    for (int n : {16, 128, 1024}) check<Inverse, false, 0, 16, 16>(n);
    check<Inverse, false, 2, 16, 16>(1024);
    /* the fixed kernels' lines interleaved, eight a block (the one-trip kernel's fields passes) */
    check<Inverse, false, 2, 8, 8, 8>(256);
    check<Inverse, false, 3, 8, 8, 8>(512);
    check<Inverse, false, 0, 8, 8, 8>(64);
    check<Inverse, false, 2, 16, 16, 8>(1024);
  }
}

int main() {
  everyLength<false, false>();
  everyLength<false, true>();
  everyLength<true, false>();
  everyLength<true, true>();
  printf("stockham on the host: %d cases, %d failed, %d wrote another line's slots\n", cases, failures, untouchedFailures);
  return failures || untouchedFailures ? 1 : 0;
}
