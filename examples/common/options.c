#include "options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int listed(const char* const* list, const char* a) {
  for (; *list; list++)
    if (!strcmp(*list, a)) return 1;
  return 0;
}

int exReadOptions(int argc, char** argv, const char* const* flags, const char* const* valued, ExTakeOption take, void* options,
                  char* msg, size_t len) {
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
    const char* v = NULL;
    if (!listed(flags, a)) {
      if (!listed(valued, a)) {
        snprintf(msg, len, "unknown option '%s' (see --help)", a);
        return -1;
      }
      if (i + 1 >= argc) {
        snprintf(msg, len, "%s needs a value (see --help)", a);
        return -1;
      }
      v = argv[++i];
    }
    const char* why = take(options, a, v);
    if (why) {
      snprintf(msg, len, "%s '%s': expected %s", a, v ? v : "", why);
      return -1;
    }
  }
  return 0;
}

int exParseWhole(const char* v, long long lo, long long hi, long long* out) {
  char* end;
  const long long x = strtoll(v, &end, 10);
  if (end == v || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int exParseReal(const char* v, double* out) {
  char* end;
  const double x = strtod(v, &end);
  if (end == v || *end || !isfinite(x)) return -1;
  *out = x;
  return 0;
}

int exParseDims(const char* v, int count, long long hi, long long* out) {
  const char* p = v;
  int k = 0;
  while (k < count) {
    char* end;
    const long long x = strtoll(p, &end, 10);
    if (end == p || x < 1 || x > hi) return -1;
    out[k++] = x;
    p = end;
    if (!*p) break;
    if (*p != 'x' && *p != 'X') return -1;
    p++;
  }
  if (*p) return -1;
  if (k == 1 && count == 3) out[1] = out[2] = out[0], k = 3;
  return k == count ? 0 : -1;
}

const char* exParseGrid(const char* v, int* autogrid, int* pr, int* pc) {
  long long g[2];
  *autogrid = !strcmp(v, "auto");
  *pr = *pc = 0;
  if (*autogrid) return NULL;
  if (exParseDims(v, 2, 65536, g)) return "PRxPC (two whole numbers, as 2x2) or auto";
  *pr = (int)g[0], *pc = (int)g[1];
  return NULL;
}

const char* exParseBackend(const char* v, int everyGpu, dtrBackend_t* backend, int* gpu) {
  if (!strcmp(v, "auto")) *backend = dtrBackendAuto, *gpu = everyGpu;
  else if (!strcmp(v, "cpu")) *backend = dtrBackendCpu, *gpu = 0;
  else if (!strcmp(v, "nccl")) *backend = dtrBackendNccl, *gpu = 1;
  else if (!strcmp(v, "p2p")) *backend = dtrBackendP2p, *gpu = 1;
  else return "one of auto, cpu, nccl, p2p";
  return NULL;
}

int exParsePrecision(const char* v, int* dbl) {
  if (!strcmp(v, "fp64") || !strcmp(v, "c128")) *dbl = 1;
  else if (!strcmp(v, "fp32") || !strcmp(v, "c64")) *dbl = 0;
  else return -1;
  return 0;
}
