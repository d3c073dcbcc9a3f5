/*
 * The caller's current device, restored on the way out of every entry point that may switch it
 * (NCCL's and cuFFT's rule): a plan works on its own device, the caller's code on its own.
 */
#ifndef DTR_DEVICE_GUARD_H
#define DTR_DEVICE_GUARD_H

#include <cuda_runtime_api.h>

#include "debug.h"

typedef struct {
  int device, valid;
} dtrDeviceGuard;

static inline dtrDeviceGuard dtrDeviceSave(void) {
  dtrDeviceGuard g = {0, 0};
  if (cudaGetDevice(&g.device) == cudaSuccess) g.valid = 1;
  else (void)cudaGetLastError(); /* no driver or no device: nothing to restore */
  return g;
}

static inline dtrResult_t dtrDeviceRestore(dtrDeviceGuard g, dtrResult_t res) {
  int now;
  if (g.valid && cudaGetDevice(&now) == cudaSuccess && now != g.device && cudaSetDevice(g.device) != cudaSuccess) {
    (void)cudaGetLastError();
    if (res == dtrSuccess) res = dtrSetError(dtrCudaError, "cannot make device %d current again", g.device);
  }
  return res;
}

#endif
