/* How many pipeline stages the NCCL backend's exchange takes where nothing asks for a number. */
#ifndef DTR_STAGE_RULE_H
#define DTR_STAGE_RULE_H

#include "core/geometry.h"

/* Stages for the exchange of `g` (1, 2 or 4), on buffers registered with the communicator or not.
 * Depends only on the global shape and on the registration the ranks agreed, so every rank takes
 * the same. */
int dtrStagesBySize(const dtrGeometry* g, int registered);

#endif
