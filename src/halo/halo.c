/*
 * The halo exchange's door: dtrHaloPlanCreate, dtrHaloExecute and its adjoint, the getters. Arguments are
 * checked locally and agreed across the grid before anything is built or exchanged, as the transposes'
 * and the FFT's doors do; the backend is resolved as for pencil plans (auto: p2p on one host of GPUs,
 * NCCL across hosts, cpu where a rank has no GPU); the layout is halo_geometry.c's and the exchange
 * halo_cpu.c's or halo_gpu.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arguments.h"
#include "backends/gpu/device.h"
#include "backends/gpu/stream_wait.h"
#include "core/checks.h"
#include "core/device_guard.h"
#include "core/params.h"
#include "core/timeout.h"
#include "grid.h"
#include "halo_plan.h"
#include "plan.h"

static const char kAxis[3] = {'x', 'y', 'z'};

/* Local: the arguments of a plan; sets the entry's bytes. */
static dtrResult_t checkArgs(dtrHaloPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t pencil,
                             dtrDataType_t type, int64_t howmany, const int halo[3], const int periodic[3],
                             const dtrConfig_t* cfg, size_t* e) {
  if (!out) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  if (!shape) return dtrSetError(dtrInvalidArgument, "shape is NULL");
  if (!halo) return dtrSetError(dtrInvalidArgument, "halo is NULL");
  if (!periodic) return dtrSetError(dtrInvalidArgument, "periodic is NULL");
  if ((int)pencil < 0 || pencil >= dtrNumPencils)
    return dtrSetError(dtrInvalidArgument, "pencil = %d: expected dtrPencilX, Y or Z (0..2)", (int)pencil);
  /* The shape, type and howmany as a pencil plan takes them (any two pencils). */
  DTRCHECK(dtrCheckPencilArgs(grid, shape, dtrPencilX, dtrPencilY, type, howmany, e));
  for (int d = 0; d < 3; d++) {
    if (halo[d] < 0)
      return dtrSetError(dtrInvalidArgument, "halo[%d] (%c) = %d: widths must be 0 or more", d, kAxis[d], halo[d]);
    if (periodic[d] && halo[d] > shape[d])
      return dtrSetError(dtrInvalidArgument,
                         "halo[%d] (%c) = %d is wider than the periodic axis (n%c = %lld): a periodic halo takes at "
                         "most the whole axis",
                         d, kAxis[d], halo[d], kAxis[d], (long long)shape[d]);
  }
  const int64_t padded[3] = {shape[0] + 2 * (int64_t)halo[0], shape[1] + 2 * (int64_t)halo[1],
                             shape[2] + 2 * (int64_t)halo[2]};
  if (dtrGeometryOverflows(padded[0], padded[1], padded[2], *e))
    return dtrSetError(dtrInvalidArgument, "the padded array %lld x %lld x %lld x %zu bytes overflows 64-bit sizes",
                       (long long)padded[0], (long long)padded[1], (long long)padded[2], *e);
  if (cfg->workspace != dtrWorkspaceOwn || cfg->inplace != 0 || cfg->stages != 0)
    return dtrSetError(dtrInvalidArgument,
                       "config.workspace, .inplace and .stages do not apply to halo plans: leave them at their defaults");
  return dtrCheckConfig(cfg);
}

static void freePlan(struct dtrHaloPlan* h) {
  if (!h) return;
  if (h->base && h->base->device >= 0) cudaSetDevice(h->base->device);
  dtrHaloGpuDestroy(h);
  dtrHaloCpuDestroy(h);
  for (int i = 0; i < 3; i++)
    if (h->stepComm[i] != MPI_COMM_NULL) MPI_Comm_free(&h->stepComm[i]);
  dtrHaloLayoutFree(&h->layout);
  if (h->base) dtrPlanFree(h->base);
  if (h->grid) dtrGridRelease(h->grid);
  free(h);
}

static dtrResult_t build(struct dtrHaloPlan* h, const dtrConfig_t* cfg) {
  const dtrGrid_t g = h->grid;
  dtrResult_t res = dtrSuccess;
  if (dtrHaloLayoutMake(h->shape, (int)h->pencil, g->pr, g->pc, g->a, g->b, h->layout.halo, h->layout.periodic, &h->layout))
    res = dtrSetError(dtrOutOfMemory, "cannot allocate the halo exchange's layout");
  DTRCHECK(dtrAgree(g->comm, res));
  /* Each step's messages on a communicator of their own: no other plan's messages can match them. */
  for (int i = 0; i < h->layout.nsteps && res == dtrSuccess; i++)
    if (MPI_Comm_dup(h->layout.steps[i].split == 1 ? g->column : g->row, &h->stepComm[i]) != MPI_SUCCESS)
      res = dtrSetError(dtrMpiError, "MPI_Comm_dup of the grid's %s failed", h->layout.steps[i].split == 1 ? "column" : "row");
  DTRCHECK(dtrAgree(g->comm, res));
  DTRCHECK(dtrPlanNew(g->comm, &h->base));
  h->base->type = h->type;
  h->base->howmany = h->howmany;
  h->base->timeout = dtrConfigTimeout(cfg);
  int tryP2p = 0;
  DTRCHECK(dtrPlanResolveBackend(h->base, cfg, 0, &tryP2p));
  if (h->base->backend == dtrBackendCpu) return dtrHaloCpuCreate(h);
  res = dtrHaloGpuCreate(h, cfg);
  if (tryP2p && res != dtrSuccess && res != dtrTimeout) {
    /* Agreed, and nothing of it left: every rank moves on to NCCL together. */
    INFO("auto: the halo exchange's p2p path cannot serve (%s); NCCL instead", dtrGetLastError());
    h->base->backend = dtrBackendNccl;
    h->base->device = -1;
    res = dtrHaloGpuCreate(h, cfg);
  }
  if (res == dtrSuccess)
    INFO("halo %lld x %lld x %lld %s x %lld, %s-pencils, widths %d %d %d (periodic %d %d %d) on a %d x %d grid: %s, %d steps",
         (long long)h->shape[0], (long long)h->shape[1], (long long)h->shape[2], dtrDataTypeName(h->type),
         (long long)h->howmany, dtrPencilName(h->pencil), h->layout.halo[0], h->layout.halo[1], h->layout.halo[2],
         h->layout.periodic[0], h->layout.periodic[1], h->layout.periodic[2], g->pr, g->pc,
         dtrBackendName(h->base->backend), h->layout.nsteps);
  return res;
}

static dtrResult_t planCreate(dtrHaloPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t pencil,
                              dtrDataType_t type, int64_t howmany, const int halo[3], const int periodic[3],
                              const dtrConfig_t* cfg) {
  DTRCHECK(dtrAgreeTimeout(grid->comm, (int64_t)llround(dtrConfigTimeout(cfg) * 1000)));
  size_t e = 0;
  DTRCHECK(dtrAgree(grid->comm, checkArgs(out, grid, shape, pencil, type, howmany, halo, periodic, cfg, &e)));
  const dtrAgreedValue args[] = {{"shape[0] (nx)", shape[0], dtrValueNumber},
                                 {"shape[1] (ny)", shape[1], dtrValueNumber},
                                 {"shape[2] (nz)", shape[2], dtrValueNumber},
                                 {"pencil", (int64_t)pencil, dtrValuePencil},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"howmany", howmany, dtrValueNumber},
                                 {"halo[0] (x)", halo[0], dtrValueNumber},
                                 {"halo[1] (y)", halo[1], dtrValueNumber},
                                 {"halo[2] (z)", halo[2], dtrValueNumber},
                                 /* One value: dtrAgreeCall takes at most 11 besides the config's. */
                                 {"periodic (bits x, y, z: 1, 2, 4)",
                                  (periodic[0] != 0) | (periodic[1] != 0) << 1 | (periodic[2] != 0) << 2, dtrValueNumber}};
  DTRCHECK(dtrAgreeCall(grid->comm, args, 10, cfg));
  struct dtrHaloPlan* h = calloc(1, sizeof *h);
  DTRCHECK(dtrAgree(grid->comm, h ? dtrSuccess : dtrSetError(dtrOutOfMemory, "cannot allocate a halo plan")));
  for (int i = 0; i < 3; i++) h->stepComm[i] = MPI_COMM_NULL;
  h->grid = grid;
  dtrGridRetain(grid);
  memcpy(h->shape, shape, sizeof h->shape);
  h->pencil = pencil;
  h->type = type;
  h->howmany = howmany;
  h->entry = e;
  for (int d = 0; d < 3; d++) h->layout.halo[d] = halo[d], h->layout.periodic[d] = periodic[d] != 0;
  dtrResult_t res = dtrPencilBox(grid, shape, pencil, type, howmany, -1, &h->box);
  if (res == dtrSuccess) {
    h->padded = h->box;
    for (int d = 0; d < 3; d++) h->padded.start[d] -= halo[d], h->padded.size[d] += 2 * (int64_t)halo[d];
    h->padded.bytes = (size_t)(h->padded.size[0] * h->padded.size[1] * h->padded.size[2]) * e;
    res = build(h, cfg);
  }
  if (res != dtrSuccess) {
    freePlan(h);
    return res;
  }
  *out = h;
  return dtrSuccess;
}

dtrResult_t dtrHaloPlanCreate(dtrHaloPlan_t* plan, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t pencil,
                              dtrDataType_t type, int64_t howmany, const int halo[3], const int periodic[3],
                              const dtrConfig_t* config) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (config) cfg = *config;
  if (plan) *plan = NULL;
  if (!grid) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(dtrConfigTimeout(&cfg));
  const dtrResult_t res = planCreate(plan, grid, shape, pencil, type, howmany, halo, periodic, &cfg);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, res);
}

/* Local: the caller's padded array. */
static dtrResult_t checkBuffer(struct dtrHaloPlan* h, const void* buf) {
  const size_t bytes = h->padded.bytes;
  if (!bytes) return dtrSuccess;
  if (!buf) return dtrSetError(dtrInvalidArgument, "buf is NULL but this rank's padded box holds %zu bytes", bytes);
  if (h->base->backend != dtrBackendCpu) return dtrCheckDeviceBuffer(h->base, buf, bytes, "buf");
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, buf) == cudaSuccess && attr.type == cudaMemoryTypeDevice)
    return dtrSetError(dtrInvalidArgument, "buf is device memory; the cpu backend's halo exchange needs a host buffer");
  (void)cudaGetLastError();
  return dtrSuccess;
}

static dtrResult_t pollHalo(void* h) { return dtrHaloGpuAsyncError(h); }
static void abortHalo(void* h) {
  ((struct dtrHaloPlan*)h)->base->broken = 1;
  dtrHaloGpuAbort(h);
}

/* Under a deadline on a GPU: waits for the stream, polling NCCL's asynchronous error; past the deadline
 * the device work that waits for other ranks is released and the plan marked broken. */
static dtrResult_t waitForStream(struct dtrHaloPlan* h, cudaStream_t stream) {
  return dtrStreamWaitUnderDeadline(stream, "the halo exchange on the GPU", pollHalo, abortHalo, h);
}

/* `refused`: the caller's own checks failed (dtrHaloExecuteRefuse); else buf is checked here. `adjoint`:
 * the halo's cells added into the cells they copy. */
static dtrResult_t execute(dtrHaloPlan_t h, dtrResult_t refused, void* buf, int adjoint, cudaStream_t stream) {
  if (!h) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  if (h->base->broken) return dtrSetError(dtrTimeout, "this halo plan timed out in an earlier execute; destroy it");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(h->base->timeout);
  const dtrResult_t checked = refused != dtrSuccess ? refused : checkBuffer(h, buf);
  /* The direction picks the pieces every rank sends and adds: the same on every rank, or none runs. It
   * rides in the agreement on the checks, which comes first (a refusal, which runs nothing, agrees with
   * either). */
  const dtrAgreedValue direction = {"the direction (0: dtrHaloExecute, 1: dtrHaloExecuteAdjoint)", adjoint, dtrValueNumber};
  dtrResult_t res = dtrHaloGpuAgrees(h) ? dtrHaloGpuAgree(h, checked, &direction, buf)
                                        : dtrAgreeWith(h->grid->comm, checked, &direction, 1);
  if (res == dtrSuccess) {
    if (h->base->backend == dtrBackendCpu) {
      res = adjoint ? dtrHaloCpuAdjoint(h, buf) : dtrHaloCpuExecute(h, buf);
    } else {
      res = adjoint ? dtrHaloGpuAdjoint(h, buf, stream) : dtrHaloGpuExecute(h, buf, stream);
      if (res == dtrSuccess && h->base->timeout > 0) res = waitForStream(h, stream);
    }
  }
  dtrDeadlineLeave(saved);
  if (res == dtrTimeout) h->base->broken = 1;
  return dtrDeviceRestore(guard, res);
}

dtrResult_t dtrHaloExecute(dtrHaloPlan_t h, void* buf, cudaStream_t stream) { return execute(h, dtrSuccess, buf, 0, stream); }

dtrResult_t dtrHaloExecuteAdjoint(dtrHaloPlan_t h, void* buf, cudaStream_t stream) {
  return execute(h, dtrSuccess, buf, 1, stream);
}

dtrResult_t dtrHaloExecuteRefuse(dtrHaloPlan_t h, const char* problem) {
  if (!h) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  return execute(h, dtrSetError(dtrInvalidArgument, "%s", problem && *problem ? problem : "the caller refused its array"),
                 NULL, 0, NULL);
}

dtrResult_t dtrHaloGetBox(dtrHaloPlan_t h, dtrBox_t* padded) {
  if (!h || !padded) return dtrSetError(dtrInvalidArgument, "%s is NULL", h ? "padded" : "plan");
  *padded = h->padded;
  return dtrSuccess;
}

dtrResult_t dtrHaloGetBackend(dtrHaloPlan_t h, dtrBackend_t* backend) {
  if (!h || !backend) return dtrSetError(dtrInvalidArgument, "%s is NULL", h ? "backend" : "plan");
  *backend = h->base->backend;
  return dtrSuccess;
}

dtrResult_t dtrHaloGetDevice(dtrHaloPlan_t h, int* device) {
  if (!h || !device) return dtrSetError(dtrInvalidArgument, "%s is NULL", h ? "device" : "plan");
  *device = h->base->device; /* -1 on the cpu backend */
  return dtrSuccess;
}

dtrResult_t dtrHaloPlanDestroy(dtrHaloPlan_t h) {
  if (!h) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(h->base ? h->base->timeout : 0);
  freePlan(h);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, dtrSuccess);
}

dtrResult_t dtrHaloBareExchange(struct dtrHaloPlan* h, void* send, void* recv, cudaStream_t stream) {
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(h->base->timeout);
  dtrResult_t res = h->base->backend == dtrBackendCpu ? dtrHaloCpuBare(h, send, recv) : dtrHaloGpuBare(h, send, recv, stream);
  if (res == dtrSuccess && h->base->backend != dtrBackendCpu && h->base->timeout > 0) res = waitForStream(h, stream);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, res);
}
