/* The public entry points: argument checks, agreement across ranks, and dispatch to the backend. */
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "backend_rule.h"
#include "checks.h"
#include "device.h"
#include "memory.h"
#include "params.h"
#include "plan.h"
#include "timeout.h"

void dtrConfigInit(dtrConfig_t* config) {
  if (!config) return;
  config->backend = dtrBackendAuto;
  config->kernel = dtrKernelAuto;
  config->device = -1;
  config->stages = 0;
  config->workspace = dtrWorkspaceOwn;
  config->inplace = 0;
  config->timeout = 0;
}

/* A plan's deadline for each collective call: the config's, else DTR_TIMEOUT's (0: none). */
static double resolveTimeout(const dtrConfig_t* cfg) {
  if (cfg->timeout > 0 && isfinite(cfg->timeout)) return cfg->timeout;
  return dtrEnvParamsGet()->timeout;
}

/* The same on every rank, or the ranks would wait for each other differently. */
static int64_t timeoutMs(const dtrConfig_t* cfg) { return (int64_t)llround(resolveTimeout(cfg) * 1000); }

/*
 * The caller's current device, restored on the way out of every entry point that may switch it
 * (NCCL's and cuFFT's rule): a plan works on its own device, the caller's code on its own.
 */
typedef struct {
  int device, valid;
} DeviceGuard;

static DeviceGuard deviceSave(void) {
  DeviceGuard g = {0, 0};
  if (cudaGetDevice(&g.device) == cudaSuccess) g.valid = 1;
  else (void)cudaGetLastError(); /* no driver or no device: nothing to restore */
  return g;
}

static dtrResult_t deviceRestore(DeviceGuard g, dtrResult_t res) {
  int now;
  if (g.valid && cudaGetDevice(&now) == cudaSuccess && now != g.device && cudaSetDevice(g.device) != cudaSuccess) {
    (void)cudaGetLastError();
    if (res == dtrSuccess) res = dtrSetError(dtrCudaError, "cannot make device %d current again", g.device);
  }
  return res;
}

/* Checks of an entry (type and howmany) that need no communication; sets *entry_bytes. */
static dtrResult_t checkEntry(dtrDataType_t type, int64_t howmany, size_t* entry_bytes) {
  if ((int)type < 0 || type >= dtrNumTypes)
    return dtrSetError(dtrInvalidArgument, "unknown data type %d (expected 0..%d: int8, fp16, bf16, fp32, fp64, c64, c128)",
                       (int)type, dtrNumTypes - 1);
  if (howmany < 1) return dtrSetError(dtrInvalidArgument, "howmany = %lld: must be at least 1", (long long)howmany);
  size_t esize = dtrDataTypeSize(type);
  if ((uint64_t)howmany > SIZE_MAX / esize)
    return dtrSetError(dtrInvalidArgument, "howmany = %lld overflows the entry size", (long long)howmany);
  *entry_bytes = esize * (size_t)howmany;
  return dtrSuccess;
}

/* Checks of a matrix that need no communication; sets *entry_bytes. */
static dtrResult_t checkShape(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, size_t* entry_bytes) {
  if (rows < 1) return dtrSetError(dtrInvalidArgument, "rows = %lld: must be at least 1", (long long)rows);
  if (cols < 1) return dtrSetError(dtrInvalidArgument, "cols = %lld: must be at least 1", (long long)cols);
  DTRCHECK(checkEntry(type, howmany, entry_bytes));
  if (dtrGeometryOverflows(rows, cols, 1, *entry_bytes))
    return dtrSetError(dtrInvalidArgument, "rows x cols x entry = %lld x %lld x %zu bytes overflows 64-bit sizes",
                       (long long)rows, (long long)cols, *entry_bytes);
  return dtrSuccess;
}

dtrResult_t dtrLocalSize(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Comm comm, int rank,
                         dtrLocalSize_t* size) {
  size_t e = 0;
  if (!size) return dtrSetError(dtrInvalidArgument, "size is NULL");
  DTRCHECK(checkShape(rows, cols, type, howmany, &e));
  int nranks, me;
  if (comm == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  MPICHECK(MPI_Comm_size(comm, &nranks));
  MPICHECK(MPI_Comm_rank(comm, &me));
  if (rank == -1) rank = me;
  if (rank < 0 || rank >= nranks)
    return dtrSetError(dtrInvalidArgument, "rank = %d: the communicator has ranks 0..%d", rank, nranks - 1);
  dtrGeometry g = dtrGeometryMatrix(rows, cols, e, nranks);
  dtrRange in = dtrInRows(&g, rank), out = dtrOutRows(&g, rank);
  size->in_rows = in.count;
  size->in_row_start = in.start;
  size->out_rows = out.count;
  size->out_row_start = out.start;
  size->in_bytes = (size_t)in.count * (size_t)cols * e;
  size->out_bytes = (size_t)out.count * (size_t)rows * e;
  size->entry_bytes = e;
  return dtrSuccess;
}

static dtrResult_t checkConfig(const dtrConfig_t* c) {
  const dtrEnvParams* env = dtrEnvParamsGet();
  if (env->bad) return dtrSetError(dtrInvalidArgument, "%s", env->bad_message);
  if ((int)c->backend < 0 || c->backend >= dtrNumBackends)
    return dtrSetError(dtrInvalidArgument, "config.backend = %d is not a backend (auto, nccl, cpu, p2p)", (int)c->backend);
  if ((int)c->kernel < 0 || c->kernel >= dtrNumKernels)
    return dtrSetError(dtrInvalidArgument, "config.kernel = %d is not a kernel (%s)", (int)c->kernel, "auto, simt, simt16, tma, tma-mc2, tma-mc4");
  if (c->device < -1) return dtrSetError(dtrInvalidArgument, "config.device = %d: must be -1 (by local rank) or a device index", c->device);
  if (c->stages < 0 || c->stages > DTR_MAX_STAGES)
    return dtrSetError(dtrInvalidArgument, "config.stages = %d: must be 0 (by size) or 1..%d", c->stages, DTR_MAX_STAGES);
  if ((int)c->workspace < 0 || c->workspace >= dtrNumWorkspaces)
    return dtrSetError(dtrInvalidArgument, "config.workspace = %d is not a workspace policy (0: own, 1: grid)", (int)c->workspace);
  if (c->inplace != 0 && c->inplace != 1)
    return dtrSetError(dtrInvalidArgument, "config.inplace = %d: must be 0 or 1", c->inplace);
  if (!(c->timeout >= 0) || !isfinite(c->timeout))
    return dtrSetError(dtrInvalidArgument, "config.timeout = %g: must be 0 (DTR_TIMEOUT, off by default) or seconds > 0",
                       c->timeout);
  /* GPU settings beside a CPU backend asked for (by the config or the environment): refused, not
   * ignored. Where auto lands on the CPU backend (a rank without a GPU), resolveBackend warns instead. */
  const int cpuAsked = (c->backend != dtrBackendAuto ? c->backend : env->backend) == dtrBackendCpu;
  const char* backendBy = c->backend != dtrBackendAuto ? "config.backend" : "DTR_BACKEND";
  const dtrKernel_t kernel = c->kernel != dtrKernelAuto ? c->kernel : env->kernel;
  if (cpuAsked && kernel != dtrKernelAuto)
    return dtrSetError(dtrInvalidArgument, "%s = %s applies to the GPU backends; the cpu backend (%s) transposes on the host",
                       c->kernel != dtrKernelAuto ? "config.kernel" : "DTR_KERNEL", dtrKernelName(kernel), backendBy);
  if (cpuAsked && c->device >= 0)
    return dtrSetError(dtrInvalidArgument, "config.device = %d applies to the GPU backends; the cpu backend (%s) uses no GPU",
                       c->device, backendBy);
  return dtrSuccess;
}

/*
 * Collective: a plan's arguments, its config and the environment that reaches it are the same on
 * every rank, in one reduction, before anything is exchanged: every rank must post the same messages
 * in the same rounds and wait in the same places. Not agreed here: config.device (each rank's own
 * GPU) and the timeout (dtrAgreeTimeout, before any collective that depends on it).
 */
static dtrResult_t agreeCall(MPI_Comm comm, const dtrAgreedValue* args, int nargs, const dtrConfig_t* cfg) {
  dtrAgreedValue all[16 + DTR_ENV_AGREED];
  int n = 0;
  for (int i = 0; i < nargs && n < 16; i++) all[n++] = args[i];
  all[n++] = (dtrAgreedValue){"config.backend", (int64_t)cfg->backend, dtrValueBackend};
  all[n++] = (dtrAgreedValue){"config.kernel", (int64_t)cfg->kernel, dtrValueKernel};
  all[n++] = (dtrAgreedValue){"config.stages", cfg->stages, dtrValueNumber};
  all[n++] = (dtrAgreedValue){"config.workspace", (int64_t)cfg->workspace, dtrValueWorkspace};
  all[n++] = (dtrAgreedValue){"config.inplace", cfg->inplace, dtrValueNumber};
  n += dtrEnvParamsAgreed(dtrEnvParamsGet(), all + n);
  return dtrAgreeValues(comm, all, n);
}

static void setBackend(dtrPlan_t plan, dtrBackend_t b) {
  plan->backend = b;
  plan->ops = b == dtrBackendNccl ? &dtrNcclBackend : b == dtrBackendP2p ? &dtrP2pBackend : &dtrCpuBackend;
}

/* Auto: p2p where every rank is on one host with a GPU (unless the shape suits NCCL better,
 * backend_rule.c; always where ranks share a GPU, which NCCL refuses), NCCL where they span hosts,
 * the CPU where a rank has no GPU. *tryP2p: p2p is auto's first choice, to be replaced by NCCL if it
 * cannot serve. */
static dtrResult_t resolveBackend(dtrPlan_t plan, const dtrConfig_t* cfg, int* tryP2p) {
  dtrBackend_t b = cfg->backend;
  *tryP2p = 0;
  if (b == dtrBackendAuto) b = dtrEnvParamsGet()->backend;
  int everyone = 1;
  if (b == dtrBackendAuto) DTRCHECK(dtrEveryRankHasGpu(plan->comm.comm, &everyone));
  if (b != dtrBackendCpu && everyone) DTRCHECK(dtrGpuPlacementFind(plan, cfg));
  if (b == dtrBackendAuto) {
    b = everyone ? dtrBackendNccl : dtrBackendCpu;
    const dtrKernel_t kernel = cfg->kernel != dtrKernelAuto ? cfg->kernel : dtrEnvParamsGet()->kernel;
    if (!everyone && (kernel != dtrKernelAuto || cfg->device >= 0))
      WARN("auto: a rank has no GPU, so the cpu backend transposes on the host; the kernel and device asked for do not apply");
    *tryP2p = everyone && plan->comm.nhosts == 1 && plan->comm.nranks > 1;
    if (*tryP2p && plan->gpu.shared) {
      INFO("auto: p2p: ranks share a GPU, and NCCL allows one rank per GPU");
      b = dtrBackendP2p;
      *tryP2p = 0; /* no NCCL to fall back on */
    } else if (*tryP2p && !dtrP2pSuitsShape(&plan->geo)) {
      INFO("auto: NCCL, not p2p: %zu-byte pieces of each result row would cross NVLink as partial lines",
           dtrRowPieceBytes(&plan->geo));
      *tryP2p = 0;
    }
  }
  setBackend(plan, *tryP2p ? dtrBackendP2p : b);
  plan->automatic = cfg->backend == dtrBackendAuto;
  return dtrSuccess;
}

/*
 * Pipeline stages: the config's, else DTR_STAGES, else 1 and, on the NCCL backend with peers, its
 * rule by size, which it applies at create once it knows whether its buffers are registered
 * (backend_nccl.c). The CPU backend's MPI_Alltoallv blocks, so its stages would overlap nothing: it
 * takes one unless asked.
 */
static int resolveStages(dtrPlan_t plan, int asked) {
  if (asked > 0) return asked;
  if (dtrEnvParamsGet()->stages > 0) return dtrEnvParamsGet()->stages;
  plan->stages_by_size = plan->backend == dtrBackendNccl && plan->comm.nranks > 1;
  return 1;
}

static void freePlan(dtrPlan_t plan) {
  if (!plan) return;
  if (plan->device >= 0) cudaSetDevice(plan->device); /* the workspace is freed on its device */
  dtrPlanWorkspaceRelease(plan);
  if (plan->grid) dtrGridRelease(plan->grid);
  free(plan->layout.send_count);
  dtrCommFree(&plan->comm);
  free(plan);
}

void dtrPlanWorkspaceRelease(dtrPlan_t plan) {
  dtrWorkspaceRelease(plan->grid && plan->workspace_policy == dtrWorkspaceGrid ? &plan->grid->pool : NULL,
                      plan->workspace);
  plan->workspace = NULL;
}

dtrResult_t dtrPlanWorkspaceAcquire(dtrPlan_t plan, int device, size_t stash_bytes, char** send, char** recv,
                                    char** stash) {
  const size_t e = plan->geo.entry_bytes;
  const size_t sendBytes = send ? (size_t)plan->layout.send_total * e : 0;
  const size_t recvBytes = recv ? (size_t)plan->layout.recv_total * e : 0;
  /* Every part rounded up: a transpose and its inverse (sends and receives swapped) then need the
   * same bytes and can share one pooled buffer. */
  const size_t at = dtrWorkspaceRecvOffset(sendBytes), stashAt = at + dtrWorkspaceRecvOffset(recvBytes);
  const size_t bytes = stashAt + dtrWorkspaceRecvOffset(stash_bytes);
  dtrWorkspace** pool = plan->grid && plan->workspace_policy == dtrWorkspaceGrid ? &plan->grid->pool : NULL;
  DTRCHECK(dtrMemoryCheck(plan->comm.comm, plan->comm.local, device, dtrWorkspaceToAllocate(pool, device, bytes), "the plan's workspace"));
  DTRCHECK(dtrAgree(plan->comm.comm, dtrWorkspaceAcquire(pool, device, bytes, &plan->workspace)));
  char* base = plan->workspace ? plan->workspace->ptr : NULL;
  if (send) *send = sendBytes ? base : NULL;
  if (recv) *recv = recvBytes ? base + at : NULL;
  if (stash) *stash = stash_bytes ? base + stashAt : NULL;
  return dtrSuccess;
}

/* A plan on (a duplicate of) comm, before its geometry is known. */
static dtrResult_t newPlan(MPI_Comm comm, dtrPlan_t* out) {
  dtrPlan_t plan = calloc(1, sizeof *plan);
  if (!plan) return dtrSetError(dtrOutOfMemory, "cannot allocate a plan");
  plan->device = -1;
  dtrResult_t res = dtrCommInit(comm, &plan->comm);
  if (res != dtrSuccess) {
    freePlan(plan);
    return res;
  }
  dtrLogSetRank(plan->comm.rank);
  *out = plan;
  return dtrSuccess;
}

/* Collective: the rest of a plan whose arguments every rank has agreed on. Frees it on failure. */
static dtrResult_t finishPlan(dtrPlan_t plan, const dtrGeometry* geo, dtrDataType_t type, int64_t howmany,
                              const dtrConfig_t* cfg, dtrPlan_t* out) {
  dtrResult_t res;
  plan->geo = *geo;
  /* Padded segment rows change every message's size (agreed with the environment, agreeCall). */
  plan->geo.segment_align = (size_t)dtrEnvParamsGet()->segment_align;
  plan->type = type;
  plan->howmany = howmany;
  plan->workspace_policy = cfg->workspace;
  plan->inplace = cfg->inplace;
  plan->timeout = resolveTimeout(cfg);
  const int p = plan->comm.nranks;
  int64_t* storage = calloc(4 * (size_t)p, sizeof *storage);
  res = storage ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate the exchange layout");
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, res), res, fail);
  plan->layout.send_count = storage;
  plan->layout.send_offset = storage + p;
  plan->layout.recv_count = storage + 2 * p;
  plan->layout.recv_offset = storage + 3 * p;
  dtrExchangeLayoutFill(&plan->geo, plan->comm.rank, &plan->layout);

  int tryP2p = 0;
  DTRCHECKGOTO(resolveBackend(plan, cfg, &tryP2p), res, fail);
  res = dtrSuccess;
  if (tryP2p) {
    plan->stages = 1;
    res = plan->ops->create(plan, cfg);
    if (res == dtrTimeout) goto fail; /* a rank is missing: NCCL would not find it either */
    if (res != dtrSuccess) {
      /* Agreed, and nothing left allocated: every rank moves on to NCCL together. */
      INFO("auto: the p2p backend cannot serve (%s); NCCL instead", dtrGetLastError());
      plan->device = -1;
      setBackend(plan, dtrBackendNccl);
    }
  }
  if (!tryP2p || res != dtrSuccess) {
    plan->stages = resolveStages(plan, cfg->stages);
    DTRCHECKGOTO(plan->ops->create(plan, cfg), res, fail);
  }
  INFO("plan %lld x %lld (batch %lld, %s) %s x %lld on %d ranks (%d hosts): backend %s, kernel %s, %d stages",
       (long long)geo->rows, (long long)geo->cols, (long long)geo->batch,
       geo->batch_layout == dtrBatchOuter ? "outer" : "middle", dtrDataTypeName(type), (long long)howmany, p,
       plan->comm.nhosts, plan->ops->name, dtrKernelName(plan->kernel), plan->stages);
  *out = plan;
  return dtrSuccess;
fail:
  freePlan(plan);
  return res;
}

dtrResult_t dtrPlanCreateLike(dtrPlan_t plan, dtrBackend_t backend, dtrPlan_t* out) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = backend;
  cfg.device = plan->device;
  cfg.inplace = plan->inplace;
  cfg.timeout = plan->timeout;
  dtrPlan_t like = NULL;
  DTRCHECK(newPlan(plan->comm.comm, &like));
  return finishPlan(like, &plan->geo, plan->type, plan->howmany, &cfg, out);
}

static dtrResult_t planCreate(dtrPlan_t* out, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany,
                              MPI_Comm comm, const dtrConfig_t* cfg) {
  const DeviceGuard guard = deviceSave();
  dtrPlan_t plan = NULL;
  dtrResult_t res = newPlan(comm, &plan);
  if (res != dtrSuccess) return deviceRestore(guard, res);

  DTRCHECKGOTO(dtrAgreeTimeout(plan->comm.comm, timeoutMs(cfg)), res, fail);
  /* Local checks first, then one agreement, so that a bad argument anywhere stops every rank. */
  size_t e = 0;
  res = !out ? dtrSetError(dtrInvalidArgument, "plan is NULL") : checkShape(rows, cols, type, howmany, &e);
  if (res == dtrSuccess) res = checkConfig(cfg);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, res), res, fail);

  const dtrAgreedValue args[] = {{"rows", rows, dtrValueNumber},
                                 {"cols", cols, dtrValueNumber},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"howmany", howmany, dtrValueNumber}};
  DTRCHECKGOTO(agreeCall(plan->comm.comm, args, 4, cfg), res, fail);

  const dtrGeometry geo = dtrGeometryMatrix(rows, cols, e, plan->comm.nranks);
  return deviceRestore(guard, finishPlan(plan, &geo, type, howmany, cfg, out));
fail:
  freePlan(plan);
  return deviceRestore(guard, res);
}

dtrResult_t dtrPlanCreate(dtrPlan_t* out, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany,
                          MPI_Comm comm, const dtrConfig_t* config) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (config) cfg = *config;
  if (out) *out = NULL;
  const dtrDeadline saved = dtrDeadlineEnter(resolveTimeout(&cfg));
  const dtrResult_t res = planCreate(out, rows, cols, type, howmany, comm, &cfg);
  dtrDeadlineLeave(saved);
  return res;
}

/* Checks of a pencil plan's arguments that need no communication. */
static dtrResult_t checkPencilArgs(dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from, dtrPencil_t to,
                                   dtrDataType_t type, int64_t howmany, size_t* e) {
  if (!shape) return dtrSetError(dtrInvalidArgument, "shape is NULL");
  static const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++)
    if (shape[d] < 1)
      return dtrSetError(dtrInvalidArgument, "shape[%d] (n%c) = %lld: must be at least 1", d, axis[d], (long long)shape[d]);
  if ((int)from < 0 || from >= dtrNumPencils || (int)to < 0 || to >= dtrNumPencils)
    return dtrSetError(dtrInvalidArgument, "pencils %d -> %d: each must be dtrPencilX, Y or Z (0..2)", (int)from, (int)to);
  if (from == to)
    return dtrSetError(dtrInvalidArgument, "%s -> %s: a transpose needs two different pencils", dtrPencilName(from),
                       dtrPencilName(to));
  if ((from == dtrPencilX && to == dtrPencilZ) || (from == dtrPencilZ && to == dtrPencilX)) {
    if (grid->pr != 1)
      return dtrSetError(dtrInvalidArgument,
                         "%s -> %s is one exchange only on 1 x P grids (slabs); this grid is %d x %d: go through Y",
                         dtrPencilName(from), dtrPencilName(to), grid->pr, grid->pc);
  }
  DTRCHECK(checkEntry(type, howmany, e));
  if (dtrGeometryOverflows(shape[0], shape[1], shape[2], *e))
    return dtrSetError(dtrInvalidArgument, "nx x ny x nz x entry = %lld x %lld x %lld x %zu bytes overflows 64-bit sizes",
                       (long long)shape[0], (long long)shape[1], (long long)shape[2], *e);
  return dtrSuccess;
}

static dtrResult_t planCreatePencil(dtrPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from,
                                    dtrPencil_t to, dtrDataType_t type, int64_t howmany, const dtrConfig_t* cfg) {
  const DeviceGuard guard = deviceSave();
  /* Agreed over the whole grid: a difference between two groups would otherwise go unseen. */
  dtrResult_t res = dtrAgreeTimeout(grid->comm, timeoutMs(cfg));
  if (res != dtrSuccess) return deviceRestore(guard, res);
  size_t e = 0;
  res = !out ? dtrSetError(dtrInvalidArgument, "plan is NULL")
                         : checkPencilArgs(grid, shape, from, to, type, howmany, &e);
  if (res == dtrSuccess) res = checkConfig(cfg);
  res = dtrAgree(grid->comm, res);
  if (res != dtrSuccess) return deviceRestore(guard, res);
  const dtrAgreedValue args[] = {{"shape[0] (nx)", shape[0], dtrValueNumber},
                                 {"shape[1] (ny)", shape[1], dtrValueNumber},
                                 {"shape[2] (nz)", shape[2], dtrValueNumber},
                                 {"from", (int64_t)from, dtrValuePencil},
                                 {"to", (int64_t)to, dtrValuePencil},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"howmany", howmany, dtrValueNumber}};
  res = agreeCall(grid->comm, args, 7, cfg);
  if (res != dtrSuccess) return deviceRestore(guard, res);

  dtrGeometry geo;
  dtrGridGroup group;
  if (dtrPencilTransposeGeometry(shape, grid->pr, grid->pc, grid->a, grid->b, from, to, e, &geo, &group))
    return deviceRestore(guard, dtrSetError(dtrInternalError, "no geometry for %s -> %s", dtrPencilName(from), dtrPencilName(to)));
  dtrPlan_t plan = NULL;
  res = newPlan(group == dtrGridColumn ? grid->column : grid->row, &plan);
  if (res != dtrSuccess) return deviceRestore(guard, res);
  plan->grid = grid;
  grid->refs++;
  return deviceRestore(guard, finishPlan(plan, &geo, type, howmany, cfg, out));
}

dtrResult_t dtrPlanCreatePencil(dtrPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from,
                                dtrPencil_t to, dtrDataType_t type, int64_t howmany, const dtrConfig_t* config) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (config) cfg = *config;
  if (out) *out = NULL;
  if (!grid) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  const dtrDeadline saved = dtrDeadlineEnter(resolveTimeout(&cfg));
  const dtrResult_t res = planCreatePencil(out, grid, shape, from, to, type, howmany, &cfg);
  dtrDeadlineLeave(saved);
  return res;
}

/* Local: the execute's pointers against the plan (room and kind are the backend's to check). */
static dtrResult_t checkExecuteBuffers(dtrPlan_t plan, const void* in, void* out) {
  const dtrGeometry* g = &plan->geo;
  const int r = plan->comm.rank;
  const int64_t inEntries = dtrInEntries(g, r), outEntries = dtrOutEntries(g, r);
  const size_t inBytes = (size_t)inEntries * g->entry_bytes, outBytes = (size_t)outEntries * g->entry_bytes;
  /* A rank that owns nothing may pass NULL. */
  if (inEntries > 0 && !in) return dtrSetError(dtrInvalidArgument, "in is NULL but this rank holds %lld entries of A", (long long)inEntries);
  if (outEntries > 0 && !out) return dtrSetError(dtrInvalidArgument, "out is NULL but this rank holds %lld entries of B", (long long)outEntries);
  /* Each buffer on its own first: a buffer too small for its slab would otherwise be reported as
   * overlapping whatever allocation follows it. */
  DTRCHECK(plan->ops->checkBuffers(plan, in, out));
  if (inEntries > 0 && outEntries > 0) {
    const uintptr_t i0 = (uintptr_t)in, o0 = (uintptr_t)out;
    if (in == (const void*)out && !plan->inplace)
      return dtrSetError(dtrInvalidArgument,
                         "in == out: an in-place transpose needs a plan made with config.inplace = 1 (or two buffers)");
    if (in != (const void*)out && i0 < o0 + outBytes && o0 < i0 + inBytes)
      return dtrSetError(dtrInvalidArgument,
                         "in (%zu bytes at %p) and out (%zu bytes at %p) overlap: pass separate buffers, or in == out "
                         "on a plan made with config.inplace = 1",
                         inBytes, in, outBytes, (void*)out);
  }
  return dtrSuccess;
}

/*
 * Under a deadline: waits for the stream (the execute's work and whatever the caller queued before
 * it), polling the transport's asynchronous error. Past the deadline, or on an error, the backend's
 * device work is aborted, the stream given a moment to drain, and the plan marked broken. A stream
 * being captured has nothing running to wait for.
 */
static dtrResult_t waitForStream(dtrPlan_t plan, cudaStream_t stream, const char* what) {
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDACHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return dtrSuccess;
  dtrResult_t res = dtrSuccess;
  for (long polls = 0; res == dtrSuccess; polls++) {
    const cudaError_t err = cudaStreamQuery(stream);
    if (err == cudaSuccess) return dtrSuccess;
    if (err != cudaErrorNotReady) CUDACHECK(err);
    if (plan->ops->asyncError) res = plan->ops->asyncError(plan);
    if (res == dtrSuccess && dtrDeadlinePassed()) res = dtrDeadlineMissed(what);
    if (res == dtrSuccess) dtrPollPause(polls);
  }
  plan->broken = 1;
  if (plan->ops->abort) plan->ops->abort(plan);
  const double drainUntil = MPI_Wtime() + 10;
  while (cudaStreamQuery(stream) == cudaErrorNotReady && MPI_Wtime() < drainUntil) dtrPollPause(1L << 30);
  return res;
}

/* `refused`: the caller's own checks failed (dtrExecuteRefuse); else the buffers are checked here. */
static dtrResult_t execute(dtrPlan_t plan, dtrResult_t refused, const void* in, void* out, cudaStream_t stream) {
  dtrResult_t res = refused != dtrSuccess ? refused : checkExecuteBuffers(plan, in, out);
  if (!plan->ops->agrees_on_checks) {
    if (dtrEnvParamsGet()->execute_agree) DTRCHECK(dtrAgree(plan->comm.comm, res));
    else if (res != dtrSuccess) return res;
  }
  DTRCHECK(plan->ops->execute(plan, res, in, out, stream));
  if (plan->timeout > 0 && plan->device >= 0) DTRCHECK(waitForStream(plan, stream, "the exchange on the GPU"));
  return dtrSuccess;
}

static dtrResult_t checkNotBroken(dtrPlan_t plan) {
  if (plan->broken)
    return dtrSetError(dtrTimeout, "this plan timed out (or its transport failed) in an earlier call; destroy it");
  return dtrSuccess;
}

/* A plan's call under its deadline; a timeout leaves the plan broken. */
static dtrResult_t finishCall(dtrPlan_t plan, dtrDeadline saved, dtrResult_t res) {
  dtrDeadlineLeave(saved);
  if (res == dtrTimeout) plan->broken = 1;
  return res;
}

dtrResult_t dtrExecute(dtrPlan_t plan, const void* in, void* out, cudaStream_t stream) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(checkNotBroken(plan));
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  if (plan->device < 0) return finishCall(plan, saved, execute(plan, dtrSuccess, in, out, stream));
  const DeviceGuard guard = deviceSave();
  return finishCall(plan, saved, deviceRestore(guard, execute(plan, dtrSuccess, in, out, stream)));
}

dtrResult_t dtrExecuteRefuse(dtrPlan_t plan, const char* problem) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(checkNotBroken(plan));
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  const DeviceGuard guard = deviceSave();
  const dtrResult_t refused = dtrSetError(dtrInvalidArgument, "%s", problem && *problem ? problem : "the caller refused its arrays");
  return finishCall(plan, saved, deviceRestore(guard, execute(plan, refused, NULL, NULL, NULL)));
}

/* Communicators as Fortran handles, for the bindings (MPI_Comm_f2c is the MPI library's own, so no
 * binding needs to know how this MPI represents a communicator in C). */
dtrResult_t dtrLocalSizeF(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Fint comm, int rank,
                          dtrLocalSize_t* size) {
  return dtrLocalSize(rows, cols, type, howmany, MPI_Comm_f2c(comm), rank, size);
}

dtrResult_t dtrPlanCreateF(dtrPlan_t* plan, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Fint comm,
                           const dtrConfig_t* config) {
  return dtrPlanCreate(plan, rows, cols, type, howmany, MPI_Comm_f2c(comm), config);
}

dtrResult_t dtrPlanDestroy(dtrPlan_t plan) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  const DeviceGuard guard = deviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  plan->ops->destroy(plan);
  freePlan(plan);
  dtrDeadlineLeave(saved);
  return deviceRestore(guard, dtrSuccess);
}

dtrResult_t dtrPlanGetWorkspaceSize(dtrPlan_t plan, size_t* bytes) {
  if (!plan || !bytes) return dtrSetError(dtrInvalidArgument, "%s is NULL", plan ? "bytes" : "plan");
  *bytes = plan->workspace ? plan->workspace->bytes : 0;
  return dtrSuccess;
}

dtrResult_t dtrPlanGetBackend(dtrPlan_t plan, dtrBackend_t* b) {
  if (!plan || !b) return dtrSetError(dtrInvalidArgument, "%s is NULL", plan ? "backend" : "plan");
  *b = plan->backend;
  return dtrSuccess;
}

dtrResult_t dtrPlanGetStages(dtrPlan_t plan, int* stages) {
  if (!plan || !stages) return dtrSetError(dtrInvalidArgument, "%s is NULL", plan ? "stages" : "plan");
  *stages = plan->stages;
  return dtrSuccess;
}

dtrResult_t dtrPlanGetKernel(dtrPlan_t plan, dtrKernel_t* k) {
  if (!plan || !k) return dtrSetError(dtrInvalidArgument, "%s is NULL", plan ? "kernel" : "plan");
  *k = plan->kernel;
  return dtrSuccess;
}

dtrResult_t dtrPlanGetDevice(dtrPlan_t plan, int* d) {
  if (!plan || !d) return dtrSetError(dtrInvalidArgument, "%s is NULL", plan ? "device" : "plan");
  *d = plan->device;
  return dtrSuccess;
}

static dtrResult_t alltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream) {
  DTRCHECK(plan->ops->alltoall(plan, send, recv, bytes_per_peer, stream));
  if (plan->timeout > 0 && plan->device >= 0) DTRCHECK(waitForStream(plan, stream, "the bare all-to-all on the GPU"));
  return dtrSuccess;
}

dtrResult_t dtrPlanAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(checkNotBroken(plan));
  const DeviceGuard guard = deviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  return finishCall(plan, saved, deviceRestore(guard, alltoall(plan, send, recv, bytes_per_peer, stream)));
}

int dtrPlanHosts(dtrPlan_t plan) { return plan->comm.nhosts; }
int dtrPlanSharesGpu(dtrPlan_t plan) { return plan->gpu.shared; }
MPI_Comm dtrPlanComm(dtrPlan_t plan) { return plan->comm.comm; }
