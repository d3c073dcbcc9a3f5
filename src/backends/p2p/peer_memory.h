/*
 * Device memory of other processes on this host, mapped here through CUDA IPC: how a rank describes
 * one of its buffers to its peers, and a process-wide table of the peers' buffers mapped so far.
 * CUDA lets a process map an allocation of another process only once per device, so plans share
 * mappings, counted, instead of each opening its own.
 */
#ifndef DTR_PEER_MEMORY_H
#define DTR_PEER_MEMORY_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"

/* A device pointer as its owner describes it to peers (sent over MPI as bytes). */
typedef struct {
  int64_t pid;                /* the owner process */
  uint64_t buffer_id;         /* the driver's process-unique id of the allocation (never reused) */
  uint64_t offset;            /* of the pointer in its allocation */
  uint64_t base, size;        /* the allocation's range in the owner's address space */
  cudaIpcMemHandle_t handle;  /* of the allocation; valid when has_handle */
  int32_t has_handle;
  int32_t result;             /* the owner's dtrResult_t in checking and describing it */
} dtrPeerBuffer;

/* Local: describes device pointer p (its pid, id, offset; the IPC handle too when with_handle). */
dtrResult_t dtrPeerBufferDescribe(const void* p, int with_handle, dtrPeerBuffer* out);

/* Local and quiet: whether CUDA IPC can share the allocation of device pointer p (cudaMalloc's can;
 * a stream-ordered pool's or cuMemCreate's, as frameworks' allocators hand out, cannot). */
int dtrPeerBufferShareable(const void* p);

/* Local: the allocation of b mapped on `device` (opened with b's handle the first time; a reference
 * counted after that): *ptr is b's pointer here; *mapping is the reference to give back. A mapping of
 * the same owner whose range b's overlaps is of an allocation the owner has freed (live ones never
 * overlap): it is closed first, since CUDA refuses to open the new one beside it, and no longer found;
 * its holders keep their references until they drop them. */
dtrResult_t dtrPeerBufferMap(const dtrPeerBuffer* b, int device, char** ptr, int* mapping);

/* Drops a reference; the last one closes the mapping. Nothing may still use it on the device. */
void dtrPeerBufferUnmap(int mapping);

#endif
