/*
 * The door's checks of a call's arguments, before anything is exchanged: the local ones, which name
 * the bad argument, and the agreement of everything that must be alike on every rank.
 */
#ifndef DTR_ARGUMENTS_H
#define DTR_ARGUMENTS_H

#include "core/comm.h"
#include "disttranspose.h"

/* Local: a matrix's shape and entry; sets *entry_bytes. */
dtrResult_t dtrCheckShape(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, size_t* entry_bytes);

/* Local: a config's fields, the environment's values, and GPU settings beside a CPU backend. */
dtrResult_t dtrCheckConfig(const dtrConfig_t* c);

/* Local: a pencil transpose's arguments on `grid`; sets *entry_bytes. */
dtrResult_t dtrCheckPencilArgs(dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from, dtrPencil_t to,
                               dtrDataType_t type, int64_t howmany, size_t* entry_bytes);

/* Collective: a plan's arguments (`nargs` of them), its config and the environment that reaches it
 * are the same on every rank, in one reduction. */
dtrResult_t dtrAgreeCall(MPI_Comm comm, const dtrAgreedValue* args, int nargs, const dtrConfig_t* cfg);

/* Local: an execute's pointers against the plan (room and kind are the backend's to check). */
dtrResult_t dtrCheckExecuteBuffers(dtrPlan_t plan, const void* in, void* out);

#endif
