/*
 * transpose-bench: the local transpose kernels on one GPU against the best copy of the same bytes.
 * For each element size and shape it measures, in one run, cudaMemcpyAsync device-to-device and a
 * 16-byte copy kernel (the ceiling is the faster), then every eligible variant: median time, GB/s
 * counting bytes read plus written, % of the ceiling, and a bitwise check of the last result.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/geometry.h"
#include "internal.h"
#include "support/cuda_check.h"
#include "support/support.h"

typedef enum { OpMemcpy, OpCopy16, OpCopy16x4, OpCopyBulk, OpTranspose, OpUnpack } OpKind;

typedef struct {
  OpKind kind;
  dtrKernel_t kernel;
  dtrTransposeArgs args;
  size_t bytes;
  dtrCopy2dMethod method; /* OpUnpack */
  size_t width, height, spitch, dpitch, dst_offset;
} Op;

/* A kernel and its knobs (dtrKernelTuningSet): boxes per TMA stage (the word-wide tile's width),
 * tile-order group, streaming, tiles per block; or (unpack > 0) the 2-D copy of the NCCL backend's
 * unpack by a dtrCopy2dMethod + 1. */
typedef struct {
  int unpack;
  dtrKernel_t kernel;
  int boxes, group, streaming, tpc;
  char label[48];
} Variant;

/* "tma:2:8" = tma with 2 boxes per stage and groups of 8 tiles; "simt:0:8:1" = simt, streaming;
 * "simt:0:8:0:1" = simt, one tile per block. */
static int parseVariant(const char* s, Variant* v) {
  static const char* unpacks[] = {"unpack", "unpack-words", "unpack-shift"};
  memset(v, 0, sizeof *v);
  for (int m = 0; m < 3; m++)
    if (!strcmp(s, unpacks[m])) {
      v->unpack = m + 1;
      snprintf(v->label, sizeof v->label, "%s", s);
      return 0;
    }
  char name[32];
  int boxes = 0, group = 0, streaming = 0, tpc = 0;
  int n = sscanf(s, "%31[^:]:%d:%d:%d:%d", name, &boxes, &group, &streaming, &tpc);
  if (n < 1 || dtrParseKernel(name, &v->kernel) || v->kernel == dtrKernelAuto) return -1;
  v->boxes = boxes;
  v->group = group;
  v->streaming = streaming;
  v->tpc = tpc;
  if (n == 1) snprintf(v->label, sizeof v->label, "%s", name);
  else snprintf(v->label, sizeof v->label, "%s", s);
  return 0;
}

static void launch(const Op* op) {
  switch (op->kind) {
    case OpMemcpy: CUDA_OK(cudaMemcpyAsync(op->args.dst, op->args.src, op->bytes, cudaMemcpyDeviceToDevice, 0)); break;
    case OpCopy16: CUDA_OK(dtrCopyLaunch(op->args.dst, op->args.src, op->bytes, 1, 0)); break;
    case OpCopy16x4: CUDA_OK(dtrCopyLaunch(op->args.dst, op->args.src, op->bytes, 4, 0)); break;
    case OpCopyBulk: CUDA_OK(dtrCopyLaunch(op->args.dst, op->args.src, op->bytes, 0, 0)); break;
    case OpUnpack:
      CUDA_OK(dtrCopy2dLaunchWith(op->method, (char*)op->args.dst + op->dst_offset, op->dpitch, op->args.src,
                                  op->spitch, op->width, op->height, 0));
      break;
    default: CUDA_OK(dtrTransposeLaunch(op->kernel, &op->args, 0, NULL));
  }
}

static int cmpFloat(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

/* Median of `iters` timed launches after `warmup` untimed ones, in milliseconds. */
static float timeOp(const Op* op, int warmup, int iters) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  float* t = malloc(sizeof *t * (size_t)iters);
  for (int i = 0; i < warmup; i++) launch(op);
  for (int i = 0; i < iters; i++) {
    CUDA_OK(cudaEventRecord(a, 0));
    launch(op);
    CUDA_OK(cudaEventRecord(b, 0));
    CUDA_OK(cudaEventSynchronize(b));
    CUDA_OK(cudaEventElapsedTime(&t[i], a, b));
  }
  qsort(t, (size_t)iters, sizeof *t, cmpFloat);
  float med = t[iters / 2];
  free(t);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return med;
}

static const char* shapeName(int i) {
  static const char* names[] = {"square", "tall", "wide", "prime", "flat", "skinny"};
  return names[i];
}

/* Shapes of about `bytes` each: square, rows x 1000, 1000 x cols, prime sides; and, asked for by
 * name only, the thin ones: `thin` x cols (flat) and rows x `thin` (skinny). */
static void shapeFor(int which, size_t bytes, size_t e, int64_t thin, int64_t* rows, int64_t* cols) {
  const int64_t n = (int64_t)(bytes / e);
  const int64_t side = (int64_t)sqrt((double)n);
  switch (which) {
    case 0: *rows = *cols = side / 16 * 16; break;
    case 1: *rows = n / 1000; *cols = 1000; break;
    case 2: *rows = 1000; *cols = n / 1000; break;
    case 4: *rows = thin; *cols = n / thin; break;
    case 5: *rows = n / thin; *cols = thin; break;
    default: {
      /* Largest primes below side and below side * 0.97. */
      int64_t p[2] = {side, (int64_t)(side * 0.97)};
      for (int k = 0; k < 2; k++)
        for (;; p[k]--) {
          int prime = p[k] > 1;
          for (int64_t d = 2; d * d <= p[k] && prime; d++) prime = p[k] % d != 0;
          if (prime) break;
        }
      *rows = p[0];
      *cols = p[1];
    }
  }
}

/* One measured row, on stdout and (json != NULL) as data. */
static void printRow(FILE* json, int* jsonRows, size_t e, int shape, int64_t rows, int64_t cols, double memcpyGBs,
                     double copyGBs, double ceiling, const char* label, float ms, double gbs, unsigned long long w) {
  const double pct = 100.0 * gbs / ceiling;
  printf("  %4zu %6s %7lld %7lld | %9.0f %9.0f | %12s %10.1f %9.0f %6.1f %6llu\n", e, shapeName(shape), (long long)rows,
         (long long)cols, memcpyGBs, copyGBs, label, ms * 1e3, gbs, pct, w);
  if (json)
    fprintf(json,
            "%s\n  {\"elem\": %zu, \"shape\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"kernel\": \"%s\", "
            "\"time_us\": %.2f, \"gbs\": %.1f, \"copy_gbs\": %.1f, \"memcpy_gbs\": %.1f, \"pct_copy\": %.2f, "
            "\"wrong\": %llu}",
            (*jsonRows)++ ? "," : "", e, shapeName(shape), (long long)rows, (long long)cols, label, ms * 1e3, gbs,
            copyGBs, memcpyGBs, pct, w);
}

/*
 * The unpack of the NCCL backend on 2 ranks for a rows x cols matrix (geometry.h, segment rows padded
 * to 16 bytes as a plan pads them): rank 0 copies the segment it receives from rank 1 into its column
 * block of B: a quarter of the matrix's bytes.
 */
static Op unpackOp(const Op* transpose, int64_t rows, int64_t cols, size_t e, dtrCopy2dMethod method) {
  dtrGeometry g = dtrGeometryMatrix(rows, cols, e, 2);
  g.segment_align = 16;
  int64_t counts[4][2];
  dtrExchangeLayout l = {2, counts[0], counts[1], counts[2], counts[3], 0, 0};
  dtrExchangeLayoutFill(&g, 0, &l);
  const dtrBlock k = dtrUnpackBlock(&g, &l, 0, 1);
  Op u = *transpose;
  u.kind = OpUnpack;
  u.method = method;
  u.width = (size_t)k.cols * e;
  u.height = (size_t)k.rows;
  u.spitch = (size_t)k.src_ld * e;
  u.dpitch = (size_t)k.dst_ld * e;
  u.dst_offset = (size_t)k.dst_offset * e;
  u.args.src = (const char*)transpose->args.src + k.src_offset * e;
  u.bytes = u.width * u.height;
  return u;
}

/* Bytes of the unpack's result that differ from its source (compared on the host). */
static unsigned long long unpackWrong(const Op* u) {
  char* got = malloc(u->bytes);
  char* want = malloc(u->bytes);
  if (!got || !want) {
    fprintf(stderr, "transpose-bench: out of host memory for the unpack check\n");
    exit(1);
  }
  CUDA_OK(cudaMemcpy2D(got, u->width, (const char*)u->args.dst + u->dst_offset, u->dpitch, u->width, u->height,
                       cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy2D(want, u->width, u->args.src, u->spitch, u->width, u->height, cudaMemcpyDeviceToHost));
  unsigned long long wrong = 0;
  for (size_t i = 0; i < u->bytes; i++) wrong += got[i] != want[i];
  free(got);
  free(want);
  return wrong;
}

int main(int argc, char** argv) {
  int iters = 20, warmup = 3, c;
  int64_t thin = 16;
  enum { kShapes = 6 };
  int useShape[kShapes] = {1, 1, 1, 1, 0, 0};
  size_t bytes = (size_t)1 << 30;
  char sizesArg[64] = "1,2,4,8,16", kernelsArg[256] = "tma,tma-mc2,tma-mc4,simt16,simt";
  const char* jsonPath = NULL;
  while ((c = getopt(argc, argv, "n:w:s:e:k:J:S:T:qh")) != -1) {
    switch (c) {
      case 'q': useShape[1] = useShape[2] = useShape[3] = 0; break; /* the square shape only */
      case 'S': /* a comma-separated subset of the shapes, e.g. to profile one */
        for (int i = 0; i < kShapes; i++) useShape[i] = strstr(optarg, shapeName(i)) != NULL;
        break;
      case 'n': iters = atoi(optarg); break;
      case 'w': warmup = atoi(optarg); break;
      case 's': bytes = (size_t)(atof(optarg) * (1 << 20)); break;
      case 'e': snprintf(sizesArg, sizeof sizesArg, "%s", optarg); break;
      case 'k': snprintf(kernelsArg, sizeof kernelsArg, "%s", optarg); break;
      case 'J': jsonPath = optarg; break;
      case 'T': thin = atoll(optarg); break;
      default:
        printf("Usage: transpose-bench [-n iters] [-w warmup] [-s MiB per buffer] [-e 1,2,4,8,16] [-q | -S shape,...]\n"
               "                       [-J file.json]  shapes: square, tall, wide, prime; flat, skinny\n"
               "                       [-T n]  the thin side of flat and skinny (default 16)\n"
               "                       [-k variant,...]  variant: kernel[:boxes:group:streaming:tiles-per-block],\n"
               "                       kernel one of %s;\n"
               "                       or unpack, unpack-words, unpack-shift: the NCCL backend's 2-D copy on 2 ranks\n",
               dtrKernelChoices());
        return c == 'h' ? 0 : 2;
    }
  }
  if (iters < 1 || warmup < 0 || bytes < 4096 || thin < 1 || thin > 1024) {
    fprintf(stderr, "transpose-bench: bad -n, -w, -s or -T\n");
    return 2;
  }
  Variant variants[16];
  int nk = 0;
  for (char* t = strtok(kernelsArg, ","); t && nk < 16; t = strtok(NULL, ",")) {
    if (parseVariant(t, &variants[nk])) {
      fprintf(stderr, "transpose-bench: unknown variant '%s'\n", t);
      return 2;
    }
    nk++;
  }
  int dev = 0;
  struct cudaDeviceProp prop;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaGetDeviceProperties(&prop, dev));
  printf("# transpose-bench on %s (%d SMs, L2 %d MiB): %.0f MiB per buffer, median of %d after %d warm-up\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize >> 20, bytes / 1048576.0, iters, warmup);
  printf("# GB/s count bytes read + written; %%copy is against the fastest of cudaMemcpy and our copy kernels\n"
         "# (16-byte loads: one per thread and a block per 4 KB, or four per thread in a persistent loop;\n"
         "# TMA bulk copies): the copy16 column shows the fastest of ours\n");
  printf("# %4s %6s %7s %7s | %9s %9s | %12s %10s %9s %6s %6s\n", "elem", "shape", "rows", "cols", "memcpy", "copy16",
         "kernel", "time(us)", "GB/s", "%copy", "wrong");

  /* -J: every measured row as data (the plots and tables are made from it). */
  FILE* json = jsonPath ? fopen(jsonPath, "w") : NULL;
  if (jsonPath && !json) {
    fprintf(stderr, "transpose-bench: cannot write '%s'\n", jsonPath);
    return 2;
  }
  if (json) fprintf(json, "{\"device\": \"%s\", \"sms\": %d, \"bytes\": %zu, \"iters\": %d, \"rows\": [", prop.name,
                    prop.multiProcessorCount, bytes, iters);
  int jsonRows = 0;
  void *src, *dst;
  unsigned long long* wrong;
  CUDA_OK(cudaMalloc(&src, bytes + 4096));
  CUDA_OK(cudaMalloc(&dst, bytes + 4096));
  CUDA_OK(cudaMalloc((void**)&wrong, sizeof *wrong));
  int failed = 0;
  double best[17] = {0};
  for (char* t = strtok(sizesArg, ","); t; t = strtok(NULL, ",")) {
    const size_t e = (size_t)atoi(t);
    if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) continue;
    for (int shape = 0; shape < kShapes; shape++) {
      if (!useShape[shape]) continue;
      int64_t rows, cols;
      shapeFor(shape, bytes, e, thin, &rows, &cols);
      const size_t n = (size_t)rows * cols * e;
      CUDA_OK(dtrPatternFillLaunch(src, rows, cols, 0, e, 0));
      Op op = {OpMemcpy, dtrKernelAuto, {src, cols, dst, rows, rows, cols, e, 1, 0, 0}, n, dtrCopy2dAuto, 0, 0, 0, 0, 0};
      const float memcpyMs = timeOp(&op, warmup, iters);
      op.kind = OpCopy16;
      const float copyMs1 = timeOp(&op, warmup, iters);
      op.kind = OpCopy16x4;
      const float copyMs4 = timeOp(&op, warmup, iters);
      op.kind = OpCopyBulk;
      const float copyMsBulk = timeOp(&op, warmup, iters);
      float copyMs = copyMs1 < copyMs4 ? copyMs1 : copyMs4;
      if (copyMsBulk < copyMs) copyMs = copyMsBulk;
      if (shape == 0)
        printf("# copies of %zu bytes: copy16 %.0f, copy16x4 %.0f, TMA bulk %.0f GB/s\n", n, 2.0 * n / (copyMs1 * 1e6),
               2.0 * n / (copyMs4 * 1e6), 2.0 * n / (copyMsBulk * 1e6));
      const double memcpyGBs = 2.0 * n / (memcpyMs * 1e6), copyGBs = 2.0 * n / (copyMs * 1e6);
      const double ceiling = memcpyGBs > copyGBs ? memcpyGBs : copyGBs;
      for (int k = 0; k < nk; k++) {
        if (variants[k].unpack) {
          const Op u = unpackOp(&op, rows, cols, e, (dtrCopy2dMethod)(variants[k].unpack - 1));
          const float ms = timeOp(&u, warmup, iters);
          const unsigned long long w = unpackWrong(&u);
          failed |= w != 0;
          const double gbs = 2.0 * u.bytes / (ms * 1e6);
          printRow(json, &jsonRows, e, shape, rows, cols, memcpyGBs, copyGBs, ceiling, variants[k].label, ms, gbs, w);
          continue;
        }
        op.kind = OpTranspose;
        op.kernel = variants[k].kernel;
        dtrKernelTuningSet(variants[k].boxes, variants[k].group, variants[k].streaming, variants[k].tpc);
        if (!dtrTransposeSupported(op.kernel, &op.args)) {
          printf("  %4zu %6s %7lld %7lld | %9.0f %9.0f | %12s %10s %9s %6s %6s\n", e, shapeName(shape), (long long)rows,
                 (long long)cols, memcpyGBs, copyGBs, variants[k].label, "-", "-", "-", "n/a");
          continue;
        }
        CUDA_OK(dtrPatternPoisonLaunch(dst, cols, rows, 0, cols, e, 0));
        const float ms = timeOp(&op, warmup, iters);
        unsigned long long w = 0;
        CUDA_OK(cudaMemset(wrong, 0, sizeof w));
        CUDA_OK(dtrPatternCheckLaunch(dst, cols, rows, 0, cols, e, wrong, 0));
        CUDA_OK(cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost));
        const double gbs = 2.0 * n / (ms * 1e6), pct = 100.0 * gbs / ceiling;
        if (shape == 0 && pct > best[e]) best[e] = pct;
        failed |= w != 0;
        printRow(json, &jsonRows, e, shape, rows, cols, memcpyGBs, copyGBs, ceiling, variants[k].label, ms, gbs, w);
      }
      fflush(stdout);
    }
  }
  printf("# best %% of copy on the square shape:");
  for (int e = 1; e <= 16; e *= 2)
    if (best[e] > 0) printf("  %d B: %.1f%%", e, best[e]);
  printf("\n");
  if (json) {
    fprintf(json, "\n]}\n");
    fclose(json);
  }
  cudaFree(src);
  cudaFree(dst);
  cudaFree(wrong);
  return failed;
}
