/* The GPU of a rank and the device buffers it is given: what every GPU backend checks alike. */
#ifndef DTR_DEVICE_H
#define DTR_DEVICE_H

#include "backends/backend.h"

/* Collective over the plan's communicator: which GPU each rank would take (config->device, else the
 * current one) and which of them share one (the same PCI bus id on one host), into plan->gpu. Ranks
 * that share a GPU are served by the p2p backend (CUDA IPC works between processes on one device,
 * and the GPU time-slices their kernels), not by NCCL. */
dtrResult_t dtrGpuPlacementFind(dtrPlan_t plan, const dtrConfig_t* config);

/* Local: the GPU this rank takes (config->device, else the current one), checked (a GPU at all, and
 * one of its own where `ownGpu`: NCCL's rule, with plan->gpu from dtrGpuPlacementFind) before a
 * transport is touched, and made current. `backend` names the backend in messages. */
dtrResult_t dtrSelectDevice(dtrPlan_t plan, const dtrConfig_t* config, const char* backend, int ownGpu, int* device);

/* Local: [p, p + bytes) is device memory of one allocation on the plan's device, aligned to the
 * element size. `name` names the argument in messages. */
dtrResult_t dtrCheckDeviceBuffer(dtrPlan_t plan, const void* p, size_t bytes, const char* name);

/* Local: in and out checked as above for this rank's slabs of A and B (the GPU backends' checkBuffers). */
dtrResult_t dtrCheckDeviceBuffers(dtrPlan_t plan, const void* in, void* out);

/* The allocation that holds p (cuMemGetAddressRange): 0, or -1 where the driver cannot tell. */
int dtrAllocationRange(const void* p, uintptr_t* base, size_t* size);

#endif
