/*
 * A stream waited for under the call's deadline (core/timeout.h), for the GPU work of a collective: the
 * plans' executes and the halo exchange's. Between queries the transport is asked for an asynchronous
 * error; past the deadline, or on an error, the device work that waits for other ranks is released
 * (abort) and the stream given a moment to drain, so that the plan can be destroyed.
 */
#ifndef DTR_STREAM_WAIT_H
#define DTR_STREAM_WAIT_H

#include <cuda_runtime_api.h>

#include "disttranspose.h"

/* Waits for `stream` (nothing to wait for while it is being captured). poll(ctx): the transport's error
 * so far (NULL: none to ask); abort(ctx): called once where the wait fails. `what` names the work in the
 * deadline's message. */
dtrResult_t dtrStreamWaitUnderDeadline(cudaStream_t stream, const char* what, dtrResult_t (*poll)(void*),
                                       void (*abort)(void*), void* ctx);

#endif
