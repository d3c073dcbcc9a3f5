/*
 * Memory checked before it is taken. Linux grants a malloc it cannot back and kills the process
 * later, when the pages are touched; a GPU allocation fails cleanly but tells nothing about the
 * other ranks. So every allocation of size (the plan's workspace, the CLI's buffers) first asks,
 * collectively, whether the ranks that share a host (or a GPU) can have what they need together,
 * and refuses on every rank with the bytes needed and available when they cannot.
 */
#ifndef DTR_MEMORY_H
#define DTR_MEMORY_H

#include <mpi.h>
#include <stdint.h>

#include "disttranspose.h"

/* Host memory this process may still take: the kernel's MemAvailable, less where the process's
 * cgroup (a container, a batch job's allocation) has a lower limit, and at most DTR_HOST_MEMORY
 * when that is set. 0 when none of them can be read. */
uint64_t dtrHostMemoryAvailable(void);

/*
 * Collective over comm. Each rank passes the bytes it is about to allocate on `device` (-1: host
 * memory); the ranks on one host (on one GPU of it) are added up and compared with what it has
 * available (cudaMemGetInfo's free bytes). `host` is comm's ranks on this host where the caller
 * has them (a plan's dtrComm.local), else MPI_COMM_NULL. Returns dtrOutOfMemory on every rank when
 * any host or GPU falls short, naming `what`, the bytes needed and available. The caller's device
 * is unchanged.
 */
dtrResult_t dtrMemoryCheck(MPI_Comm comm, MPI_Comm host, int device, uint64_t bytes, const char* what);

#endif
