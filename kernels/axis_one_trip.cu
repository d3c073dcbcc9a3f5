/*
 * A real-to-real pass in one trip through HBM (axis_launch.h): a block takes whole lines into shared
 * memory, transforms them there and writes them out, where the gather, cuFFT and the scatter cross HBM
 * three times. A line is complex (the two parts of complex data transform alike, so they go together),
 * or two real lines taken as the parts of one.
 *
 * Makhoul's DCT-II of a complex line x by one complex FFT of the same length: v = x in Makhoul's order
 * (the evens up, the odds down), V = DFT(v), y[k] = W[k] V[k] + conj(W[k]) V[n - k] with W[k] =
 * exp(-i pi k / 2n) and V[n] = V[0]; the real and imaginary parts of y are the DCT-IIs of x's. The
 * DCT-III the other way round: V[k] = conj(W[k]) (X[k] - i X[n - k]) with X[n] = 0, v = inverse DFT(V),
 * x in Makhoul's order taken back. A DST-II is the DCT-II of (-1)^j x read backwards, a DST-III
 * (-1)^j times the DCT-III of x backwards.
 *
 * The FFT is Stockham's (self-sorting, so no bit reversal): radix-4 steps, with one radix-2 step first
 * where log2 n is odd, n / 4 threads a line, every step reading its values into registers and writing
 * them back after a barrier. Its twiddles exp(-2 pi i m / n) and W come from a table made once per pass
 * (dtrAxisOneTripTable), so that no thread evaluates a sine.
 */
#include <math.h>
#include <stdint.h>

#include "axis_launch.h"

namespace {

template <typename E>
struct ComplexOf;
template <>
struct ComplexOf<float> {
  using type = float2;
};
template <>
struct ComplexOf<double> {
  using type = double2;
};

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
template <typename C, bool Inverse>
__device__ __forceinline__ C rotate(C a) {
  return Inverse ? C{-a.y, a.x} : C{a.y, -a.x};
}

template <bool Inverse, typename C>
__device__ __forceinline__ C twiddled(C a, const C* __restrict__ tw, int m) {
  const C w = tw[m];
  return Inverse ? mulConj(a, w) : mul(a, w);
}

/* Makhoul's order: the evens up, the odds down. */
__device__ __forceinline__ int evenOdd(int j, int n) { return (j & 1) ? n - 1 - (j >> 1) : j >> 1; }

/* The FFT of each of the block's lines in shared memory (line r at buf + r n), `quarter` = n / 4 threads
 * a line; tw[m] = exp(-2 pi i m / n). */
template <bool Inverse, typename C>
__device__ void stockham(C* buf, int n, int logn, const C* __restrict__ tw) {
  const int quarter = n >> 2, half = n >> 1;
  C* x = buf + (threadIdx.x / quarter) * n;
  const int b = threadIdx.x % quarter;
  int p = 1;
  if (logn & 1) { /* one radix-2 step: two butterflies a thread, b and b + n / 4 */
    C u[4];
    for (int h = 0; h < 2; h++) u[2 * h] = x[b + h * quarter], u[2 * h + 1] = x[b + h * quarter + half];
    __syncthreads();
    for (int h = 0; h < 2; h++) {
      const int j = 2 * (b + h * quarter); /* p = 1: k = 0, no twiddle */
      x[j] = add(u[2 * h], u[2 * h + 1]);
      x[j + 1] = sub(u[2 * h], u[2 * h + 1]);
    }
    __syncthreads();
    p = 2;
  }
  for (; p < n; p <<= 2) {
    const int k = b & (p - 1), s = (n / (4 * p)) * k;
    const C u0 = x[b];
    const C u1 = twiddled<Inverse>(x[b + quarter], tw, s);
    const C u2 = twiddled<Inverse>(x[b + half], tw, 2 * s);
    const C u3 = twiddled<Inverse>(x[b + half + quarter], tw, 3 * s);
    __syncthreads();
    const C a0 = add(u0, u2), a1 = sub(u0, u2), a2 = add(u1, u3), a3 = rotate<C, Inverse>(sub(u1, u3));
    const int j = ((b - k) << 2) + k;
    x[j] = add(a0, a2);
    x[j + p] = add(a1, a3);
    x[j + 2 * p] = sub(a0, a2);
    x[j + 3 * p] = sub(a1, a3);
    __syncthreads();
  }
}

struct Lines {
  int64_t count;     /* complex lines: the data's, or pairs of its real lines */
  int64_t realLines; /* real data: its lines (the last pair may have one) */
  int64_t inUnit, outUnit; /* a line's distance in points on each side */
  int n, logn, perBlock;
};

/* Point j of line `line`, as a complex number. */
template <typename E, bool Complex>
__device__ __forceinline__ typename ComplexOf<E>::type loadPoint(const E* __restrict__ in, const Lines& g, int64_t line, int j) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) return ((const C*)in)[line * g.inUnit + j];
  const E re = in[2 * line * g.inUnit + j];
  const E im = 2 * line + 1 < g.realLines ? in[(2 * line + 1) * g.inUnit + j] : (E)0;
  return C{re, im};
}

template <typename E, bool Complex>
__device__ __forceinline__ void storePoint(E* __restrict__ out, const Lines& g, int64_t line, int p,
                                           typename ComplexOf<E>::type v) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) {
    ((C*)out)[line * g.outUnit + p] = v;
  } else {
    out[2 * line * g.outUnit + p] = v.x;
    if (2 * line + 1 < g.realLines) out[(2 * line + 1) * g.outUnit + p] = v.y;
  }
}

/* Kind: dtrAxisDct2 .. dtrAxisDst3. table: n FFT twiddles, then W[0..n). */
template <typename E, int Kind, bool Complex>
__global__ void oneTripKernel(const E* __restrict__ in, E* __restrict__ out, Lines g,
                              const typename ComplexOf<E>::type* __restrict__ table) {
  using C = typename ComplexOf<E>::type;
  extern __shared__ __align__(16) unsigned char shared[];
  C* buf = (C*)shared;
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  constexpr bool sine = Kind == dtrAxisDst2 || Kind == dtrAxisDst3;
  const int n = g.n, half = n >> 1;
  const C* tw = table;
  const C* W = table + n;
  for (int64_t first = (int64_t)blockIdx.x * g.perBlock; first < g.count; first += (int64_t)gridDim.x * g.perBlock) {
    /* In: along the points, a line after another (coalesced), each point to its place; a block has n / 4
     * threads a line, so four points a thread, their loads issued together. */
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const int e = threadIdx.x + q * blockDim.x;
      const int r = e >> g.logn, j = e & (n - 1);
      const int64_t line = first + r;
      C v = line < g.count ? loadPoint<E, Complex>(in, g, line, j) : C{0, 0};
      int at = j;
      if constexpr (typeII) {
        at = evenOdd(j, n);
        if (sine && (j & 1)) v = C{-v.x, -v.y};
      } else if constexpr (sine) {
        at = n - 1 - j;
      }
      buf[r * n + at] = v;
    }
    __syncthreads();
    if constexpr (!typeII) {
      /* V[k] = conj(W[k]) (X[k] - i X[n - k]), X[n] = 0: the pairs k, n - k by one thread (two a thread). */
#pragma unroll
      for (int q = 0; q < 2; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        const int r = e / half, k = e % half;
        C* x = buf + r * n;
        if (k == 0) {
          const C m = x[half];
          x[half] = mulConj(C{m.x + m.y, m.y - m.x}, W[half]); /* X - i X */
        } else {
          const C a = x[k], b = x[n - k];
          x[k] = mulConj(C{a.x + b.y, a.y - b.x}, W[k]);
          x[n - k] = mulConj(C{b.x + a.y, b.y - a.x}, W[n - k]);
        }
      }
      __syncthreads();
    }
    stockham<!typeII>(buf, n, g.logn, tw);
    if constexpr (typeII) {
      /* y[k] = W[k] V[k] + conj(W[k]) V[n - k]: the pairs k, n - k by one thread (two a thread), straight out. */
#pragma unroll
      for (int q = 0; q < 2; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        const int r = e / half, k = e % half;
        const int64_t line = first + r;
        if (line >= g.count) continue;
        const C* x = buf + r * n;
        int ka = k, kb = n - k;
        C ya, yb;
        if (k == 0) {
          const C v0 = x[0], vh = x[half];
          ya = C{2 * v0.x, 2 * v0.y};
          const E c = 2 * W[half].x; /* W + conj W = 2 cos(pi / 4) */
          yb = C{c * vh.x, c * vh.y};
          kb = half;
        } else {
          const C a = x[k], b = x[n - k];
          ya = add(mul(a, W[k]), mulConj(b, W[k]));
          yb = add(mul(b, W[n - k]), mulConj(a, W[n - k]));
        }
        if constexpr (sine) ka = n - 1 - ka, kb = n - 1 - kb;
        storePoint<E, Complex>(out, g, line, ka, ya);
        storePoint<E, Complex>(out, g, line, kb, yb);
      }
    } else {
      /* Out: point p from Makhoul's order (times (-1)^p for a DST-III), along the points. */
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        const int r = e >> g.logn, p = e & (n - 1);
        const int64_t line = first + r;
        if (line >= g.count) continue;
        C v = buf[r * n + evenOdd(p, n)];
        if (sine && (p & 1)) v = C{-v.x, -v.y};
        storePoint<E, Complex>(out, g, line, p, v);
      }
    }
    __syncthreads();
  }
}

template <typename E, int Kind, bool Complex>
cudaError_t launchKind(const void* in, void* out, const Lines& g, const void* table, cudaStream_t stream) {
  using C = typename ComplexOf<E>::type;
  const int threads = g.perBlock * (g.n / 4);
  const size_t bytes = (size_t)g.perBlock * (size_t)g.n * sizeof(C);
  auto kernel = oneTripKernel<E, Kind, Complex>;
  if (bytes > 48 * 1024) {
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (err != cudaSuccess) return err;
  }
  const int64_t blocks = (g.count + g.perBlock - 1) / g.perBlock;
  const unsigned grid = (unsigned)(blocks < 1 ? 1 : blocks > 32768 ? 32768 : blocks);
  kernel<<<grid, threads, bytes, stream>>>((const E*)in, (E*)out, g, (const C*)table);
  return cudaGetLastError();
}

template <typename E, bool Complex>
cudaError_t launchType(int kind, const void* in, void* out, const Lines& g, const void* table, cudaStream_t stream) {
  switch (kind) {
    case dtrAxisDct2: return launchKind<E, dtrAxisDct2, Complex>(in, out, g, table, stream);
    case dtrAxisDct3: return launchKind<E, dtrAxisDct3, Complex>(in, out, g, table, stream);
    case dtrAxisDst2: return launchKind<E, dtrAxisDst2, Complex>(in, out, g, table, stream);
    default: return launchKind<E, dtrAxisDst3, Complex>(in, out, g, table, stream);
  }
}

}  // namespace

extern "C" int dtrAxisOneTripFits(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into) {
  const int64_t n = r->n;
  const int power = n >= 8 && n <= 4096 && (n & (n - 1)) == 0;
  return power && !r->complexNumbers && r->lines == 1 && r->fields == 1 && from.point == 1 && into.point == 1;
}

extern "C" size_t dtrAxisOneTripTableBytes(int64_t n, int dbl) { return (size_t)(2 * n) * (dbl ? 16 : 8); }

extern "C" void dtrAxisOneTripTable(int64_t n, int dbl, void* host) {
  for (int64_t m = 0; m < 2 * n; m++) {
    /* exp(-2 pi i m / n) for m < n, then W[k] = exp(-i pi k / 2n); the angle in turns, reduced first */
    const double turns = m < n ? (double)m / (double)n : (double)(m - n) / (double)(4 * n);
    const double angle = -2.0 * 3.14159265358979323846 * turns;
    const double c = cos(angle), s = sin(angle);
    if (dbl) ((double*)host)[2 * m] = c, ((double*)host)[2 * m + 1] = s;
    else ((float*)host)[2 * m] = (float)c, ((float*)host)[2 * m + 1] = (float)s;
  }
}

extern "C" cudaError_t dtrAxisOneTripLaunch(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into, const void* in,
                                            void* out, int kind, const void* table, cudaStream_t stream) {
  Lines g;
  const int64_t lines = r->units; /* lines == fields == 1 (dtrAxisOneTripFits) */
  const bool complexData = r->parts == 2;
  g.realLines = complexData ? 0 : lines;
  g.count = complexData ? lines : (lines + 1) / 2;
  g.inUnit = from.unit, g.outUnit = into.unit;
  g.n = (int)r->n;
  g.logn = 0;
  while ((1 << g.logn) < g.n) g.logn++;
  /* n / 4 threads a line; lines enough for 256 threads where n / 4 < 256 */
  g.perBlock = g.n / 4 >= 256 ? 1 : 256 / (g.n / 4);
  if (!g.count) return cudaSuccess;
  if (r->dbl) return complexData ? launchType<double, true>(kind, in, out, g, table, stream)
                                 : launchType<double, false>(kind, in, out, g, table, stream);
  return complexData ? launchType<float, true>(kind, in, out, g, table, stream)
                     : launchType<float, false>(kind, in, out, g, table, stream);
}
