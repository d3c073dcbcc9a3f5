#include "peer_memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "backends/gpu/device.h"
#include "core/checks.h"
#include "launch.h"

dtrResult_t dtrPeerBufferDescribe(const void* p, int with_handle, dtrPeerBuffer* out) {
  memset(out, 0, sizeof *out);
  out->pid = (int64_t)getpid();
  typedef CUresult (*GetAttributeFn)(void*, CUpointer_attribute, CUdeviceptr);
  static GetAttributeFn getAttribute = NULL;
  static int tried = 0;
  if (!tried) {
    tried = 1;
    getAttribute = (GetAttributeFn)dtrDriverEntryPoint("cuPointerGetAttribute");
  }
  uintptr_t base = 0;
  size_t size = 0;
  unsigned long long id = 0;
  if (!getAttribute || dtrAllocationRange(p, &base, &size) != 0 ||
      getAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
    return dtrSetError(dtrCudaError, "the driver cannot tell which allocation %p belongs to", p);
  out->buffer_id = id;
  out->offset = (uint64_t)((uintptr_t)p - base);
  out->base = (uint64_t)base;
  out->size = (uint64_t)size;
  if (with_handle) {
    cudaError_t err = cudaIpcGetMemHandle(&out->handle, (void*)base);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return dtrSetError(dtrInvalidArgument,
                         "%p cannot be shared with the peers through CUDA IPC (%s): the p2p backend needs buffers "
                         "from cudaMalloc, not from stream-ordered pools or cuMemCreate",
                         p, cudaGetErrorString(err));
    }
    out->has_handle = 1;
  }
  return dtrSuccess;
}

int dtrPeerBufferShareable(const void* p) {
  uintptr_t base = 0;
  size_t size = 0;
  cudaIpcMemHandle_t handle;
  if (dtrAllocationRange(p, &base, &size) != 0) return 0;
  if (cudaIpcGetMemHandle(&handle, (void*)base) == cudaSuccess) return 1;
  (void)cudaGetLastError();
  return 0;
}

typedef struct {
  int64_t pid;
  uint64_t buffer_id;
  uint64_t ownerBase, ownerSize; /* the allocation's range in its owner's address space */
  int device;
  char* base;                    /* NULL: closed, its owner having freed it (refs still held) */
  int refs;                      /* 0: a free row */
} Mapping;

static void closeMapping(Mapping* m) {
  int current = -1;
  cudaGetDevice(&current);
  cudaSetDevice(m->device);
  if (cudaIpcCloseMemHandle(m->base) != cudaSuccess) (void)cudaGetLastError();
  if (current >= 0) cudaSetDevice(current);
  m->base = NULL;
}

static Mapping* table = NULL;
static int rows = 0;

dtrResult_t dtrPeerBufferMap(const dtrPeerBuffer* b, int device, char** ptr, int* mapping) {
  int freeRow = -1;
  for (int i = 0; i < rows; i++) {
    Mapping* m = &table[i];
    if (m->refs && m->base && m->pid == b->pid && m->buffer_id == b->buffer_id && m->device == device) {
      m->refs++;
      *ptr = m->base + b->offset;
      *mapping = i;
      return dtrSuccess;
    }
    if (!m->refs && freeRow < 0) freeRow = i;
  }
  if (!b->has_handle)
    return dtrSetError(dtrInternalError, "buffer %llu of process %lld is not mapped here and came without its handle",
                       (unsigned long long)b->buffer_id, (long long)b->pid);
  if (freeRow < 0) {
    Mapping* grown = realloc(table, (size_t)(rows + 16) * sizeof *grown);
    if (!grown) return dtrSetError(dtrOutOfMemory, "host allocation failed for the peer memory table");
    memset(grown + rows, 0, 16 * sizeof *grown);
    table = grown;
    freeRow = rows;
    rows += 16;
  }
  for (int i = 0; i < rows; i++) {
    Mapping* m = &table[i];
    if (m->refs && m->base && m->pid == b->pid && m->ownerBase < b->base + b->size &&
        b->base < m->ownerBase + m->ownerSize) {
      INFO("p2p: process %lld freed buffer %llu, still mapped here, and allocated over it: its mapping closed",
           (long long)b->pid, (unsigned long long)m->buffer_id);
      closeMapping(m);
    }
  }
  void* base = NULL;
  const cudaError_t opened = cudaIpcOpenMemHandle(&base, b->handle, cudaIpcMemLazyEnablePeerAccess);
  if (opened != cudaSuccess) {
    (void)cudaGetLastError(); /* not left for the next launch's check to report */
    return dtrSetError(dtrCudaError, "cannot map buffer %llu of process %lld (CUDA IPC): %s",
                       (unsigned long long)b->buffer_id, (long long)b->pid, cudaGetErrorString(opened));
  }
  table[freeRow] = (Mapping){b->pid, b->buffer_id, b->base, b->size, device, base, 1};
  *ptr = (char*)base + b->offset;
  *mapping = freeRow;
  return dtrSuccess;
}

void dtrPeerBufferUnmap(int mapping) {
  if (mapping < 0 || mapping >= rows || !table[mapping].refs) return;
  if (--table[mapping].refs == 0 && table[mapping].base) closeMapping(&table[mapping]);
}
