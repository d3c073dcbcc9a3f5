/* NCCL loaded at run time (src/backends/gpu/nccl_loader.c):
 *   host       plans on the cpu backend leave NCCL out of the process; the first call that needs it
 *              loads one, and NCCL's functions then answer through it
 *   own LIB    a libnccl.so.2 already in the process (LIB, loaded first, as a framework would) is the
 *              one taken */
#include <dlfcn.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/nccl_loader.h"
#include "check.h"
#include "disttranspose.h"

static int ncclInProcess(void) {
  void* h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != NULL;
}

static void hostPlans(void) {
  dtrConfig_t cfg;
  dtrConfigInit(&cfg);
  cfg.backend = dtrBackendCpu;
  dtrPlan_t plan;
  EXPECT(dtrPlanCreate(&plan, 7, 5, dtrFloat64, 2, MPI_COMM_WORLD, &cfg) == dtrSuccess, "cpu plan: %s", dtrGetLastError());
  dtrLocalSize_t ls;
  EXPECT(dtrLocalSize(7, 5, dtrFloat64, 2, MPI_COMM_WORLD, -1, &ls) == dtrSuccess, "local size");
  void* a = calloc(1, ls.in_bytes + 1);
  void* b = calloc(1, ls.out_bytes + 1);
  EXPECT(dtrExecute(plan, a, b, NULL) == dtrSuccess, "cpu execute: %s", dtrGetLastError());
  EXPECT(dtrPlanDestroy(plan) == dtrSuccess, "destroy");
  free(a);
  free(b);
  EXPECT(!ncclInProcess(), "a plan on the cpu backend loaded NCCL");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "host";
  int version = 0;
  if (!strcmp(mode, "host")) {
    EXPECT(!ncclInProcess(), "NCCL is in the process before any plan");
    hostPlans();
    EXPECT(dtrNcclLoad() == dtrSuccess, "no NCCL could be loaded: %s", dtrGetLastError());
    EXPECT(ncclInProcess(), "NCCL loaded, but not in the process");
    EXPECT(ncclGetVersion(&version) == ncclSuccess && version >= 20000, "version %d", version);
    EXPECT(strlen(ncclGetErrorString(ncclInvalidArgument)) > 0, "error string");
  } else if (!strcmp(mode, "own") && argc > 2) {
    EXPECT(dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) != NULL, "cannot load %s: %s", argv[2], dlerror());
    EXPECT(dtrNcclLoad() == dtrSuccess, "the process's own NCCL not taken: %s", dtrGetLastError());
    EXPECT(ncclGetVersion(&version) == ncclSuccess && version == 99999, "version %d: not the process's own copy",
           version);
    EXPECT(!strcmp(ncclGetErrorString(ncclSystemError), "fake error"), "error string of another copy");
  } else {
    EXPECT(0, "usage: test_nccl_loader host | own LIB");
  }
  const int failed = dtrTestEnd("nccl loader");
  MPI_Finalize();
  return failed;
}
