/*
 * NCCL is loaded when a GPU plan first needs it, not linked (nccl_loader.c says why and in which
 * order the copies are tried). The library calls NCCL's functions by their own names as before; they
 * forward to the loaded copy, and fail with ncclSystemError (whose error string says what was tried)
 * where none could be loaded.
 */
#ifndef DTR_NCCL_LOADER_H
#define DTR_NCCL_LOADER_H

#include "disttranspose.h"

/* Local: dtrSuccess where NCCL is loaded (the first call loads it), else dtrNcclError naming each copy
 * tried and why it did not serve. Every call after the first gives the first one's answer. */
dtrResult_t dtrNcclLoad(void);

/* Local: whether NCCL is loaded or loads now, without recording an error where it does not: for
 * callers that can do without it. */
int dtrNcclAvailable(void);

#endif
