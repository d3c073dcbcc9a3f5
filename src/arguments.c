#include "arguments.h"

#include <math.h>
#include <stdint.h>

#include "backends/backend.h"
#include "core/checks.h"
#include "core/params.h"
#include "grid.h"

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

dtrResult_t dtrCheckShape(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, size_t* entry_bytes) {
  if (rows < 1) return dtrSetError(dtrInvalidArgument, "rows = %lld: must be at least 1", (long long)rows);
  if (cols < 1) return dtrSetError(dtrInvalidArgument, "cols = %lld: must be at least 1", (long long)cols);
  DTRCHECK(checkEntry(type, howmany, entry_bytes));
  if (dtrGeometryOverflows(rows, cols, 1, *entry_bytes))
    return dtrSetError(dtrInvalidArgument, "rows x cols x entry = %lld x %lld x %zu bytes overflows 64-bit sizes",
                       (long long)rows, (long long)cols, *entry_bytes);
  return dtrSuccess;
}


dtrResult_t dtrCheckConfig(const dtrConfig_t* c) {
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

dtrResult_t dtrAgreeCall(MPI_Comm comm, const dtrAgreedValue* args, int nargs, const dtrConfig_t* cfg) {
  /* The arguments, then the config's 5 fields and the environment's values. */
  enum { kMostArgs = 16 };
  dtrAgreedValue all[kMostArgs + 5 + DTR_ENV_AGREED];
  if (nargs > kMostArgs) return dtrSetError(dtrInternalError, "dtrAgreeCall takes at most %d arguments, given %d", kMostArgs, nargs);
  int n = 0;
  for (int i = 0; i < nargs; i++) all[n++] = args[i];
  all[n++] = (dtrAgreedValue){"config.backend", (int64_t)cfg->backend, dtrValueBackend};
  all[n++] = (dtrAgreedValue){"config.kernel", (int64_t)cfg->kernel, dtrValueKernel};
  all[n++] = (dtrAgreedValue){"config.stages", cfg->stages, dtrValueNumber};
  all[n++] = (dtrAgreedValue){"config.workspace", (int64_t)cfg->workspace, dtrValueWorkspace};
  all[n++] = (dtrAgreedValue){"config.inplace", cfg->inplace, dtrValueNumber};
  n += dtrEnvParamsAgreed(dtrEnvParamsGet(), all + n);
  return dtrAgreeValues(comm, all, n);
}


dtrResult_t dtrCheckPencilArgs(dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from, dtrPencil_t to,
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


dtrResult_t dtrCheckExecuteBuffers(dtrPlan_t plan, const void* in, void* out) {
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
