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

static void readInt(const char* var, long lo, long hi, int* out) {
  const char* v = getenv(var);
  if (!v || !*v) return;
  char* end;
  long n = strtol(v, &end, 10);
  if (*end || n < lo || n > hi) {
    char range[64];
    snprintf(range, sizeof range, "%ld..%ld", lo, hi);
    bad(var, v, range);
    return;
  }
  *out = (int)n;
  INFO("%s set by environment to %ld", var, n);
}

static void readSeconds(const char* var, double* out) {
  const char* v = getenv(var);
  if (!v || !*v) return;
  char* end;
  double t = strtod(v, &end);
  if (*end || !(t >= 0) || t > 1e9) {
    bad(var, v, "seconds >= 0 (0: off)");
    return;
  }
  *out = t;
  INFO("%s set by environment to %g s", var, t);
}

const dtrEnvParams* dtrEnvParamsGet(void) {
  if (loaded) return &params;
  loaded = 1;
  params.backend = dtrBackendAuto;
  params.kernel = dtrKernelAuto;
  params.tune_iters = 3;
  /* 0: the kernels' own defaults, measured per kernel and element size. */
  params.tma_boxes = 0;
  params.tile_group = 0;
  params.tiles_per_cta = 0;
  params.segment_align = 16;
  params.execute_agree = 1;
  params.nccl_register = 1;
  params.p2p_fused_barriers = 1;
  const char* v;
  if ((v = getenv("DTR_BACKEND")) && *v) {
    if (dtrParseBackend(v, &params.backend)) bad("DTR_BACKEND", v, dtrBackendChoices());
    else INFO("DTR_BACKEND set by environment to %s", v);
  }
  if ((v = getenv("DTR_KERNEL")) && *v) {
    if (dtrParseKernel(v, &params.kernel)) bad("DTR_KERNEL", v, dtrKernelChoices());
    else INFO("DTR_KERNEL set by environment to %s", v);
  }
  readInt("DTR_TUNE_ITERS", 0, 1000, &params.tune_iters);
  readInt("DTR_TMA_BOXES", 0, 2, &params.tma_boxes);
  readInt("DTR_TILE_GROUP", 0, 1 << 20, &params.tile_group);
  readInt("DTR_STREAMING", 0, 1, &params.streaming);
  readInt("DTR_TILES_PER_CTA", -1, 1 << 20, &params.tiles_per_cta);
  readInt("DTR_STAGES", 0, DTR_MAX_STAGES, &params.stages);
  readInt("DTR_SEGMENT_ALIGN", 1, 4096, &params.segment_align);
  readInt("DTR_P2P_CTAS", 0, 1 << 16, &params.p2p_ctas);
  readInt("DTR_P2P_FUSED_BARRIERS", 0, 1, &params.p2p_fused_barriers);
  readInt("DTR_EXECUTE_AGREE", 0, 1, &params.execute_agree);
  readInt("DTR_NCCL_REGISTER", 0, 1, &params.nccl_register);
  readInt("DTR_PERF_REPORT", 0, 1, &params.perf_report);
  readSeconds("DTR_TIMEOUT", &params.timeout);
  if ((v = getenv("DTR_HOST_MEMORY")) && *v) {
    if (dtrParseSize(v, &params.host_memory) || !params.host_memory) bad("DTR_HOST_MEMORY", v, "a size such as 64G");
    else INFO("DTR_HOST_MEMORY set by environment to %s", v);
  }
  return &params;
}
