/* The C side of the binding's overhead benchmarks (bench.py overhead, fft-overhead): the library's
 * execute called in a loop the way a C program calls it, on the plan and arrays the Python side made,
 * so that the two loops differ only by the binding. */
#include <disttranspose.h>
#include <mpi.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Seconds for `iters` executes (their host-side calls; the stream is not waited for); -1 on a failure. */
double dtrBenchExecuteLoop(dtrPlan_t plan, const void* in, void* out, cudaStream_t stream, int iters) {
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    if (dtrExecute(plan, in, out, stream) != dtrSuccess) return -1;
  return MPI_Wtime() - t0;
}

/* The same for the FFT (bench.py fft-overhead): dtrFftExecute of the plan fftn made and cached. */
double dtrBenchFftLoop(dtrFftPlan_t plan, const void* in, void* out, int direction, cudaStream_t stream, int iters) {
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    if (dtrFftExecute(plan, in, out, (dtrFftDirection_t)direction, stream) != dtrSuccess) return -1;
  return MPI_Wtime() - t0;
}

/* Round trips (bench.py jit-chain): `trips` times the forward plan from x into y and the inverse plan
 * from y back into x, as a jitted loop of fftn and ifftn runs them. */
double dtrBenchFftRoundTrips(dtrFftPlan_t forward, dtrFftPlan_t inverse, void* x, void* y, cudaStream_t stream, int trips) {
  const double t0 = MPI_Wtime();
  for (int i = 0; i < trips; i++)
    if (dtrFftExecute(forward, x, y, dtrFftForward, stream) != dtrSuccess ||
        dtrFftExecute(inverse, y, x, dtrFftInverse, stream) != dtrSuccess)
      return -1;
  return MPI_Wtime() - t0;
}

/* An execute that does nothing (bench.py jit-chain): registered as an operation of JAX's custom calls,
 * it measures what XLA's dispatch of a custom call of ours and its result cost, apart from the library. */
int dtrBenchNothing(void* plan, const void* in, void* out, void* stream) {
  (void)plan, (void)in, (void)out, (void)stream;
  return 0;
}

/* dtrFftExecute with the host's clock read on entry and on return, and the calling thread
 * (bench.py jit-chain: where a lone jitted call's time goes, as an operation of JAX's custom calls and
 * from C alike). CLOCK_MONOTONIC: Python's time.monotonic, and the same for every process of a host. */
static double stamps[2];
static long stampThread;

static double monotonic(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int dtrBenchStampedFftExecute(dtrFftPlan_t plan, const void* in, void* out, int direction, cudaStream_t stream) {
  stamps[0] = monotonic();
  stampThread = (long)syscall(SYS_gettid);
  const int result = (int)dtrFftExecute(plan, in, out, (dtrFftDirection_t)direction, stream);
  stamps[1] = monotonic();
  return result;
}

void dtrBenchStamps(double* entry, double* exit, long* thread) {
  *entry = stamps[0];
  *exit = stamps[1];
  *thread = stampThread;
}
