/* The pencil benchmark of the CLI (--shape, --grid): each transpose of a 3-D array on a process grid,
 * verified and timed beside the bare all-to-all of the same bytes on its own group of ranks. */
#ifndef DTR_CLI_PENCIL_BENCH_H
#define DTR_CLI_PENCIL_BENCH_H

#include <stdint.h>

#include "disttranspose.h"
#include "options.h"

typedef struct {
  dtrPencil_t from, to;
  int pr, pc;
  int group;             /* ranks of the sub-communicator it runs on */
  int64_t shape[3];
  dtrDataType_t type;
  int64_t howmany;
  dtrBackend_t backend;
  dtrKernel_t kernel;
  int stages;
  double bytes_per_rank; /* the array's bytes / ranks */
  double time_us;        /* median over iterations of the slowest rank */
  double a2a_us;         /* the bare all-to-all of the same bytes per rank on each group, all at once;
                            0: not run (ranks share a GPU, which NCCL refuses) */
  int shared_gpu;        /* ranks share a GPU: timings are not representative */
  double algbw, busbw;   /* GB/s; busbw = algbw * (group - 1) / group */
  double ratio;
  uint64_t wrong;
  int checked;
} dtrPencilBenchResult;

/* The transposes --shape runs on a pr x pc grid: X->Y, Y->Z, Z->Y, Y->X, and X->Z, Z->X on 1 x P. */
int dtrPencilBenchDirections(int pr, dtrPencil_t from[6], dtrPencil_t to[6]);

/* Collective over MPI_COMM_WORLD (the grid's communicator); the same result on every rank. */
dtrResult_t dtrPencilBenchRun(const dtrCliOptions* o, dtrGrid_t grid, dtrPencil_t from, dtrPencil_t to,
                              dtrPencilBenchResult* r);

#endif
