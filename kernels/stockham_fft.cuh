/*
 * The FFT of a line held in registers, eight or sixteen points a thread, for the one-trip kernel
 * (axis_one_trip.cu).
 *
 * The FFT is Stockham's (self-sorting) with P points a thread held in registers: n / P threads a line;
 * with eight, one radix-2 or radix-4 pass first where log2 n is not a multiple of 3, with sixteen a
 * radix-16 pass first, then radix-8 passes, the points crossing shared memory only between passes (two
 * exchanges for 512 points, and for 1024 with sixteen). Thread t of a line holds points t + m n / P (m <
 * P) before every pass, which is also how it reads the line from HBM (reordered and pre-twiddled on the
 * way in) and how the last pass leaves the spectrum. Shared memory is laid out so that the passes'
 * strided writes and the reads of consecutive points spread over the banks (slot); a line's slots lie
 * one apart, or Stride where a block's lines are interleaved (each slot then holds a point of every line). The twiddles, each
 * pass's laid out so that a warp reads consecutive entries (one or two transactions, where one table of
 * exp(-2 pi i m / n) scattered a warp's reads over up to 14 lines), and W come from a table made once
 * per pass (dtrAxisOneTripTable).
 *
 * Device code: templates inlined into the kernels that include it; tests/test_stockham_host.cpp runs
 * them on the host.
 */
#ifndef DTR_STOCKHAM_FFT_CUH
#define DTR_STOCKHAM_FFT_CUH

#include <stdint.h>

namespace dtrStockham {

template <typename C>
__device__ __forceinline__ C add(C a, C b) {
  return {a.x + b.x, a.y + b.y};
}
template <typename C>
__device__ __forceinline__ C sub(C a, C b) {
  return {a.x - b.x, a.y - b.y};
}
template <typename C>
__device__ __forceinline__ C mul(C a, C b) {
  return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
/* a times conj(b) */
template <typename C>
__device__ __forceinline__ C mulConj(C a, C b) {
  return {a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y};
}
/* a times -i (forward) or +i (inverse) */
template <bool Inverse, typename C>
__device__ __forceinline__ C rotate(C a) {
  return Inverse ? C{-a.y, a.x} : C{a.y, -a.x};
}
/* a times exp(-i pi / 4) (forward) or exp(i pi / 4) (inverse), and times those cubed */
template <bool Inverse, typename C>
__device__ __forceinline__ C eighth(C a) {
  const auto h = (decltype(a.x))0.70710678118654752440;
  return Inverse ? C{h * (a.x - a.y), h * (a.x + a.y)} : C{h * (a.x + a.y), h * (a.y - a.x)};
}
template <bool Inverse, typename C>
__device__ __forceinline__ C threeEighths(C a) {
  return rotate<Inverse>(eighth<Inverse>(a));
}

/* a times exp(-+2 pi i j / 16) for an odd j (its cosine and sine, c1 = cos(pi / 8), s1 = sin(pi / 8)) */
template <bool Inverse, int J, typename C>
__device__ __forceinline__ C sixteenth(C a) {
  using E = decltype(a.x);
  const E c1 = (E)0.92387953251128675613, s1 = (E)0.38268343236508977173;
  const E c = J == 1 ? c1 : J == 3 ? s1 : J == 5 ? -s1 : -c1, s = J == 1 ? s1 : J == 3 ? c1 : J == 5 ? c1 : s1;
  return Inverse ? mul(a, C{c, s}) : mul(a, C{c, -s});
}

/* DFTs of 2, 4, 8 and 16 points in registers, in place (exp(-2 pi i / R) forward, its conjugate inverse). */
template <bool Inverse, typename C>
__device__ __forceinline__ void dft4(C& x0, C& x1, C& x2, C& x3) {
  const C t0 = add(x0, x2), t1 = sub(x0, x2), t2 = add(x1, x3), t3 = rotate<Inverse>(sub(x1, x3));
  x0 = add(t0, t2), x1 = add(t1, t3), x2 = sub(t0, t2), x3 = sub(t1, t3);
}
template <int R, bool Inverse, typename C>
__device__ __forceinline__ void dft(C (&v)[R]) {
  if constexpr (R == 2) {
    const C a = v[0];
    v[0] = add(a, v[1]), v[1] = sub(a, v[1]);
  } else if constexpr (R == 4) {
    dft4<Inverse>(v[0], v[1], v[2], v[3]);
  } else if constexpr (R == 8) {
    C a[4], b[4];
#pragma unroll
    for (int j = 0; j < 4; j++) a[j] = add(v[j], v[j + 4]), b[j] = sub(v[j], v[j + 4]);
    b[1] = eighth<Inverse>(b[1]), b[2] = rotate<Inverse>(b[2]), b[3] = threeEighths<Inverse>(b[3]);
    dft4<Inverse>(a[0], a[1], a[2], a[3]);
    dft4<Inverse>(b[0], b[1], b[2], b[3]);
#pragma unroll
    for (int j = 0; j < 4; j++) v[2 * j] = a[j], v[2 * j + 1] = b[j];
  } else {
    static_assert(R == 16, "radix 2, 4, 8 or 16");
    /* As the 8 from two 4s: the sums and the twiddled differences of the halves, then a DFT of 8 each
     * (the even outputs and the odd ones). */
    C a[8], b[8];
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = add(v[j], v[j + 8]), b[j] = sub(v[j], v[j + 8]);
    b[1] = sixteenth<Inverse, 1>(b[1]), b[2] = eighth<Inverse>(b[2]), b[3] = sixteenth<Inverse, 3>(b[3]);
    b[4] = rotate<Inverse>(b[4]), b[5] = sixteenth<Inverse, 5>(b[5]), b[6] = threeEighths<Inverse>(b[6]);
    b[7] = sixteenth<Inverse, 7>(b[7]);
    dft<8, Inverse>(a);
    dft<8, Inverse>(b);
#pragma unroll
    for (int j = 0; j < 8; j++) v[2 * j] = a[j], v[2 * j + 1] = b[j];
  }
}

/* A line's slot of point i in shared memory. Lines side by side (a warp holds a point of eight or
 * more lines): one spare slot every Spread points (eight; sixteen for sixteen points a thread, whose
 * radix-16 pass writes sixteen consecutive points a thread, which a spare slot every eight puts two
 * threads of a half-warp on each bank), the lines a pitch of n + n / Spread + 2 apart. Packed lines (a
 * warp holds consecutive points of one line): within each sixteen, bits 0-3 of i XORed with bits 3-6,
 * which keeps both a half-warp's sixteen consecutive points and the passes' writes eight apart on
 * distinct banks, where the spare slots put the sixteenth point on the first one's bank. */
template <bool Swizzled, int Spread = 8>
__device__ __forceinline__ int slot(int i) {
  static_assert(Spread == 8 || Spread == 16, "a spare slot every 8 or 16 points");
  return Swizzled ? i ^ ((i >> 3) & 15) : i + (i >> (Spread == 16 ? 4 : 3));
}

/* The slot of a thread's point t + m T. Lines side by side whose length is fixed when the kernel is
 * built (Fixed, 64 points or more: T a multiple of Spread): slot(t) plus a constant, so that the
 * thread's addresses differ by immediates instead of each being worked out anew. */
template <bool Swizzled, bool Fixed, int Spread = 8>
__device__ __forceinline__ int pointSlot(int t, int m, int T) {
  if constexpr (!Swizzled && Fixed) return slot<false, Spread>(t) + m * (T + (T >> (Spread == 16 ? 4 : 3)));
  return slot<Swizzled, Spread>(t + m * T);
}

/* One Stockham pass of radix R over the P points a thread holds (u[m] = point t + m T of the input,
 * T = n / P): P / R butterflies b = t + i T, each on u[i + (P / R) q], q < R, twiddled by
 * exp(-+2 pi i q k / (p R)), k = b mod p; output s of butterfly i replaces u[i + (P / R) s] and
 * belongs at point (b - k) R + k + s p of the pass's output. tw: the pass's own twiddles, q-major
 * (tw[(q - 1) p + k]), so that a warp's consecutive k read consecutive entries (a pass with p = 1 has
 * none). */
template <int R, bool Inverse, int P, typename C>
__device__ __forceinline__ void radixPass(C (&u)[P], int t, int T, int p, const C* __restrict__ tw) {
  constexpr int c = P / R;
#pragma unroll
  for (int i = 0; i < c; i++) {
    const int b = t + i * T, k = b & (p - 1);
    C v[R];
#pragma unroll
    for (int q = 0; q < R; q++) {
      v[q] = u[i + c * q];
      if (q > 0 && p > 1) {
        const C w = tw[(q - 1) * p + k];
        v[q] = Inverse ? mulConj(v[q], w) : mul(v[q], w);
      }
    }
    dft<R, Inverse>(v);
#pragma unroll
    for (int s = 0; s < R; s++) u[i + c * s] = v[s];
  }
}

/* The pass's outputs through the line's shared memory back into the layout every pass reads. Stride:
 * the distance of a line's slots (1; a block's lines where they lie interleaved, each slot holding that
 * point of every line). */
template <int R, bool Swizzled, bool Fixed, int Spread, int Stride, int P, typename C>
__device__ __forceinline__ void exchange(C (&u)[P], C* line, int t, int T, int p) {
  constexpr int c = P / R;
  static_assert(Spread == 8 || P == 16, "a spare slot every sixteen points for sixteen points a thread only");
#pragma unroll
  for (int i = 0; i < c; i++) {
    const int b = t + i * T, k = b & (p - 1), base = (b - k) * R + k;
    if constexpr (Swizzled) {
#pragma unroll
      for (int s = 0; s < R; s++) line[Stride * slot<true>(base + s * p)] = u[i + c * s];
    } else {
      /* slot(base + s p) = slot(base) + s p + (s p) / Spread: base mod Spread and s p mod Spread never sum
       * to Spread (eight: k < p, (b - k) R a multiple of 8 where p < 8 but for a first pass, whose s < R;
       * sixteen: base a multiple of 16 in the radix-16 pass, s p in the radix-8 ones, p >= 16), so one
       * slot is worked out */
      C* const at = line + Stride * slot<false, Spread>(base);
#pragma unroll
      for (int s = 0; s < R; s++) at[Stride * (s * p + ((s * p) >> (Spread == 16 ? 4 : 3)))] = u[i + c * s];
    }
  }
  __syncthreads();
#pragma unroll
  for (int m = 0; m < P; m++) u[m] = line[Stride * pointSlot<Swizzled, Fixed, Spread>(t, m, T)];
  __syncthreads();
}

/* The whole FFT of the points the block's threads hold; u[s] ends as spectrum point t + s T. tw: every
 * radix-8 pass's twiddles in turn (dtrAxisOneTripTable). Passes8 > 0: the radix-8 passes' count, known
 * when the kernel is built (a fixed length), so that they unroll with their p as constants. Sixteen
 * points a thread (P = 16, n = 16 8^k): a radix-16 pass first, where eight make it a radix-2 pass and
 * a radix-8 one (the table's first radix-8 pass, p = 2, then not taken). Stride: as exchange's. */
template <bool Inverse, bool Swizzled, int Passes8, int P, int Spread = 8, int Stride = 1, typename C>
__device__ __forceinline__ void fft(C (&u)[P], C* line, int t, int T, int n, int logn, const C* __restrict__ tw) {
  static_assert(P == 8 || P == 16, "eight or sixteen points a thread");
  int p = 1;
  if constexpr (P == 16) {
    radixPass<16, Inverse>(u, t, T, 1, tw);
    if (n == 16) return;
    exchange<16, Swizzled, (Passes8 > 0), Spread, Stride>(u, line, t, T, 1);
    tw += 7 * 2;
    p = 16;
  } else if (logn % 3 == 1) {
    radixPass<2, Inverse>(u, t, T, 1, tw);
    exchange<2, Swizzled, (Passes8 > 0), Spread, Stride>(u, line, t, T, 1);
    p = 2;
  } else if (logn % 3 == 2) {
    radixPass<4, Inverse>(u, t, T, 1, tw);
    exchange<4, Swizzled, (Passes8 > 0), Spread, Stride>(u, line, t, T, 1);
    p = 4;
  }
  if constexpr (Passes8 > 0) {
#pragma unroll
    for (int q = 0; q < Passes8; q++) {
      radixPass<8, Inverse>(u, t, T, p, tw);
      if (q + 1 == Passes8) break;
      exchange<8, Swizzled, (Passes8 > 0), Spread, Stride>(u, line, t, T, p);
      if (p > 1) tw += 7 * p;
      p *= 8;
    }
  } else {
    for (;;) {
      radixPass<8, Inverse>(u, t, T, p, tw);
      if (8 * p == n) break;
      exchange<8, Swizzled, (Passes8 > 0), Spread, Stride>(u, line, t, T, p);
      if (p > 1) tw += 7 * p;
      p *= 8;
    }
  }
}

}  // namespace dtrStockham

#endif
