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
 */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "core/checks.h"
#include "fft_plan.h"
#include "grid.h"
#include "launch.h"
#include "plan.h"

/* The factor the normalization asks of a direction: 1, 1/N or 1/sqrt(N). */
static double scaleOf(const struct dtrFftPlan* f, dtrFftDirection_t direction) {
  const double n = (double)f->shape[0] * (double)f->shape[1] * (double)f->shape[2];
  if (f->norm == dtrFftNormOrtho) return 1.0 / sqrt(n);
  if (f->norm == dtrFftNormInverse && direction == dtrFftInverse) return 1.0 / n;
  return 1.0;
}

dtrResult_t dtrFftRun(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction, cudaStream_t stream) {
  const double factor = scaleOf(f, direction);
  if (f->copies) return dtrFftRunCopies(f, in, out, direction, stream, factor);
  const int E = f->npencils - 1, inverse = direction == dtrFftInverse;
  const int realLast = f->kind == dtrFftR2C && inverse;
  char* const w1 = f->work;
  char* const w2 = f->work + f->half;
  /* The route: loc[0] after the first pass, loc[j + 1] after exchange j. */
  char* loc[3] = {NULL, NULL, NULL};
  dtrPlan_t exchange[2];
  int pencil[3];
  loc[0] = in == out ? out : w1;
  for (int j = 0; j <= E; j++) pencil[j] = inverse ? E - j : j;
  for (int j = 0; j < E; j++) {
    exchange[j] = inverse ? f->inverse[E - 1 - j] : f->forward[j];
    const char* src = loc[j];
    loc[j + 1] = j == E - 1 && !realLast && src != (char*)out ? (char*)out : src == w1 ? w2 : w1;
  }
  /* Phase j: a pass over pencil[j] from src[j] into dst[j], in chunks where exchange j follows it. On a
   * P x 1 grid the pass along y also makes the Y<->Z transpose (f->fused), and that exchange is none. */
  dtrLocalFft* pass[2];
  const char* src[2];
  char* dst[2];
  for (int j = 0; j < E; j++) {
    pass[j] = f->pass[pencil[j]];
    src[j] = j == 0 ? in : loc[j];
    dst[j] = loc[j];
  }
  if (f->fused && !inverse) {
    pass[1] = f->yInto, dst[1] = loc[2], exchange[1] = NULL;
  } else if (f->fused) {
    exchange[0] = NULL, pass[1] = f->yFrom, src[1] = loc[0];
  }
  /* Where the Y->X exchange writes the buffer that the pass before it reads from (in place, and C2R's
   * route), that pass runs whole before the exchange's first chunk. */
  const int wholeY = f->fused && inverse && loc[2] == loc[0];
  /* Every rank takes part in every exchange's agreement (a failure in one is passed on to the next,
   * so that no sub-communicator waits for ranks that left), then all of them agree on the grid. */
  dtrResult_t res = dtrSuccess;
  for (int j = 0; j < E; j++) {
    if (!exchange[j]) continue;
    const dtrResult_t begun = dtrPlanChunksBegin(exchange[j], res, loc[j], loc[j + 1]);
    if (res == dtrSuccess) res = begun;
  }
  DTRCHECK(dtrAgree(f->grid->comm, res));

  const size_t complexBytes = dtrDataTypeSize(f->ctype);
  if (f->gpu) {
    CUDACHECK(cudaSetDevice(f->device));
    DTRCHECK(dtrFftEventThen(f->start, stream, f->exchange));
  }
  /* From here on every rank runs every chunk of every exchange whatever fails locally, so that no
   * rank's GPU waits for another that left: the first failure is kept and returned (agreed) at the end. */
  dtrPlan_t lastExchange = NULL;
  for (int j = 0; j < E; j++) {
    const int p = pencil[j], C = exchange[j] ? f->chunks : 1;
    for (int k = 0; k < C; k++) {
      dtrFftChunk c = {0, f->transforms[p]};
      if (exchange[j] && j == 1 && wholeY) c.count = k == 0 ? f->transforms[p] : 0;
      else if (exchange[j]) c = j == 0 && !inverse ? dtrFftFirstPassChunk(f, exchange[j], C, k) : dtrFftChunkOf(f, exchange[j], p, C, k);
      if (res == dtrSuccess) res = dtrLocalFftRun(pass[j], direction, c.first, c.count, src[j], dst[j], stream);
      /* The normalization, once, on the first pass's chunks (beside the exchange of the one before). */
      if (res == dtrSuccess && j == 0 && factor != 1.0 && c.count)
        res = dtrFftScale(f, dst[0] + (size_t)(c.first * f->length[p]) * complexBytes, (size_t)(c.count * f->length[p]) * 2,
                          factor, stream);
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
  const int last = pencil[E];
  if (res == dtrSuccess) res = dtrLocalFftRun(f->pass[last], direction, 0, f->transforms[last], loc[E], out, stream);
  DTRCHECK(dtrAgree(f->grid->comm, res));
  return dtrPlanChunksEnd(lastExchange, stream);
}
