#include "timeout.h"

#include <mpi.h>
#include <time.h>

#include "debug.h"

static _Thread_local dtrDeadline current = {0, 0};

dtrDeadline dtrDeadlineEnter(double seconds) {
  const dtrDeadline saved = current;
  if (seconds > 0) {
    const double at = MPI_Wtime() + seconds;
    if (current.at == 0 || at < current.at) current = (dtrDeadline){at, seconds};
  }
  return saved;
}

void dtrDeadlineLeave(dtrDeadline saved) { current = saved; }

int dtrDeadlineSet(void) { return current.at != 0; }

int dtrDeadlinePassed(void) { return current.at != 0 && MPI_Wtime() >= current.at; }

dtrResult_t dtrDeadlineMissed(const char* what) {
  return dtrSetError(dtrTimeout,
                     "timed out after %.3g s waiting for %s: another rank has not taken part (stalled or died); "
                     "the timeout is config.timeout or DTR_TIMEOUT",
                     current.seconds, what);
}

void dtrPollPause(long polls) {
  if (polls < 20000) return;
  const struct timespec pause = {0, 20000};
  nanosleep(&pause, NULL);
}
