#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/debug.h"
#include "core/median.h"
#include "core/params.h"

/* Executes whose records can be open on the device at once; an execute's end waits for the record
 * SLOTS executes back (only when more executes than this are queued ahead of the device). */
#define SLOTS 8
/* Bytes of records kept per plan; later executes are not recorded. */
#define MAX_RECORD_BYTES ((size_t)16 << 20)

typedef struct {
  cudaEvent_t start, end;
  cudaEvent_t* marks;  /* dtrMarkKinds x rounds */
  unsigned char* used; /* which marks this execute recorded */
  int open;            /* recorded, not yet read back */
} Slot;

struct dtrTimeline {
  int rounds;
  Slot slot[SLOTS];
  int next;    /* the slot of the next execute */
  int current; /* the slot of the execute being recorded, -1 between executes or while capturing */
  float* records;
  int count, capacity;
};

/* A call of this file failed: its error is not left behind for the caller's next cudaGetLastError
 * (the kernel launches' check), which would take it for a launch's. */
static int ok(cudaError_t err) {
  if (err == cudaSuccess) return 1;
  (void)cudaGetLastError();
  return 0;
}

/* The median over the records of what `f` takes from each, skipping those where it gives < 0. */
typedef double (*RecordValue)(const float* record, int rounds, int round);

static double medianOf(const float* records, int count, int rounds, int round, RecordValue f, double* scratch) {
  const size_t stride = dtrTimelineRecordFloats(rounds);
  int n = 0;
  for (int i = 0; i < count; i++) {
    const double v = f(records + (size_t)i * stride, rounds, round);
    if (v >= 0) scratch[n++] = v;
  }
  return dtrMedian(scratch, n);
}

static double at(const float* rec, int rounds, dtrMarkKind kind, int round) {
  return *dtrTimelineAt((float*)rec, rounds, kind, round);
}

/* b - a where both marks were recorded, else -1. */
static double span(const float* rec, int rounds, dtrMarkKind a, int ra, dtrMarkKind b, int rb) {
  const double x = at(rec, rounds, a, ra), y = at(rec, rounds, b, rb);
  return x >= 0 && y >= 0 && y >= x ? y - x : -1;
}

static double total(const float* rec, int rounds, int round) {
  (void)rounds, (void)round;
  return rec[0];
}
static double head(const float* rec, int rounds, int round) {
  (void)round;
  const double first = at(rec, rounds, dtrMarkSendBegin, 0);
  return first >= 0 ? first : rec[0]; /* no messages: nothing overlaps anything */
}
static double exchange(const float* rec, int rounds, int round) {
  (void)round;
  const double s = span(rec, rounds, dtrMarkSendBegin, 0, dtrMarkArrived, rounds - 1);
  return s >= 0 ? s : 0;
}
static double tail(const float* rec, int rounds, int round) {
  (void)round;
  const double last = at(rec, rounds, dtrMarkArrived, rounds - 1);
  return last >= 0 && rec[0] >= last ? rec[0] - last : 0;
}
static double message(const float* rec, int rounds, int round) {
  return span(rec, rounds, dtrMarkSendBegin, round, dtrMarkArrived, round);
}
static double pack(const float* rec, int rounds, int round) {
  return span(rec, rounds, dtrMarkPackBegin, round, dtrMarkPackEnd, round);
}
static double unpack(const float* rec, int rounds, int round) {
  return span(rec, rounds, dtrMarkUnpackBegin, round, dtrMarkUnpackEnd, round);
}
static double own(const float* rec, int rounds, int round) {
  (void)round;
  const double s = span(rec, rounds, dtrMarkOwnBegin, 0, dtrMarkOwnEnd, 0);
  const double back = span(rec, rounds, dtrMarkUnstashBegin, 0, dtrMarkUnstashEnd, 0);
  return (s > 0 ? s : 0) + (back > 0 ? back : 0);
}
static double local(const float* rec, int rounds, int round) {
  (void)round;
  double sum = own(rec, rounds, 0);
  for (int s = 0; s < rounds; s++) {
    const double p = pack(rec, rounds, s), u = unpack(rec, rounds, s);
    sum += (p > 0 ? p : 0) + (u > 0 ? u : 0);
  }
  return sum;
}
static double hidden(const float* rec, int rounds, int round) {
  const double h = local(rec, rounds, round) - head(rec, rounds, round) - tail(rec, rounds, round);
  return h > 0 ? h : 0;
}

static double beforePass(const float* rec, int rounds, int round) {
  (void)round;
  return at(rec, rounds, dtrMarkPeersReady, 0);
}
static double pass(const float* rec, int rounds, int round) {
  (void)round;
  return span(rec, rounds, dtrMarkPeersReady, 0, dtrMarkPassEnd, 0);
}
static double afterPass(const float* rec, int rounds, int round) {
  (void)round;
  const double e = at(rec, rounds, dtrMarkPassEnd, 0);
  return e >= 0 && rec[0] >= e ? rec[0] - e : -1;
}

void dtrTimelineSummarize(const float* records, int count, int rounds, dtrTimelineSummary* out) {
  memset(out, 0, sizeof *out);
  if (rounds < 1 || rounds > DTR_MAX_STAGES) return;
  if (count > DTR_TIMELINE_WARMUP) {
    records += (size_t)DTR_TIMELINE_WARMUP * dtrTimelineRecordFloats(rounds);
    count -= DTR_TIMELINE_WARMUP;
  }
  out->executes = count;
  out->rounds = rounds;
  double* scratch = malloc(sizeof *scratch * (size_t)(count > 0 ? count : 1));
  if (!scratch) return;
  out->total = medianOf(records, count, rounds, 0, total, scratch);
  out->head = medianOf(records, count, rounds, 0, head, scratch);
  out->exchange = medianOf(records, count, rounds, 0, exchange, scratch);
  out->tail = medianOf(records, count, rounds, 0, tail, scratch);
  for (int s = 0; s < rounds; s++) {
    out->message[s] = medianOf(records, count, rounds, s, message, scratch);
    out->pack[s] = medianOf(records, count, rounds, s, pack, scratch);
    out->unpack[s] = medianOf(records, count, rounds, s, unpack, scratch);
  }
  out->own = medianOf(records, count, rounds, 0, own, scratch);
  out->local = medianOf(records, count, rounds, 0, local, scratch);
  out->hidden = medianOf(records, count, rounds, 0, hidden, scratch);
  out->onePass = count > 0 && pass(records, rounds, 0) >= 0;
  if (out->onePass) {
    out->beforePass = medianOf(records, count, rounds, 0, beforePass, scratch);
    out->pass = medianOf(records, count, rounds, 0, pass, scratch);
    out->afterPass = medianOf(records, count, rounds, 0, afterPass, scratch);
  }
  free(scratch);
}

/* " a, b, c" of the rounds' values into buf at *o. */
static void appendRounds(char* buf, size_t len, int* o, const double* v, int rounds) {
  for (int s = 0; s < rounds && (size_t)*o < len; s++)
    *o += snprintf(buf + *o, len - (size_t)*o, "%s%.1f", s ? ", " : "", v[s]);
}

int dtrTimelineFormat(const dtrTimelineSummary* s, const char* label, char* buf, size_t len) {
  int o = snprintf(buf, len, "%s: %d executes, medians in us\n", label, s->executes);
  if (s->onePass) {
    if ((size_t)o < len)
      o += snprintf(buf + o, len - (size_t)o,
                    "execute %.1f = before the pass %.1f (every rank begun) + one pass %.1f + after the pass %.1f (every "
                    "rank's stores in)",
                    s->total, s->beforePass, s->pass, s->afterPass);
    return o;
  }
  if ((size_t)o < len)
    o += snprintf(buf + o, len - (size_t)o,
                  "execute %.1f = before the first message %.1f + exchange %.1f + after the last arrival %.1f\n",
                  s->total, s->head, s->exchange, s->tail);
  if ((size_t)o < len) o += snprintf(buf + o, len - (size_t)o, "messages by round: ");
  appendRounds(buf, len, &o, s->message, s->rounds);
  if ((size_t)o < len) o += snprintf(buf + o, len - (size_t)o, "\npacks by round: ");
  appendRounds(buf, len, &o, s->pack, s->rounds);
  if ((size_t)o < len) o += snprintf(buf + o, len - (size_t)o, "\nunpacks by round: ");
  appendRounds(buf, len, &o, s->unpack, s->rounds);
  if ((size_t)o < len)
    o += snprintf(buf + o, len - (size_t)o, "\nown block %.1f\nlocal passes %.1f, of which %.1f (%.0f %%) beside the exchange",
                  s->own, s->local, s->hidden, s->local > 0 ? 100.0 * s->hidden / s->local : 0.0);
  return o;
}

static void slotFree(Slot* s, int marks) {
  if (s->start) cudaEventDestroy(s->start);
  if (s->end) cudaEventDestroy(s->end);
  for (int i = 0; s->marks && i < marks; i++)
    if (s->marks[i]) cudaEventDestroy(s->marks[i]);
  free(s->marks);
  free(s->used);
}

void dtrTimelineDestroy(dtrTimeline* t) {
  if (!t) return;
  for (int i = 0; i < SLOTS; i++) slotFree(&t->slot[i], dtrMarkKinds * t->rounds);
  free(t->records);
  free(t);
}

dtrResult_t dtrTimelineCreate(int rounds, dtrTimeline** out) {
  *out = NULL;
  if (!dtrEnvParamsGet()->perf_report) return dtrSuccess;
  if (rounds < 1 || rounds > DTR_MAX_STAGES) return dtrSetError(dtrInternalError, "timeline of %d rounds", rounds);
  dtrTimeline* t = calloc(1, sizeof *t);
  if (!t) return dtrSetError(dtrOutOfMemory, "cannot allocate the execute timeline");
  t->rounds = rounds;
  t->current = -1;
  const int marks = dtrMarkKinds * rounds;
  for (int i = 0; i < SLOTS; i++) {
    Slot* s = &t->slot[i];
    s->marks = calloc((size_t)marks, sizeof *s->marks);
    s->used = calloc((size_t)marks, 1);
    cudaError_t err = s->marks && s->used ? cudaSuccess : cudaErrorMemoryAllocation;
    if (err == cudaSuccess) err = cudaEventCreate(&s->start);
    if (err == cudaSuccess) err = cudaEventCreate(&s->end);
    for (int k = 0; k < marks && err == cudaSuccess; k++) err = cudaEventCreate(&s->marks[k]);
    if (err != cudaSuccess) {
      dtrTimelineDestroy(t);
      return dtrSetError(dtrCudaError, "DTR_PERF_REPORT: cannot create the timeline's events: %s", cudaGetErrorString(err));
    }
  }
  *out = t;
  return dtrSuccess;
}

/* Reads slot i's record back (waiting for the device to pass its end) into the plan's records. */
static void readBack(dtrTimeline* t, int i) {
  Slot* s = &t->slot[i];
  if (!s->open) return;
  s->open = 0;
  if (!ok(cudaEventSynchronize(s->end))) return;
  const size_t stride = dtrTimelineRecordFloats(t->rounds);
  if ((size_t)(t->count + 1) * stride * sizeof(float) > MAX_RECORD_BYTES) return;
  if (t->count == t->capacity) {
    const int capacity = t->capacity ? 2 * t->capacity : 64;
    float* grown = realloc(t->records, sizeof *grown * stride * (size_t)capacity);
    if (!grown) return;
    t->records = grown;
    t->capacity = capacity;
  }
  float* rec = t->records + stride * (size_t)t->count;
  float ms = 0;
  if (!ok(cudaEventElapsedTime(&ms, s->start, s->end))) return;
  rec[0] = 1000.0f * ms;
  for (int k = 0; k < dtrMarkKinds * t->rounds; k++) {
    rec[1 + k] = -1;
    if (s->used[k] && ok(cudaEventElapsedTime(&ms, s->start, s->marks[k]))) rec[1 + k] = 1000.0f * ms;
  }
  t->count++;
}

void dtrTimelineBegin(dtrTimeline* t, cudaStream_t stream) {
  if (!t) return;
  t->current = -1;
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (!ok(cudaStreamIsCapturing(stream, &capture)) || capture != cudaStreamCaptureStatusNone) return;
  const int i = t->next;
  readBack(t, i);
  Slot* s = &t->slot[i];
  memset(s->used, 0, (size_t)dtrMarkKinds * (size_t)t->rounds);
  if (!ok(cudaEventRecord(s->start, stream))) return;
  t->current = i;
}

void dtrTimelineMark(dtrTimeline* t, dtrMarkKind kind, int round, cudaStream_t stream) {
  if (!t || t->current < 0 || round < 0 || round >= t->rounds) return;
  Slot* s = &t->slot[t->current];
  const int k = (int)kind * t->rounds + round;
  if (ok(cudaEventRecord(s->marks[k], stream))) s->used[k] = 1;
}

void dtrTimelineEnd(dtrTimeline* t, cudaStream_t stream) {
  if (!t || t->current < 0) return;
  Slot* s = &t->slot[t->current];
  if (ok(cudaEventRecord(s->end, stream))) {
    s->open = 1;
    t->next = (t->current + 1) % SLOTS;
    /* The next execute's slot, recorded SLOTS executes ago, is read back now, after this execute's
     * launches rather than between the next one's start and its first launch. */
    readBack(t, t->next);
  }
  t->current = -1;
}

/* The report's name of a plan: backend, shape, type, ranks (and stages on the NCCL backend). */
static void planLabel(dtrPlan_t plan, char* buf, size_t len) {
  const dtrGeometry* g = &plan->geo;
  int o = snprintf(buf, len, "%s %lld x %lld %s%s, %d ranks", dtrBackendName(plan->backend), (long long)g->rows,
                   (long long)g->cols, dtrDataTypeName(plan->type), g->batch > 1 ? " (batched)" : "", plan->comm.nranks);
  if (plan->backend == dtrBackendNccl && o >= 0 && (size_t)o < len)
    snprintf(buf + o, len - (size_t)o, ", %d stage%s", plan->stages, plan->stages > 1 ? "s" : "");
}

void dtrTimelineReport(dtrTimeline* t, dtrPlan_t plan) {
  /* Not after a timeout: what is recorded may never finish on the device. */
  if (!t || plan->broken) return;
  char label[160];
  planLabel(plan, label, sizeof label);
  /* Oldest first, so that the warm-up records are the first executes. */
  for (int k = 0; k < SLOTS; k++) readBack(t, (t->next + k) % SLOTS);
  if (!t->count) return;
  dtrTimelineSummary s;
  dtrTimelineSummarize(t->records, t->count, t->rounds, &s);
  char text[4096];
  dtrTimelineFormat(&s, label, text, sizeof text);
  for (char* line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) dtrReport("%s", line);
}
