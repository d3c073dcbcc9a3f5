/*
 * The gather, scatter and twiddle kernels of a pass along one axis (axis_launch.h). A line's points may
 * lie far apart in the data (a column of a (y, x) plane) while its row is packed: the gather and the
 * scatter go through 32 x 32 tiles in shared memory, reading (writing) the data along whichever of the
 * points or the rows is contiguous there, and the rows along their points. A tile's rows find where
 * their lines start once (64-bit divisions, one a row, not one a number), and where the rows are the
 * real and imaginary parts of complex points laid along the points, a thread moves both parts of a point
 * as one word.
 */
#include <stdint.h>

#include "axis_launch.h"
#include "complex_of.cuh"

namespace {

constexpr int kTile = 32, kStep = 8;

struct Layout {
  int64_t n, rows, lines, fields, parts;
  int64_t unit, line, step; /* a unit's and a line's distance in points; a point's in numbers */
};

Layout layoutOf(const dtrAxisRows* r, dtrAxisSide side) {
  Layout g;
  g.n = r->n;
  g.rows = r->units * r->lines * r->fields * r->parts;
  g.lines = r->lines, g.fields = r->fields, g.parts = r->parts;
  g.unit = side.unit, g.line = side.line, g.step = side.point * r->fields * r->parts;
  return g;
}

/* The number at which row s's line starts in the data. */
__device__ __forceinline__ int64_t rowStart(const Layout& g, int64_t s) {
  const int64_t c = s % g.parts;
  int64_t t = s / g.parts;
  const int64_t f = t % g.fields;
  t /= g.fields;
  const int64_t l = t % g.lines, u = t / g.lines;
  return ((u * g.unit + l * g.line) * g.fields + f) * g.parts + c;
}

/* Makhoul's order: the evens up, the odds down. */
__device__ __forceinline__ int64_t evenOdd(int64_t j, int64_t n) { return (j & 1) ? n - 1 - (j >> 1) : j >> 1; }

template <typename E>
__device__ __forceinline__ E negated(E v) {
  return -v;
}

/* Where each of the tile's rows starts in the data, into `start` (the first kTile threads of the block). */
__device__ __forceinline__ void tileStarts(const Layout& g, int64_t s0, int64_t* start) {
  const int t = threadIdx.y * kTile + threadIdx.x;
  if (t < kTile && s0 + t < g.rows) start[t] = rowStart(g, s0 + t);
  __syncthreads();
}

/* Pairs: the rows are parts of complex points (parts 2) and the points are contiguous in the data. */
template <typename E, int How, bool Pairs>
__global__ void __launch_bounds__(kTile* kStep) gatherKernel(Layout g, const E* __restrict__ data, E* __restrict__ rows,
                                                             bool pointsFast) {
  __shared__ E tile[kTile][kTile + 1];
  __shared__ int64_t start[kTile];
  const int64_t tilesAlong = (g.n + kTile - 1) / kTile, tiles = tilesAlong * ((g.rows + kTile - 1) / kTile);
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t j0 = (t % tilesAlong) * kTile, s0 = (t / tilesAlong) * kTile;
    tileStarts(g, s0, start);
    if constexpr (Pairs) {
      using P = typename ComplexOf<E>::type; /* both parts of a complex point in one word */
      for (int i = 0; i < kTile / 2; i += kStep) {
        const int jl = threadIdx.x, sl = 2 * (threadIdx.y + i);
        const int64_t s = s0 + sl, j = j0 + jl;
        if (s < g.rows && j < g.n) {
          const P v = *(const P*)(data + start[sl] + j * g.step);
          const bool flip = How == dtrAxisGatherEvenOddAlternating && (j & 1);
          tile[sl][jl] = flip ? -v.x : v.x;
          tile[sl + 1][jl] = flip ? -v.y : v.y;
        }
      }
    } else {
      for (int i = 0; i < kTile; i += kStep) {
        const int a = threadIdx.x, b = threadIdx.y + i;
        const int jl = pointsFast ? a : b, sl = pointsFast ? b : a;
        const int64_t s = s0 + sl, j = j0 + jl;
        if (s < g.rows && j < g.n) {
          E v = data[start[sl] + j * g.step];
          if constexpr (How == dtrAxisGatherEvenOddAlternating) v = (j & 1) ? negated(v) : v;
          tile[sl][jl] = v;
        }
      }
    }
    __syncthreads();
    for (int i = 0; i < kTile; i += kStep) {
      const int jl = threadIdx.x, sl = threadIdx.y + i;
      const int64_t s = s0 + sl, j = j0 + jl;
      if (s < g.rows && j < g.n) {
        int64_t at = j;
        if constexpr (How == dtrAxisGatherEvenOdd || How == dtrAxisGatherEvenOddAlternating) at = evenOdd(j, g.n);
        if constexpr (How == dtrAxisGatherReversed) at = g.n - 1 - j;
        rows[s * g.n + at] = tile[sl][jl];
      }
    }
    __syncthreads();
  }
}

__device__ __forceinline__ void cosSinPi(double x, double* c, double* s) { sincospi(x, s, c); }
__device__ __forceinline__ void cosSinPi(float x, float* c, float* s) { sincospif(x, s, c); }

/* Point p of row s's line, from the row (real numbers, or the half spectrum of a real row), times factor. */
template <typename E, int How>
__device__ __forceinline__ E pointOf(const Layout& g, const void* rows, int64_t s, int64_t p, E factor) {
  if constexpr (How == dtrAxisScatterCosine || How == dtrAxisScatterSine) {
    using C = typename ComplexOf<E>::type;
    const int64_t half = g.n / 2 + 1;
    const int64_t k = How == dtrAxisScatterSine ? g.n - 1 - p : p;
    const C v = ((const C*)rows)[s * half + (k <= g.n / 2 ? k : g.n - k)];
    const E im = k <= g.n / 2 ? v.y : -v.y;
    E c, sn;
    cosSinPi((E)k / (E)(2 * g.n), &c, &sn);
    return (E)2 * (c * v.x + sn * im) * factor;
  } else if constexpr (How == dtrAxisScatterEvenOdd || How == dtrAxisScatterEvenOddAlternating) {
    const E v = ((const E*)rows)[s * g.n + evenOdd(p, g.n)] * factor;
    return How == dtrAxisScatterEvenOddAlternating && (p & 1) ? -v : v;
  } else {
    return ((const E*)rows)[s * g.n + p] * factor;
  }
}

/* A complex row's points (a DFT's) come back times factor. */
template <typename E, int How>
__device__ __forceinline__ E complexPointOf(const Layout& g, const void* rows, int64_t s, int64_t p, double factor) {
  E v = ((const E*)rows)[s * g.n + p];
  using R = decltype(v.x);
  v.x *= (R)factor, v.y *= (R)factor;
  return v;
}

template <typename E, int How, bool Complex, bool Pairs>
__global__ void __launch_bounds__(kTile* kStep) scatterKernel(Layout g, const void* __restrict__ rows, E* __restrict__ data,
                                                              bool pointsFast, double factor) {
  __shared__ E tile[kTile][kTile + 1];
  __shared__ int64_t start[kTile];
  const int64_t tilesAlong = (g.n + kTile - 1) / kTile, tiles = tilesAlong * ((g.rows + kTile - 1) / kTile);
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t p0 = (t % tilesAlong) * kTile, s0 = (t / tilesAlong) * kTile;
    tileStarts(g, s0, start);
    for (int i = 0; i < kTile; i += kStep) {
      const int pl = threadIdx.x, sl = threadIdx.y + i;
      const int64_t s = s0 + sl, p = p0 + pl;
      if (s < g.rows && p < g.n) {
        if constexpr (Complex) tile[sl][pl] = complexPointOf<E, How>(g, rows, s, p, factor);
        else tile[sl][pl] = pointOf<E, How>(g, rows, s, p, (E)factor);
      }
    }
    __syncthreads();
    if constexpr (Pairs) {
      using P = typename ComplexOf<E>::type;
      for (int i = 0; i < kTile / 2; i += kStep) {
        const int pl = threadIdx.x, sl = 2 * (threadIdx.y + i);
        const int64_t s = s0 + sl, p = p0 + pl;
        if (s < g.rows && p < g.n) *(P*)(data + start[sl] + p * g.step) = P{tile[sl][pl], tile[sl + 1][pl]};
      }
    } else {
      for (int i = 0; i < kTile; i += kStep) {
        const int a = threadIdx.x, b = threadIdx.y + i;
        const int pl = pointsFast ? a : b, sl = pointsFast ? b : a;
        const int64_t s = s0 + sl, p = p0 + pl;
        if (s < g.rows && p < g.n) data[start[sl] + p * g.step] = tile[sl][pl];
      }
    }
    __syncthreads();
  }
}

template <typename E>
__global__ void twiddleKernel(Layout g, const E* __restrict__ rows, typename ComplexOf<E>::type* __restrict__ spectra) {
  const int64_t half = g.n / 2 + 1, count = g.rows * half;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int64_t s = i / half, k = i % half;
    const E* x = rows + s * g.n;
    const E a = x[k], b = k ? x[g.n - k] : (E)0;
    E c, sn;
    cosSinPi((E)k / (E)(2 * g.n), &c, &sn);
    spectra[i] = {a * c + b * sn, a * sn - b * c};
  }
}

unsigned blocksFor(int64_t work) {
  const int64_t most = 16384;
  return (unsigned)(work < 1 ? 1 : work > most ? most : work);
}

int64_t tilesOf(const Layout& g) { return ((g.n + kTile - 1) / kTile) * ((g.rows + kTile - 1) / kTile); }

template <typename E, bool Pairs>
void gatherReal(const Layout& g, const void* data, void* rows, dtrAxisGather how, bool fast, cudaStream_t st) {
  const dim3 block(kTile, kStep);
  const unsigned grid = blocksFor(tilesOf(g));
  const E* d = (const E*)data;
  E* r = (E*)rows;
  switch (how) {
    case dtrAxisGatherEvenOdd: gatherKernel<E, dtrAxisGatherEvenOdd, Pairs><<<grid, block, 0, st>>>(g, d, r, fast); break;
    case dtrAxisGatherEvenOddAlternating:
      gatherKernel<E, dtrAxisGatherEvenOddAlternating, Pairs><<<grid, block, 0, st>>>(g, d, r, fast);
      break;
    case dtrAxisGatherReversed: gatherKernel<E, dtrAxisGatherReversed, Pairs><<<grid, block, 0, st>>>(g, d, r, fast); break;
    default: gatherKernel<E, dtrAxisGatherCopy, Pairs><<<grid, block, 0, st>>>(g, d, r, fast); break;
  }
}

template <typename E, bool Pairs>
void scatterReal(const Layout& g, const void* rows, void* data, dtrAxisScatter how, double factor, bool fast,
                 cudaStream_t st) {
  const dim3 block(kTile, kStep);
  const unsigned grid = blocksFor(tilesOf(g));
  E* d = (E*)data;
  switch (how) {
    case dtrAxisScatterEvenOdd:
      scatterKernel<E, dtrAxisScatterEvenOdd, false, Pairs><<<grid, block, 0, st>>>(g, rows, d, fast, factor);
      break;
    case dtrAxisScatterEvenOddAlternating:
      scatterKernel<E, dtrAxisScatterEvenOddAlternating, false, Pairs><<<grid, block, 0, st>>>(g, rows, d, fast, factor);
      break;
    case dtrAxisScatterCosine:
      scatterKernel<E, dtrAxisScatterCosine, false, Pairs><<<grid, block, 0, st>>>(g, rows, d, fast, factor);
      break;
    case dtrAxisScatterSine:
      scatterKernel<E, dtrAxisScatterSine, false, Pairs><<<grid, block, 0, st>>>(g, rows, d, fast, factor);
      break;
    default: scatterKernel<E, dtrAxisScatterCopy, false, Pairs><<<grid, block, 0, st>>>(g, rows, d, fast, factor); break;
  }
}

/* Both parts of a point in one word: complex data under a real-to-real kind, its points contiguous. */
bool pairsOf(const dtrAxisRows* r, dtrAxisSide side) { return !r->complexNumbers && r->parts == 2 && side.point == 1; }

}  // namespace

extern "C" cudaError_t dtrAxisGatherLaunch(const dtrAxisRows* r, dtrAxisSide side, const void* data, void* rows,
                                           dtrAxisGather how, cudaStream_t stream) {
  const Layout g = layoutOf(r, side);
  if (!g.rows || !g.n) return cudaSuccess;
  /* Along the points where they are contiguous in the data, else along the rows (whose numbers are). */
  const bool fast = side.point == 1;
  const dim3 block(kTile, kStep);
  const unsigned grid = blocksFor(tilesOf(g));
  if (r->complexNumbers && r->dbl)
    gatherKernel<double2, dtrAxisGatherCopy, false><<<grid, block, 0, stream>>>(g, (const double2*)data, (double2*)rows, fast);
  else if (r->complexNumbers)
    gatherKernel<float2, dtrAxisGatherCopy, false><<<grid, block, 0, stream>>>(g, (const float2*)data, (float2*)rows, fast);
  else if (r->dbl && pairsOf(r, side))
    gatherReal<double, true>(g, data, rows, how, fast, stream);
  else if (r->dbl)
    gatherReal<double, false>(g, data, rows, how, fast, stream);
  else if (pairsOf(r, side))
    gatherReal<float, true>(g, data, rows, how, fast, stream);
  else
    gatherReal<float, false>(g, data, rows, how, fast, stream);
  return cudaGetLastError();
}

extern "C" cudaError_t dtrAxisScatterLaunch(const dtrAxisRows* r, dtrAxisSide side, const void* rows, void* data,
                                            dtrAxisScatter how, double factor, cudaStream_t stream) {
  const Layout g = layoutOf(r, side);
  if (!g.rows || !g.n) return cudaSuccess;
  const bool fast = side.point == 1;
  const dim3 block(kTile, kStep);
  const unsigned grid = blocksFor(tilesOf(g));
  if (r->complexNumbers && r->dbl)
    scatterKernel<double2, dtrAxisScatterCopy, true, false><<<grid, block, 0, stream>>>(g, rows, (double2*)data, fast, 1.0);
  else if (r->complexNumbers)
    scatterKernel<float2, dtrAxisScatterCopy, true, false><<<grid, block, 0, stream>>>(g, rows, (float2*)data, fast, 1.0);
  else if (r->dbl && pairsOf(r, side))
    scatterReal<double, true>(g, rows, data, how, factor, fast, stream);
  else if (r->dbl)
    scatterReal<double, false>(g, rows, data, how, factor, fast, stream);
  else if (pairsOf(r, side))
    scatterReal<float, true>(g, rows, data, how, factor, fast, stream);
  else
    scatterReal<float, false>(g, rows, data, how, factor, fast, stream);
  return cudaGetLastError();
}

extern "C" cudaError_t dtrAxisTwiddleLaunch(const dtrAxisRows* r, const void* rows, void* spectra, cudaStream_t stream) {
  const dtrAxisSide none = {0, 0, 0};
  const Layout g = layoutOf(r, none);
  const int64_t count = g.rows * (g.n / 2 + 1);
  if (!count) return cudaSuccess;
  const unsigned grid = blocksFor((count + 255) / 256);
  if (r->dbl) twiddleKernel<double><<<grid, 256, 0, stream>>>(g, (const double*)rows, (double2*)spectra);
  else twiddleKernel<float><<<grid, 256, 0, stream>>>(g, (const float*)rows, (float2*)spectra);
  return cudaGetLastError();
}
