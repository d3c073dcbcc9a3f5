#include "report.h"

#include "comm.h"

#include <mpi.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE 512

void dtrReportHeader(const dtrCliOptions* o, int gpus) {
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  char mine[LINE];
  dtrComm c;
  if (dtrCommInit(MPI_COMM_WORLD, &c) != dtrSuccess) c.local_rank = 0, c.nhosts = 0;
  const int lrank = c.local_rank, hosts = c.nhosts;
  dtrCommFree(&c);
  if (gpus) {
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    int count = 0;
    cudaGetDeviceCount(&count);
    const int dev = o->device >= 0 ? o->device : lrank;
    if (dev < count && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      cudaDeviceGetPCIBusId(bus, sizeof bus, dev);
      snprintf(mine, sizeof mine, "#  Rank %3d Pid %7d on %16s device %2d [%s] %s", rank, (int)getpid(), host, dev, bus,
               prop.name);
    } else {
      (void)cudaGetLastError();
      snprintf(mine, sizeof mine, "#  Rank %3d Pid %7d on %16s device %2d [none]", rank, (int)getpid(), host, dev);
    }
  } else {
    snprintf(mine, sizeof mine, "#  Rank %3d Pid %7d on %16s (host memory)", rank, (int)getpid(), host);
  }
  char* all = rank == 0 ? malloc((size_t)nranks * LINE) : NULL;
  MPI_Gather(mine, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  int nv = 0;
  ncclGetVersion(&nv);
  char mpiv[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpiv, &len);
  char* nl = strchr(mpiv, '\n');
  if (nl) *nl = '\0';
  char* comma = strchr(mpiv, ',');
  if (comma) *comma = '\0';
  printf("# disttranspose %s: %d ranks on %d host%s, %s\n", DTR_VERSION_STRING, nranks, hosts, hosts == 1 ? "" : "s",
         gpus ? "GPUs" : "no GPUs");
  printf("# NCCL %d.%d.%d, %s\n", nv / 10000, (nv % 10000) / 100, nv % 100, mpiv);
  printf("# dtype %s, howmany %lld, iters %d, warmup %d, check %d\n", dtrDataTypeName(o->type), (long long)o->howmany,
         o->iters, o->warmup, o->check);
  for (int i = 0; i < nranks; i++) printf("%s\n", all + (size_t)i * LINE);
  free(all);
  fflush(stdout);
}

/* The kernel of a GPU backend's packs (p2p: of its one-pass kernel); the CPU backend's work is on the host. */
static const char* kernelColumn(dtrBackend_t b, dtrKernel_t k) { return b == dtrBackendCpu ? "host" : dtrKernelName(k); }

/* The #wrong column: the count, or `none` when the row was not checked. */
static const char* wrongText(int checked, uint64_t wrong, const char* none, char* buf, size_t len) {
  if (!checked) return none;
  snprintf(buf, len, "%llu", (unsigned long long)wrong);
  return buf;
}

/* The JSON fields every benchmark row has, from its type on, closing the row's object. */
static void jsonMeasures(FILE* f, dtrDataType_t type, int64_t howmany, dtrBackend_t backend, dtrKernel_t kernel,
                         int stages, double bytes, double time, double a2a, double ratio, double algbw, double busbw,
                         int checked, uint64_t wrong, int last) {
  char buf[24];
  fprintf(f,
          "\"dtype\": \"%s\", \"howmany\": %lld, \"backend\": \"%s\", \"kernel\": \"%s\", \"stages\": %d, "
          "\"bytes_per_rank\": %.0f, \"time_us\": %.3f, \"alltoall_us\": %.3f, \"ratio\": %.4f, "
          "\"algbw_GBps\": %.3f, \"busbw_GBps\": %.3f, \"wrong\": %s}%s\n",
          dtrDataTypeName(type), (long long)howmany, dtrBackendName(backend), kernelColumn(backend, kernel), stages, bytes,
          time, a2a, ratio, algbw, busbw, wrongText(checked, wrong, "null", buf, sizeof buf), last ? "" : ",");
}

void dtrReportTableHead(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank) return;
  printf("#\n# %13s %9s %9s %5s %7s %7s %7s %6s | %10s %8s %8s | %10s %6s | %7s\n", "bytes/rank", "rows", "cols",
         "type", "howmany", "backend", "kernel", "stages", "time(us)", "algbw", "busbw", "a2a(us)", "ratio", "#wrong");
  printf("# %13s %9s %9s %5s %7s %7s %7s %6s | %10s %8s %8s | %10s %6s | %7s\n", "", "", "", "", "", "", "", "", "",
         "(GB/s)", "(GB/s)", "", "", "");
  fflush(stdout);
}

void dtrReportRow(const dtrBenchResult* r) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank) return;
  char wrong[24], backend[16];
  snprintf(backend, sizeof backend, "%s%s", dtrBackendName(r->backend), r->inplace ? "-ip" : "");
  printf("  %13.0f %9lld %9lld %5s %7lld %7s %7s %6d | %10.1f %8.2f %8.2f | %10.1f %6.2f | %7s\n", r->bytes_per_rank,
         (long long)r->rows, (long long)r->cols, dtrDataTypeName(r->type), (long long)r->howmany, backend,
         kernelColumn(r->backend, r->kernel), r->stages,
         r->time_us, r->algbw, r->busbw, r->a2a_us, r->ratio, wrongText(r->checked, r->wrong, "N/A", wrong, sizeof wrong));
  fflush(stdout);
}

int dtrReportJson(const char* path, const dtrBenchResult* rows, int n) {
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "[\n");
  for (int i = 0; i < n; i++) {
    const dtrBenchResult* r = &rows[i];
    fprintf(f, "  {\"rows\": %lld, \"cols\": %lld, \"ranks\": %d, \"inplace\": %s, ", (long long)r->rows,
            (long long)r->cols, r->nranks, r->inplace ? "true" : "false");
    jsonMeasures(f, r->type, r->howmany, r->backend, r->kernel, r->stages, r->bytes_per_rank, r->time_us, r->a2a_us,
                 r->ratio, r->algbw, r->busbw, r->checked, r->wrong, i + 1 == n);
  }
  fprintf(f, "]\n");
  return fclose(f) ? -1 : 0;
}

void dtrReportPencilHead(const dtrCliOptions* o, int pr, int pc) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank) return;
  printf("# array %lld x %lld x %lld (x, y, z; x fastest in X-pencils) on a %d x %d grid%s\n", (long long)o->shape[0],
         (long long)o->shape[1], (long long)o->shape[2], pr, pc, pr == 1 ? " (slabs)" : "");
  printf("#\n# %9s %5s %13s %5s %7s %7s %7s %6s | %10s %8s %8s | %10s %6s | %7s\n", "transpose", "group", "bytes/rank",
         "type", "howmany", "backend", "kernel", "stages", "time(us)", "algbw", "busbw", "a2a(us)", "ratio", "#wrong");
  printf("# %9s %5s %13s %5s %7s %7s %7s %6s | %10s %8s %8s | %10s %6s | %7s\n", "", "", "", "", "", "", "", "", "",
         "(GB/s)", "(GB/s)", "", "", "");
  fflush(stdout);
}

void dtrReportPencilRow(const dtrPencilBenchResult* r) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank) return;
  char wrong[24], dir[16];
  snprintf(dir, sizeof dir, "%s->%s", dtrPencilName(r->from), dtrPencilName(r->to));
  printf("  %9s %5d %13.0f %5s %7lld %7s %7s %6d | %10.1f %8.2f %8.2f | %10.1f %6.2f | %7s\n", dir, r->group,
         r->bytes_per_rank, dtrDataTypeName(r->type), (long long)r->howmany, dtrBackendName(r->backend),
         kernelColumn(r->backend, r->kernel), r->stages, r->time_us, r->algbw, r->busbw, r->a2a_us, r->ratio,
         wrongText(r->checked, r->wrong, "N/A", wrong, sizeof wrong));
  fflush(stdout);
}

int dtrReportPencilJson(const char* path, const dtrPencilBenchResult* rows, int n) {
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "[\n");
  for (int i = 0; i < n; i++) {
    const dtrPencilBenchResult* r = &rows[i];
    fprintf(f, "  {\"transpose\": \"%s->%s\", \"shape\": [%lld, %lld, %lld], \"grid\": [%d, %d], \"group\": %d, ",
            dtrPencilName(r->from), dtrPencilName(r->to), (long long)r->shape[0], (long long)r->shape[1],
            (long long)r->shape[2], r->pr, r->pc, r->group);
    jsonMeasures(f, r->type, r->howmany, r->backend, r->kernel, r->stages, r->bytes_per_rank, r->time_us, r->a2a_us,
                 r->ratio, r->algbw, r->busbw, r->checked, r->wrong, i + 1 == n);
  }
  fprintf(f, "]\n");
  return fclose(f) ? -1 : 0;
}
