/*
 * NCCL through dlopen, on the first call that needs it, rather than linked at load time. A process
 * has one libnccl.so.2 (the dynamic loader matches it by its soname): linked, ours came in with the
 * library and a framework imported after it (PyTorch, JAX) got our copy, which may lack what the
 * framework was built against (pip's torch failed to import with "undefined symbol:
 * ncclCommResume" after the system's older NCCL). Loaded late, the copy the process already has is
 * the one used, and a CPU-only program never loads NCCL at all.
 *
 * The copies tried, the first that loads and has every function below served:
 *   1. one already in the process (RTLD_NOLOAD): the framework's own, which it keeps in step with;
 *   2. the nvidia-nccl-cu* wheel's, where this library is installed in a Python environment
 *      (site-packages/nvidia/nccl/lib, beside site-packages/disttranspose): the one a framework
 *      imported later will look for first;
 *   3. the system's: libnccl.so.2 on the loader's search path, then the one the build found.
 * The one taken is logged at INFO with its version and path.
 *
 * The functions below carry NCCL's names and signatures, so the callers are NCCL's ordinary callers.
 * They are hidden and the shared library's version script keeps them local, so they never stand in
 * for a framework's own NCCL calls. A call the library starts making needs its line in the list.
 */
#define _GNU_SOURCE
#include "nccl_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <nccl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/debug.h"

#define DTR_HIDDEN __attribute__((visibility("hidden")))

/* name, parameters, arguments: every NCCL function the library calls that returns ncclResult_t. */
#define DTR_NCCL_CALLS(X)                                                                                          \
  X(ncclGetVersion, (int* version), (version))                                                                     \
  X(ncclGetUniqueId, (ncclUniqueId * id), (id))                                                                    \
  X(ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank), (comm, nranks, id, rank))        \
  X(ncclCommDestroy, (ncclComm_t comm), (comm))                                                                    \
  X(ncclCommAbort, (ncclComm_t comm), (comm))                                                                      \
  X(ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t * state), (comm, state))                                 \
  X(ncclCommRegister, (const ncclComm_t comm, void* buff, size_t size, void** handle), (comm, buff, size, handle)) \
  X(ncclCommDeregister, (const ncclComm_t comm, void* handle), (comm, handle))                                     \
  X(ncclMemAlloc, (void** ptr, size_t size), (ptr, size))                                                          \
  X(ncclMemFree, (void* ptr), (ptr))                                                                               \
  X(ncclGroupStart, (void), ())                                                                                    \
  X(ncclGroupEnd, (void), ())                                                                                      \
  X(ncclSend, (const void* buff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream), \
    (buff, count, type, peer, comm, stream))                                                                       \
  X(ncclRecv, (void* buff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream),     \
    (buff, count, type, peer, comm, stream))

static struct {
#define DTR_POINTER(name, params, args) ncclResult_t(*name) params;
  DTR_NCCL_CALLS(DTR_POINTER)
#undef DTR_POINTER
  const char* (*ncclGetErrorString)(ncclResult_t result);
  const char* (*ncclGetLastError)(ncclComm_t comm);
} nccl;

static void* library;                 /* the copy in use, or NULL */
static char tried[400];               /* each copy tried and why it did not serve */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char* fmt, ...) {
  const size_t used = strlen(tried);
  if (used + 3 >= sizeof tried) return;
  if (used) strcat(tried, "; ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tried + strlen(tried), sizeof tried - strlen(tried), fmt, ap);
  va_end(ap);
}

static const char* pathOf(void* handle, const char* fallback) {
  struct link_map* map = NULL;
  return dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name ? map->l_name : fallback;
}

/* Takes `name` (opened with `flags`) where it opens and has every function; `where` says which copy
 * it is, in the log and in the message where none serves. */
static int take(const char* name, int flags, const char* where) {
  void* h = dlopen(name, flags);
  if (!h) {
    const char* why = dlerror();
    note("%s: %s", where, (flags & RTLD_NOLOAD) ? "none" : why ? why : "not loaded");
    return 0;
  }
  const char* missing = NULL;
#define DTR_RESOLVE(fn, params, args) \
  if (!missing && !(*(void**)&nccl.fn = dlsym(h, #fn))) missing = #fn;
  DTR_NCCL_CALLS(DTR_RESOLVE)
  DTR_RESOLVE(ncclGetErrorString, , )
  DTR_RESOLVE(ncclGetLastError, , )
#undef DTR_RESOLVE
  if (missing) {
    note("%s (%s): no %s (too old)", where, pathOf(h, name), missing);
    dlclose(h);
    memset(&nccl, 0, sizeof nccl);
    return 0;
  }
  int version = 0;
  nccl.ncclGetVersion(&version);
  INFO("NCCL %d.%d.%d from %s (%s)", version / 10000, version / 100 % 100, version % 100, pathOf(h, name), where);
  library = h;
  return 1;
}

/* The wheel's copy: site-packages/nvidia/nccl/lib beside the folder this library is in. */
static int takeWheel(void) {
  Dl_info self;
  if (!dladdr((void*)&dtrNcclLoad, &self) || !self.dli_fname) return 0;
  char path[4096];
  snprintf(path, sizeof path, "%s", self.dli_fname);
  char* slash = strrchr(path, '/');
  if (!slash) return 0;
  snprintf(slash, sizeof path - (size_t)(slash - path), "/../nvidia/nccl/lib/libnccl.so.2");
  if (access(path, R_OK) != 0) {
    note("pip's nvidia-nccl: not installed beside this library");
    return 0;
  }
  return take(path, RTLD_NOW | RTLD_LOCAL, "pip's nvidia-nccl");
}

static void load(void) {
  if (take("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD, "the process's own") || takeWheel() ||
      take("libnccl.so.2", RTLD_NOW | RTLD_LOCAL, "the system's"))
    return;
#ifdef DTR_NCCL_BUILD_LIBRARY
  take(DTR_NCCL_BUILD_LIBRARY, RTLD_NOW | RTLD_LOCAL, "the build's");
#endif
  if (!library) INFO("NCCL is not loaded: %s", tried);
}

int dtrNcclAvailable(void) {
  pthread_once(&once, load);
  return library != NULL;
}

dtrResult_t dtrNcclLoad(void) {
  if (dtrNcclAvailable()) return dtrSuccess;
  return dtrSetError(dtrNcclError, "NCCL could not be loaded (tried %s)", tried);
}

#define DTR_FORWARD(name, params, args) \
  DTR_HIDDEN ncclResult_t name params { return dtrNcclAvailable() ? nccl.name args : ncclSystemError; }
DTR_NCCL_CALLS(DTR_FORWARD)
#undef DTR_FORWARD

DTR_HIDDEN const char* ncclGetErrorString(ncclResult_t result) {
  static char unloaded[sizeof tried + 40];
  if (dtrNcclAvailable()) return nccl.ncclGetErrorString(result);
  snprintf(unloaded, sizeof unloaded, "NCCL could not be loaded (tried %s)", tried);
  return unloaded;
}

DTR_HIDDEN const char* ncclGetLastError(ncclComm_t comm) {
  return dtrNcclAvailable() ? nccl.ncclGetLastError(comm) : "";
}
