#include "example_support.h"

#include <math.h>

#include <mpi.h>

int exGpuCount(void) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) {
    gpus = 0;
    (void)cudaGetLastError(); /* clears the error of the query above: it only meant "no GPU here" */
  }
  return gpus;
}

int exEveryRank(int flag) {
  int all = flag != 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

int exAnyRank(int flag) {
  int any = flag != 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

int exAgreeBad(const char* program, int bad, const char* msg) {
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int first = bad ? rank : nranks;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == nranks) return 0;
  if (rank == first) {
    if (rank) fprintf(stderr, "%s: rank %d: %s\n", program, rank, msg);
    else fprintf(stderr, "%s: %s\n", program, msg);
  }
  return 1;
}

int exValuesAgree(int count, const double* values, const char* const* names, char* msg, size_t len) {
  for (int i = 0; i < count; i++) {
    /* One reduction for both ends: the largest of the value and of its negative. Every rank sees the
     * same result, so every rank stops at the same value. */
    double v[2] = {values[i], -values[i]};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (v[0] != -v[1]) {
      snprintf(msg, len, "%s differs between the ranks; every rank must be given the same", names[i]);
      return -1;
    }
  }
  return 0;
}

int exAgreeGpus(const char* program, int needGpu, int gpus, const char* backend) {
  char msg[256] = "";
  const int bad = needGpu && gpus == 0;
  if (bad) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(msg, sizeof msg, "--backend %s needs a GPU on every rank; rank %d has none", backend, rank);
  }
  return exAgreeBad(program, bad, msg);
}

int exStart(const ExCommandLine* line, int argc, char** argv, void* options, int* gpus) {
  /* Where every rank sees a GPU, the GPU backends are the default. */
  *gpus = exGpuCount();
  char msg[1024] = "";
  const int parsed = line->parse(argc, argv, options, exEveryRank(*gpus > 0), msg, sizeof msg);
  if (exAnyRank(parsed == 1)) {
    line->usage();
    return 0;
  }
  if (exAgreeBad(line->program, parsed < 0, msg) || exAgreeBad(line->program, line->agree(options, msg, sizeof msg) != 0, msg))
    return 2;
  const char* backend = "";
  const int needGpu = line->needsGpu(options, &backend);
  return exAgreeGpus(line->program, needGpu, *gpus, backend) ? 2 : -1;
}

cudaError_t exUseNodeLocalGpu(int gpus, int* device) {
  int rank, localRank = 0;
  MPI_Comm local;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &localRank);
  MPI_Comm_free(&local);
  if (gpus <= 0) return cudaErrorNoDevice;
  if (device) *device = localRank % gpus;
  return cudaSetDevice(localRank % gpus);
}

int exOpenGpu(int gpus, cudaStream_t* stream, char* msg, size_t len) {
  int device = 0;
  const cudaError_t e = exUseNodeLocalGpu(gpus, &device);
  if (e != cudaSuccess) {
    snprintf(msg, len, "cannot use GPU %d: %s", device, cudaGetErrorString(e));
    return -1;
  }
  const cudaError_t c = cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
  if (c != cudaSuccess) {
    snprintf(msg, len, "cannot create a stream: %s", cudaGetErrorString(c));
    return -1;
  }
  return 0;
}

static int rankZero(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

static int exitStatus(dtrResult_t r) { return r == dtrInvalidArgument ? 2 : 1; }

int exLibraryFailure(const char* program, dtrResult_t r) {
  if (rankZero()) fprintf(stderr, "%s: %s: %s\n", program, dtrGetErrorString(r), dtrGetLastError());
  return exitStatus(r);
}

int exGridAutotune(const char* program, const int64_t shape[3], dtrDataType_t type, int howmany, dtrBackend_t* backend,
                   int* pr, int* pc) {
  dtrAutotuneConfig_t tc;
  dtrAutotuneConfigInit(&tc);
  tc.transpose.backend = *backend;
  tc.fft_kind = dtrFftR2C;
  tc.howmany = howmany;
  dtrBackend_t tuned = *backend;
  const dtrResult_t r = dtrGridAutotune(MPI_COMM_WORLD, shape, type, dtrAutotuneFft, &tc, pr, pc, &tuned);
  if (r != dtrSuccess) {
    if (rankZero()) fprintf(stderr, "%s: --grid auto: %s: %s\n", program, dtrGetErrorString(r), dtrGetLastError());
    return exitStatus(r);
  }
  if (*backend == dtrBackendAuto) *backend = tuned;
  return 0;
}

int exGridCreate(const char* program, int pr, int pc, dtrGrid_t* grid) {
  const dtrResult_t r = dtrGridCreate(grid, MPI_COMM_WORLD, pr, pc);
  if (r == dtrSuccess) return 0;
  if (rankZero() && (pr || pc)) fprintf(stderr, "%s: --grid %dx%d: %s\n", program, pr, pc, dtrGetLastError());
  else if (rankZero()) fprintf(stderr, "%s: the grid: %s\n", program, dtrGetLastError());
  return exitStatus(r);
}

void exJsonNumber(FILE* f, double v) {
  if (isfinite(v) && v >= 0) fprintf(f, "%.6g", v);
  else fprintf(f, "null");
}
