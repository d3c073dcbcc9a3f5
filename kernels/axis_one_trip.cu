/*
 * A pass along one axis in one trip through HBM (axis_launch.h): a block takes whole lines, transforms
 * them and writes them out, where the gather, cuFFT and the scatter cross HBM three times. A line is
 * complex (the two parts of complex data transform alike under a real-to-real kind, so they go
 * together), or two real lines taken as the parts of one. The lines are packed (a warp reads along a
 * line's points) or a plane's columns (a warp reads a point of several lines side by side).
 *
 * Makhoul's DCT-II of a complex line x by one complex FFT of the same length: v = x in Makhoul's order
 * (the evens up, the odds down), V = DFT(v), y[k] = W[k] V[k] + conj(W[k]) V[n - k] with W[k] =
 * exp(-i pi k / 2n) and V[n] = V[0]; the real and imaginary parts of y are the DCT-IIs of x's. The
 * DCT-III the other way round: V[k] = conj(W[k]) (X[k] - i X[n - k]) with X[n] = 0, v = inverse DFT(V),
 * x in Makhoul's order taken back. A DST-II is the DCT-II of (-1)^j x read backwards, a DST-III
 * (-1)^j times the DCT-III of x backwards. A DFT (a plane's columns) has neither step. The FFT itself,
 * eight points a thread in registers, is stockham_fft.cuh's.
 *
 * Single precision's DFTs and type IIIs load by asynchronous copies into the lines' shared memory (each
 * thread its own points, into the slots it then reads), each block taking a few rounds of lines and
 * copying the next round's into a second set of lines while it transforms the current one: the loads'
 * latency then hides behind the transform, where a block that loads into registers has none in flight
 * while it transforms. Few rounds a block, not persistent blocks: blocks that take hundreds of rounds
 * drift apart, and the neighbours that share a 32-byte sector (several fields' lines) then read it
 * twice from HBM. Type IIs (1536 threads a multiprocessor) and double precision (three blocks of 256)
 * have no room for a second round and load into registers.
 *
 * A type III's pre-twiddle pairs point j with point n - j, which thread T - t holds (T = n / 8). Its
 * threads take the lines' points in an order that puts t and T - t in one warp (mirroredOrder), so that
 * the pairs cross by shuffles instead of through shared memory and its three barriers; the same order
 * lets a warp's stores out of Makhoul's order (two points apart for each thread) fall on consecutive
 * points, a thread's even points beside its mirror's odd ones. A type II's post-step pairs its points
 * the same way, but its kernels are bound by the instructions they issue, not by waiting, and neither
 * shuffles nor loads paired like the type III's stores gain them anything.
 */
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include <cuda_pipeline.h>

#include "axis_launch.h"
#include "complex_of.cuh"
#include "fast_divide.h"
#include "stockham_fft.cuh"

namespace {

using namespace dtrStockham;

/* v, as a value the compiler cannot see through: what is derived from it inside a loop stays there. */
__device__ __forceinline__ int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}
__device__ __forceinline__ int64_t opaque(int64_t v) {
  asm volatile("" : "+l"(v));
  return v;
}

/* Lines side by side: a spare slot every this many points (stockham_fft.cuh's slot) for P points a thread. */
__host__ __device__ constexpr int spareEvery(int points) { return points == 16 ? 16 : 8; }

struct Lines {
  int64_t count;     /* complex lines: the data's, or pairs of its real lines */
  int64_t realLines; /* real data: its lines (the last pair may have one); 0 for complex data */
  int64_t lines;     /* lines a unit: 1, or a plane's columns */
  int64_t inUnit, inLine, inPoint, outUnit, outLine, outPoint; /* distances in points on each side */
  int n, logn, perBlock, pitch;
  bool inColumns, outColumns; /* each side's lines side by side, not packed (lineOfThread) */
  int prefetch;      /* async loads: each block's next round copied while it transforms the current */
  int smallLines;    /* every line index below 2^31: a line's unit by lineDivisor */
  dtrFastDivisor lineDivisor; /* of `lines` */
  float scale32;     /* the output times this (a normalization folded in; 1: none), in the numbers' */
  double scale64;    /* precision, read where it is used (a constant, no register held for it) */
};

template <typename E>
__device__ __forceinline__ E scaleOf(const Lines& g) {
  if constexpr (sizeof(E) == 4) return g.scale32;
  else return g.scale64;
}

/* Which thread takes which points of which of the block's lines: packed, the n / 8 threads of a line
 * consecutive (a warp reads along a line); columns, the lines' threads interleaved (a warp reads a point
 * of consecutive lines, which lie side by side). Thread t of line r holds points t + m n / 8. */
template <bool Columns>
__device__ __forceinline__ int lineOfThread(const Lines& g) {
  return Columns ? (int)threadIdx.x % g.perBlock : (int)threadIdx.x / (g.n >> 3);
}
template <bool Columns>
__device__ __forceinline__ int pointOfThread(const Lines& g) {
  return Columns ? (int)threadIdx.x / g.perBlock : (int)threadIdx.x % (g.n >> 3);
}

template <typename C>
__device__ __forceinline__ C shuffleXor(C v, int d) {
  return C{__shfl_xor_sync(0xffffffffu, v.x, d), __shfl_xor_sync(0xffffffffu, v.y, d)};
}

/* Distinct points of one line that a warp holds: packed lines n / 8 (at most 32), lines side by side
 * 32 / (lines a block) (1 where a warp holds a single point of its lines). */
template <bool Columns>
__device__ __forceinline__ int pointsPerWarp(const Lines& g) {
  return Columns ? (g.perBlock >= 32 ? 1 : 32 / g.perBlock) : ((g.n >> 3) < 32 ? (g.n >> 3) : 32);
}

/* The thread order in which thread t and thread T - t of a line share a warp (u: the plain order,
 * G: pointsPerWarp): the first G / 2 of each G take a = (u / G) G / 2 + u mod G, the others T - a (T / 2
 * where a = 0), so that a thread's mirror is the thread G / 2 away in its G. */
__device__ __forceinline__ int mirroredOrder(int u, int T, int G) {
  if (T == 1) return 0;
  const int h = G >> 1, l = u & (G - 1), a = (u / G) * h + (l & (h - 1));
  return l < h ? a : a == 0 ? T >> 1 : T - a;
}

/* Point n - j of the thread's line for its j = t + m T: thread T - t's point 7 - m (a shuffle d lanes
 * away), or the thread's own 7 - m (t = T / 2) or 8 - m (t = 0; point n, for m = 0, is zero). */
template <typename C>
__device__ __forceinline__ C mirrorOf(const C (&u)[8], int m, int t, int T, int d) {
  const C other = shuffleXor(u[7 - m], d);
  if (t == 0) return m == 0 ? C{0, 0} : u[(8 - m) & 7];
  return 2 * t == T ? u[7 - m] : other;
}

/* Where real line (or complex line) l starts on one side, in points. */
__device__ __forceinline__ int64_t startOf(const Lines& g, int64_t l, int64_t unit, int64_t line) {
  if (g.lines == 1) return l * unit;
  if (g.smallLines) {
    const uint32_t u = dtrFastDivide((uint32_t)l, g.lineDivisor), within = (uint32_t)l - u * (uint32_t)g.lines;
    return (int64_t)u * unit + (int64_t)within * line;
  }
  return (l / g.lines) * unit + (l % g.lines) * line;
}

/* One thread's line on one side: complex data one pointer to its first point, real data the pointers
 * to its two real lines (null: none). Found where they are used (the input's before the FFT, the
 * output's after it), so that no register holds them across the FFT. */
template <typename P, bool Complex>
struct LineAt {
  P at[Complex ? 1 : 2];
};

/* E: the side's numbers (const for the input). Complex data counts its distances in complex points
 * (two numbers), real data in numbers. */
template <bool Complex, typename E>
__device__ __forceinline__ LineAt<E*, Complex> linesAt(E* data, const Lines& g, int64_t l, int64_t unit, int64_t line) {
  LineAt<E*, Complex> e;
  if constexpr (Complex) {
    e.at[0] = l < g.count ? data + 2 * startOf(g, l, unit, line) : nullptr;
  } else {
#pragma unroll
    for (int h = 0; h < 2; h++) e.at[h] = 2 * l + h < g.realLines ? data + startOf(g, 2 * l + h, unit, line) : nullptr;
  }
  return e;
}

/* Points of a line whose points lie `distance` apart, taken a run at a time: point first + q step
 * lies at at + q step' (in points of the side). A packed side's points are adjacent (Packed, known when
 * the kernel is built), so that its offsets stay 32-bit indices; another side's are 64-bit, the run's
 * first a product and each further point an add. */
template <bool Packed>
struct Run {
  using Index = typename std::conditional<Packed, int, int64_t>::type;
  Index at, step;
  __device__ __forceinline__ Index operator[](int q) const { return at + q * step; }
};
template <bool Packed>
__device__ __forceinline__ Run<Packed> runOf(int first, int step, int64_t distance) {
  if constexpr (Packed) return {first, step};
  else return {(int64_t)first * distance, (int64_t)step * distance};
}

/* Through the read-only path, as the kernel's input is (a pass in place reads a line whole before any
 * of it is written). at: the point's offset on the side (Run). */
template <typename E, bool Complex, typename Index>
__device__ __forceinline__ typename ComplexOf<E>::type load(const LineAt<const E*, Complex>& e, Index at) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) return e.at[0] ? __ldg((const C*)e.at[0] + at) : C{0, 0};
  return C{e.at[0] ? __ldg(e.at[0] + at) : (E)0, e.at[1] ? __ldg(e.at[1] + at) : (E)0};
}

/* The input point that point j = t + m T of the row the FFT transforms comes from: a type II's row is x
 * in Makhoul's order (x[2j], or x[2n - 1 - 2j] in the upper half, m >= 4: t < T), a DST-III's x read
 * backwards, the others' x itself. */
template <int Kind>
__device__ __forceinline__ int sourcePoint(int j, int m, int n) {
  if constexpr (Kind == dtrAxisDct2 || Kind == dtrAxisDst2) return m < 4 ? 2 * j : 2 * n - 1 - 2 * j;
  if constexpr (Kind == dtrAxisDst3) return n - 1 - j;
  return j;
}

/* The same as two runs of four (m < 4, and m >= 4; h the half): the first's source point and the step. */
template <int Kind, bool Packed>
__device__ __forceinline__ Run<Packed> sourceRun(int h, int t, int T, int n, int64_t distance) {
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  const int step = typeII ? (h == 0 ? 2 * T : -2 * T) : Kind == dtrAxisDst3 ? -T : T;
  return runOf<Packed>(sourcePoint<Kind>(t + 4 * h * T, 4 * h, n), step, distance);
}

/* The thread's points of a complex line's row into their slots of the line's shared memory by
 * asynchronous copies (global to shared, no register between); a line past the data's is zeros. The
 * thread later reads exactly these slots. Stride: the distance of the line's slots (stockham_fft.cuh's
 * exchange). */
template <typename E, int Kind, bool Packed, bool Swizzled, bool Fixed, int P = 8, int Stride = 1>
__device__ __forceinline__ void stageRow(typename ComplexOf<E>::type* line, const Lines& g, const LineAt<const E*, true>& e,
                                         int t, int T) {
  using C = typename ComplexOf<E>::type;
  static_assert(P == 8 || Kind == dtrAxisDftForward || Kind == dtrAxisDftInverse, "sixteen points a thread: DFTs only");
  static_assert(Stride == 1 || !Packed, "interleaved lines: lines side by side only");
#pragma unroll
  for (int h = 0; h < P / 4; h++) {
    const Run<Packed> from = sourceRun<Kind, Packed>(h, t, T, g.n, g.inPoint);
    if constexpr (Packed) {
#pragma unroll
      for (int q = 0; q < 4; q++) {
        C* const into = line + slot<Swizzled>(t + (4 * h + q) * T);
        if (e.at[0]) __pipeline_memcpy_async(into, (const C*)e.at[0] + from[q], sizeof(C));
        else *into = C{0, 0};
      }
    } else {
      /* Points far apart: a pointer walked by the run's step (one 64-bit add a point), the step opaque
       * so that the compiler does not work each point's offset out again as a 64-bit product. */
      const C* at = e.at[0] ? (const C*)e.at[0] + from.at : nullptr;
      const int64_t step = opaque(from.step);
#pragma unroll
      for (int q = 0; q < 4; q++, at += step) {
        C* const into = line + Stride * pointSlot<Swizzled, Fixed, spareEvery(P)>(t, 4 * h + q, T);
        if (e.at[0]) __pipeline_memcpy_async(into, at, sizeof(C));
        else *into = C{0, 0};
      }
    }
  }
}

/* at: the point's offset on the side (Run). */
template <typename E, bool Complex, typename Index>
__device__ __forceinline__ void store(const LineAt<E*, Complex>& e, Index at, typename ComplexOf<E>::type v) {
  using C = typename ComplexOf<E>::type;
  if constexpr (Complex) {
    if (e.at[0]) ((C*)e.at[0])[at] = v;
  } else {
    if (e.at[0]) e.at[0][at] = v.x;
    if (e.at[1]) e.at[1][at] = v.y;
  }
}

/* A type III's V[k] = conj(W[k]) (X[k] - i X[n - k]), X[n] = 0, for the pair k, n - k of a line, in place
 * (k = 0: V[0] = X[0], and V[n/2]), times f (the pass's scale: the transform is linear, and here, one
 * point at a time, it costs no registers that the stores after the FFT would need). */
template <bool Swizzled, typename C, typename E>
__device__ __forceinline__ void preTwiddle(C* line, int k, int n, const C* __restrict__ W, E f) {
  if (k == 0) {
    const int half = n >> 1;
    const C m = line[slot<Swizzled>(half)], w = W[half], x0 = line[slot<Swizzled>(0)];
    line[slot<Swizzled>(half)] = mulConj(C{m.x + m.y, m.y - m.x}, C{w.x * f, w.y * f});
    line[slot<Swizzled>(0)] = C{x0.x * f, x0.y * f};
  } else {
    const C a = line[slot<Swizzled>(k)], b = line[slot<Swizzled>(n - k)], wa = W[k], wb = {-wa.y, -wa.x}; /* W[n - k] = -i conj(W[k]) */
    line[slot<Swizzled>(k)] = mulConj(C{a.x + b.y, a.y - b.x}, C{wa.x * f, wa.y * f});
    line[slot<Swizzled>(n - k)] = mulConj(C{b.x + a.y, b.y - a.x}, C{wb.x * f, wb.y * f});
  }
}

constexpr int kPackedThreads = 256;   /* a block of packed lines: n / 8 threads a line, lines enough for 256 */
constexpr int kColumnBytes = 64;      /* a block of columns reads this many bytes of consecutive lines a point */
constexpr int kMostThreads = 512;
constexpr int kWideThreads = 1024;    /* wide blocks: single precision's complex lines side by side (wideBlocks) */
constexpr size_t kMostShared = 160 * 1024;
constexpr size_t kMostPrefetchShared = 224 * 1024; /* two rounds' lines */

__host__ __device__ constexpr size_t sharedBytes(int perBlock, int pitch, size_t complexBytes) { return (size_t)perBlock * (size_t)pitch * complexBytes; }

/* The distance of a block's lines in shared memory, in points (slot): packed lines n + n / 8, which
 * also puts the several lines of one warp (n < 256) on distinct banks; lines side by side n + n / spread
 * + 2 (spread: spareEvery; the rows the interleaved lines of oneTripKernel fit in). */
__host__ __device__ constexpr int pitchOf(int64_t n, int columns, int spread = 8) { return (int)(n + n / spread + (columns ? 2 : 0)); }

/* Lines a block: packed, enough for 256 threads (one line of 4096 points: 512); columns, 64 bytes of
 * them side by side where the threads and the shared memory allow, at least two. 0: none fits. wide:
 * the block may take up to 1024 threads where that keeps 64 bytes side by side and 512 would not (lines
 * of 1024 points): a block that reads 32 bytes of lines a point ran its pass markedly slower. */
__host__ __device__ constexpr int linesPerBlock(int64_t n, int columns, size_t complexBytes, bool wide) {
  const int T = (int)(n / 8), pitch = pitchOf(n, columns);
  if (wide && columns) {
    const int side = (int)(kColumnBytes / complexBytes);
    if (side * T > kMostThreads && side * T <= kWideThreads && sharedBytes(side, pitch, complexBytes) <= kMostShared) return side;
  }
  int lines = columns ? (int)(kColumnBytes / complexBytes) : 1;
  while (lines * T < kPackedThreads) lines *= 2;
  while (lines > 1 && (lines * T > kMostThreads || sharedBytes(lines, pitch, complexBytes) > kMostShared)) lines /= 2;
  if (lines * T > kMostThreads || sharedBytes(lines, pitch, complexBytes) > kMostShared) return 0;
  return columns && lines < 2 ? 0 : lines;
}

/* Whether two rounds' lines of `bytes` each fit a block (the async loads' prefetch). */
constexpr bool prefetchFits(size_t bytes) { return 2 * bytes <= kMostPrefetchShared; }

/* log2 of a power of two */
__host__ __device__ constexpr int log2Of(int n) { return n > 1 ? 1 + log2Of(n >> 1) : 0; }

/* A launch's layout with the transform's length fixed when the kernel is built (N > 0: the length, its
 * log, the block's lines and their pitch become constants, and with them every index the FFT and its
 * exchanges work out), or as the launch gives it (N = 0). */
template <int N, size_t ComplexBytes, bool Columns, bool InColumns, bool Wide, int Spread>
__device__ __forceinline__ Lines fixedShape(const Lines& shape) {
  if constexpr (N == 0) {
    return shape;
  } else {
    constexpr int logn = log2Of(N);
    constexpr int perBlock = linesPerBlock(N, Columns, ComplexBytes, Wide), pitch = pitchOf(N, InColumns, Spread);
    Lines g = shape;
    g.n = N, g.logn = logn, g.perBlock = perBlock, g.pitch = pitch;
    return g;
  }
}

/* Blocks of Threads (the most a block has: 512, or 256; 1024 for wide blocks) a multiprocessor the
 * registers are budgeted for: single precision's complex lines 1536 threads (40 registers a thread) for
 * a type II, whose steps fit them with up to 32 bytes spilled and gained more from the occupancy than
 * they lost on an H200, and 1024 (64) for the other kinds, which fit 64 and are slower at 40; 768 (80)
 * for double precision's complex lines in blocks of 256, which fit 80 with no spill or a few bytes;
 * else 512 (128: real lines, which hold two lines' pointers and load two numbers a point, spilled at
 * 64, and double precision in blocks of 512). */
template <typename E, int Kind, bool Complex, int Threads>
constexpr int blocksPerSm() {
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  if (sizeof(E) == 4 && Complex) return (typeII ? 1536 : 1024) / Threads;
  return Complex && Threads == 256 ? 3 : 512 / Threads;
}
/* The block sizes a type's kernels are built for: blocks of 256 get their own build only where that
 * raises the budget (double precision's complex lines). */
template <typename E, bool Complex>
constexpr bool smallBlocksOwnBuild() {
  return sizeof(E) == 8 && Complex;
}
/* The type whose lines side by side may take blocks of 1024 threads (linesPerBlock's wide): single
 * precision's complex lines, whose kernels fit the 64 registers that one such block a multiprocessor
 * leaves them (real lines take 128, double precision 80). */
template <typename E, bool Complex>
__host__ __device__ constexpr bool wideBlocks() {
  return sizeof(E) == 4 && Complex;
}
/* The kernels that load by asynchronous copies (dtrAxisOneTripLaunch's `async`): single precision's
 * complex lines under a DFT or a type III. A type II's blocks (1536 threads a multiprocessor) and double
 * precision's (three of 256) leave too little shared memory and L1 for two rounds of lines, and were
 * slower so; they load into registers. */
template <typename E, bool Complex>
__host__ __device__ constexpr bool asyncType() {
  return sizeof(E) == 4 && Complex;
}
template <typename E, int Kind, bool Complex>
__host__ __device__ constexpr bool asyncLoads() {
  return asyncType<E, Complex>() && Kind != dtrAxisDct2 && Kind != dtrAxisDst2;
}
/* The kernels also built for lengths fixed at 256, 512 and 1024 points (fixedShape): single precision's
 * DFTs with async loads, the passes of several fields and of the folded normalization. */
template <typename E, int Kind, bool Complex>
__host__ __device__ constexpr bool fixedLengths() {
  return asyncLoads<E, Kind, Complex>() && (Kind == dtrAxisDftForward || Kind == dtrAxisDftInverse);
}
/* The points a thread holds (stockham_fft.cuh's P): sixteen for those DFTs built for 1024 points whose
 * lines lie side by side on both sides, 64 threads a line, so that the wide blocks' eight lines take a
 * block of 512 and their FFT two exchanges through shared memory, not three; eight for the others. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns, int N>
__host__ __device__ constexpr int pointsAThread() {
  return N == 1024 && fixedLengths<E, Kind, Complex>() && wideBlocks<E, Complex>() && InColumns && OutColumns ? 16 : 8;
}

/* Kind: dtrAxisDct2 .. dtrAxisDftInverse. InColumns, OutColumns: how the threads take the lines on
 * each side (lineOfThread). The FFT runs in the input's mapping; where the output's differs (a pass
 * that transposes: lines side by side on one side, packed on the other), the result crosses the lines'
 * shared memory once more, so that both the loads and the stores stay coalesced. table: the radix-8
 * passes' twiddles (dtrAxisOneTripTable), then W[0..n) from its entry n. in may be out (a pass in
 * place): a line is read whole before any of it is written (its threads' barriers, or its one thread
 * where n = 8), and no two blocks share a line. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns, int Threads, bool Async, int N = 0>
__global__ void __launch_bounds__(Threads, blocksPerSm<E, Kind, Complex, Threads>()) oneTripKernel(const E* __restrict__ in, E* out, Lines shape,
                                                    const typename ComplexOf<E>::type* __restrict__ table) {
  using C = typename ComplexOf<E>::type;
  constexpr int P = pointsAThread<E, Kind, Complex, InColumns, OutColumns, N>(), Spread = spareEvery(P);
  constexpr bool columns = InColumns || OutColumns, wide = wideBlocks<E, Complex>();
  const Lines g = fixedShape<N, sizeof(C), columns, InColumns, wide, Spread>(shape);
  extern __shared__ __align__(16) unsigned char shared[];
  constexpr bool typeII = Kind == dtrAxisDct2 || Kind == dtrAxisDst2;
  constexpr bool typeIII = Kind == dtrAxisDct3 || Kind == dtrAxisDst3;
  constexpr bool sine = Kind == dtrAxisDst2 || Kind == dtrAxisDst3;
  constexpr bool inverseFft = typeIII || Kind == dtrAxisDftInverse;
  constexpr bool remap = InColumns != OutColumns;
  constexpr bool swizzled = !InColumns; /* the layout of the FFT's mapping (slot) */
  /* Lines side by side on both sides, the length fixed (the DFTs of several fields, async loads): the
   * block's lines interleaved in shared memory, each slot holding that point of every line, so that a
   * warp's copies of four points of eight lines (4 x 64 bytes from HBM) land in 256 consecutive bytes,
   * not in eight rows. The line's slots lie Stride (the block's lines) apart; of a round's shared
   * memory (perBlock rows of pitch) they take perBlock (n + n / Spread) slots. */
  constexpr bool interleaved = Async && N > 0 && InColumns && OutColumns;
  constexpr int Stride = interleaved ? linesPerBlock(N, columns, sizeof(C), wide) : 1; /* fixedShape's perBlock */
  static_assert(!interleaved || (!typeII && !typeIII), "interleaved lines: the DFTs only");
  const int n = g.n, T = n >> (P == 16 ? 4 : 3);
  /* A type III's threads in the mirrored order where a warp can hold the mirror pairs (its pre-twiddle
   * then a shuffle d lanes away), else in the plain order (the pairs taken in shared memory). */
  const int G = pointsPerWarp<InColumns>(g);
  const bool shuffled = typeIII && (T == 1 || G >= 2);
  const int d = shuffled && T > 1 ? (G >> 1) * (InColumns ? g.perBlock : 1) : 0;
  const int r0 = lineOfThread<InColumns>(g);
  const int t0 = shuffled ? mirroredOrder(pointOfThread<InColumns>(g), T, G) : pointOfThread<InColumns>(g);
  /* Packed lines in the mirrored order: the thread is in the upper half of its G (it holds T - a) */
  const bool upper = shuffled && !InColumns && T > 1 && (pointOfThread<InColumns>(g) & (G - 1)) >= (G >> 1);
  const C* tw = table;
  const C* W = table + n;
  /* Async with g.prefetch: two rounds' shared memory, the next round's points copied into one while the
   * block transforms the current round's in the other. */
  const int64_t stride = (int64_t)gridDim.x * g.perBlock, other = g.prefetch ? (int64_t)g.perBlock * g.pitch : 0;
  const int lineDistance = interleaved ? 1 : g.pitch; /* of a line's first slot from the one before */
  int64_t first = (int64_t)blockIdx.x * g.perBlock;
  if constexpr (Async) {
    if (g.prefetch && first < g.count) {
      stageRow<E, Kind, !InColumns, swizzled, (N > 0), P, Stride>((C*)shared + r0 * lineDistance, g,
                                                          linesAt<true>(in, g, first + r0, g.inUnit, g.inLine), t0, T);
      __pipeline_commit();
    }
  }
  for (int round = 0; first < g.count; first += stride, round ^= 1) {
    /* Taken anew each round: what derives from them (addresses of shared memory, of the table) would
     * otherwise be worked out once before the loop and held across it, spilled. */
    const int r = opaque(r0), t = opaque(t0);
    C* const lines = (C*)shared + round * other;
    C* line = lines + r * lineDistance;
    C u[P];
    /* In: point j = t + m T of the row the FFT transforms (sourcePoint); a DST-II's odd points negated.
     * Async: through the line's shared memory, this round's copies issued now, or a round before
     * (prefetch: the next round's are issued before this one's are awaited). */
    if constexpr (Async) {
      if (!g.prefetch) {
        stageRow<E, Kind, !InColumns, swizzled, (N > 0), P, Stride>(line, g, linesAt<true>(in, g, first + r, g.inUnit, g.inLine), t, T);
        __pipeline_commit();
        __pipeline_wait_prior(0);
      } else {
        if (first + stride < g.count)
          stageRow<E, Kind, !InColumns, swizzled, (N > 0), P, Stride>((C*)shared + (round ^ 1) * other + r * lineDistance, g,
                                                          linesAt<true>(in, g, first + stride + r, g.inUnit, g.inLine), t, T);
        __pipeline_commit();
        __pipeline_wait_prior(1);
      }
#pragma unroll
      for (int m = 0; m < P; m++) {
        u[m] = line[Stride * pointSlot<swizzled, (N > 0), Spread>(t, m, T)];
        if (typeII && sine && m >= 4) u[m] = C{-u[m].x, -u[m].y};
      }
      __syncthreads(); /* every thread has its points before the FFT writes other threads' slots */
    } else {
      const LineAt<const E*, Complex> from = linesAt<Complex>(in, g, first + r, g.inUnit, g.inLine);
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const Run<!InColumns> points = sourceRun<Kind, !InColumns>(h, t, T, n, g.inPoint);
#pragma unroll
        for (int q = 0; q < 4; q++) {
          const int m = 4 * h + q;
          u[m] = load<E, Complex>(from, points[q]);
          if (typeII && sine && m >= 4) u[m] = C{-u[m].x, -u[m].y};
        }
      }
    }
    if constexpr (typeIII) {
      if (shuffled) {
        /* V[j] = conj(W[j]) (X[j] - i X[n - j]), X[n] = 0, times the pass's scale f: X[n - j] from the mirror
         * thread */
        C q[8];
#pragma unroll
        for (int m = 0; m < 8; m++) q[m] = mirrorOf(u, m, t, T, d);
        const E f = scaleOf<E>(g);
#pragma unroll
        for (int m = 0; m < 8; m++) {
          const C w = W[t + m * T];
          u[m] = mulConj(C{u[m].x + q[m].y, u[m].y - q[m].x}, C{w.x * f, w.y * f});
        }
      } else {
        /* The same with the pairs j, n - j taken in shared memory, one thread a pair, a pair at a time (few
         * registers live) */
#pragma unroll
        for (int m = 0; m < 8; m++) line[slot<swizzled>(t + m * T)] = u[m];
        __syncthreads();
#pragma unroll 1
        for (int q = 0; q < 4; q++) preTwiddle<swizzled>(line, t + q * T, n, W, scaleOf<E>(g));
        __syncthreads();
#pragma unroll
        for (int m = 0; m < 8; m++) u[m] = line[slot<swizzled>(t + m * T)];
        __syncthreads();
      }
    }
    fft<inverseFft, swizzled, N ? (log2Of(N) - (P == 16 ? 4 : 0)) / 3 : 0, P, Spread, Stride>(u, line, t, T, n, g.logn, tw);
    /* The output's mapping: the input's, or (remap) another thread's points of another line, taken from
     * shared memory. */
    const int ro = remap ? lineOfThread<OutColumns>(g) : r, to = remap ? pointOfThread<OutColumns>(g) : t;
    C* const lineOut = lines + ro * g.pitch;
    if constexpr (typeII) {
      /* y[k] = W[k] V[k] + conj(W[k]) V[n - k], V[n] = V[0]: V[n - k] is another thread's */
#pragma unroll
      for (int s = 0; s < 8; s++) line[slot<swizzled>(t + s * T)] = u[s];
      __syncthreads();
      const LineAt<E*, Complex> into = linesAt<Complex>(out, g, first + ro, g.outUnit, g.outLine);
      const E f = scaleOf<E>(g);
      /* By pairs k, n - k (k < n / 2), one pair at a time from shared memory, so that few registers live:
       * W[n - k] = -i conj(W[k]), so with P = W[k] V[k] and Q = conj(W[k]) V[n - k], y[k] = P + Q and
       * y[n - k] = i (P - Q): each V read once and one W a pair. k = 0 pairs with itself (y[0] = 2 V[0])
       * and its thread also makes y[n / 2] (= sqrt(2) V[n / 2]). */
      /* y[k] at point k (a DST-II's at n - 1 - k), y[n - k] at n - k (k - 1): two runs over s */
      Run<!OutColumns> low = runOf<!OutColumns>(sine ? n - 1 - to : to, sine ? -T : T, g.outPoint),
                       high = runOf<!OutColumns>(sine ? to - 1 : n - to, sine ? T : -T, g.outPoint);
#pragma unroll 1
      for (int s = 0; s < 4; s++, low.at += low.step, high.at += high.step) {
        const int k = to + s * T;
        const C a = lineOut[slot<swizzled>(k)], b = lineOut[slot<swizzled>(k == 0 ? 0 : n - k)], w = W[k];
        const C P = mul(a, w), Q = mulConj(b, w);
        store<E, Complex>(into, low.at, C{(P.x + Q.x) * f, (P.y + Q.y) * f});
        if (k != 0) {
          store<E, Complex>(into, high.at, C{(Q.y - P.y) * f, (P.x - Q.x) * f});
        } else {
          const C m = lineOut[slot<swizzled>(n >> 1)], wm = W[n >> 1];
          const C y = add(mul(m, wm), mulConj(m, wm));
          store<E, Complex>(into, runOf<!OutColumns>(sine ? (n >> 1) - 1 : n >> 1, 0, g.outPoint).at, C{y.x * f, y.y * f});
        }
      }
    } else if constexpr (remap) {
      /* The line in its final order in shared memory (a type III's out of Makhoul's order: row point i
       * is x[2i], or x[2n - 1 - 2i] in the upper half), then stored in the output's mapping. */
#pragma unroll
      for (int s = 0; s < 8; s++) {
        const int i = t + s * T;
        if constexpr (typeIII) line[slot<swizzled>(s < 4 ? 2 * i : 2 * n - 1 - 2 * i)] = sine && s >= 4 ? C{-u[s].x, -u[s].y} : u[s];
        else line[slot<swizzled>(i)] = u[s];
      }
      __syncthreads();
      const LineAt<E*, Complex> into = linesAt<Complex>(out, g, first + ro, g.outUnit, g.outLine);
      const E f = typeIII ? (E)1 : scaleOf<E>(g); /* a type III scaled in its pre-twiddle */
      Run<!OutColumns> points = runOf<!OutColumns>(to, T, g.outPoint);
#pragma unroll 1
      for (int s = 0; s < 8; s++, points.at += points.step) { /* one point at a time, so that few registers live */
        const C v = lineOut[slot<swizzled>(to + s * T)];
        store<E, Complex>(into, points.at, C{v.x * f, v.y * f});
      }
    } else if constexpr (typeIII) {
      const LineAt<E*, Complex> into = linesAt<Complex>(out, g, first + r, g.outUnit, g.outLine);
      /* Out of Makhoul's order: row point i is x[2i], or x[2n - 1 - 2i] in the upper half. Odd point
       * 2n - 1 - 2 (t + (7 - s) T) lies just below the mirror thread's even point 2 (T - t + s T), so each
       * store takes the even points of one half of a G and the odd points of the other (upper), and a
       * warp writes consecutive points. */
      const Run<!OutColumns> evens = runOf<!OutColumns>(2 * t, 2 * T, g.outPoint),
                             odds = runOf<!OutColumns>(2 * n - 1 - 2 * (t + 7 * T), 2 * T, g.outPoint); /* pe and po over s */
#pragma unroll
      for (int h = 0; h < 2; h++) {
#pragma unroll
        for (int s = 0; s < 4; s++) {
          const C ve = u[s], vo = sine ? C{-u[7 - s].x, -u[7 - s].y} : u[7 - s];
          const bool odd = upper != (h == 1);
          store<E, Complex>(into, odd ? odds[s] : evens[s], odd ? vo : ve);
        }
      }
    } else {
      const LineAt<E*, Complex> into = linesAt<Complex>(out, g, first + r, g.outUnit, g.outLine);
      const E f = scaleOf<E>(g);
      const Run<!OutColumns> points = runOf<!OutColumns>(t, T, g.outPoint);
      if constexpr (Complex && OutColumns) {
        /* Points far apart: a pointer walked as the loads' (stageRow); unscaled, no multiply. */
        C* at = (C*)into.at[0] + points.at;
        const int64_t step = opaque(points.step);
        if (into.at[0]) {
          if (f == (E)1) {
#pragma unroll
            for (int s = 0; s < P; s++, at += step) *at = u[s];
          } else {
#pragma unroll
            for (int s = 0; s < P; s++, at += step) *at = C{u[s].x * f, u[s].y * f};
          }
        }
      } else {
#pragma unroll
        for (int s = 0; s < 8; s++) store<E, Complex>(into, points[s], C{u[s].x * f, u[s].y * f});
      }
    }
    __syncthreads();
  }
}

/* The kernel built for length n (fixedLengths: 256, 512 or 1024 points, async loads), or null where none
 * is: the launch and the shared-memory setting both take it from here. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns, int Threads>
auto fixedKernel(int n) {
  using C = typename ComplexOf<E>::type;
  void (*kernel)(const E*, E*, Lines, const C*) = nullptr;
  if constexpr (fixedLengths<E, Kind, Complex>()) {
    /* Lines of 1024 points side by side take wide blocks (linesPerBlock), and wide blocks nothing else;
     * at sixteen points a thread (pointsAThread) their eight lines take a block of 512. */
    constexpr bool wideLines = wideBlocks<E, Complex>() && (InColumns || OutColumns);
    constexpr bool sixteen = pointsAThread<E, Kind, Complex, InColumns, OutColumns, 1024>() == 16;
    if constexpr (Threads <= kMostThreads) {
      if (n == 256) kernel = oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, true, 256>;
      if (n == 512) kernel = oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, true, 512>;
    }
    if constexpr (sixteen ? Threads == kMostThreads : (Threads > kMostThreads) == wideLines) {
      if (n == 1024) kernel = oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, true, 1024>;
    }
  }
  return kernel;
}

/* The points a thread of a launch: 16 where it takes the kernel of sixteen points a thread (an async
 * launch of 1024 points that pointsAThread gives sixteen), 8 otherwise. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns>
int pointsOf(const Lines& g, int async) {
  constexpr bool sixteen = pointsAThread<E, Kind, Complex, InColumns, OutColumns, 1024>() == 16;
  return sixteen && asyncLoads<E, Kind, Complex>() && async > 0 && g.n == 1024 ? 16 : 8;
}
/* The threads of a launch's block: n / pointsOf a line. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns>
int threadsOf(const Lines& g, int async) {
  return g.perBlock * (g.n / pointsOf<E, Kind, Complex, InColumns, OutColumns>(g, async));
}

/* async (dtrAxisOneTripLaunch), for the kernels that take it (asyncLoads): 0 the registers' loads; 1
 * async copies, a round's at a time; n > 1 each block n rounds, the next one's copies in flight while it
 * transforms the current (where two rounds' shared memory fits a block). */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns, int Threads>
cudaError_t launchBuilt(const void* in, void* out, const Lines& shape, const void* table, int async, cudaStream_t stream) {
  using C = typename ComplexOf<E>::type;
  Lines g = shape;
  const int threads = threadsOf<E, Kind, Complex, InColumns, OutColumns>(g, async);
  const bool loadsAsync = asyncLoads<E, Kind, Complex>() && async > 0;
  g.pitch = pitchOf(g.n, g.inColumns, spareEvery(pointsOf<E, Kind, Complex, InColumns, OutColumns>(g, async)));
  const size_t bytes = sharedBytes(g.perBlock, g.pitch, sizeof(C));
  const int64_t blocks = (g.count + g.perBlock - 1) / g.perBlock;
  g.prefetch = loadsAsync && async > 1 && prefetchFits(bytes);
  const int64_t want = g.prefetch ? (blocks + async - 1) / async : blocks;
  const unsigned grid = (unsigned)(want < 1 ? 1 : want > 32768 ? 32768 : want);
  if constexpr (asyncLoads<E, Kind, Complex>()) {
    if (loadsAsync) {
      const size_t shared = (g.prefetch ? 2 : 1) * bytes;
      auto kernel = fixedKernel<E, Kind, Complex, InColumns, OutColumns, Threads>(g.n);
      if (!kernel) kernel = oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, true>;
      kernel<<<grid, threads, shared, stream>>>((const E*)in, (E*)out, g, (const C*)table);
      return cudaGetLastError();
    }
  }
  oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, false><<<grid, threads, bytes, stream>>>((const E*)in, (E*)out, g,
                                                                                                        (const C*)table);
  return cudaGetLastError();
}

template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns>
cudaError_t launchShape(const void* in, void* out, const Lines& g, const void* table, int async, cudaStream_t stream) {
  const int threads = threadsOf<E, Kind, Complex, InColumns, OutColumns>(g, async);
  if constexpr (smallBlocksOwnBuild<E, Complex>()) {
    if (threads <= 256) return launchBuilt<E, Kind, Complex, InColumns, OutColumns, 256>(in, out, g, table, async, stream);
  }
  if constexpr (wideBlocks<E, Complex>() && (InColumns || OutColumns)) {
    if (threads > kMostThreads)
      return launchBuilt<E, Kind, Complex, InColumns, OutColumns, kWideThreads>(in, out, g, table, async, stream);
  }
  return launchBuilt<E, Kind, Complex, InColumns, OutColumns, 512>(in, out, g, table, async, stream);
}

template <typename E, int Kind, bool Complex>
cudaError_t launchKind(const void* in, void* out, const Lines& g, const void* table, int async, cudaStream_t stream) {
  if (g.inColumns) return g.outColumns ? launchShape<E, Kind, Complex, true, true>(in, out, g, table, async, stream)
                                       : launchShape<E, Kind, Complex, true, false>(in, out, g, table, async, stream);
  return g.outColumns ? launchShape<E, Kind, Complex, false, true>(in, out, g, table, async, stream)
                      : launchShape<E, Kind, Complex, false, false>(in, out, g, table, async, stream);
}

template <typename E, bool Complex>
cudaError_t launchType(int kind, const void* in, void* out, const Lines& g, const void* table, int async, cudaStream_t stream) {
  switch (kind) {
    case dtrAxisDct2: return launchKind<E, dtrAxisDct2, Complex>(in, out, g, table, async, stream);
    case dtrAxisDct3: return launchKind<E, dtrAxisDct3, Complex>(in, out, g, table, async, stream);
    case dtrAxisDst2: return launchKind<E, dtrAxisDst2, Complex>(in, out, g, table, async, stream);
    case dtrAxisDst3: return launchKind<E, dtrAxisDst3, Complex>(in, out, g, table, async, stream);
    case dtrAxisDftForward:
      if constexpr (Complex) return launchKind<E, dtrAxisDftForward, true>(in, out, g, table, async, stream);
      return cudaErrorInvalidValue;
    default:
      if constexpr (Complex) return launchKind<E, dtrAxisDftInverse, true>(in, out, g, table, async, stream);
      return cudaErrorInvalidValue;
  }
}

/* A kind's kernel of one element type, mapping and block size: its async loads' where it takes them
 * and they are asked for, else its registers'. */
template <typename E, int Kind, bool Complex, bool InColumns, bool OutColumns, int Threads, bool Async>
const void* kernelOf() {
  return (const void*)oneTripKernel<E, Kind, Complex, InColumns, OutColumns, Threads, Async && asyncLoads<E, Kind, Complex>()>;
}

/* The shared memory those kernels may take past the default 48 KiB, on the current device: a round's
 * lines, and the async loads' two rounds' where they fit. */
template <typename E, bool Complex, bool InColumns, bool OutColumns, int Threads, bool Async>
cudaError_t allowSharedBuilt(int bytes) {
  const void* kernels[] = {kernelOf<E, dtrAxisDct2, Complex, InColumns, OutColumns, Threads, Async>(),
                           kernelOf<E, dtrAxisDct3, Complex, InColumns, OutColumns, Threads, Async>(),
                           kernelOf<E, dtrAxisDst2, Complex, InColumns, OutColumns, Threads, Async>(),
                           kernelOf<E, dtrAxisDst3, Complex, InColumns, OutColumns, Threads, Async>(),
                           kernelOf<E, Complex ? dtrAxisDftForward : dtrAxisDct2, Complex, InColumns, OutColumns, Threads, Async>(),
                           kernelOf<E, Complex ? dtrAxisDftInverse : dtrAxisDct3, Complex, InColumns, OutColumns, Threads, Async>()};
  for (const void* k : kernels) {
    const cudaError_t err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

/* The DFTs' kernels of length n where they are built for it (fixedKernel), async loads. */
template <typename E, bool Complex, bool InColumns, bool OutColumns, int Threads>
cudaError_t allowSharedFixed(int bytes, int n) {
  if constexpr (fixedLengths<E, dtrAxisDftForward, Complex>()) {
    const void* kernels[] = {(const void*)fixedKernel<E, dtrAxisDftForward, Complex, InColumns, OutColumns, Threads>(n),
                             (const void*)fixedKernel<E, dtrAxisDftInverse, Complex, InColumns, OutColumns, Threads>(n)};
    for (const void* k : kernels) {
      if (!k) continue;
      const cudaError_t err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      if (err != cudaSuccess) return err;
    }
  }
  return cudaSuccess;
}

template <typename E, bool Complex, bool InColumns, bool OutColumns, int Threads>
cudaError_t allowSharedLoads(int bytes, int n) {
  if (bytes > 48 * 1024) {
    const cudaError_t err = allowSharedBuilt<E, Complex, InColumns, OutColumns, Threads, false>(bytes);
    if (err != cudaSuccess) return err;
  }
  if constexpr (asyncType<E, Complex>()) {
    const int both = prefetchFits((size_t)bytes) ? 2 * bytes : bytes;
    if (both > 48 * 1024) {
      const cudaError_t err = allowSharedBuilt<E, Complex, InColumns, OutColumns, Threads, true>(both);
      if (err != cudaSuccess) return err;
      return allowSharedFixed<E, Complex, InColumns, OutColumns, Threads>(both, n);
    }
  }
  return cudaSuccess;
}

template <typename E, bool Complex, bool InColumns, bool OutColumns>
cudaError_t allowShared(int bytes, int n) {
  if constexpr (smallBlocksOwnBuild<E, Complex>()) {
    const cudaError_t err = allowSharedLoads<E, Complex, InColumns, OutColumns, 256>(bytes, n);
    if (err != cudaSuccess) return err;
  }
  if constexpr (wideBlocks<E, Complex>() && (InColumns || OutColumns)) {
    const cudaError_t err = allowSharedLoads<E, Complex, InColumns, OutColumns, kWideThreads>(bytes, n);
    if (err != cudaSuccess) return err;
  }
  return allowSharedLoads<E, Complex, InColumns, OutColumns, 512>(bytes, n);
}

template <typename E, bool Complex>
cudaError_t allowSharedMapped(const Lines& g, int bytes) {
  if (g.inColumns) return g.outColumns ? allowShared<E, Complex, true, true>(bytes, g.n) : allowShared<E, Complex, true, false>(bytes, g.n);
  return g.outColumns ? allowShared<E, Complex, false, true>(bytes, g.n) : allowShared<E, Complex, false, false>(bytes, g.n);
}

/* A side's lines are packed (a line's points adjacent), or side by side: consecutive lines adjacent (a
 * plane's columns, or lines a unit apart), a point's lines then read together. */
bool packedSide(dtrAxisSide s) { return s.point == 1; }
bool sideBySide(const dtrAxisRows* r, dtrAxisSide s) { return (r->lines == 1 ? s.unit : s.line) == 1; }

/* Whether a launch's lines are complex: complex numbers, or two real parts taken as one line's. */
bool complexLinesOf(const dtrAxisRows* r) { return r->parts == 2 || r->complexNumbers; }
/* Whether a launch's lines may take wide blocks (wideBlocks: single precision's complex lines). */
bool wideBlocksOf(const dtrAxisRows* r) { return !r->dbl && complexLinesOf(r); }

/* The layout of a launch: lines, their distances, the block's shape. */
Lines linesOf(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into) {
  Lines g;
  g.prefetch = 0;
  g.scale32 = 1.0f, g.scale64 = 1.0;
  const int64_t lines = r->units * r->lines; /* one field (dtrAxisOneTripFits) */
  const bool complexLines = complexLinesOf(r);
  g.realLines = complexLines ? 0 : lines;
  g.count = complexLines ? lines : (lines + 1) / 2;
  g.lines = r->lines;
  /* line indices run below count (complex lines) or realLines */
  g.smallLines = g.lines > 1 && g.lines < ((int64_t)1 << 31) && (g.realLines > g.count ? g.realLines : g.count) < ((int64_t)1 << 31);
  g.lineDivisor = dtrFastDivisorOf(g.smallLines ? (uint32_t)g.lines : 1u);
  g.inUnit = from.unit, g.inLine = from.line, g.inPoint = from.point;
  g.outUnit = into.unit, g.outLine = into.line, g.outPoint = into.point;
  g.n = (int)r->n;
  g.logn = log2Of(g.n);
  g.inColumns = !packedSide(from), g.outColumns = !packedSide(into);
  g.perBlock = linesPerBlock(g.n, g.inColumns || g.outColumns, r->dbl ? 16 : 8, wideBlocksOf(r));
  g.pitch = pitchOf(g.n, g.inColumns);
  return g;
}

}  // namespace

extern "C" int dtrAxisOneTripFits(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into) {
  const int64_t n = r->n;
  if (n < 8 || n > 4096 || (n & (n - 1)) || r->fields != 1) return 0;
  if (!(packedSide(from) || sideBySide(r, from)) || !(packedSide(into) || sideBySide(r, into))) return 0;
  /* Lines side by side on either side: enough of them a block. */
  return (packedSide(from) && packedSide(into)) || linesPerBlock(n, 1, r->dbl ? 16 : 8, wideBlocksOf(r)) > 0;
}

extern "C" cudaError_t dtrAxisOneTripPrepare(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into) {
  const Lines g = linesOf(r, from, into);
  const int bytes = (int)sharedBytes(g.perBlock, g.pitch, r->dbl ? 16 : 8);
  if (2 * bytes <= 48 * 1024) return cudaSuccess;
  const bool complexLines = complexLinesOf(r);
  if (r->dbl) return complexLines ? allowSharedMapped<double, true>(g, bytes) : allowSharedMapped<double, false>(g, bytes);
  return complexLines ? allowSharedMapped<float, true>(g, bytes) : allowSharedMapped<float, false>(g, bytes);
}

extern "C" size_t dtrAxisOneTripTableBytes(int64_t n, int dbl) { return (size_t)(2 * n) * (dbl ? 16 : 8); }

/* The table: the radix-8 passes' twiddles in the order fft() runs them (a pass of p > 1 points a
 * butterfly: exp(-2 pi i q k / 8p) at (q - 1) p + k, q = 1..7, k < p; fewer than n entries in all),
 * zeros to n, then W[k] = exp(-i pi k / 2n). Angles in turns, reduced first. */
extern "C" void dtrAxisOneTripTable(int64_t n, int dbl, void* host) {
  const int logn = log2Of((int)n); /* n: a power of two up to 4096 (dtrAxisOneTripFits) */
  int64_t at = 0;
  const auto put = [&](int64_t m, int64_t num, int64_t den) {
    const double angle = -2.0 * 3.14159265358979323846 * (double)(num % den) / (double)den;
    const double c = cos(angle), s = sin(angle);
    if (dbl) ((double*)host)[2 * m] = c, ((double*)host)[2 * m + 1] = s;
    else ((float*)host)[2 * m] = (float)c, ((float*)host)[2 * m + 1] = (float)s;
  };
  for (int64_t p = logn % 3 == 1 ? 2 : logn % 3 == 2 ? 4 : 1; 8 * p <= n; p *= 8) {
    if (p == 1) continue;
    for (int64_t q = 1; q < 8; q++)
      for (int64_t k = 0; k < p; k++) put(at++, q * k, 8 * p);
  }
  for (; at < n; at++) put(at, 0, 1);
  for (int64_t k = 0; k < n; k++) put(n + k, k, 4 * n);
}

extern "C" cudaError_t dtrAxisOneTripLaunch(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into, const void* in,
                                            void* out, int kind, double scale, const void* table, int async, cudaStream_t stream) {
  Lines g = linesOf(r, from, into);
  g.scale32 = (float)scale, g.scale64 = scale;
  if (!g.count) return cudaSuccess;
  const bool complexLines = complexLinesOf(r);
  if (r->dbl) return complexLines ? launchType<double, true>(kind, in, out, g, table, async, stream)
                                  : launchType<double, false>(kind, in, out, g, table, async, stream);
  return complexLines ? launchType<float, true>(kind, in, out, g, table, async, stream)
                      : launchType<float, false>(kind, in, out, g, table, async, stream);
}
