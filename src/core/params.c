#include "params.h"

#include <stdio.h>
#include <stdlib.h>

#include "debug.h"
#include "names.h"
#include "numbers.h"

static dtrEnvParams params;
static int loaded = 0;

/* The first bad value is the one reported (checkConfig fails every plan with it). */
static void bad(const char* var, const char* value, const char* why) {
  if (params.bad) return;
  params.bad = 1;
  snprintf(params.bad_message, sizeof params.bad_message, "%s='%s': %s", var, value, why);
}

/* An unset or empty variable keeps the default. */
static const char* get(const char* var) {
  const char* v = getenv(var);
  return v && *v ? v : NULL;
}

static void readInt(const char* var, long lo, long hi, int* out) {
  const char* v = get(var);
  if (!v) return;
  char why[160];
  int64_t n;
  if (dtrParseCount(v, lo, hi, &n, why, sizeof why)) {
    bad(var, v, why);
    return;
  }
  *out = (int)n;
  INFO("%s set by environment to %lld", var, (long long)n);
}

static void readSeconds(const char* var, double* out) {
  const char* v = get(var);
  if (!v) return;
  char why[160];
  if (dtrParseReal(v, 0, 1e9, out, why, sizeof why)) {
    bad(var, v, why);
    return;
  }
  INFO("%s set by environment to %g s", var, *out);
}

const dtrEnvParams* dtrEnvParamsGet(void) {
  if (loaded) return &params;
  loaded = 1;
  params.backend = dtrBackendAuto;
  params.kernel = dtrKernelAuto;
  params.tune_iters = 3;
  params.tune_mib = 128;
  /* 0: the kernels' own defaults, measured per kernel and element size. */
  params.tma_boxes = 0;
  params.tile_group = 0;
  params.tiles_per_cta = 0;
  params.segment_align = 16;
  params.execute_agree = 1;
  params.nccl_register = 1;
  params.p2p_fused_barriers = 1;
  params.fft_copies = 1;
  params.fft_pass_async = 3;
  params.halo_direct = 1;
  const char* v;
  char why[256];
  if ((v = get("DTR_BACKEND"))) {
    snprintf(why, sizeof why, "not one of %s", dtrBackendChoices());
    if (dtrParseBackend(v, &params.backend)) bad("DTR_BACKEND", v, why);
    else INFO("DTR_BACKEND set by environment to %s", v);
  }
  if ((v = get("DTR_KERNEL"))) {
    snprintf(why, sizeof why, "not one of %s", dtrKernelChoices());
    if (dtrParseKernel(v, &params.kernel)) bad("DTR_KERNEL", v, why);
    else INFO("DTR_KERNEL set by environment to %s", v);
  }
  readInt("DTR_TUNE_ITERS", 0, 1000, &params.tune_iters);
  readInt("DTR_TUNE_MIB", 0, 1 << 24, &params.tune_mib);
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
  readInt("DTR_FFT_CHUNKS", 0, DTR_FFT_MAX_CHUNKS, &params.fft_chunks);
  readInt("DTR_FFT_CTAS", 0, 1 << 16, &params.fft_ctas);
  readInt("DTR_FFT_COPIES", 0, 1, &params.fft_copies);
  readInt("DTR_FFT_COPY_STREAMS", 0, 1 << 10, &params.fft_copy_streams);
  readInt("DTR_FFT_ROUNDS", 0, DTR_FFT_MAX_CHUNKS, &params.fft_rounds);
  readInt("DTR_FFT_PASS_STREAMS", 0, 2, &params.fft_pass_streams);
  readInt("DTR_FFT_DELIVER", 0, 2, &params.fft_deliver);
  readInt("DTR_FFT_GATHER", 0, 1, &params.fft_gather);
  readInt("DTR_FFT_PASS_ASYNC", 0, 64, &params.fft_pass_async);
  readInt("DTR_HALO_DIRECT", 0, 1, &params.halo_direct);
  readSeconds("DTR_TIMEOUT", &params.timeout);
  if ((v = get("DTR_HOST_MEMORY"))) {
    if (dtrParseSize(v, 1, (uint64_t)1 << 50, &params.host_memory, why, sizeof why)) bad("DTR_HOST_MEMORY", v, why);
    else INFO("DTR_HOST_MEMORY set by environment to %s", v);
  }
  return &params;
}

int dtrEnvParamsAgreed(const dtrEnvParams* p, dtrAgreedValue out[DTR_ENV_AGREED]) {
  const dtrAgreedValue list[] = {
      {"DTR_BACKEND", p->backend, dtrValueBackend},
      {"DTR_KERNEL", p->kernel, dtrValueKernel},
      {"DTR_TUNE_ITERS", p->tune_iters, dtrValueNumber},
      {"DTR_TUNE_MIB", p->tune_mib, dtrValueNumber},
      {"DTR_TMA_BOXES", p->tma_boxes, dtrValueNumber},
      {"DTR_TILE_GROUP", p->tile_group, dtrValueNumber},
      {"DTR_STREAMING", p->streaming, dtrValueNumber},
      {"DTR_TILES_PER_CTA", p->tiles_per_cta, dtrValueNumber},
      {"DTR_STAGES", p->stages, dtrValueNumber},
      {"DTR_SEGMENT_ALIGN", p->segment_align, dtrValueNumber},
      {"DTR_P2P_CTAS", p->p2p_ctas, dtrValueNumber},
      {"DTR_P2P_FUSED_BARRIERS", p->p2p_fused_barriers, dtrValueNumber},
      {"DTR_EXECUTE_AGREE", p->execute_agree, dtrValueNumber},
      {"DTR_NCCL_REGISTER", p->nccl_register, dtrValueNumber},
      {"DTR_PERF_REPORT", p->perf_report, dtrValueNumber},
      {"DTR_FFT_CHUNKS", p->fft_chunks, dtrValueNumber},
      {"DTR_FFT_CTAS", p->fft_ctas, dtrValueNumber},
      {"DTR_FFT_COPIES", p->fft_copies, dtrValueNumber},
      {"DTR_FFT_COPY_STREAMS", p->fft_copy_streams, dtrValueNumber},
      {"DTR_FFT_ROUNDS", p->fft_rounds, dtrValueNumber},
      {"DTR_FFT_PASS_STREAMS", p->fft_pass_streams, dtrValueNumber},
      {"DTR_FFT_DELIVER", p->fft_deliver, dtrValueNumber},
      {"DTR_FFT_GATHER", p->fft_gather, dtrValueNumber},
      {"DTR_FFT_PASS_ASYNC", p->fft_pass_async, dtrValueNumber},
      {"DTR_HALO_DIRECT", p->halo_direct, dtrValueNumber},
  };
  const int n = (int)(sizeof list / sizeof list[0]);
  _Static_assert(sizeof list / sizeof list[0] <= DTR_ENV_AGREED, "DTR_ENV_AGREED holds them all");
  for (int i = 0; i < n; i++) out[i] = list[i];
  return n;
}
