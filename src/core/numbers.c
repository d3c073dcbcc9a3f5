#include "numbers.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int refuse(char* why, size_t len, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char* why, size_t len, const char* fmt, ...) {
  if (why && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int isDigit(char c) { return c >= '0' && c <= '9'; }

/* What is wrong with text that is not digits, before the digits are read: empty, blanks, signs. */
static const char* shapeProblem(const char* s, int signAllowed) {
  if (!s || !*s) return "empty";
  if (s[0] == ' ' || s[0] == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t' || strchr(s, '\n'))
    return "a blank is not part of a number";
  if (s[0] == '+' || (s[0] == '-' && !signAllowed)) return "a sign is not part of this number";
  return NULL;
}

/* Digits [first, end) as an unsigned value; 0, or -1 past `max`. */
static int digitsValue(const char* s, const char* end, uint64_t max, uint64_t* out) {
  uint64_t v = 0;
  for (const char* p = s; p < end; p++) {
    const uint64_t d = (uint64_t)(*p - '0');
    if (v > (max - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

int dtrParseCount(const char* s, int64_t lo, int64_t hi, int64_t* out, char* why, size_t len) {
  char expect[96];
  snprintf(expect, sizeof expect, "expected a whole number from %lld to %lld", (long long)lo, (long long)hi);
  const char* problem = shapeProblem(s, lo < 0);
  if (problem) return refuse(why, len, "%s; %s", problem, expect);
  const int negative = s[0] == '-';
  const char* d = s + negative;
  const char* end = d;
  while (isDigit(*end)) end++;
  if (end == d || *end) return refuse(why, len, "not a whole number; %s", expect);
  uint64_t mag;
  const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  if (digitsValue(d, end, limit, &mag)) return refuse(why, len, "too large; %s", expect);
  const int64_t v = negative ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
  if (v < lo || v > hi) return refuse(why, len, "out of range; %s", expect);
  *out = v;
  return 0;
}

/* "1023", "64K", "1T": the shortest way to write a size in the suffixes dtrParseSize takes. */
static const char* sizeText(uint64_t v, char* buf, size_t len) {
  static const char units[] = "KMGT";
  int u = -1;
  while (u < 3 && v >= 1024 && v % 1024 == 0) v /= 1024, u++;
  if (u < 0) snprintf(buf, len, "%llu", (unsigned long long)v);
  else snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
  return buf;
}

int dtrParseSize(const char* s, uint64_t lo, uint64_t hi, uint64_t* out, char* why, size_t len) {
  char a[32], b[32], expect[192];
  snprintf(expect, sizeof expect, "expected a size from %s to %s (digits, then K, M, G or T for powers of 1024)",
           sizeText(lo, a, sizeof a), sizeText(hi, b, sizeof b));
  const char* problem = shapeProblem(s, 0);
  if (problem) return refuse(why, len, "%s; %s", problem, expect);
  const char* end = s;
  while (isDigit(*end)) end++;
  if (end == s) return refuse(why, len, "not a size; %s", expect);
  unsigned shift = 0;
  const char* p = end;
  switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
  }
  if (shift && (*p == 'i' || *p == 'I')) p++;
  if (*p == 'b' || *p == 'B') p++;
  if (*p) return refuse(why, len, "'%s' is not a unit; %s", end, expect);
  uint64_t v;
  if (digitsValue(s, end, UINT64_MAX >> shift, &v)) return refuse(why, len, "too large; %s", expect);
  v <<= shift;
  if (v < lo || v > hi) return refuse(why, len, "out of range; %s", expect);
  *out = v;
  return 0;
}

int dtrParseReal(const char* s, double lo, double hi, double* out, char* why, size_t len) {
  char expect[96];
  snprintf(expect, sizeof expect, "expected a number from %g to %g", lo, hi);
  const char* problem = shapeProblem(s, lo < 0);
  if (problem) return refuse(why, len, "%s; %s", problem, expect);
  /* digits[.digits] or .digits, then e[-|+]digits: what strtod reads, less hexadecimal, inf and nan. */
  const char* p = s + (s[0] == '-');
  int digits = 0;
  while (isDigit(*p)) p++, digits++;
  if (*p == '.') {
    p++;
    while (isDigit(*p)) p++, digits++;
  }
  if (digits && (*p == 'e' || *p == 'E')) {
    p++;
    if (*p == '-' || *p == '+') p++;
    if (!isDigit(*p)) return refuse(why, len, "not a number; %s", expect);
    while (isDigit(*p)) p++;
  }
  if (!digits || *p) return refuse(why, len, "not a number; %s", expect);
  errno = 0;
  char* end;
  const double v = strtod(s, &end);
  if (end != p || !isfinite(v) || errno == ERANGE) return refuse(why, len, "out of range; %s", expect);
  if (!(v >= lo && v <= hi)) return refuse(why, len, "out of range; %s", expect);
  *out = v;
  return 0;
}
