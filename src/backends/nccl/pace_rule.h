#ifndef DTR_NCCL_PACE_RULE_H
#define DTR_NCCL_PACE_RULE_H

#include "core/geometry.h"

/* Blocks of each local pass that runs while the NCCL backend's messages are on the wire, for a plan of
 * geometry g on `device` (0: whole grids). */
int dtrNcclPaceCtas(const dtrGeometry* g, int device);

#endif
