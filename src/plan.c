#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/device.h"
#include "backends/gpu/stream_wait.h"
#include "backends/nccl/stage_rule.h"
#include "backends/p2p/p2p_rule.h"
#include "backends/workspace.h"
#include "core/checks.h"
#include "core/params.h"
#include "core/timeout.h"
#include "grid.h"

double dtrConfigTimeout(const dtrConfig_t* cfg) {
  if (cfg->timeout > 0 && isfinite(cfg->timeout)) return cfg->timeout;
  return dtrEnvParamsGet()->timeout;
}

static void setBackend(dtrPlan_t plan, dtrBackend_t b) {
  plan->backend = b;
  plan->ops = b == dtrBackendNccl ? &dtrNcclBackend : b == dtrBackendP2p ? &dtrP2pBackend : &dtrCpuBackend;
}

dtrResult_t dtrPlanResolveBackend(dtrPlan_t plan, const dtrConfig_t* cfg, int transpose, int* tryP2p) {
  dtrBackend_t b = cfg->backend;
  *tryP2p = 0;
  if (b == dtrBackendAuto) b = dtrEnvParamsGet()->backend;
  int everyone = 1;
  if (b == dtrBackendAuto) DTRCHECK(dtrEveryRankHasGpu(plan->comm.comm, &everyone));
  if (b != dtrBackendCpu && everyone) DTRCHECK(dtrGpuPlacementFind(plan, cfg));
  if (b == dtrBackendAuto) {
    b = everyone ? dtrBackendNccl : dtrBackendCpu;
    const dtrKernel_t kernel = cfg->kernel != dtrKernelAuto ? cfg->kernel : dtrEnvParamsGet()->kernel;
    if (transpose && !everyone && (kernel != dtrKernelAuto || cfg->device >= 0))
      WARN("auto: a rank has no GPU, so the cpu backend transposes on the host; the kernel and device asked for do not apply");
    *tryP2p = everyone && plan->comm.nhosts == 1 && plan->comm.nranks > 1;
    if (*tryP2p && plan->gpu.shared) {
      INFO("auto: p2p: ranks share a GPU, and NCCL allows one rank per GPU");
      b = dtrBackendP2p;
      *tryP2p = 0; /* no NCCL to fall back on */
    } else if (*tryP2p && transpose && !dtrP2pSuitsShape(&plan->geo)) {
      INFO("auto: NCCL, not p2p: %zu-byte pieces of each result row would cross NVLink as partial lines",
           dtrRowPieceBytes(&plan->geo));
      *tryP2p = 0;
    }
  }
  setBackend(plan, *tryP2p ? dtrBackendP2p : b);
  return dtrSuccess;
}

/*
 * Pipeline stages, all decided here: the config's, else DTR_STAGES, else the NCCL backend's rule by
 * size where it has peers (stage_rule.c; its buffers are registered where DTR_NCCL_REGISTER says,
 * which the ranks have agreed on), else one. The p2p backend's one pass has no rounds; the CPU
 * backend's MPI_Alltoallv blocks, so that its stages would overlap nothing: one unless asked.
 */
static int resolveStages(dtrPlan_t plan, int asked) {
  const dtrEnvParams* env = dtrEnvParamsGet();
  if (plan->backend == dtrBackendP2p) return 1;
  if (asked > 0) return asked;
  if (env->stages > 0) return env->stages;
  if (plan->backend == dtrBackendNccl && plan->comm.nranks > 1) return dtrStagesBySize(&plan->geo, env->nccl_register);
  return 1;
}

void dtrPlanFree(dtrPlan_t plan) {
  if (!plan) return;
  if (plan->state) plan->ops->destroy(plan);
  if (plan->device >= 0) cudaSetDevice(plan->device); /* the workspace is freed on its device */
  dtrPlanWorkspaceRelease(plan);
  if (plan->grid) dtrGridRelease(plan->grid);
  free(plan->layout.send_count);
  dtrCommFree(&plan->comm);
  free(plan);
}

dtrResult_t dtrPlanNew(MPI_Comm comm, dtrPlan_t* out) {
  dtrPlan_t plan = calloc(1, sizeof *plan);
  if (!plan) return dtrSetError(dtrOutOfMemory, "cannot allocate a plan");
  plan->device = -1;
  dtrResult_t res = dtrCommInit(comm, &plan->comm);
  if (res != dtrSuccess) {
    dtrPlanFree(plan);
    return res;
  }
  dtrLogSetRank(plan->comm.rank);
  *out = plan;
  return dtrSuccess;
}

dtrResult_t dtrPlanFinish(dtrPlan_t plan, dtrGrid_t grid, const dtrGeometry* geo, dtrDataType_t type, int64_t howmany,
                          const dtrConfig_t* cfg, dtrPlan_t* out) {
  dtrResult_t res;
  if (grid) {
    dtrGridRetain(grid);
    plan->grid = grid;
    plan->pool = cfg->workspace == dtrWorkspaceGrid ? &grid->pool : NULL;
  }
  plan->geo = *geo;
  /* Padded segment rows change every message's size (agreed with the environment by the door). */
  plan->geo.segment_align = (size_t)dtrEnvParamsGet()->segment_align;
  plan->type = type;
  plan->howmany = howmany;
  plan->inplace = cfg->inplace;
  plan->timeout = dtrConfigTimeout(cfg);
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
  DTRCHECKGOTO(dtrPlanResolveBackend(plan, cfg, 1, &tryP2p), res, fail);
  plan->stages = resolveStages(plan, cfg->stages);
  res = plan->ops->create(plan, cfg);
  if (tryP2p && res != dtrSuccess && res != dtrTimeout) {
    /* Agreed, and nothing left allocated: every rank moves on to NCCL together. (A timeout means a
     * rank is missing: NCCL would not find it either.) */
    INFO("auto: the p2p backend cannot serve (%s); NCCL instead", dtrGetLastError());
    plan->device = -1;
    setBackend(plan, dtrBackendNccl);
    plan->stages = resolveStages(plan, cfg->stages);
    res = plan->ops->create(plan, cfg);
  }
  if (res != dtrSuccess) goto fail;
  INFO("plan %lld x %lld (batch %lld, %s) %s x %lld on %d ranks (%d hosts): backend %s, kernel %s, %d stages",
       (long long)geo->rows, (long long)geo->cols, (long long)geo->batch,
       geo->batch_layout == dtrBatchOuter ? "outer" : "middle", dtrDataTypeName(type), (long long)howmany, p,
       plan->comm.nhosts, plan->ops->name, dtrKernelName(plan->kernel), plan->stages);
  *out = plan;
  return dtrSuccess;
fail:
  dtrPlanFree(plan);
  return res;
}

/* The transport's asynchronous error, and aborting the device work that waits for other ranks. */
static dtrResult_t asyncError(dtrPlan_t plan) { return plan->ops->asyncError ? plan->ops->asyncError(plan) : dtrSuccess; }

static void abortDeviceWork(dtrPlan_t plan) {
  plan->broken = 1;
  if (plan->ops->abort) plan->ops->abort(plan);
}

static dtrResult_t pollPlan(void* plan) { return asyncError(plan); }
static void abortPlan(void* plan) { abortDeviceWork(plan); }

/* Under a deadline: waits for the stream (the execute's work and whatever the caller queued before it);
 * past it, or on the transport's error, the backend's device work is aborted and the plan marked broken. */
static dtrResult_t waitForStream(dtrPlan_t plan, cudaStream_t stream, const char* what) {
  return dtrStreamWaitUnderDeadline(stream, what, pollPlan, abortPlan, plan);
}

dtrResult_t dtrPlanRun(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out, cudaStream_t stream) {
  if (!plan->ops->agrees_on_checks) {
    if (dtrEnvParamsGet()->execute_agree) DTRCHECK(dtrAgree(plan->comm.comm, checked));
    else if (checked != dtrSuccess) return checked;
  }
  DTRCHECK(plan->ops->execute(plan, checked, in, out, stream));
  if (plan->timeout > 0 && plan->device >= 0) DTRCHECK(waitForStream(plan, stream, "the exchange on the GPU"));
  return dtrSuccess;
}

dtrResult_t dtrPlanChunksBegin(dtrPlan_t plan, dtrResult_t checked, const void* in, void* out) {
  if (plan->broken) return dtrSetError(dtrTimeout, "this plan timed out (or its transport failed) in an earlier call");
  plan->chunk_in = NULL;
  plan->chunk_out = NULL;
  DTRCHECK(plan->ops->chunksBegin(plan, checked, in, out));
  plan->chunk_in = in;
  plan->chunk_out = out;
  return dtrSuccess;
}

dtrResult_t dtrPlanChunkRun(dtrPlan_t plan, int chunks, int k, int ctas, cudaStream_t stream) {
  return plan->ops->chunkRun(plan, chunks, k, ctas, stream);
}

dtrResult_t dtrPlanChunksFinish(dtrPlan_t plan, cudaStream_t stream) {
  return plan->ops->chunksFinish ? plan->ops->chunksFinish(plan, stream) : dtrSuccess;
}

dtrResult_t dtrPlanChunksEnd(dtrPlan_t plan, cudaStream_t stream) {
  if (plan->timeout > 0 && plan->device >= 0) DTRCHECK(waitForStream(plan, stream, "the FFT's exchanges on the GPU"));
  return dtrSuccess;
}

dtrResult_t dtrPlanRunAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream) {
  DTRCHECK(plan->ops->alltoall(plan, send, recv, bytes_per_peer, stream));
  if (plan->timeout > 0 && plan->device >= 0) DTRCHECK(waitForStream(plan, stream, "the bare all-to-all on the GPU"));
  return dtrSuccess;
}

int dtrPlanHosts(dtrPlan_t plan) { return plan->comm.nhosts; }
int dtrPlanSharesGpu(dtrPlan_t plan) { return plan->gpu.shared; }
MPI_Comm dtrPlanComm(dtrPlan_t plan) { return plan->comm.comm; }
