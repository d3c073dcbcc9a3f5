#include "report.h"

#include "internal.h"

#include <mpi.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE 512

/* One rank's line of the header, and the GPU it is on (host and bus id; "" without one). */
typedef struct {
  char line[LINE];
  char gpu[128];
} Seat;

/* Rank 0: one line per GPU that several ranks share, naming them. Returns whether any does. */
static int printSharedGpus(const Seat* all, int nranks) {
  int any = 0;
  for (int i = 0; i < nranks; i++) {
    if (!all[i].gpu[0]) continue;
    int first = 1, count = 0;
    for (int j = 0; j < nranks; j++)
      if (!strcmp(all[j].gpu, all[i].gpu)) {
        count++;
        if (j < i) first = 0;
      }
    if (count < 2 || !first) continue;
    any = 1;
    printf("#  Ranks");
    for (int j = 0, n = 0; j < nranks; j++)
      if (!strcmp(all[j].gpu, all[i].gpu)) printf("%s %d", n++ ? "," : "", j);
    printf(" share one GPU (%s)\n", all[i].gpu);
  }
  if (any)
    printf("#  Ranks that share a GPU take turns on it (time-slicing): their timings are not representative,\n"
           "#  and there is no NCCL all-to-all to compare with (NCCL allows one rank per GPU)\n");
  return any;
}

void dtrReportHeader(const dtrCliOptions* o, int gpus) {
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  Seat mine;
  memset(&mine, 0, sizeof mine);
  dtrComm c;
  if (dtrCommInit(MPI_COMM_WORLD, &c) != dtrSuccess) c.nhosts = 0;
  const int hosts = c.nhosts;
  dtrCommFree(&c);
  if (gpus) {
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    int dev = -1;
    /* The program made its GPU current (main.c). */
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      cudaDeviceGetPCIBusId(bus, sizeof bus, dev);
      snprintf(mine.line, sizeof mine.line, "#  Rank %3d Pid %7d on %16s device %2d [%s] %s", rank, (int)getpid(), host,
               dev, bus, prop.name);
      snprintf(mine.gpu, sizeof mine.gpu, "%s, device %d [%s]", host, dev, bus);
    } else {
      (void)cudaGetLastError();
      snprintf(mine.line, sizeof mine.line, "#  Rank %3d Pid %7d on %16s device %2d [none]", rank, (int)getpid(), host, dev);
    }
  } else {
    snprintf(mine.line, sizeof mine.line, "#  Rank %3d Pid %7d on %16s (host memory)", rank, (int)getpid(), host);
  }
  Seat* all = rank == 0 ? malloc((size_t)nranks * sizeof *all) : NULL;
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  /* NCCL is loaded by GPU runs only (src/backends/gpu/nccl_loader.c); a run on the host leaves it out. */
  int nv = 0;
  if (gpus && ncclGetVersion(&nv) != ncclSuccess) nv = 0;
  char mpiv[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpiv, &len);
  char* nl = strchr(mpiv, '\n');
  if (nl) *nl = '\0';
  char* comma = strchr(mpiv, ',');
  if (comma) *comma = '\0';
  printf("# disttranspose %s: %d ranks on %d host%s, %s\n", DTR_VERSION_STRING, nranks, hosts, hosts == 1 ? "" : "s",
         gpus ? "GPUs" : "no GPUs");
  if (nv) printf("# NCCL %d.%d.%d, %s\n", nv / 10000, (nv % 10000) / 100, nv % 100, mpiv);
  else printf("# NCCL not loaded, %s\n", mpiv);
  printf("# dtype %s, howmany %lld, iters %d, warmup %d, check %d\n", dtrDataTypeName(o->type), (long long)o->howmany,
         o->iters, o->warmup, o->check);
  for (int i = 0; i < nranks; i++) printf("%s\n", all[i].line);
  printSharedGpus(all, nranks);
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

/* The a2a(us) and ratio columns: "-" where no all-to-all ran (ranks that share a GPU). */
static void alltoallText(double a2a, double ratio, char* a, char* r, size_t len) {
  if (a2a > 0) {
    snprintf(a, len, "%.1f", a2a);
    snprintf(r, len, "%.2f", ratio);
  } else {
    snprintf(a, len, "-");
    snprintf(r, len, "-");
  }
}

/* The JSON fields every benchmark row has, from its type on, closing the row's object. */
static void jsonMeasures(FILE* f, dtrDataType_t type, int64_t howmany, dtrBackend_t backend, dtrKernel_t kernel,
                         int stages, double bytes, double time, double a2a, double ratio, double algbw, double busbw,
                         int checked, uint64_t wrong, int shared, int last) {
  char buf[24], a2aBuf[32], ratioBuf[32];
  if (a2a > 0) {
    snprintf(a2aBuf, sizeof a2aBuf, "%.3f", a2a);
    snprintf(ratioBuf, sizeof ratioBuf, "%.4f", ratio);
  } else {
    snprintf(a2aBuf, sizeof a2aBuf, "null");
    snprintf(ratioBuf, sizeof ratioBuf, "null");
  }
  fprintf(f,
          "\"dtype\": \"%s\", \"howmany\": %lld, \"backend\": \"%s\", \"kernel\": \"%s\", \"stages\": %d, "
          "\"bytes_per_rank\": %.0f, \"time_us\": %.3f, \"alltoall_us\": %s, \"ratio\": %s, "
          "\"algbw_GBps\": %.3f, \"busbw_GBps\": %.3f, \"wrong\": %s, \"shared_gpu\": %s}%s\n",
          dtrDataTypeName(type), (long long)howmany, dtrBackendName(backend), kernelColumn(backend, kernel), stages, bytes,
          time, a2aBuf, ratioBuf, algbw, busbw, wrongText(checked, wrong, "null", buf, sizeof buf),
          shared ? "true" : "false", last ? "" : ",");
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
  char wrong[24], backend[16], a2a[32], ratio[32];
  snprintf(backend, sizeof backend, "%s%s", dtrBackendName(r->backend), r->inplace ? "-ip" : "");
  alltoallText(r->a2a_us, r->ratio, a2a, ratio, sizeof a2a);
  printf("  %13.0f %9lld %9lld %5s %7lld %7s %7s %6d | %10.1f %8.2f %8.2f | %10s %6s | %7s\n", r->bytes_per_rank,
         (long long)r->rows, (long long)r->cols, dtrDataTypeName(r->type), (long long)r->howmany, backend,
         kernelColumn(r->backend, r->kernel), r->stages,
         r->time_us, r->algbw, r->busbw, a2a, ratio, wrongText(r->checked, r->wrong, "N/A", wrong, sizeof wrong));
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
                 r->ratio, r->algbw, r->busbw, r->checked, r->wrong, r->shared_gpu, i + 1 == n);
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
  char wrong[24], dir[16], a2a[32], ratio[32];
  snprintf(dir, sizeof dir, "%s->%s", dtrPencilName(r->from), dtrPencilName(r->to));
  alltoallText(r->a2a_us, r->ratio, a2a, ratio, sizeof a2a);
  printf("  %9s %5d %13.0f %5s %7lld %7s %7s %6d | %10.1f %8.2f %8.2f | %10s %6s | %7s\n", dir, r->group,
         r->bytes_per_rank, dtrDataTypeName(r->type), (long long)r->howmany, dtrBackendName(r->backend),
         kernelColumn(r->backend, r->kernel), r->stages, r->time_us, r->algbw, r->busbw, a2a, ratio,
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
                 r->ratio, r->algbw, r->busbw, r->checked, r->wrong, r->shared_gpu, i + 1 == n);
  }
  fprintf(f, "]\n");
  return fclose(f) ? -1 : 0;
}
