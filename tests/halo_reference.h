/*
 * The halo adjoint's references for test_halo.c, from global indices and the public box queries alone
 * (none of the library's halo code): every rank's padded array held on every rank, as doubles (one a
 * scalar: a complex number is two), each value exactly one of its element type's.
 *   - dtrRefSum: the adjoint as its definition reads: each interior cell plus every written halo cell of
 *     every rank that stands for it, the written halo zeroed, the rest untouched. Exact where the sums
 *     are (small integers in every type; int8 always, wrapping around).
 *   - dtrRefAdjoint: the same sums in the order the library documents, each rounded to the type: first
 *     the wraps of the axes no grid dimension splits, by the halo's position along them (x's fastest);
 *     then each split axis from the one the execute exchanges last (the fastest in memory) to the first,
 *     from the group's ranks in the order of their grid coordinate, a rank's low halo before its high
 *     one, that axis's written halo zeroed after. Random values in every type, bit for bit.
 * Which grid dimension splits an axis is the header's table (dtrPencilBox's); a cell is written where
 * every axis is periodic or the cell is inside the domain along it.
 */
#ifndef DTR_TEST_HALO_REFERENCE_H
#define DTR_TEST_HALO_REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "disttranspose.h"

typedef struct {
  int64_t shape[3];
  int halo[3], periodic[3];
  dtrDataType_t type;
  int scalars;     /* a cell's: howmany, twice that for complex types */
  size_t bytes;    /* of one scalar */
  int nranks, pr, pc;
  int split[3];    /* the grid dimension along each axis: 0 none, 1 the rows' (pr, coordinate a), 2 the columns' */
  int (*coord)[2]; /* [rank] its grid coordinates (a, b) */
  dtrBox_t* box;   /* [rank] */
  dtrBox_t* padded;
  double** v;      /* [rank] its padded array, cells in memory order */
} dtrRefWorld;

/* A scalar's format: significand bits and the least normal exponent (0 bits: int8). */
static void dtrRefFormat(dtrDataType_t t, int* bits, int* emin) {
  static const int b[] = {0, 11, 8, 24, 53, 24, 53}, e[] = {0, -14, -126, -126, -1022, -126, -1022};
  *bits = b[t], *emin = e[t];
}

/* v rounded to the type, to nearest even (int8: wrapped around). Finite values whose exponent the
 * type holds: the tests' sums stay far from overflow. */
static double dtrRefRound(dtrDataType_t t, double v) {
  int bits, emin;
  dtrRefFormat(t, &bits, &emin);
  if (!bits) {
    const int64_t w = ((int64_t)v % 256 + 256) % 256;
    return (double)(w > 127 ? w - 256 : w);
  }
  if (v == 0 || bits == 53) return v;
  int e = ilogb(v);
  if (e < emin) e = emin;
  const double q = ldexp(1.0, e - (bits - 1));
  return nearbyint(v / q) * q;
}

/* One scalar's sum: exact in double first (or rounded there once, harmlessly: 53 bits are more than
 * twice the type's plus two), then rounded to the type. */
static double dtrRefAdd(dtrDataType_t t, double a, double b) { return dtrRefRound(t, a + b); }

static double dtrRefDecode(dtrDataType_t t, const unsigned char* p) {
  switch (t) {
    case dtrInt8: return (double)(int8_t)p[0];
    case dtrFloat16: {
      const unsigned h = p[0] | (unsigned)p[1] << 8, e = h >> 10 & 31, m = h & 1023;
      const double mag = e ? ldexp(1024.0 + m, (int)e - 25) : ldexp((double)m, -24);
      return h & 0x8000 ? -mag : mag;
    }
    case dtrBfloat16: {
      const uint32_t u = (uint32_t)(p[0] | (unsigned)p[1] << 8) << 16;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    case dtrFloat32:
    case dtrComplex64: {
      float f;
      memcpy(&f, p, 4);
      return f;
    }
    default: {
      double d;
      memcpy(&d, p, 8);
      return d;
    }
  }
}

/* v, one of the type's values, as its bytes. */
static void dtrRefEncode(dtrDataType_t t, double v, unsigned char* p) {
  switch (t) {
    case dtrInt8: p[0] = (unsigned char)(int8_t)v; return;
    case dtrFloat16: {
      const double a = fabs(v);
      unsigned h = signbit(v) ? 0x8000u : 0;
      if (a != 0 && a < ldexp(1.0, -14)) h |= (unsigned)ldexp(a, 24);
      else if (a != 0) h |= (unsigned)(ilogb(a) + 15) << 10 | (unsigned)(ldexp(a, 10 - ilogb(a)) - 1024);
      p[0] = (unsigned char)h, p[1] = (unsigned char)(h >> 8);
      return;
    }
    case dtrBfloat16: {
      const float f = (float)v;
      uint32_t u;
      memcpy(&u, &f, 4);
      p[0] = (unsigned char)(u >> 16), p[1] = (unsigned char)(u >> 24);
      return;
    }
    case dtrFloat32:
    case dtrComplex64: {
      const float f = (float)v;
      memcpy(p, &f, 4);
      return;
    }
    default: memcpy(p, &v, 8); return;
  }
}

/* The padded array of rank r as bytes, and back. */
static void dtrRefToBytes(const dtrRefWorld* w, int r, unsigned char* out) {
  const size_t n = w->padded[r].bytes / w->bytes;
  for (size_t i = 0; i < n; i++) dtrRefEncode(w->type, w->v[r][i], out + i * w->bytes);
}

/* Cells of rank r's padded array. */
static int64_t dtrRefCells(const dtrRefWorld* w, int r) {
  return w->padded[r].size[0] * w->padded[r].size[1] * w->padded[r].size[2];
}

/* The memory index of padded cell c (0 is the first halo cell along each axis) of rank r. */
static int64_t dtrRefIndex(const dtrRefWorld* w, int r, const int64_t c[3]) {
  const dtrBox_t* p = &w->padded[r];
  const int* o = p->order;
  return c[o[0]] + p->size[o[0]] * (c[o[1]] + p->size[o[1]] * c[o[2]]);
}

/* The padded cell of memory index u. */
static void dtrRefCell(const dtrRefWorld* w, int r, int64_t u, int64_t c[3]) {
  const dtrBox_t* p = &w->padded[r];
  for (int d = 0; d < 3; d++) {
    c[p->order[d]] = u % p->size[p->order[d]];
    u /= p->size[p->order[d]];
  }
}

static int dtrRefWrittenAlong(const dtrRefWorld* w, int r, const int64_t c[3], int d) {
  const int64_t g = w->padded[r].start[d] + c[d];
  return w->periodic[d] || (g >= 0 && g < w->shape[d]);
}

static int dtrRefInteriorAlong(const dtrRefWorld* w, int r, const int64_t c[3], int d) {
  return c[d] >= w->halo[d] && c[d] < w->halo[d] + w->box[r].size[d];
}

static int dtrRefRanksAlong(const dtrRefWorld* w, int d) { return w->split[d] == 1 ? w->pr : w->split[d] == 2 ? w->pc : 1; }

/* The flat sums, exact for small integers (and wrapping for int8): into `out`, rank r's result. */
static void dtrRefSum(const dtrRefWorld* w, int me, double* out) {
  const int64_t n = w->shape[0] * w->shape[1] * w->shape[2];
  double* total = calloc((size_t)(n * w->scalars) + 1, sizeof *total);
  for (int r = 0; r < w->nranks; r++)
    for (int64_t u = 0; u < dtrRefCells(w, r); u++) {
      int64_t c[3], g[3];
      dtrRefCell(w, r, u, c);
      int written = 1;
      for (int d = 0; d < 3; d++) {
        written &= dtrRefWrittenAlong(w, r, c, d);
        g[d] = ((w->padded[r].start[d] + c[d]) % w->shape[d] + w->shape[d]) % w->shape[d];
      }
      if (!written) continue;
      const int64_t at = g[0] + w->shape[0] * (g[1] + w->shape[1] * g[2]);
      for (int k = 0; k < w->scalars; k++)
        total[at * w->scalars + k] = dtrRefAdd(w->type, total[at * w->scalars + k], w->v[r][u * w->scalars + k]);
    }
  for (int64_t u = 0; u < dtrRefCells(w, me); u++) {
    int64_t c[3], g[3];
    dtrRefCell(w, me, u, c);
    int interior = 1, written = 1;
    for (int d = 0; d < 3; d++) {
      interior &= dtrRefInteriorAlong(w, me, c, d);
      written &= dtrRefWrittenAlong(w, me, c, d);
      g[d] = w->padded[me].start[d] + c[d];
    }
    const int64_t at = g[0] + w->shape[0] * (g[1] + w->shape[1] * g[2]);
    for (int k = 0; k < w->scalars; k++)
      out[u * w->scalars + k] = interior ? total[at * w->scalars + k] : written ? 0 : w->v[me][u * w->scalars + k];
  }
  free(total);
}

/* v[r][to] += v[t][from], scalar by scalar. */
static void dtrRefAddCell(dtrRefWorld* w, int r, int64_t to, int t, int64_t from) {
  for (int k = 0; k < w->scalars; k++)
    w->v[r][to * w->scalars + k] = dtrRefAdd(w->type, w->v[r][to * w->scalars + k], w->v[t][from * w->scalars + k]);
}

/* Zeroes the written cells of every rank that lie in the halo of one of the axes `axes` (bits). */
static void dtrRefZero(dtrRefWorld* w, int axes) {
  for (int r = 0; r < w->nranks; r++)
    for (int64_t u = 0; u < dtrRefCells(w, r); u++) {
      int64_t c[3];
      dtrRefCell(w, r, u, c);
      int written = 1, halo = 0;
      for (int d = 0; d < 3; d++) {
        written &= dtrRefWrittenAlong(w, r, c, d);
        halo |= (axes >> d & 1) && !dtrRefInteriorAlong(w, r, c, d);
      }
      if (written && halo) memset(&w->v[r][u * w->scalars], 0, (size_t)w->scalars * sizeof(double));
    }
}

/* The wraps of the local axes (periodic, of one rank, a halo): each cell that is interior along them
 * gets its images in their halos, by the halo's part along each axis (low, none, high) with x's
 * fastest. */
static void dtrRefWraps(dtrRefWorld* w) {
  int local = 0;
  for (int d = 0; d < 3; d++) local |= (dtrRefRanksAlong(w, d) == 1 && w->periodic[d] && w->halo[d] > 0) << d;
  if (!local) return;
  for (int r = 0; r < w->nranks; r++)
    for (int64_t u = 0; u < dtrRefCells(w, r); u++) {
      int64_t c[3];
      dtrRefCell(w, r, u, c);
      int source = 1;
      for (int d = 0; d < 3; d++)
        source &= local >> d & 1 ? dtrRefInteriorAlong(w, r, c, d) : dtrRefWrittenAlong(w, r, c, d);
      for (int combo = 0; combo < 27 && source; combo++) {
        const int part[3] = {combo % 3, combo / 3 % 3, combo / 9};
        int64_t m[3];
        int valid = combo != 13;
        for (int d = 0; d < 3; d++) {
          const int64_t h = w->halo[d], size = w->box[r].size[d];
          if (!(local >> d & 1)) valid &= part[d] == 1;
          m[d] = part[d] == 0 ? c[d] - size : part[d] == 2 ? c[d] + size : c[d];
          if (part[d] == 0) valid &= m[d] >= 0 && m[d] < h;
          if (part[d] == 2) valid &= m[d] >= h + size && m[d] < 2 * h + size;
        }
        if (valid) dtrRefAddCell(w, r, u, r, dtrRefIndex(w, r, m));
      }
    }
  dtrRefZero(w, local);
}

/* Split axis d: each cell interior along it gets the halo cells of its group's ranks that stand for it. */
static void dtrRefStep(dtrRefWorld* w, int d) {
  const int64_t n = w->shape[d], h = w->halo[d];
  for (int r = 0; r < w->nranks; r++)
    for (int64_t u = 0; u < dtrRefCells(w, r); u++) {
      int64_t c[3];
      dtrRefCell(w, r, u, c);
      int target = dtrRefInteriorAlong(w, r, c, d);
      for (int e = 0; e < 3; e++) target &= e == d || dtrRefWrittenAlong(w, r, c, e);
      if (!target) continue;
      const int64_t g = w->box[r].start[d] + c[d] - h;
      for (int q = 0; q < dtrRefRanksAlong(w, d); q++) {
        int t = 0; /* the rank at group coordinate q with r's other coordinate */
        while (w->coord[t][w->split[d] - 1] != q || w->coord[t][2 - w->split[d]] != w->coord[r][2 - w->split[d]]) t++;
        for (int side = 0; side < 2; side++)
          for (int64_t k = side ? h + w->box[t].size[d] : 0; k < (side ? 2 * h + w->box[t].size[d] : h); k++) {
            const int64_t v = w->padded[t].start[d] + k;
            if (!w->periodic[d] && (v < 0 || v >= n)) continue;
            if ((v % n + n) % n != g) continue;
            int64_t m[3] = {c[0], c[1], c[2]};
            m[d] = k;
            dtrRefAddCell(w, r, u, t, dtrRefIndex(w, t, m));
          }
      }
    }
  dtrRefZero(w, 1 << d);
}

static void dtrRefAdjoint(dtrRefWorld* w) {
  dtrRefWraps(w);
  const int* o = w->padded[0].order;
  for (int k = 0; k < 3; k++)
    if (dtrRefRanksAlong(w, o[k]) > 1 && w->halo[o[k]] > 0) dtrRefStep(w, o[k]);
}

#endif
