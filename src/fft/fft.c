/*
 * The FFT's door: dtrFftPlanCreate, dtrFftExecute and the getters. Arguments are checked locally and
 * agreed across the grid before anything is built or exchanged, as the transposes' door does; the
 * plan is built from pencil plans (through their public calls), local passes (local_fft.h) and one
 * workspace; the execute's pipeline is pipeline.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arguments.h"
#include "backends/backend.h"
#include "backends/gpu/device.h"
#include "core/checks.h"
#include "core/device_guard.h"
#include "core/memory.h"
#include "core/params.h"
#include "core/timeout.h"
#include "fft_plan.h"
#include "grid.h"
#include "plan.h"

void dtrFftConfigInit(dtrFftConfig_t* config) {
  if (!config) return;
  dtrConfigInit(&config->transpose);
  config->chunks = 0;
  config->norm = dtrFftNormNone;
  config->howmany = 1;
  for (int d = 0; d < 3; d++) config->axes[d] = dtrFftPeriodic;
  for (int d = 0; d < 3; d++) config->padding[d] = 0.0;
}

/* Whether every axis of a config is real-to-real (an R2C plan of them is real throughout). */
static int allRealToReal(const dtrFftConfig_t* cfg) {
  return cfg->axes[0] != dtrFftPeriodic && cfg->axes[1] != dtrFftPeriodic && cfg->axes[2] != dtrFftPeriodic;
}

/* Local: the axes' kinds against the plan's kind and norm. */
static dtrResult_t checkAxes(dtrFftKind_t kind, const dtrFftConfig_t* cfg) {
  static const char axis[3] = {'x', 'y', 'z'};
  int any = 0;
  for (int d = 0; d < 3; d++) {
    if ((int)cfg->axes[d] < 0 || cfg->axes[d] >= dtrNumFftAxes)
      return dtrSetError(dtrInvalidArgument,
                         "config.axes[%d] (%c) = %d: expected dtrFftPeriodic (0), dtrFftDct2 (1), dtrFftDct3 (2), "
                         "dtrFftDst2 (3) or dtrFftDst3 (4)", d, axis[d], (int)cfg->axes[d]);
    any |= cfg->axes[d] != dtrFftPeriodic;
  }
  if (!any) return dtrSuccess;
  if (kind == dtrFftR2C && cfg->axes[0] != dtrFftPeriodic && !allRealToReal(cfg))
    return dtrSetError(dtrInvalidArgument,
                       "config.axes: an R2C plan with a real-to-real x axis needs every axis real-to-real (x is its "
                       "real-to-complex axis otherwise): make x periodic (put the walls on y or z), or use a C2C plan");
  if (cfg->norm == dtrFftNormOrtho)
    return dtrSetError(dtrInvalidArgument,
                       "config.norm = ortho with a real-to-real axis: 1/sqrt(N) would not make its DCT or DST "
                       "orthonormal; use dtrFftNormNone or dtrFftNormInverse");
  return dtrSuccess;
}

/* Local: the arguments of a plan; sets the complex type and the padded shape (the shape where nothing pads). */
static dtrResult_t checkArgs(dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind, dtrDataType_t type,
                             const dtrFftConfig_t* cfg, dtrDataType_t* ctype, int64_t padded[3]) {
  if (!shape) return dtrSetError(dtrInvalidArgument, "shape is NULL");
  static const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++)
    if (shape[d] < 1)
      return dtrSetError(dtrInvalidArgument, "shape[%d] (n%c) = %lld: must be at least 1", d, axis[d], (long long)shape[d]);
  if ((int)kind < 0 || kind >= dtrNumFftKinds)
    return dtrSetError(dtrInvalidArgument, "kind = %d: expected dtrFftC2C (0) or dtrFftR2C (1)", (int)kind);
  if (kind == dtrFftC2C && type != dtrComplex64 && type != dtrComplex128)
    return dtrSetError(dtrInvalidArgument, "a C2C FFT takes type c64 or c128, not %s",
                       (int)type >= 0 && type < dtrNumTypes ? dtrDataTypeName(type) : "an unknown type");
  if (kind == dtrFftR2C && type != dtrFloat32 && type != dtrFloat64)
    return dtrSetError(dtrInvalidArgument, "an R2C FFT takes the real side's type, fp32 or fp64, not %s",
                       (int)type >= 0 && type < dtrNumTypes ? dtrDataTypeName(type) : "an unknown type");
  *ctype = type == dtrFloat32 || type == dtrComplex64 ? dtrComplex64 : dtrComplex128;
  DTRCHECK(checkAxes(kind, cfg));
  if (kind == dtrFftR2C && allRealToReal(cfg)) *ctype = type;
  if (cfg->chunks < 0 || cfg->chunks > DTR_FFT_MAX_CHUNKS)
    return dtrSetError(dtrInvalidArgument, "config.chunks = %d: must be 0 (by the rule) or 1..%d", cfg->chunks,
                       DTR_FFT_MAX_CHUNKS);
  if ((int)cfg->norm < 0 || cfg->norm >= dtrNumFftNorms)
    return dtrSetError(dtrInvalidArgument, "config.norm = %d: expected 0 (none), 1 (1/N on the inverse) or 2 (orthonormal)",
                       (int)cfg->norm);
  if (cfg->howmany < 0)
    return dtrSetError(dtrInvalidArgument, "config.howmany = %lld: must be 0 or 1 (one field) or the fields per point",
                       (long long)cfg->howmany);
  DTRCHECK(dtrFftCheckPadding(cfg, shape, padded));
  if (cfg->transpose.workspace != dtrWorkspaceOwn || cfg->transpose.inplace != 0)
    return dtrSetError(dtrInvalidArgument,
                       "config.transpose.workspace and .inplace are the FFT's own business: leave them at their defaults");
  DTRCHECK(dtrCheckConfig(&cfg->transpose));
  size_t e = 0;
  const dtrResult_t res = dtrCheckPencilArgs(grid, padded, dtrPencilX, dtrPencilY, *ctype, cfg->howmany ? cfg->howmany : 1, &e);
  if (res == dtrSuccess || !memcmp(padded, shape, sizeof padded[0] * 3)) return res;
  char why[512];
  snprintf(why, sizeof why, "%s", dtrGetLastError());
  return dtrSetError(res, "config.padding: the padded grid %lld x %lld x %lld: %s", (long long)padded[0], (long long)padded[1],
                     (long long)padded[2], why);
}

static void freePlan(dtrFftPlan_t f) {
  if (!f) return;
  if (f->gpu && f->device >= 0) cudaSetDevice(f->device);
  for (int i = 0; i < 3; i++) dtrLocalFftDestroy(f->pass[i]);
  dtrLocalFftDestroy(f->zFrom);
  dtrLocalFftDestroy(f->zInto);
  dtrLocalFftDestroy(f->sidePass);
  dtrLocalFftDestroy(f->columnPass);
  for (int i = 0; i < f->rowPasses; i++) dtrLocalFftDestroy(f->rowPass[i]);
  for (int i = 0; i < 2; i++) free(f->rowPieces[i]);
  dtrLocalFftDestroy(f->sideZFrom);
  dtrLocalFftDestroy(f->sideZInto);
  dtrLocalFftDestroy(f->yInto);
  dtrLocalFftDestroy(f->yFrom);
  if (f->forward[0]) dtrFftMessagesFree(f); /* deregistered with the exchange's communicator, before it goes */
  for (int i = 0; i < 2; i++) {
    if (f->forward[i]) dtrPlanDestroy(f->forward[i]);
    if (f->inverse[i]) dtrPlanDestroy(f->inverse[i]);
  }
  if (f->gpu) {
    dtrFftCopiesStreamsFree(f);
    if (f->work) cudaFree(f->work);
    if (f->exchange) cudaStreamDestroy(f->exchange);
    if (f->start) cudaEventDestroy(f->start);
    if (f->passed) cudaEventDestroy(f->passed);
    if (f->exchanged) cudaEventDestroy(f->exchanged);
  } else {
    free(f->work);
  }
  if (f->grid) dtrGridRelease(f->grid);
  free(f);
}

/* The pencil plans between the pencils of the path, both ways, sharing the grid's exchange workspace
 * (the FFT runs them one after another on one stream). */
static dtrResult_t makeExchanges(dtrFftPlan_t f, const dtrFftConfig_t* cfg) {
  dtrConfig_t c = cfg->transpose;
  c.workspace = dtrWorkspaceGrid;
  for (int i = 0; i + 1 < f->npencils; i++) {
    if (i == 1 && f->fused) continue;
    DTRCHECK(dtrPlanCreatePencil(&f->forward[i], f->grid, f->cshape, f->path[i], f->path[i + 1], f->ctype, f->howmany, &c));
    DTRCHECK(dtrPlanCreatePencil(&f->inverse[i], f->grid, f->cshape, f->path[i + 1], f->path[i], f->ctype, f->howmany, &c));
  }
  /* Every exchange on the same side of the host/GPU line, on one device. */
  dtrResult_t res = dtrSuccess;
  f->gpu = f->forward[0]->backend != dtrBackendCpu;
  f->device = f->forward[0]->device;
  for (int i = 0; i + 1 < f->npencils && res == dtrSuccess; i++)
    for (int w = 0; w < 2 && f->forward[i]; w++) {
      const dtrPlan_t x = w ? f->inverse[i] : f->forward[i];
      if ((x->backend != dtrBackendCpu) != f->gpu || (f->gpu && x->device != f->device))
        res = dtrSetError(dtrInvalidArgument,
                          "the FFT's exchanges resolved to different backends or devices on this rank (%s, %s): ask "
                          "for one backend in config.transpose.backend",
                          dtrBackendName(f->forward[0]->backend), dtrBackendName(x->backend));
    }
  return dtrAgree(f->grid->comm, res);
}

/* The local pass on each pencil of the path, with plans for every batch its chunks take. */
static dtrResult_t makePasses(dtrFftPlan_t f) {
  const int E = f->npencils - 1;
  for (int i = 0; i <= E; i++) {
    const int dbl = f->ctype == dtrComplex128 || f->ctype == dtrFloat64;
    dtrLocalFftShape s = {.dims = 1, .n = {f->shape[f->path[i]], 0}, .dbl = dbl, .fields = f->howmany};
    s.kind[0] = f->axes[f->path[i]];
    s.realData = f->realPlan;
    if (i == 0 && f->npencils == 2) {
      s.dims = 2, s.n[0] = f->shape[1], s.n[1] = f->shape[0];
      s.kind[0] = f->axes[1], s.kind[1] = f->axes[0];
    }
    s.real = i == 0 && f->realPass;
    /* The first pass of a normalized direction scales its output (pipeline.c): the inverse's (the last
     * pencil's) and, orthonormal, the forward's too. */
    s.scaled = dtrFftPassScales(f, i);
    f->length[i] = dtrLocalFftComplexLength(&s);
    const dtrBox_t* b = &f->box[i];
    f->transforms[i] = (b->size[0] * b->size[1] * b->size[2]) / f->length[i];
    /* The batches its chunks take: of the exchange after it (forward) and before it (inverse). */
    int64_t batches[2 * DTR_FFT_MAX_CHUNKS + 1];
    int n = 0;
    batches[n++] = f->transforms[i];
    for (int k = 0; k < f->chunks; k++) {
      if (i < E && f->forward[i]) batches[n++] = dtrFftChunkOf(f, f->forward[i], i, f->chunks, k).count;
      if (i > 0 && f->inverse[i - 1]) batches[n++] = dtrFftChunkOf(f, f->inverse[i - 1], i, f->chunks, k).count;
    }
    if (i == 1 && f->fused) {
      /* Along y between the Y-pencil [x][z][y] and the Z-pencil [y][x][z]: line (x, z) of the one is
       * line x nz + z, whose points lie a (x, z) plane apart in the other. */
      const int64_t plane = f->box[2].size[0] * f->box[2].size[2];
      const dtrLocalFftShape into = {.dims = 1, .n = {s.n[0], 0}, .dbl = s.dbl, .in_stride = 1, .in_dist = s.n[0], .out_stride = plane,
                                     .out_dist = 1, .fields = f->howmany, .kind = {s.kind[0], 0}, .realData = s.realData};
      const dtrLocalFftShape from = {.dims = 1, .n = {s.n[0], 0}, .dbl = s.dbl, .in_stride = plane, .in_dist = 1, .out_stride = 1,
                                     .out_dist = s.n[0], .fields = f->howmany, .kind = {s.kind[0], 0}, .realData = s.realData};
      DTRCHECK(dtrLocalFftCreate(&into, f->gpu, batches, 1, &f->yInto));
      DTRCHECK(dtrLocalFftCreate(&from, f->gpu, batches, n, &f->yFrom));
      continue;
    }
    DTRCHECK(dtrLocalFftCreate(&s, f->gpu, batches, n, &f->pass[i]));
  }
  return dtrSuccess;
}

/* The intermediate arrays (each as large as the largest complex box; on the slab route its staging
 * array instead) and the passes' work area after them. */
static dtrResult_t makeWorkspace(dtrFftPlan_t f) {
  size_t largest = 0;
  for (int i = 0; i < f->npencils; i++)
    if (f->box[i].bytes > largest) largest = f->box[i].bytes;
  f->half = (largest + 255) / 256 * 256;
  /* The second array: pencils route through both; slabs only for C2R's last pass. */
  const size_t arrays = f->copies     ? dtrFftCopiesStagingBytes(f)
                        : f->messages ? f->half
                                      : (f->npencils == 3 || f->realPass ? 2 : 1) * f->half;
  dtrLocalFft* const passes[7] = {f->pass[0], f->pass[1], f->pass[2], f->zFrom, f->zInto, f->yInto, f->yFrom};
  for (int i = 0; i < 7; i++) {
    const size_t w = passes[i] ? dtrLocalFftWorkBytes(passes[i]) : 0;
    if (w > f->area) f->area = w;
  }
  const size_t padBytes = dtrFftPaddingBytes(f);
  /* The slab route's side stream's passes: an area of their own after the others'. */
  const size_t area = f->sideArea ? (f->area + 255) / 256 * 256 : f->area;
  f->workBytes = arrays + padBytes + area + f->sideArea;
  /* On the host, measured before malloc: an allocation beyond memory may succeed there and fail at
   * first touch, or abort under a sanitizer. (cudaMalloc answers for itself.) */
  if (!f->gpu) DTRCHECK(dtrMemoryCheck(f->grid->comm, MPI_COMM_NULL, -1, f->workBytes, "the FFT's workspace"));
  if (!f->workBytes) return dtrSuccess;
  if (f->gpu) {
    const cudaError_t err = cudaMalloc((void**)&f->work, f->workBytes);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      f->work = NULL;
      return dtrSetError(DTR_CUDA_RESULT(err), "cannot allocate the FFT's workspace of %zu bytes on GPU %d: %s",
                         f->workBytes, f->device, cudaGetErrorString(err));
    }
  } else if (!(f->work = malloc(f->workBytes))) {
    return dtrSetError(dtrOutOfMemory, "cannot allocate the FFT's workspace of %zu bytes", f->workBytes);
  }
  if (padBytes) f->padArray = f->work + arrays;
  for (int i = 0; i < 7 && f->area; i++)
    if (passes[i]) DTRCHECK(dtrLocalFftSetWorkArea(passes[i], f->work + arrays + padBytes));
  return dtrFftCopiesSetSideArea(f, f->work + arrays + padBytes + area);
}

static dtrResult_t makeStreams(dtrFftPlan_t f) {
  /* The exchanges at the highest priority: their few blocks start ahead of a pass's queued ones. */
  int lowest = 0, highest = 0;
  CUDACHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  CUDACHECK(cudaStreamCreateWithPriority(&f->exchange, cudaStreamNonBlocking, highest));
  CUDACHECK(cudaEventCreateWithFlags(&f->start, cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&f->passed, cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&f->exchanged, cudaEventDisableTiming));
  return f->copies || f->messages ? dtrFftCopiesStreams(f, highest) : dtrSuccess;
}

static dtrResult_t build(dtrFftPlan_t f, const dtrFftConfig_t* cfg) {
  const dtrGrid_t g = f->grid;
  f->npencils = g->pr == 1 ? 2 : 3;
  f->fused = f->npencils == 3 && g->pc == 1;
  f->path[0] = dtrPencilX;
  f->path[1] = f->npencils == 2 ? dtrPencilZ : dtrPencilY;
  f->path[2] = dtrPencilZ;
  for (int i = 0; i < f->npencils; i++) DTRCHECK(dtrPencilBox(g, f->cshape, f->path[i], f->ctype, f->howmany, -1, &f->box[i]));
  DTRCHECK(dtrPencilBox(g, f->shape, dtrPencilX, f->type, f->howmany, -1, &f->input));
  DTRCHECK(dtrFftPaddingPrepare(f));
  /* Correct on any grid, but on 1 x P the single plane of a 2-D transform sits on one rank. */
  if (f->shape[2] == 1 && g->pc > 1 && g->a == 0 && g->b == 0)
    WARN("FFT of nz = 1 (a 2-D transform) on a %d x %d grid: its one plane is on one rank; a %d x 1 grid splits its rows",
         g->pr, g->pc, g->pr * g->pc);
  DTRCHECK(makeExchanges(f, cfg));
  f->timeout = f->forward[0]->timeout;
  const dtrEnvParams* env = dtrEnvParamsGet();
  if (f->gpu) DTRCHECK(dtrAgree(g->comm, cudaSetDevice(f->device) == cudaSuccess ? dtrSuccess
                                                                                 : dtrSetError(dtrCudaError, "cannot use GPU %d", f->device)));
  /* The route: the slab route where every rank can take it, else the exchanges' own chunks. Its passes'
   * work area: cuFFT's, at most about a box, and with several fields the field-major copies of the
   * first pass (cufft_pass.c), about a box for each side that is copied (both sides of R2C). The NCCL
   * slab route's passes along z are complex DFTs: there a plan with a real-to-real axis takes the
   * exchanges' chunks. */
  const size_t copied = f->howmany > 1 ? (f->realPass ? 2 : 1) : 0;
  DTRCHECK(dtrFftCopiesChoose(f, f->box[0].bytes * (1 + copied), env->fft_copies));
  DTRCHECK(dtrFftMessagesChoose(f, f->box[0].bytes * (1 + copied), dtrFftHasRealToReal(f) ? 0 : env->fft_copies));
  /* The chunks: the config's, else the environment's, else the rule's; every input to them is agreed. */
  int ranks = 1;
  for (int i = 0; i + 1 < f->npencils; i++)
    if (f->forward[i] && f->forward[i]->comm.nranks > ranks) ranks = f->forward[i]->comm.nranks;
  const double bytes = (double)f->cshape[0] * (double)f->cshape[1] * (double)f->cshape[2] *
                       (double)dtrDataTypeSize(f->ctype) * (double)f->howmany / (double)(g->pr * g->pc);
  f->chunks = cfg->chunks       ? cfg->chunks
              : env->fft_chunks ? env->fft_chunks
                                : dtrFftChunksByRule(f->copies || f->messages, f->forward[0]->backend, ranks, bytes);
  f->ctas = env->fft_ctas;
  if (f->copies) {
    /* The slab route's lanes (at most one a peer) and rounds (at least one, at most the chunks). */
    const int lanes = env->fft_copy_streams ? env->fft_copy_streams : dtrFftCopyLanesByRule(ranks);
    f->lanes = lanes < ranks - 1 ? lanes : ranks - 1;
    for (int d = 0; d < 2; d++) {
      const int rounds = env->fft_rounds ? env->fft_rounds : dtrFftRoundsByRule(ranks, f->chunks, d ? dtrFftInverse : dtrFftForward);
      f->rounds[d] = rounds < f->chunks ? rounds : f->chunks;
    }
    f->passStreams = env->fft_pass_streams ? env->fft_pass_streams : dtrFftPassStreamsByRule(f->chunks);
    /* Delivering and gathering where the route's passes can (dtrFftCopiesPasses); delivering with 2, its rounds as the rounds'. */
    f->deliver = env->fft_deliver > 0;
    f->gather = env->fft_gather;
    const int rounds = env->fft_rounds ? env->fft_rounds : dtrFftDeliverRoundsByRule(ranks, f->chunks);
    if (env->fft_deliver == 2) f->deliverRounds = rounds < f->chunks ? rounds : f->chunks;
    if (f->gather) f->gatherRounds = rounds < f->chunks ? rounds : f->chunks;
  }
  /* The NCCL slab route's streams: the exchange (its messages) and one of the copy engines. */
  if (f->messages) f->lanes = 2;
  DTRCHECK(dtrAgree(g->comm, makePasses(f)));
  if (f->copies) DTRCHECK(dtrAgree(g->comm, dtrFftCopiesPasses(f)));
  if (f->messages) DTRCHECK(dtrAgree(g->comm, dtrFftMessagesPasses(f)));
  DTRCHECK(dtrAgree(g->comm, makeWorkspace(f)));
  if (f->gpu) DTRCHECK(dtrAgree(g->comm, makeStreams(f)));
  if (f->padded)
    INFO("FFT of %lld x %lld x %lld modes padded to the grid below", (long long)f->modes[0], (long long)f->modes[1],
         (long long)f->modes[2]);
  INFO("FFT %s%s %lld x %lld x %lld %s x %lld on a %d x %d grid: %s exchanges%s, %d chunks, workspace %zu bytes",
       f->kind == dtrFftR2C ? "R2C" : "C2C", f->realPlan ? " (real-to-real on every axis)" : dtrFftHasRealToReal(f) ? " (real-to-real axes)" : "", (long long)f->shape[0], (long long)f->shape[1], (long long)f->shape[2],
       dtrDataTypeName(f->type), (long long)f->howmany, g->pr, g->pc, dtrBackendName(f->forward[0]->backend),
       f->copies ? " (the slab route: copy engines)" : f->messages ? " (the slab route: NCCL messages)" : "", f->chunks,
       f->workBytes);
  if (f->copies) {
    char delivers[240] = "", gathers[120] = "";
    if (f->deliver)
      snprintf(delivers, sizeof delivers, "; the forward 2-D pass delivers each rank's rows as it goes%s",
               f->deliverRounds ? ", those of the last chunks of lines in rounds (forward rounds: theirs)" : "");
    if (f->gather)
      snprintf(gathers, sizeof gathers, "; the inverse 2-D pass gathers each rank's rows as its pass along z makes them (%d rounds)",
               f->gatherRounds);
    INFO("FFT slab route: %d copy stream(s), rounds %d forward and %d inverse of %d chunks, passes on %d stream(s)%s%s",
         f->lanes, f->deliverRounds ? f->deliverRounds : f->rounds[0], f->rounds[1], f->chunks, f->side ? 2 : 1, delivers, gathers);
  }
  return dtrSuccess;
}

static dtrResult_t planCreate(dtrFftPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind,
                              dtrDataType_t type, const dtrFftConfig_t* cfg) {
  dtrDataType_t ctype = dtrComplex64;
  int64_t padded[3];
  dtrResult_t res = out ? checkArgs(grid, shape, kind, type, cfg, &ctype, padded) : dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(dtrAgree(grid->comm, res));
  /* A padding factor as the plan takes it: 0 and 1 alike mean none. */
  int64_t padding[3];
  for (int d = 0; d < 3; d++) padding[d] = dtrValueOfReal(cfg->padding[d] == 0.0 ? 1.0 : cfg->padding[d]);
  const dtrAgreedValue args[] = {{"shape[0] (nx)", shape[0], dtrValueNumber}, {"shape[1] (ny)", shape[1], dtrValueNumber},
                                 {"shape[2] (nz)", shape[2], dtrValueNumber}, {"kind", (int64_t)kind, dtrValueNumber},
                                 {"type", (int64_t)type, dtrValueType},       {"config.chunks", cfg->chunks, dtrValueNumber},
                                 {"config.norm", (int64_t)cfg->norm, dtrValueNumber},
                                 {"config.howmany", cfg->howmany ? cfg->howmany : 1, dtrValueNumber},
                                 {"config.axes[0] (x)", (int64_t)cfg->axes[0], dtrValueNumber},
                                 {"config.axes[1] (y)", (int64_t)cfg->axes[1], dtrValueNumber},
                                 {"config.axes[2] (z)", (int64_t)cfg->axes[2], dtrValueNumber},
                                 {"config.padding[0] (x)", padding[0], dtrValueReal},
                                 {"config.padding[1] (y)", padding[1], dtrValueReal},
                                 {"config.padding[2] (z)", padding[2], dtrValueReal}};
  DTRCHECK(dtrAgreeCall(grid->comm, args, (int)(sizeof args / sizeof args[0]), &cfg->transpose));
  dtrFftPlan_t f = calloc(1, sizeof *f);
  DTRCHECK(dtrAgree(grid->comm, f ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate an FFT plan")));
  f->device = -1;
  f->grid = grid;
  dtrGridRetain(grid);
  /* The plan of the padded grid; the padding layer keeps the modes of the caller's. */
  memcpy(f->modes, shape, sizeof f->modes);
  memcpy(f->shape, padded, sizeof f->shape);
  memcpy(f->cshape, padded, sizeof f->cshape);
  memcpy(f->axes, cfg->axes, sizeof f->axes);
  f->realPlan = kind == dtrFftR2C && allRealToReal(cfg);
  f->realPass = kind == dtrFftR2C && !f->realPlan;
  if (f->realPass) f->cshape[0] = padded[0] / 2 + 1;
  f->kind = kind;
  f->type = type;
  f->ctype = ctype;
  f->norm = cfg->norm;
  f->howmany = cfg->howmany ? cfg->howmany : 1;
  res = build(f, cfg);
  if (res != dtrSuccess) {
    freePlan(f);
    return res;
  }
  *out = f;
  return dtrSuccess;
}

dtrResult_t dtrFftPlanCreate(dtrFftPlan_t* plan, dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind,
                             dtrDataType_t type, const dtrFftConfig_t* config) {
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  if (config) cfg = *config;
  if (plan) *plan = NULL;
  if (!grid) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(dtrConfigTimeout(&cfg.transpose));
  const dtrResult_t res = planCreate(plan, grid, shape, kind, type, &cfg);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, res);
}

/* Local: one of the caller's buffers, `bytes` of it needed: the memory the exchanges take. */
static dtrResult_t checkBuffer(dtrFftPlan_t f, const void* p, size_t bytes, const char* name) {
  if (!bytes) return dtrSuccess;
  if (!p) return dtrSetError(dtrInvalidArgument, "%s is NULL but this rank's box holds %zu bytes", name, bytes);
  if (f->gpu) return dtrCheckDeviceBuffer(f->forward[0], p, bytes, name);
  /* Host buffers: device memory would crash the host passes. */
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeDevice)
    return dtrSetError(dtrInvalidArgument, "%s is device memory; the cpu backend's FFT needs host buffers", name);
  (void)cudaGetLastError();
  return dtrSuccess;
}

static dtrResult_t checkExecute(dtrFftPlan_t f, const void* in, void* out, dtrFftDirection_t direction) {
  if (direction != dtrFftForward && direction != dtrFftInverse)
    return dtrSetError(dtrInvalidArgument, "direction = %d: expected dtrFftForward (-1) or dtrFftInverse (1)", (int)direction);
  const size_t inputBytes = f->input.bytes, outputBytes = f->output.bytes;
  const size_t inBytes = direction == dtrFftForward ? inputBytes : outputBytes;
  const size_t outBytes = direction == dtrFftForward ? outputBytes : inputBytes;
  if (in == (const void*)out && in && (inBytes || outBytes)) {
    if (f->realPass)
      return dtrSetError(dtrInvalidArgument, "in == out: an R2C plan runs out of place (its two sides differ in layout)");
    if (f->padded)
      return dtrSetError(dtrInvalidArgument, "in == out: a padded plan runs out of place (its two sides differ in size)");
    const size_t larger = inBytes > outBytes ? inBytes : outBytes;
    return checkBuffer(f, in, larger, "in (== out)");
  }
  DTRCHECK(checkBuffer(f, in, inBytes, "in"));
  DTRCHECK(checkBuffer(f, out, outBytes, "out"));
  if (inBytes && outBytes) {
    const uintptr_t i0 = (uintptr_t)in, o0 = (uintptr_t)out;
    if (i0 < o0 + outBytes && o0 < i0 + inBytes)
      return dtrSetError(dtrInvalidArgument, "in (%zu bytes at %p) and out (%zu bytes at %p) overlap: pass separate "
                         "buffers, or in == out (C2C)", inBytes, in, outBytes, (void*)out);
  }
  return dtrSuccess;
}

/* `refused`: the caller's own checks failed (dtrFftExecuteRefuse); else the arguments are checked here. */
static dtrResult_t execute(dtrFftPlan_t f, dtrResult_t refused, const void* in, void* out, dtrFftDirection_t direction,
                           cudaStream_t stream) {
  if (!f) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  if (f->broken) return dtrSetError(dtrTimeout, "this FFT plan timed out in an earlier execute; destroy it");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(f->timeout);
  /* The direction picks the exchanges every rank must meet in: the same on every rank, or none runs. */
  const dtrAgreedValue dir[] = {{"direction", (int64_t)direction, dtrValueNumber}};
  dtrResult_t checked = refused != dtrSuccess ? refused : checkExecute(f, in, out, direction);
  int early = 0;
  if (checked == dtrSuccess)
    checked = f->padded ? dtrFftPaddedEarly(f, in, out, direction, stream, &early) : dtrFftRunEarly(f, in, out, direction, stream, &early);
  dtrResult_t res = dtrAgree(f->grid->comm, checked);
  if (res == dtrSuccess) res = dtrAgreeValues(f->grid->comm, dir, 1);
  if (res == dtrSuccess)
    res = f->padded ? dtrFftPaddedRun(f, in, out, direction, stream, early) : dtrFftRun(f, in, out, direction, stream, early);
  dtrDeadlineLeave(saved);
  if (res == dtrTimeout) f->broken = 1;
  return dtrDeviceRestore(guard, res);
}

dtrResult_t dtrFftExecute(dtrFftPlan_t f, const void* in, void* out, dtrFftDirection_t direction, cudaStream_t stream) {
  return execute(f, dtrSuccess, in, out, direction, stream);
}

dtrResult_t dtrFftExecuteRefuse(dtrFftPlan_t f, const char* problem) {
  if (!f) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  const dtrResult_t refused = dtrSetError(dtrInvalidArgument, "%s", problem && *problem ? problem : "the caller refused its arrays");
  return execute(f, refused, NULL, NULL, dtrFftForward, NULL);
}

dtrResult_t dtrFftGetBox(dtrFftPlan_t f, dtrFftSide_t side, dtrBox_t* box) {
  if (!f || !box) return dtrSetError(dtrInvalidArgument, "%s is NULL", f ? "box" : "plan");
  if ((int)side < 0 || side >= dtrNumFftSides)
    return dtrSetError(dtrInvalidArgument, "side = %d: expected dtrFftInputSide (0) or dtrFftOutputSide (1)", (int)side);
  *box = side == dtrFftInputSide ? f->input : f->output;
  return dtrSuccess;
}

dtrResult_t dtrFftLocalBox(dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind, dtrDataType_t type,
                           const dtrFftConfig_t* config, dtrFftSide_t side, int rank, dtrBox_t* box) {
  if (!grid || !box) return dtrSetError(dtrInvalidArgument, "%s is NULL", grid ? "box" : "grid");
  if ((int)side < 0 || side >= dtrNumFftSides)
    return dtrSetError(dtrInvalidArgument, "side = %d: expected dtrFftInputSide (0) or dtrFftOutputSide (1)", (int)side);
  dtrFftConfig_t cfg;
  dtrFftConfigInit(&cfg);
  if (config) cfg = *config;
  dtrDataType_t ctype = dtrComplex64;
  int64_t padded[3];
  DTRCHECK(checkArgs(grid, shape, kind, type, &cfg, &ctype, padded));
  const int64_t howmany = cfg.howmany ? cfg.howmany : 1;
  /* R2C of every axis real-to-real (never padded): both sides are real pencils of the shape. */
  if (kind == dtrFftR2C && allRealToReal(&cfg))
    return dtrPencilBox(grid, shape, side == dtrFftInputSide ? dtrPencilX : dtrPencilZ, type, howmany, rank, box);
  return dtrFftSideBox(grid, shape, padded, kind, type, howmany, side, rank, box);
}

dtrResult_t dtrFftGetWorkspaceSize(dtrFftPlan_t f, size_t* bytes) {
  if (!f || !bytes) return dtrSetError(dtrInvalidArgument, "%s is NULL", f ? "bytes" : "plan");
  /* The exchanges' buffers come from the grid's pool, shared by the plans: the largest is theirs. */
  size_t exchanges = 0;
  for (int i = 0; i + 1 < f->npencils; i++)
    for (int w = 0; w < 2; w++) {
      const dtrPlan_t x = w ? f->inverse[i] : f->forward[i];
      if (x && x->workspace && x->workspace->bytes > exchanges) exchanges = x->workspace->bytes;
    }
  *bytes = f->workBytes + exchanges;
  return dtrSuccess;
}

dtrResult_t dtrFftGetChunks(dtrFftPlan_t f, int* chunks) {
  if (!f || !chunks) return dtrSetError(dtrInvalidArgument, "%s is NULL", f ? "chunks" : "plan");
  *chunks = f->chunks;
  return dtrSuccess;
}

dtrResult_t dtrFftGetBackend(dtrFftPlan_t f, dtrBackend_t* backend) {
  if (!f || !backend) return dtrSetError(dtrInvalidArgument, "%s is NULL", f ? "backend" : "plan");
  *backend = f->forward[0]->backend;
  return dtrSuccess;
}

dtrResult_t dtrFftPlanDestroy(dtrFftPlan_t f) {
  if (!f) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(f->timeout);
  freePlan(f);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, dtrSuccess);
}
