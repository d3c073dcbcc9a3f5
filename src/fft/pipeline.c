/*
 * One FFT execute (fft_plan.h), the overlap of its local passes with its exchanges:
 *
 *   caller's stream:    pass chunk 0 | pass chunk 1 | pass chunk 2 | ...            | (wait) | next pass
 *   exchange stream:                 | exchange 0   | exchange 1   | exchange 2 ... |
 *
 * Each phase is the local pass over one pencil, cut into chunks of planes, and the exchange to the
 * next pencil, cut the same way (geometry.h's dtrChunk*): chunk k's exchange waits for chunk k's pass
 * (an event), and runs while the pass of chunk k + 1 does. The next phase's pass waits for the whole
 * exchange (it needs every plane of its pencil), and the last pass runs after the last exchange. On
 * the cpu backend the same steps run one after another on the host.
 *
 * Where the data lives between the steps (the route): out of place, the first pass writes the plan's
 * first intermediate array (the input is left unchanged), each exchange goes to the other array or,
 * the last one, to out, where the last pass runs in place; C2R's last pass reads an intermediate array
 * and writes out. In place (in == out), the first pass runs in the buffer, the exchanges alternate
 * between it and the first array.
 *
 * On GPUs the first chunk of the first pass is launched before the execute's agreements
 * (dtrFftRunEarly; out of place, or on the slab route, slab_copies.c): it writes only the plan's own
 * array, and the GPU starts while the host agrees with the other ranks, which it would otherwise wait
 * for with nothing to run.
 */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "core/checks.h"
#include "fft_plan.h"
#include "grid.h"
#include "launch.h"
#include "plan.h"

/* The factor the normalization asks of a direction: 1, 1/N or 1/sqrt(N), N counting a real-to-real
 * axis of n points as 2n (FFTW's logical size: what its round trip multiplies by). A padded plan's
 * passes scale nothing: its padding layer scales the kept modes (padding.c), with the same count. */
static double scaleOf(const struct dtrFftPlan* f, dtrFftDirection_t direction) {
  if (f->padded) return 1.0;
  double n = 1;
  for (int d = 0; d < 3; d++) n *= (double)f->shape[d] * (f->axes[d] == dtrFftPeriodic ? 1.0 : 2.0);
  if (f->norm == dtrFftNormOrtho) return 1.0 / sqrt(n);
  if (f->norm == dtrFftNormInverse && direction == dtrFftInverse) return 1.0 / n;
  return 1.0;
}

/* One execute's route (the file's comment): where its data lives after each step, and its phases. */
typedef struct {
  int E, inverse, wholeY;
  char* loc[3];           /* loc[0] after the first pass, loc[j + 1] after exchange j */
  dtrPlan_t exchange[2];  /* phase j's exchange (NULL: none) */
  int pencil[3];
  dtrLocalFft* pass[2];   /* phase j's pass over pencil[j], from src[j] into dst[j] */
  const char* src[2];
  char* dst[2];
} Route;

static void routeOf(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction, Route* r) {
  const int E = f->npencils - 1, inverse = direction == dtrFftInverse;
  const int realLast = f->realPass && inverse;
  char* const w1 = f->work;
  char* const w2 = f->work + f->half;
  memset(r, 0, sizeof *r);
  r->E = E, r->inverse = inverse;
  r->loc[0] = in == out ? out : w1;
  for (int j = 0; j <= E; j++) r->pencil[j] = inverse ? E - j : j;
  for (int j = 0; j < E; j++) {
    r->exchange[j] = inverse ? f->inverse[E - 1 - j] : f->forward[j];
    const char* src = r->loc[j];
    r->loc[j + 1] = j == E - 1 && !realLast && src != (char*)out ? (char*)out : src == w1 ? w2 : w1;
  }
  /* On a P x 1 grid the pass along y also makes the Y<->Z transpose (f->fused), and that exchange is none. */
  for (int j = 0; j < E; j++) {
    r->pass[j] = f->pass[r->pencil[j]];
    r->src[j] = j == 0 ? in : r->loc[j];
    r->dst[j] = r->loc[j];
  }
  if (f->fused && !inverse) {
    r->pass[1] = f->yInto, r->dst[1] = r->loc[2], r->exchange[1] = NULL;
  } else if (f->fused) {
    r->exchange[0] = NULL, r->pass[1] = f->yFrom, r->src[1] = r->loc[0];
  }
  /* Where the Y->X exchange writes the buffer that the pass before it reads from (in place, and C2R's
   * route), that pass runs whole before the exchange's first chunk. */
  r->wholeY = f->fused && inverse && r->loc[2] == r->loc[0];
}

/* Phase j's pass in chunk k of C, and its normalization (once, on the first phase's chunks). */
static dtrResult_t passChunk(struct dtrFftPlan* f, const Route* r, int j, int C, int k, dtrFftDirection_t direction,
                             double factor, cudaStream_t stream) {
  const int p = r->pencil[j];
  dtrFftChunk c = {0, f->transforms[p]};
  if (r->exchange[j] && j == 1 && r->wholeY) c.count = k == 0 ? f->transforms[p] : 0;
  else if (r->exchange[j]) c = j == 0 && !r->inverse ? dtrFftFirstPassChunk(f, r->exchange[j], C, k) : dtrFftChunkOf(f, r->exchange[j], p, C, k);
  DTRCHECK(dtrLocalFftRunScaled(r->pass[j], direction, c.first, c.count, r->src[j], r->dst[j], j == 0 ? factor : 1.0, stream));
  if (j == 0 && factor != 1.0 && c.count && !dtrLocalFftFoldsScale(r->pass[j], direction)) {
    /* Every field of the chunk's points: howmany entries of the complex side a point. */
    const size_t entryBytes = dtrDataTypeSize(f->ctype) * (size_t)f->howmany;
    DTRCHECK(dtrFftScale(f, r->dst[0] + (size_t)(c.first * f->length[p]) * entryBytes,
                         (size_t)(c.count * f->length[p] * f->howmany) * (size_t)dtrFftNumbersPerEntry(f), factor, stream));
  }
  return dtrSuccess;
}

dtrResult_t dtrFftRunEarly(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                           cudaStream_t stream, int* launched) {
  *launched = 0;
  if (!f->gpu || f->npencils < 2) return dtrSuccess;
  if (f->copies || f->messages) {  /* the slab routes' first passes write the plan's own arrays, in place or not */
    CUDACHECK(cudaSetDevice(f->device));
    if (f->copies) DTRCHECK(dtrFftCopiesEarly(f, in, direction, stream, scaleOf(f, direction)));
    else DTRCHECK(dtrFftMessagesEarly(f, in, direction, stream, scaleOf(f, direction)));
    *launched = 1;
    return dtrSuccess;
  }
  if (in == out) return dtrSuccess;
  Route r;
  routeOf(f, in, out, direction, &r);
  CUDACHECK(cudaSetDevice(f->device));
  DTRCHECK(passChunk(f, &r, 0, r.exchange[0] ? f->chunks : 1, 0, direction, scaleOf(f, direction), stream));
  *launched = 1;
  return dtrSuccess;
}

dtrResult_t dtrFftRun(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction, cudaStream_t stream,
                      int early) {
  const double factor = scaleOf(f, direction);
  if (f->copies) return dtrFftRunCopies(f, in, out, direction, stream, factor, early);
  if (f->messages) return dtrFftRunMessages(f, in, out, direction, stream, factor, early);
  Route r;
  routeOf(f, in, out, direction, &r);
  const int E = r.E;
  dtrPlan_t* const exchange = r.exchange;
  char** const loc = r.loc;
  /* Every rank takes part in every exchange's agreement (a failure in one is passed on to the next,
   * so that no sub-communicator waits for ranks that left), then all of them agree on the grid. */
  dtrResult_t res = dtrSuccess;
  for (int j = 0; j < E; j++) {
    if (!exchange[j]) continue;
    const dtrResult_t begun = dtrPlanChunksBegin(exchange[j], res, loc[j], loc[j + 1]);
    if (res == dtrSuccess) res = begun;
  }
  DTRCHECK(dtrAgree(f->grid->comm, res));

  if (f->gpu) {
    CUDACHECK(cudaSetDevice(f->device));
    DTRCHECK(dtrFftEventThen(f->start, stream, f->exchange));
  }
  /* From here on every rank runs every chunk of every exchange whatever fails locally, so that no
   * rank's GPU waits for another that left: the first failure is kept and returned (agreed) at the end. */
  dtrPlan_t lastExchange = NULL;
  for (int j = 0; j < E; j++) {
    const int C = exchange[j] ? f->chunks : 1;
    for (int k = 0; k < C; k++) {
      /* The first chunk of the first pass ran before the agreements where `early` says so. */
      if (res == dtrSuccess && !(early && j == 0 && k == 0)) res = passChunk(f, &r, j, C, k, direction, factor, stream);
      if (!exchange[j]) continue;
      if (res == dtrSuccess && f->gpu) res = dtrFftEventThen(f->passed, stream, f->exchange);
      const dtrResult_t moved = dtrPlanChunkRun(exchange[j], C, k, f->ctas, f->gpu ? f->exchange : stream);
      if (res == dtrSuccess) res = moved;
    }
    if (exchange[j]) {
      lastExchange = exchange[j];
      const dtrResult_t finished = dtrPlanChunksFinish(exchange[j], f->gpu ? f->exchange : stream);
      if (res == dtrSuccess) res = finished;
      if (res == dtrSuccess && f->gpu) res = dtrFftEventThen(f->exchanged, f->exchange, stream);
    }
  }
  const int last = r.pencil[E];
  if (res == dtrSuccess) res = dtrLocalFftRun(f->pass[last], direction, 0, f->transforms[last], loc[E], out, stream);
  DTRCHECK(dtrAgree(f->grid->comm, res));
  return dtrPlanChunksEnd(lastExchange, stream);
}
