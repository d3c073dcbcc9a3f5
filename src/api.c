/*
 * The door: the public entry points. Each checks its arguments (arguments.c) and agrees on them across
 * the ranks before anything is exchanged, opens the call's deadline (timeout.h), keeps the caller's
 * current device as it found it, and hands the plan layer (plan.c) the rest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arguments.h"
#include "core/checks.h"
#include "core/device_guard.h"
#include "core/params.h"
#include "core/timeout.h"
#include "grid.h"
#include "internal.h"
#include "plan.h"

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

/* The same on every rank, or the ranks would wait for each other differently. */
static int64_t timeoutMs(const dtrConfig_t* cfg) { return (int64_t)llround(dtrConfigTimeout(cfg) * 1000); }

dtrResult_t dtrLocalSize(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Comm comm, int rank,
                         dtrLocalSize_t* size) {
  size_t e = 0;
  if (!size) return dtrSetError(dtrInvalidArgument, "size is NULL");
  DTRCHECK(dtrCheckShape(rows, cols, type, howmany, &e));
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

static dtrResult_t planCreate(dtrPlan_t* out, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany,
                              MPI_Comm comm, const dtrConfig_t* cfg) {
  const dtrDeviceGuard guard = dtrDeviceSave();
  dtrPlan_t plan = NULL;
  dtrResult_t res = dtrPlanNew(comm, &plan);
  if (res != dtrSuccess) return dtrDeviceRestore(guard, res);

  DTRCHECKGOTO(dtrAgreeTimeout(plan->comm.comm, timeoutMs(cfg)), res, fail);
  /* Local checks first, then one agreement, so that a bad argument anywhere stops every rank. */
  size_t e = 0;
  res = !out ? dtrSetError(dtrInvalidArgument, "plan is NULL") : dtrCheckShape(rows, cols, type, howmany, &e);
  if (res == dtrSuccess) res = dtrCheckConfig(cfg);
  DTRCHECKGOTO(dtrAgree(plan->comm.comm, res), res, fail);

  const dtrAgreedValue args[] = {{"rows", rows, dtrValueNumber},
                                 {"cols", cols, dtrValueNumber},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"howmany", howmany, dtrValueNumber}};
  DTRCHECKGOTO(dtrAgreeCall(plan->comm.comm, args, 4, cfg), res, fail);

  const dtrGeometry geo = dtrGeometryMatrix(rows, cols, e, plan->comm.nranks);
  return dtrDeviceRestore(guard, dtrPlanFinish(plan, NULL, &geo, type, howmany, cfg, out));
fail:
  dtrPlanFree(plan);
  return dtrDeviceRestore(guard, res);
}

dtrResult_t dtrPlanCreate(dtrPlan_t* out, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany,
                          MPI_Comm comm, const dtrConfig_t* config) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (config) cfg = *config;
  if (out) *out = NULL;
  const dtrDeadline saved = dtrDeadlineEnter(dtrConfigTimeout(&cfg));
  const dtrResult_t res = planCreate(out, rows, cols, type, howmany, comm, &cfg);
  dtrDeadlineLeave(saved);
  return res;
}

static dtrResult_t planCreatePencil(dtrPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from,
                                    dtrPencil_t to, dtrDataType_t type, int64_t howmany, const dtrConfig_t* cfg) {
  const dtrDeviceGuard guard = dtrDeviceSave();
  /* Agreed over the whole grid: a difference between two groups would otherwise go unseen. */
  dtrResult_t res = dtrAgreeTimeout(grid->comm, timeoutMs(cfg));
  if (res != dtrSuccess) return dtrDeviceRestore(guard, res);
  size_t e = 0;
  res = !out ? dtrSetError(dtrInvalidArgument, "plan is NULL")
                         : dtrCheckPencilArgs(grid, shape, from, to, type, howmany, &e);
  if (res == dtrSuccess) res = dtrCheckConfig(cfg);
  res = dtrAgree(grid->comm, res);
  if (res != dtrSuccess) return dtrDeviceRestore(guard, res);
  const dtrAgreedValue args[] = {{"shape[0] (nx)", shape[0], dtrValueNumber},
                                 {"shape[1] (ny)", shape[1], dtrValueNumber},
                                 {"shape[2] (nz)", shape[2], dtrValueNumber},
                                 {"from", (int64_t)from, dtrValuePencil},
                                 {"to", (int64_t)to, dtrValuePencil},
                                 {"type", (int64_t)type, dtrValueType},
                                 {"howmany", howmany, dtrValueNumber}};
  res = dtrAgreeCall(grid->comm, args, 7, cfg);
  if (res != dtrSuccess) return dtrDeviceRestore(guard, res);

  dtrGeometry geo;
  dtrGridGroup group;
  if (dtrPencilTransposeGeometry(shape, grid->pr, grid->pc, grid->a, grid->b, from, to, e, &geo, &group))
    return dtrDeviceRestore(guard, dtrSetError(dtrInternalError, "no geometry for %s -> %s", dtrPencilName(from), dtrPencilName(to)));
  dtrPlan_t plan = NULL;
  res = dtrPlanNew(group == dtrGridColumn ? grid->column : grid->row, &plan);
  if (res != dtrSuccess) return dtrDeviceRestore(guard, res);
  return dtrDeviceRestore(guard, dtrPlanFinish(plan, grid, &geo, type, howmany, cfg, out));
}

dtrResult_t dtrPlanCreatePencil(dtrPlan_t* out, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from,
                                dtrPencil_t to, dtrDataType_t type, int64_t howmany, const dtrConfig_t* config) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  if (config) cfg = *config;
  if (out) *out = NULL;
  if (!grid) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  const dtrDeadline saved = dtrDeadlineEnter(dtrConfigTimeout(&cfg));
  const dtrResult_t res = planCreatePencil(out, grid, shape, from, to, type, howmany, &cfg);
  dtrDeadlineLeave(saved);
  return res;
}

/* `refused`: the caller's own checks failed (dtrExecuteRefuse); else the buffers are checked here. */
static dtrResult_t execute(dtrPlan_t plan, dtrResult_t refused, const void* in, void* out, cudaStream_t stream) {
  const dtrResult_t checked = refused != dtrSuccess ? refused : dtrCheckExecuteBuffers(plan, in, out);
  return dtrPlanRun(plan, checked, in, out, stream);
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
  const dtrDeviceGuard guard = dtrDeviceSave();
  return finishCall(plan, saved, dtrDeviceRestore(guard, execute(plan, dtrSuccess, in, out, stream)));
}

dtrResult_t dtrExecuteRefuse(dtrPlan_t plan, const char* problem) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(checkNotBroken(plan));
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrResult_t refused = dtrSetError(dtrInvalidArgument, "%s", problem && *problem ? problem : "the caller refused its arrays");
  return finishCall(plan, saved, dtrDeviceRestore(guard, execute(plan, refused, NULL, NULL, NULL)));
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
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  dtrPlanFree(plan);
  dtrDeadlineLeave(saved);
  return dtrDeviceRestore(guard, dtrSuccess);
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

dtrResult_t dtrPlanAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream) {
  if (!plan) return dtrSetError(dtrInvalidArgument, "plan is NULL");
  DTRCHECK(checkNotBroken(plan));
  const dtrDeviceGuard guard = dtrDeviceSave();
  const dtrDeadline saved = dtrDeadlineEnter(plan->timeout);
  return finishCall(plan, saved, dtrDeviceRestore(guard, dtrPlanRunAlltoall(plan, send, recv, bytes_per_peer, stream)));
}
