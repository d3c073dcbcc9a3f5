/*
 * Execute timelines (DTR_PERF_REPORT=1): where an execute spends its time. On the NCCL backend: how
 * much of its local passes (packs, unpacks, the own block) run while messages are on the wire; on the
 * p2p backend: the one pass against the waits for the other ranks at its two barriers.
 *
 * CUDA events mark the phase boundaries of every execute on the streams that run them (the caller's,
 * the communication stream, the side stream of the own block). A record is read back only when its
 * slot comes round again or when the plan is destroyed, so an execute never waits on the host for
 * its own record; the medians are printed when the plan is destroyed. Executes captured into a CUDA
 * graph are not recorded (their replays are not either). cuDecomp answers the same question for its
 * transposes with CUDECOMP_ENABLE_PERFORMANCE_REPORT.
 */
#ifndef DTR_TIMELINE_H
#define DTR_TIMELINE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"

typedef enum {
  dtrMarkPackBegin = 0, /* round s's packs, on the caller's stream */
  dtrMarkPackEnd,
  dtrMarkSendBegin,     /* round s's messages: the communication stream once the round is packed */
  dtrMarkArrived,       /* ... and once every message of the round has arrived */
  dtrMarkUnpackBegin,   /* round s's unpacks, once its messages have arrived */
  dtrMarkUnpackEnd,
  dtrMarkOwnBegin,      /* the own block (round 0): transposed beside the exchange or after it; in
                           place, copied into the stash beside the exchange */
  dtrMarkOwnEnd,
  dtrMarkUnstashBegin,  /* in place: the own block transposed from the stash, after the unpacks */
  dtrMarkUnstashEnd,
  dtrMarkPeersReady,    /* p2p: past the barrier at which every rank has begun the execute */
  dtrMarkPassEnd,       /* p2p: the one pass (every block stored into the peers) is done */
  dtrMarkKinds
} dtrMarkKind;

/*
 * One execute's record: `dtrTimelineRecordFloats(rounds)` floats, microseconds after the execute's
 * start: [0] its end, then each mark kind's rounds (dtrTimelineAt). A mark not recorded is negative.
 */
static inline size_t dtrTimelineRecordFloats(int rounds) { return 1 + (size_t)dtrMarkKinds * (size_t)rounds; }
static inline float* dtrTimelineAt(float* record, int rounds, dtrMarkKind kind, int round) {
  return record + 1 + (size_t)kind * (size_t)rounds + (size_t)round;
}

/* Medians over the executes, microseconds. */
typedef struct {
  int executes; /* records summarized: all but the first DTR_TIMELINE_WARMUP where there are more */
  int rounds;
  double total;
  double head;     /* start .. the first round's messages: the first packs, which nothing hides */
  double exchange; /* the first round's messages .. the last round's arrival */
  double tail;     /* the last arrival .. the end: the last unpacks (and an own block left to the end) */
  double message[DTR_MAX_STAGES], pack[DTR_MAX_STAGES], unpack[DTR_MAX_STAGES];
  double own;      /* the own block's transpose (in place: its copy into the stash and the transpose back);
                      0 where there is none */
  double local;    /* packs + unpacks + own block of one execute */
  double hidden;   /* the part of `local` that ran while messages were on the wire: local - head - tail,
                      at least 0 */
  int onePass;     /* the records are p2p executes: the three below instead */
  double beforePass; /* start .. every rank has begun: waiting for the others (in place, A's copy too) */
  double pass;       /* the one pass */
  double afterPass;  /* the pass's end .. the end: waiting for the others' stores into this rank's B */
} dtrTimelineSummary;

/* Records left out of a summary as warm-up where there are more than this many. */
#define DTR_TIMELINE_WARMUP 3

/* The medians of `count` records of `rounds` rounds (pure: no device calls). */
void dtrTimelineSummarize(const float* records, int count, int rounds, dtrTimelineSummary* out);
/* The summary as report lines (newline-separated, no prefix), `label` naming the plan; returns what
 * snprintf returns. */
int dtrTimelineFormat(const dtrTimelineSummary* s, const char* label, char* buf, size_t len);

typedef struct dtrTimeline dtrTimeline;

/* On the current device, for an execute of `rounds` rounds; *out is NULL (and every call below does
 * nothing) unless DTR_PERF_REPORT is 1. */
dtrResult_t dtrTimelineCreate(int rounds, dtrTimeline** out);
/* Opens an execute's record on `stream` (its start); skipped while `stream` is being captured. */
void dtrTimelineBegin(dtrTimeline* t, cudaStream_t stream);
void dtrTimelineMark(dtrTimeline* t, dtrMarkKind kind, int round, cudaStream_t stream);
/* Closes the record on `stream` (the execute's end, where every stream has joined). */
void dtrTimelineEnd(dtrTimeline* t, cudaStream_t stream);
/* At plan destroy: waits for the records still open on the device, then prints the summary (lines
 * tagged REPORT) under the plan's name (backend, shape, type, ranks, and stages on the NCCL
 * backend). Nothing for a plan that timed out, whose records may never finish. */
void dtrTimelineReport(dtrTimeline* t, dtrPlan_t plan);
void dtrTimelineDestroy(dtrTimeline* t);

#endif
