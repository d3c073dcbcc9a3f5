/* Plan-time choice of the local transpose kernel: a short measurement of every eligible variant on
 * the plan's pack shape, the fastest kept (rank 0's choice, so that every rank runs the same). */
#ifndef DTR_TUNE_H
#define DTR_TUNE_H

#include "backends/backend.h"

/* Collective. `forced` (from the config or DTR_KERNEL) skips the measurement unless it is Auto. */
dtrResult_t dtrTuneKernel(dtrPlan_t plan, dtrKernel_t forced, dtrKernel_t* chosen);

#endif
