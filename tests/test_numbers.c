/*
 * The strict number parsers (src/core/numbers.h) that every option and environment variable goes through:
 * the cases users have tripped on, each refusal's message, and a differential fuzz of 300,000 texts
 * against a reference written independently here (a pattern match and 128-bit arithmetic): the two
 * must accept the same texts with the same values, and a refusal must leave the output alone and say
 * why.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/numbers.h"

/* ---- the cases ------------------------------------------------------------------------------- */

static void expectCount(const char* s, int64_t lo, int64_t hi, int ok, int64_t want, const char* words) {
  int64_t v = 77;
  char why[256] = "";
  const int r = dtrParseCount(s, lo, hi, &v, why, sizeof why);
  EXPECT((r == 0) == ok, "count '%s' [%lld, %lld]: %s (%s)", s, (long long)lo, (long long)hi, r ? "refused" : "accepted", why);
  if (ok && r == 0) EXPECT(v == want, "count '%s' gave %lld, not %lld", s, (long long)v, (long long)want);
  if (!ok && r) EXPECT(v == 77 && strstr(why, words), "count '%s': '%s' should say '%s' and leave the value", s, why, words);
}

static void expectSize(const char* s, uint64_t hi, int ok, uint64_t want, const char* words) {
  uint64_t v = 77;
  char why[256] = "";
  const int r = dtrParseSize(s, 1, hi, &v, why, sizeof why);
  EXPECT((r == 0) == ok, "size '%s': %s (%s)", s, r ? "refused" : "accepted", why);
  if (ok && r == 0) EXPECT(v == want, "size '%s' gave %llu, not %llu", s, (unsigned long long)v, (unsigned long long)want);
  if (!ok && r) EXPECT(v == 77 && strstr(why, words), "size '%s': '%s' should say '%s'", s, why, words);
}

static void expectReal(const char* s, double lo, double hi, int ok, double want, const char* words) {
  double v = 77;
  char why[256] = "";
  const int r = dtrParseReal(s, lo, hi, &v, why, sizeof why);
  EXPECT((r == 0) == ok, "real '%s': %s (%s)", s, r ? "refused" : "accepted", why);
  if (ok && r == 0) EXPECT(v == want, "real '%s' gave %g, not %g", s, v, want);
  if (!ok && r) EXPECT(v == 77 && strstr(why, words), "real '%s': '%s' should say '%s'", s, why, words);
}

static void cases(void) {
  expectCount("4", 0, 64, 1, 4, "");
  expectCount("064", 0, 64, 1, 64, "");
  expectCount(" 4", 0, 64, 0, 0, "blank");
  expectCount("4 ", 0, 64, 0, 0, "blank");
  expectCount(" -4", 0, 64, 0, 0, "blank");
  expectCount("-4", 0, 64, 0, 0, "sign");
  expectCount("+4", 0, 64, 0, 0, "sign");
  expectCount("-1", -1, 64, 1, -1, "");
  expectCount("-2", -1, 64, 0, 0, "from -1 to 64");
  expectCount("65", 0, 64, 0, 0, "out of range");
  expectCount("4.0", 0, 64, 0, 0, "whole number");
  expectCount("0x10", 0, 64, 0, 0, "whole number");
  expectCount("4K", 0, 1 << 20, 0, 0, "whole number");
  expectCount("", 0, 64, 0, 0, "empty");
  expectCount("yes", 0, 1, 0, 0, "whole number from 0 to 1");
  expectCount("9223372036854775807", 0, INT64_MAX, 1, INT64_MAX, "");
  expectCount("9223372036854775808", 0, INT64_MAX, 0, 0, "too large");
  expectCount("-9223372036854775808", INT64_MIN, 0, 1, INT64_MIN, "");
  expectCount("18446744073709551617", 0, INT64_MAX, 0, 0, "too large");
  expectSize("64", UINT64_MAX, 1, 64, "");
  expectSize("3G", UINT64_MAX, 1, 3ull << 30, "");
  expectSize("64KiB", UINT64_MAX, 1, 64ull << 10, "");
  expectSize("4gb", UINT64_MAX, 1, 4ull << 30, "");
  expectSize("1T", UINT64_MAX, 1, 1ull << 40, "");
  expectSize("16777215T", UINT64_MAX, 1, 16777215ull << 40, "");
  expectSize("16777216T", UINT64_MAX, 0, 0, "too large"); /* 2^64 */
  expectSize("18446744073709551615", UINT64_MAX, 1, UINT64_MAX, "");
  expectSize("18446744073709551616", UINT64_MAX, 0, 0, "too large");
  expectSize("99999999999T", UINT64_MAX, 0, 0, "too large");
  expectSize(" -5", UINT64_MAX, 0, 0, "blank"); /* once taken as 2^64 - 5 */
  expectSize("-5", UINT64_MAX, 0, 0, "sign");
  expectSize("1.5G", UINT64_MAX, 0, 0, "not a unit");
  expectSize("16E", UINT64_MAX, 0, 0, "'E' is not a unit");
  expectSize("1X", UINT64_MAX, 0, 0, "'X' is not a unit");
  expectSize("G", UINT64_MAX, 0, 0, "not a size");
  expectSize("0", UINT64_MAX, 0, 0, "out of range");
  expectSize("2E", (uint64_t)1 << 60, 0, 0, "to 1048576T");
  expectSize("1048577T", (uint64_t)1 << 60, 0, 0, "out of range");
  expectReal("2", 0, 1e9, 1, 2, "");
  expectReal("0.5", 0, 1e9, 1, 0.5, "");
  expectReal(".5", 0, 1e9, 1, 0.5, "");
  expectReal("5.", 0, 1e9, 1, 5, "");
  expectReal("1e-3", 0, 1e9, 1, 1e-3, "");
  expectReal("1E+2", 0, 1e9, 1, 100, "");
  expectReal("-1", 0, 1e9, 0, 0, "sign");
  expectReal(" 1", 0, 1e9, 0, 0, "blank");
  expectReal("inf", 0, 1e9, 0, 0, "not a number");
  expectReal("nan", 0, 1e9, 0, 0, "not a number");
  expectReal("0x1p3", 0, 1e9, 0, 0, "not a number");
  expectReal("1e", 0, 1e9, 0, 0, "not a number");
  expectReal(".", 0, 1e9, 0, 0, "not a number");
  expectReal("1e309", 0, 1e9, 0, 0, "out of range");
  expectReal("1e-400", 0, 1e9, 0, 0, "out of range");
  expectReal("2e9", 0, 1e9, 0, 0, "out of range");
  expectReal("1s", 0, 1e9, 0, 0, "not a number");
}

/* ---- the reference and the fuzz -------------------------------------------------------------- */

static int digit(char c) { return c >= '0' && c <= '9'; }

/* Digits [s, e) as a 128-bit value, capped at 2^100 (beyond every range here). */
static __int128 value128(const char* s, const char* e) {
  __int128 v = 0;
  for (; s < e; s++) {
    v = v * 10 + (*s - '0');
    if (v > ((__int128)1 << 100)) v = (__int128)1 << 100;
  }
  return v;
}

static int refCount(const char* s, int64_t lo, int64_t hi, int64_t* out) {
  const char* p = s;
  int neg = 0;
  if (*p == '-' && lo < 0) neg = 1, p++;
  const char* d = p;
  while (digit(*p)) p++;
  if (p == d || *p) return -1;
  const __int128 v = neg ? -value128(d, p) : value128(d, p);
  if (v < lo || v > hi) return -1;
  *out = (int64_t)v;
  return 0;
}

static int refSize(const char* s, uint64_t lo, uint64_t hi, uint64_t* out) {
  const char* p = s;
  while (digit(*p)) p++;
  if (p == s) return -1;
  const char* e = p;
  int shift = 0;
  const char* units = "kKmMgGtT";
  if (*p && strchr(units, *p)) {
    shift = 10 * (1 + (int)((strchr(units, *p) - units) / 2));
    p++;
    if (*p == 'i' || *p == 'I') p++;
  }
  if (*p == 'b' || *p == 'B') p++;
  if (*p) return -1;
  const __int128 v = value128(s, e) << shift;
  if (v < (__int128)lo || v > (__int128)hi) return -1;
  *out = (uint64_t)v;
  return 0;
}

static int refReal(const char* s, double lo, double hi, double* out) {
  const char* p = s;
  if (*p == '-' && lo < 0) p++;
  int n = 0;
  while (digit(*p)) p++, n++;
  if (*p == '.')
    for (p++; digit(*p); p++) n++;
  if (!n) return -1;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!digit(*p)) return -1;
    while (digit(*p)) p++;
  }
  if (*p) return -1;
  const double v = strtod(s, NULL);
  if (!isfinite(v) || !(v >= lo && v <= hi)) return -1;
  if (v == 0 && value128(s, s) == 0) { /* underflow to 0 of a nonzero text is out of range */
    for (const char* q = s; *q && *q != 'e' && *q != 'E'; q++)
      if (*q >= '1' && *q <= '9') return -1;
  }
  *out = v;
  return 0;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static void fuzz(void) {
  static const char alphabet[] = "0123456789000111999 \t+-.eExXkKmMgGtTiIbB";
  uint64_t state = 20261124;
  long agreed = 0, accepted = 0;
  for (int iter = 0; iter < 300000; iter++) {
    char s[40];
    const uint64_t r = mix(state++);
    const int n = (int)(r % 26);
    for (int i = 0; i < n; i++) s[i] = alphabet[mix(r + (uint64_t)i + 1) % (sizeof alphabet - 1)];
    s[n] = '\0';
    char why[256];
    /* counts: three ranges, one of them signed */
    const int64_t los[] = {0, -1, INT64_MIN}, his[] = {64, 1023, INT64_MAX};
    const int k = (int)((r >> 40) % 3);
    int64_t a = 5, b = 5;
    why[0] = '\0';
    const int ra = dtrParseCount(s, los[k], his[k], &a, why, sizeof why), rb = refCount(s, los[k], his[k], &b);
    if ((ra == 0) != (rb == 0) || (ra == 0 && a != b) || (ra && (a != 5 || !why[0]))) {
      EXPECT(0, "count '%s' [%lld, %lld]: parser %d (%lld, '%s'), reference %d (%lld)", s, (long long)los[k],
             (long long)his[k], ra, (long long)a, why, rb, (long long)b);
      return;
    }
    /* sizes: the CLI's --rows, --minbytes and DTR_HOST_MEMORY ranges */
    const uint64_t shi[] = {(uint64_t)INT64_MAX, (uint64_t)1 << 60, (uint64_t)1 << 50};
    uint64_t u = 5, w = 5;
    why[0] = '\0';
    const int su = dtrParseSize(s, 1, shi[k], &u, why, sizeof why), sw = refSize(s, 1, shi[k], &w);
    if ((su == 0) != (sw == 0) || (su == 0 && u != w) || (su && (u != 5 || !why[0]))) {
      EXPECT(0, "size '%s': parser %d (%llu, '%s'), reference %d (%llu)", s, su, (unsigned long long)u, why, sw,
             (unsigned long long)w);
      return;
    }
    /* reals: DTR_TIMEOUT's range and --stepfactor's */
    const double rlo[] = {0, 1, 0}, rhi[] = {1e9, 1000, 1e9};
    double x = 5, y = 5;
    why[0] = '\0';
    const int rx = dtrParseReal(s, rlo[k], rhi[k], &x, why, sizeof why), ry = refReal(s, rlo[k], rhi[k], &y);
    if ((rx == 0) != (ry == 0) || (rx == 0 && x != y) || (rx && (x != 5 || !why[0]))) {
      EXPECT(0, "real '%s': parser %d (%g, '%s'), reference %d (%g)", s, rx, x, why, ry, y);
      return;
    }
    agreed++;
    accepted += (ra == 0) + (su == 0) + (rx == 0);
  }
  EXPECT(accepted > 10000, "the fuzz accepted only %ld texts: it tests refusals alone", accepted);
  printf("numbers fuzz: %ld texts, parser and reference agree on each (%ld acceptances among them)\n", agreed, accepted);
}

int main(void) {
  cases();
  fuzz();
  return dtrTestEnd("numbers");
}
