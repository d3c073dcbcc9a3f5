#include "params.h"

#include <stdio.h>
#include <stdlib.h>

#include "debug.h"
#include "names.h"

static dtrEnvParams params;
static int loaded = 0;

static void bad(const char* var, const char* value, const char* choices) {
  if (params.bad) return;
  params.bad = 1;
  snprintf(params.bad_message, sizeof params.bad_message, "%s=%s is not one of %s", var, value, choices);
}

const dtrEnvParams* dtrEnvParamsGet(void) {
  if (loaded) return &params;
  loaded = 1;
  params.backend = dtrBackendAuto;
  params.kernel = dtrKernelAuto;
  params.tune_iters = 3;
  const char* v;
  if ((v = getenv("DTR_BACKEND")) && *v) {
    if (dtrParseBackend(v, &params.backend)) bad("DTR_BACKEND", v, dtrBackendChoices());
    else INFO("DTR_BACKEND set by environment to %s", v);
  }
  if ((v = getenv("DTR_KERNEL")) && *v) {
    if (dtrParseKernel(v, &params.kernel)) bad("DTR_KERNEL", v, dtrKernelChoices());
    else INFO("DTR_KERNEL set by environment to %s", v);
  }
  if ((v = getenv("DTR_TUNE_ITERS")) && *v) {
    char* end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1000) bad("DTR_TUNE_ITERS", v, "0..1000");
    else {
      params.tune_iters = (int)n;
      INFO("DTR_TUNE_ITERS set by environment to %ld", n);
    }
  }
  return &params;
}
