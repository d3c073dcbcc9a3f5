/*
 * A pass along one axis in one trip through HBM (axis_launch.h): a block takes whole lines into shared
 * memory, transforms them there and writes them out, where the gather, cuFFT and the scatter cross HBM
 * three times. A line is complex (the two parts of complex data transform alike under a real-to-real
 * kind, so they go together), or two real lines taken as the parts of one. The lines are packed (a
 * block's threads read along the points) or a plane's columns (they read across the lines, a few
 * columns a block). The DFT over a plane's columns, the other half of a slab's 2-D pass with a
 * real-to-real axis, stays gathered around cuFFT, which runs it faster.
 *
 * Makhoul's DCT-II of a complex line x by one complex FFT of the same length: v = x in Makhoul's order
 * (the evens up, the odds down), V = DFT(v), y[k] = W[k] V[k] + conj(W[k]) V[n - k] with W[k] =
 * exp(-i pi k / 2n) and V[n] = V[0]; the real and imaginary parts of y are the DCT-IIs of x's. The
 * DCT-III the other way round: V[k] = conj(W[k]) (X[k] - i X[n - k]) with X[n] = 0, v = inverse DFT(V),
 * x in Makhoul's order taken back. A DST-II is the DCT-II of (-1)^j x read backwards, a DST-III
 * (-1)^j times the DCT-III of x backwards.
 *
 * The FFT is Stockham's (self-sorting, so no bit reversal): radix-4 steps, with one radix-2 step first
 * where log2 n is odd, n / 4 butterflies a line, every step reading its values into registers and
 * writing them back after a barrier. Its twiddles exp(-2 pi i m / n) and W come from a table made once per pass
 * (dtrAxisOneTripTable), so that no thread evaluates a sine.
 */
#include <math.h>
#include <stdint.h>

#include "axis_launch.h"
#include "complex_of.cuh"

namespace {

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

/* Where point j of a line goes in its row on the way in (Makhoul's order for a type II, reversed for a
 * DST-III), and its value (negated at odd j for a DST-II). */
template <int Kind, typename C>
__device__ __forceinline__ int placeIn(int j, int n, C* v) {
  if constexpr (Kind == dtrAxisDct2 || Kind == dtrAxisDst2) {
    if (Kind == dtrAxisDst2 && (j & 1)) *v = C{-v->x, -v->y};
    return evenOdd(j, n);
  }
  return Kind == dtrAxisDst3 ? n - 1 - j : j;
}

/* A type III's V[k] = conj(W[k]) (X[k] - i X[n - k]), X[n] = 0, for the pair k, n - k of row x, in place
 * (k = 0: V[0] = X[0] and V[n/2]). */
template <typename C>
__device__ __forceinline__ void preTwiddle(C* x, int k, int n, const C* __restrict__ W) {
  const int half = n >> 1;
  if (k == 0) {
    const C m = x[half];
    x[half] = mulConj(C{m.x + m.y, m.y - m.x}, W[half]); /* X - i X */
  } else {
    const C a = x[k], b = x[n - k];
    x[k] = mulConj(C{a.x + b.y, a.y - b.x}, W[k]);
    x[n - k] = mulConj(C{b.x + a.y, b.y - a.x}, W[n - k]);
  }
}

/* A type II's y[k] = W[k] V[k] + conj(W[k]) V[n - k] (V[n] = V[0]) and y[n - k] of the pair k, n - k of
 * row x; k = 0 gives y[0] and y[n/2] (whose W + conj W is 2 cos(pi / 4)). The output indices into *ka, *kb. */
template <typename C>
__device__ __forceinline__ void postTwiddle(const C* x, int k, int n, const C* __restrict__ W, C* ya, C* yb, int* ka,
                                            int* kb) {
  const int half = n >> 1;
  if (k == 0) {
    const C v0 = x[0], vh = x[half];
    const auto c = 2 * W[half].x;
    *ya = C{2 * v0.x, 2 * v0.y};
    *yb = C{c * vh.x, c * vh.y};
    *ka = 0, *kb = half;
  } else {
    const C a = x[k], b = x[n - k];
    *ya = add(mul(a, W[k]), mulConj(b, W[k]));
    *yb = add(mul(b, W[n - k]), mulConj(a, W[n - k]));
    *ka = k, *kb = n - k;
  }
}

/* The FFT of each of the block's lines in shared memory (line r at buf + r pitch), B butterflies a
 * thread (n / 4 a line); tw[m] = exp(-2 pi i m / n). */
template <bool Inverse, typename C, int B>
__device__ void stockham(C* buf, int n, int logn, int pitch, const C* __restrict__ tw) {
  const int quarter = n >> 2, half = n >> 1;
  /* Each slot's line and butterfly, once (divisions by a quarter that is not a constant). */
  C* line[B];
  int at[B];
#pragma unroll
  for (int i = 0; i < B; i++) {
    const int slot = threadIdx.x + i * blockDim.x;
    line[i] = buf + (slot / quarter) * pitch;
    at[i] = slot % quarter;
  }
  int p = 1;
  if (logn & 1) { /* one radix-2 step: two butterflies a slot, b and b + n / 4 */
    C u[B][4];
#pragma unroll
    for (int i = 0; i < B; i++)
#pragma unroll
      for (int h = 0; h < 2; h++) u[i][2 * h] = line[i][at[i] + h * quarter], u[i][2 * h + 1] = line[i][at[i] + h * quarter + half];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < B; i++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int j = 2 * (at[i] + h * quarter); /* p = 1: k = 0, no twiddle */
        line[i][j] = add(u[i][2 * h], u[i][2 * h + 1]);
        line[i][j + 1] = sub(u[i][2 * h], u[i][2 * h + 1]);
      }
    __syncthreads();
    p = 2;
  }
  for (; p < n; p <<= 2) {
    C v[B][4];
#pragma unroll
    for (int i = 0; i < B; i++) {
      const C* x = line[i];
      const int b = at[i], k = b & (p - 1), s = (n / (4 * p)) * k;
      const C u0 = x[b];
      const C u1 = twiddled<Inverse>(x[b + quarter], tw, s);
      const C u2 = twiddled<Inverse>(x[b + half], tw, 2 * s);
      const C u3 = twiddled<Inverse>(x[b + half + quarter], tw, 3 * s);
      const C a0 = add(u0, u2), a1 = sub(u0, u2), a2 = add(u1, u3), a3 = rotate<C, Inverse>(sub(u1, u3));
      v[i][0] = add(a0, a2), v[i][1] = add(a1, a3), v[i][2] = sub(a0, a2), v[i][3] = sub(a1, a3);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < B; i++) {
      C* x = line[i];
      const int b = at[i], k = b & (p - 1), j = ((b - k) << 2) + k;
      x[j] = v[i][0], x[j + p] = v[i][1], x[j + 2 * p] = v[i][2], x[j + 3 * p] = v[i][3];
    }
    __syncthreads();
  }
}

struct Lines {
  int64_t count;     /* complex lines: the data's, or pairs of its real lines */
  int64_t realLines; /* real data: its lines (the last pair may have one); 0 for complex data */
  int64_t lines;     /* lines a unit: 1 (packed), or a plane's columns */
  int64_t inUnit, inLine, inPoint, outUnit, outLine, outPoint; /* distances in points on each side */
  int n, logn, perBlock, pitch;
};

constexpr int kMostLines = 16; /* the general kernel's lines a block: columns (columnsPerBlock), or one */
constexpr int kPackedThreads = 256; /* a block of packed lines: n / 4 butterflies a line, B a thread */

/* Where real line (or complex line) l starts on one side, in points. */
__device__ __forceinline__ int64_t startOf(const Lines& g, int64_t l, int64_t unit, int64_t line) {
  return g.lines == 1 ? l * unit : (l / g.lines) * unit + (l % g.lines) * line;
}

/* Kind: dtrAxisDct2 .. dtrAxisDst3. Columns: the lines lie side by side (a plane's columns), so a
 * warp reads a point of consecutive lines, not consecutive points of one line. B: butterflies a thread.
 * table: n FFT twiddles, then W[0..n). */
template <typename E, int Kind, bool Complex, bool Columns, int B>
__global__ void __launch_bounds__(Columns ? 512 : 256) oneTripKernel(const E* __restrict__ in, E* __restrict__ out, Lines g,
                                                     const typename ComplexOf<E>::type* __restrict__ table) {
  using C = typename ComplexOf<E>::type;
  extern __shared__ __align__(16) unsigned char shared[];
  C* buf = (C*)shared;
  __shared__ int64_t from[2 * kMostLines], into[2 * kMostLines];
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  constexpr bool sine = Kind == dtrAxisDst2 || Kind == dtrAxisDst3;
  constexpr bool inverseFft = !typeII;
  const int n = g.n, half = n >> 1, pitch = g.pitch;
  const C* tw = table;
  const C* W = table + n;
  for (int64_t first = (int64_t)blockIdx.x * g.perBlock; first < g.count; first += (int64_t)gridDim.x * g.perBlock) {
    /* The block's lines' starts, once (a 64-bit division a line, not a point); -1: none. */
    for (int t = threadIdx.x; t < 2 * g.perBlock; t += blockDim.x) {
      const int64_t l = Complex ? (t < g.perBlock ? first + t : -1) : 2 * first + t;
      const bool real = l >= 0 && (Complex ? l < g.count : l < g.realLines);
      from[t] = real ? startOf(g, l, g.inUnit, g.inLine) : -1;
      into[t] = real ? startOf(g, l, g.outUnit, g.outLine) : -1;
    }
    __syncthreads();
    /* In: each point to its place in its line's row (Makhoul's order for a type II, reversed for a
     * DST-III); packed lines along their points, columns across the lines. */
#pragma unroll
    for (int q = 0; q < 4 * B; q++) {
      const int e = threadIdx.x + q * blockDim.x;
      const int r = Columns ? e % g.perBlock : e >> g.logn, j = Columns ? e / g.perBlock : e & (n - 1);
      C v{0, 0};
      if constexpr (Complex) {
        if (from[r] >= 0) v = ((const C*)in)[from[r] + j * g.inPoint];
      } else {
        if (from[2 * r] >= 0) v.x = in[from[2 * r] + j * g.inPoint];
        if (from[2 * r + 1] >= 0) v.y = in[from[2 * r + 1] + j * g.inPoint];
      }
      const int at = placeIn<Kind>(j, n, &v);
      buf[r * pitch + at] = v;
    }
    __syncthreads();
    if constexpr (!typeII) {
      /* The pairs k, n - k by one thread, in place. */
#pragma unroll
      for (int q = 0; q < 2 * B; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        preTwiddle(buf + (e / half) * pitch, e % half, n, W);
      }
      __syncthreads();
    }
    stockham<inverseFft, C, B>(buf, n, g.logn, pitch, tw);
    if constexpr (typeII) {
      /* The pairs k, n - k by one thread, in place (read before written, by the same thread). */
#pragma unroll
      for (int q = 0; q < 2 * B; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        C* x = buf + (e / half) * pitch;
        C ya, yb;
        int ka, kb;
        postTwiddle(x, e % half, n, W, &ya, &yb, &ka, &kb);
        x[ka] = ya, x[kb] = yb;
      }
      __syncthreads();
    }
    /* Out: point p of each line (a DST-II's read backwards, a type III's from Makhoul's order and a
     * DST-III's times (-1)^p), with the mapping the loads had. */
#pragma unroll
    for (int q = 0; q < 4 * B; q++) {
      const int e = threadIdx.x + q * blockDim.x;
      const int r = Columns ? e % g.perBlock : e >> g.logn, p = Columns ? e / g.perBlock : e & (n - 1);
      int at = p;
      if constexpr (typeII && sine) at = n - 1 - p;
      if constexpr (!typeII) at = evenOdd(p, n);
      C v = buf[r * pitch + at];
      if (!typeII && sine && (p & 1)) v = C{-v.x, -v.y};
      if constexpr (Complex) {
        if (into[r] >= 0) ((C*)out)[into[r] + p * g.outPoint] = v;
      } else {
        if (into[2 * r] >= 0) out[into[2 * r] + p * g.outPoint] = v.x;
        if (into[2 * r + 1] >= 0) out[into[2 * r + 1] + p * g.outPoint] = v.y;
      }
    }
    __syncthreads();
  }
}

/* Packed lines of at most 1024 points, n / 4 threads a line: the same steps as oneTripKernel, with a
 * line's start found from its index at every point and a type II's output stored straight from the
 * post-twiddle's registers. Kept beside the general kernel because it runs the pencils' own passes
 * faster (docs/results/1xH200-fft-one-trip/README.md). */
template <typename E, bool Complex>
__device__ __forceinline__ typename ComplexOf<E>::type packedLoad(const E* __restrict__ in, const Lines& g, int64_t line, int j) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) return ((const C*)in)[line * g.inUnit + j];
  const E re = in[2 * line * g.inUnit + j];
  const E im = 2 * line + 1 < g.realLines ? in[(2 * line + 1) * g.inUnit + j] : (E)0;
  return C{re, im};
}

template <typename E, bool Complex>
__device__ __forceinline__ void packedStore(E* __restrict__ out, const Lines& g, int64_t line, int p,
                                            typename ComplexOf<E>::type v) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) {
    ((C*)out)[line * g.outUnit + p] = v;
  } else {
    out[2 * line * g.outUnit + p] = v.x;
    if (2 * line + 1 < g.realLines) out[(2 * line + 1) * g.outUnit + p] = v.y;
  }
}

template <typename E, int Kind, bool Complex>
__global__ void packedKernel(const E* __restrict__ in, E* __restrict__ out, Lines g,
                             const typename ComplexOf<E>::type* __restrict__ table) {
  using C = typename ComplexOf<E>::type;
  extern __shared__ __align__(16) unsigned char shared[];
  C* buf = (C*)shared;
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  constexpr bool sine = Kind == dtrAxisDst2 || Kind == dtrAxisDst3;
  constexpr bool inverseFft = !typeII;
  const int n = g.n, half = n >> 1;
  const C* tw = table;
  const C* W = table + n;
  for (int64_t first = (int64_t)blockIdx.x * g.perBlock; first < g.count; first += (int64_t)gridDim.x * g.perBlock) {
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const int e = threadIdx.x + q * blockDim.x;
      const int r = e >> g.logn, j = e & (n - 1);
      const int64_t line = first + r;
      C v = line < g.count ? packedLoad<E, Complex>(in, g, line, j) : C{0, 0};
      const int at = placeIn<Kind>(j, n, &v);
      buf[r * n + at] = v;
    }
    __syncthreads();
    if constexpr (!typeII) {
#pragma unroll
      for (int q = 0; q < 2; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        preTwiddle(buf + (e / half) * n, e % half, n, W);
      }
      __syncthreads();
    }
    stockham<inverseFft, C, 1>(buf, n, g.logn, n, tw);
    if constexpr (typeII) {
#pragma unroll
      for (int q = 0; q < 2; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        const int r = e / half, k = e % half;
        const int64_t line = first + r;
        if (line >= g.count) continue;
        C ya, yb;
        int ka, kb;
        postTwiddle(buf + r * n, k, n, W, &ya, &yb, &ka, &kb);
        if constexpr (sine) ka = n - 1 - ka, kb = n - 1 - kb;
        packedStore<E, Complex>(out, g, line, ka, ya);
        packedStore<E, Complex>(out, g, line, kb, yb);
      }
    } else {
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int e = threadIdx.x + q * blockDim.x;
        const int r = e >> g.logn, p = e & (n - 1);
        const int64_t line = first + r;
        if (line >= g.count) continue;
        C v = buf[r * n + evenOdd(p, n)];
        if (sine && (p & 1)) v = C{-v.x, -v.y};
        packedStore<E, Complex>(out, g, line, p, v);
      }
    }
    __syncthreads();
  }
}

template <typename E, int Kind, bool Complex, bool Columns, int B>
cudaError_t launchShape(const void* in, void* out, const Lines& g, const void* table, cudaStream_t stream) {
  using C = typename ComplexOf<E>::type;
  const int threads = g.perBlock * (g.n / 4) / B;
  const size_t bytes = (size_t)g.perBlock * (size_t)g.pitch * sizeof(C);
  auto kernel = !Columns && B == 1 ? packedKernel<E, Kind, Complex> : oneTripKernel<E, Kind, Complex, Columns, B>;
  if (bytes > 48 * 1024) {
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (err != cudaSuccess) return err;
  }
  const int64_t blocks = (g.count + g.perBlock - 1) / g.perBlock;
  const unsigned grid = (unsigned)(blocks < 1 ? 1 : blocks > 32768 ? 32768 : blocks);
  kernel<<<grid, threads, bytes, stream>>>((const E*)in, (E*)out, g, (const C*)table);
  return cudaGetLastError();
}

/* Packed lines: 256 threads, a butterfly each up to n = 1024 (several lines a block below), 2 and 4 each
 * at 2048 and 4096 (one line). Columns: 2 butterflies a thread (4 spilled registers). */
template <typename E, int Kind, bool Complex>
cudaError_t launchKind(const void* in, void* out, const Lines& g, const void* table, cudaStream_t stream) {
  if (g.lines != 1) return launchShape<E, Kind, Complex, true, 2>(in, out, g, table, stream);
  if (g.n <= 4 * kPackedThreads) return launchShape<E, Kind, Complex, false, 1>(in, out, g, table, stream);
  if (g.n == 8 * kPackedThreads) return launchShape<E, Kind, Complex, false, 2>(in, out, g, table, stream);
  return launchShape<E, Kind, Complex, false, 4>(in, out, g, table, stream);
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

/* Lines a block across the columns: at least 4 side by side for a coalesced read, at most 64 KiB of
 * shared memory and 1024 butterflies (512 threads of 2). 0: none fits. */
int columnsPerBlock(int64_t n, size_t complexBytes) {
  int lines = 16;
  while (lines >= 4 && ((size_t)lines * (size_t)(n + 1) * complexBytes > 64 * 1024 || lines * (n / 4) > 1024)) lines /= 2;
  return lines >= 4 && lines * (n / 4) >= 2 * 32 ? lines : 0;
}

}  // namespace

extern "C" int dtrAxisOneTripFits(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into) {
  const int64_t n = r->n;
  if (r->complexNumbers || n < 8 || n > 4096 || (n & (n - 1)) || r->fields != 1) return 0;
  if (r->lines == 1) return from.point == 1 && into.point == 1;
  /* Columns: the lines side by side on both sides, few enough a block for its shared memory. */
  const size_t complexBytes = r->dbl ? 16 : 8;
  return from.line == 1 && into.line == 1 && columnsPerBlock(n, complexBytes) > 0;
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
  const int64_t lines = r->units * r->lines; /* one field (dtrAxisOneTripFits) */
  const bool complexData = r->parts == 2;
  g.realLines = complexData ? 0 : lines;
  g.count = complexData ? lines : (lines + 1) / 2;
  g.lines = r->lines;
  g.inUnit = from.unit, g.inLine = from.line, g.inPoint = from.point;
  g.outUnit = into.unit, g.outLine = into.line, g.outPoint = into.point;
  g.n = (int)r->n;
  g.logn = 0;
  while ((1 << g.logn) < g.n) g.logn++;
  if (r->lines == 1) {
    /* n / 4 butterflies a line; lines enough for 256 threads where n / 4 < 256 */
    g.perBlock = g.n / 4 >= kPackedThreads ? 1 : kPackedThreads / (g.n / 4);
    g.pitch = g.n;
  } else {
    g.perBlock = columnsPerBlock(g.n, r->dbl ? 16 : 8);
    g.pitch = g.n + 1; /* a point of consecutive lines in different banks */
  }
  if (!g.count) return cudaSuccess;
  if (r->dbl) return complexData ? launchType<double, true>(kind, in, out, g, table, stream)
                                 : launchType<double, false>(kind, in, out, g, table, stream);
  return complexData ? launchType<float, true>(kind, in, out, g, table, stream)
                     : launchType<float, false>(kind, in, out, g, table, stream);
}
