/* The one-pass path's flags (launch.h's dtrPeerFlags) as the GPU tests expect them between executes. */
#ifndef DTR_TEST_PEER_FLAGS_CHECK_H
#define DTR_TEST_PEER_FLAGS_CHECK_H

#include <stdint.h>

#include "check.h"
#include "support/cuda_check.h"
#include "launch.h"

/* A rank's flags array of `nranks` ranks after `epochs` synced executes, once the GPU is done: each
 * execute closed its epoch, every rank's arrive and finish slots reached it, and the block counts
 * are back at zero. */
static void expectPeerFlagsSettled(const uint64_t* deviceFlags, int nranks, uint64_t epochs, const char* what) {
  uint64_t f[DTR_PEER_FLAG_WORDS(DTR_GROUP_MAX)];
  CUDA_OK(cudaMemcpy(f, deviceFlags, DTR_PEER_FLAG_WORDS(nranks) * sizeof *f, cudaMemcpyDeviceToHost));
  int ok = f[0] == epochs && f[1 + 2 * nranks] == 0;
  for (int s = 0; s < 2 * nranks; s++) ok &= f[1 + s] == epochs;
  EXPECT(ok, "%s: flags after %llu synced executes: epoch %llu, rank 0 arrived %llu, finished %llu, block counts %llx",
         what, (unsigned long long)epochs, (unsigned long long)f[0], (unsigned long long)f[1],
         (unsigned long long)f[1 + nranks], (unsigned long long)f[1 + 2 * nranks]);
}

#endif
