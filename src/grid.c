/*
 * Process grids for 3-D arrays: the grid's dimensions, each rank's coordinates, and its row and
 * column sub-communicators, made once per grid (pencil plans duplicate them, and share NCCL
 * communicators through nccl_comms.c). The pencil boxes come from geometry.c.
 */
#include "grid.h"

#include <stdlib.h>

#include "core/checks.h"
#include "core/comm.h"
#include "core/geometry.h"

/* The squarest pr x pc = n with pr <= pc. */
static void squarest(int n, int* pr, int* pc) {
  int best = 1;
  for (int d = 1; (long)d * d <= n; d++)
    if (n % d == 0) best = d;
  *pr = best;
  *pc = n / best;
}

/* Dimensions and coordinates from the arguments, or from a 2-D Cartesian topology. */
static dtrResult_t resolveDims(MPI_Comm comm, int nranks, int rank, int* pr, int* pc, int* a, int* b) {
  int topo = MPI_UNDEFINED, ndims = 0;
  MPICHECK(MPI_Topo_test(comm, &topo));
  if (topo == MPI_CART) MPICHECK(MPI_Cartdim_get(comm, &ndims));
  if (topo == MPI_CART && ndims == 2) {
    int dims[2], periods[2], coords[2];
    MPICHECK(MPI_Cart_get(comm, 2, dims, periods, coords));
    if ((*pr && *pr != dims[0]) || (*pc && *pc != dims[1]))
      return dtrSetError(dtrInvalidArgument, "grid %d x %d asked for, but the Cartesian communicator is %d x %d", *pr, *pc,
                         dims[0], dims[1]);
    *pr = dims[0], *pc = dims[1], *a = coords[0], *b = coords[1];
    return dtrSuccess;
  }
  if (*pr < 0 || *pc < 0) return dtrSetError(dtrInvalidArgument, "grid %d x %d: dimensions must be positive (or 0: chosen)", *pr, *pc);
  if (!*pr && !*pc) squarest(nranks, pr, pc);
  else if (!*pr && nranks % *pc == 0) *pr = nranks / *pc;
  else if (!*pc && nranks % *pr == 0) *pc = nranks / *pr;
  if (!*pr || !*pc || (long)*pr * *pc != nranks)
    return dtrSetError(dtrInvalidArgument, "grid %d x %d does not match the communicator's %d ranks", *pr, *pc, nranks);
  *a = rank / *pc, *b = rank % *pc;
  return dtrSuccess;
}

static void freeGrid(dtrGrid_t g) {
  if (g->row != MPI_COMM_NULL) MPI_Comm_free(&g->row);
  if (g->column != MPI_COMM_NULL) MPI_Comm_free(&g->column);
  if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
  free(g);
}

dtrResult_t dtrGridCreateF(dtrGrid_t* grid, MPI_Fint comm, int pr, int pc) {
  return dtrGridCreate(grid, MPI_Comm_f2c(comm), pr, pc);
}

dtrResult_t dtrGridCreate(dtrGrid_t* out, MPI_Comm comm, int pr, int pc) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return dtrSetError(dtrInvalidArgument, "MPI is not initialized: call MPI_Init before creating a grid");
  if (comm == MPI_COMM_NULL) return dtrSetError(dtrInvalidArgument, "comm is MPI_COMM_NULL");
  if (out) *out = NULL;
  dtrGrid_t g = calloc(1, sizeof *g);
  if (!g) return dtrSetError(dtrOutOfMemory, "cannot allocate a grid");
  g->comm = g->row = g->column = MPI_COMM_NULL;
  g->refs = 1;
  int rank, nranks;
  dtrResult_t res = dtrSuccess;
  if (MPI_Comm_dup(comm, &g->comm) != MPI_SUCCESS) {
    free(g);
    return dtrSetError(dtrMpiError, "MPI_Comm_dup of the grid's communicator failed");
  }
  MPI_Comm_rank(g->comm, &rank);
  MPI_Comm_size(g->comm, &nranks);
  const int asked[2] = {pr, pc};
  res = !out ? dtrSetError(dtrInvalidArgument, "grid is NULL") : resolveDims(comm, nranks, rank, &pr, &pc, &g->a, &g->b);
  DTRCHECKGOTO(dtrAgree(g->comm, res), res, fail);
  const dtrAgreedValue values[] = {{"pr", asked[0], dtrValueNumber}, {"pc", asked[1], dtrValueNumber}};
  DTRCHECKGOTO(dtrAgreeValues(g->comm, values, 2), res, fail);
  g->pr = pr, g->pc = pc;
  if (MPI_Comm_split(g->comm, g->b, g->a, &g->column) != MPI_SUCCESS ||
      MPI_Comm_split(g->comm, g->a, g->b, &g->row) != MPI_SUCCESS)
    res = dtrSetError(dtrMpiError, "MPI_Comm_split into the grid's rows and columns failed");
  DTRCHECKGOTO(dtrAgree(g->comm, res), res, fail);
  *out = g;
  return dtrSuccess;
fail:
  freeGrid(g);
  return res;
}

void dtrGridRetain(dtrGrid_t g) { g->refs++; }

void dtrGridRelease(dtrGrid_t g) {
  if (g && --g->refs == 0) freeGrid(g);
}

dtrResult_t dtrGridDestroy(dtrGrid_t g) {
  if (!g) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  dtrGridRelease(g);
  return dtrSuccess;
}

dtrResult_t dtrGridGetDims(dtrGrid_t g, int* pr, int* pc, int* a, int* b) {
  if (!g) return dtrSetError(dtrInvalidArgument, "grid is NULL");
  if (pr) *pr = g->pr;
  if (pc) *pc = g->pc;
  if (a) *a = g->a;
  if (b) *b = g->b;
  return dtrSuccess;
}

dtrResult_t dtrPencilBox(dtrGrid_t g, const int64_t shape[3], dtrPencil_t pencil, dtrDataType_t type, int64_t howmany,
                         int rank, dtrBox_t* box) {
  if (!g || !shape || !box) return dtrSetError(dtrInvalidArgument, "%s is NULL", !g ? "grid" : !shape ? "shape" : "box");
  if ((int)pencil < 0 || pencil >= dtrNumPencils) return dtrSetError(dtrInvalidArgument, "pencil = %d: expected 0..2 (X, Y, Z)", (int)pencil);
  if ((int)type < 0 || type >= dtrNumTypes) return dtrSetError(dtrInvalidArgument, "unknown data type %d", (int)type);
  if (howmany < 1) return dtrSetError(dtrInvalidArgument, "howmany = %lld: must be at least 1", (long long)howmany);
  for (int d = 0; d < 3; d++)
    if (shape[d] < 1) return dtrSetError(dtrInvalidArgument, "shape[%d] = %lld: must be at least 1", d, (long long)shape[d]);
  const int nranks = g->pr * g->pc;
  if (rank < -1 || rank >= nranks)
    return dtrSetError(dtrInvalidArgument, "rank = %d: the grid has ranks 0..%d", rank, nranks - 1);
  size_t e = dtrDataTypeSize(type);
  if ((uint64_t)howmany > SIZE_MAX / e || dtrGeometryOverflows(shape[0], shape[1], shape[2], e * (size_t)howmany))
    return dtrSetError(dtrInvalidArgument, "%lld x %lld x %lld entries overflow 64-bit sizes", (long long)shape[0],
                       (long long)shape[1], (long long)shape[2]);
  e *= (size_t)howmany;
  int a = g->a, b = g->b;
  if (rank >= 0) {
    /* Another rank's coordinates: its Cartesian ones (a duplicate keeps the topology), else row-major. */
    int topo = MPI_UNDEFINED, coords[2];
    MPI_Topo_test(g->comm, &topo);
    if (topo == MPI_CART && MPI_Cart_coords(g->comm, rank, 2, coords) == MPI_SUCCESS) a = coords[0], b = coords[1];
    else a = rank / g->pc, b = rank % g->pc;
  }
  const dtrPencilExtent p = dtrPencilBoxOf(shape, g->pr, g->pc, a, b, (int)pencil);
  for (int d = 0; d < 3; d++) {
    box->start[d] = p.start[d];
    box->size[d] = p.size[d];
    box->order[d] = p.order[d];
  }
  box->entry_bytes = e;
  box->bytes = (size_t)(p.size[0] * p.size[1] * p.size[2]) * e;
  return dtrSuccess;
}
