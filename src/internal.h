/*
 * The library's internals that its own tools (the CLI, transpose-bench) use beyond the public header:
 * not installed, not part of the API, free to change with the library. The tests reach further in,
 * each to the module it tests.
 */
#ifndef DTR_INTERNAL_H
#define DTR_INTERNAL_H

#include "backends/workspace.h"
#include "core/checks.h"
#include "core/comm.h"
#include "core/median.h"
#include "core/memory.h"
#include "core/names.h"
#include "core/numbers.h"
#include "core/params.h"
#include "core/timeout.h"
#include "disttranspose.h"
#include "launch.h"
#include "plan.h"

/* Collective: the bare all-to-all of the plan's backend, `bytes_per_peer` to every rank (itself
 * included): what the CLI compares the transpose with. With the door's guards (api.c). */
dtrResult_t dtrPlanAlltoall(dtrPlan_t plan, const void* send, void* recv, size_t bytes_per_peer, cudaStream_t stream);

#endif
