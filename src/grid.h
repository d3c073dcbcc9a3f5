/* The grid behind dtrGrid_t: a communicator, its row and column sub-communicators, and the workspace
 * pool its plans may share. */
#ifndef DTR_GRID_H
#define DTR_GRID_H

#include "backends/workspace.h"
#include "disttranspose.h"

struct dtrGrid {
  MPI_Comm comm;   /* a duplicate of the caller's */
  MPI_Comm column; /* the ranks of this rank's b, ranked by a: X<->Y */
  MPI_Comm row;    /* the ranks of this rank's a, ranked by b: Y<->Z, and X<->Z on 1 x P */
  int pr, pc, a, b;
  int refs;        /* the caller's, and one per plan */
  dtrWorkspace* pool;
};

/* Local: takes a reference for a plan made on the grid. */
void dtrGridRetain(dtrGrid_t grid);
/* Local: drops one reference; the last one frees the grid. */
void dtrGridRelease(dtrGrid_t grid);

#endif
