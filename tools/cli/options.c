#include "options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void dtrCliDefaults(dtrCliOptions* o) {
  memset(o, 0, sizeof *o);
  o->type = dtrFloat32;
  o->howmany = 1;
  o->backend = dtrBackendAuto;
  o->kernel = dtrKernelAuto;
  o->device = -1;
  o->iters = 20;
  o->warmup = 5;
  o->check = 1;
  o->factor = 2.0;
}

void dtrCliConfig(const dtrCliOptions* o, dtrConfig_t* cfg) {
  dtrConfigInit(cfg);
  cfg->backend = o->backend;
  cfg->kernel = o->kernel;
  cfg->device = o->device;
  cfg->stages = o->stages;
  cfg->inplace = o->inplace;
}

int dtrParseDims(const char* s, int n, int64_t hi, int64_t* out, char* why, size_t len) {
  /* "AxBxC": each part a count (suffixes allowed) from 1 to hi; "A" alone with n = 3 is a cube. */
  int k = 0;
  const char* p = s ? s : "";
  for (;;) {
    const char* x = p + strcspn(p, "xX");
    char part[64];
    const size_t plen = (size_t)(x - p);
    if (k == n) {
      snprintf(why, len, "more than %d numbers", n);
      return -1;
    }
    if (plen >= sizeof part) {
      snprintf(why, len, "number %d is too long", k + 1);
      return -1;
    }
    memcpy(part, p, plen);
    part[plen] = '\0';
    uint64_t v;
    char partWhy[192];
    if (dtrParseSize(part, 1, (uint64_t)hi, &v, partWhy, sizeof partWhy)) {
      snprintf(why, len, "'%s': %s", part, partWhy);
      return -1;
    }
    out[k++] = (int64_t)v;
    if (!*x) break;
    p = x + 1;
  }
  if (k == 1 && n == 3) out[1] = out[2] = out[0], k = 3;
  if (k != n) {
    snprintf(why, len, "%d numbers where %d are needed", k, n);
    return -1;
  }
  return 0;
}

/* The long name of short option `c`. */
static const char* dtrCliOptionName(const struct option* longopts, int c) {
  for (const struct option* o = longopts; o->name; o++)
    if (o->val == c) return o->name;
  return "?";
}

void dtrCliUsage(FILE* f) {
  fprintf(f,
          "Usage: mpirun -np N disttranspose [options]\n"
          "Distributed transpose of a rows x cols matrix split by rows over the ranks, verified and timed\n"
          "against the bare all-to-all of the same bytes.\n\n"
          "  -r, --rows N          rows of A (K, M, G suffixes; with no --cols the matrix is square)\n"
          "  -c, --cols N          columns of A\n"
          "  -b, --minbytes SIZE   sweep: smallest bytes per rank (square matrices; K, M, G suffixes)\n"
          "  -e, --maxbytes SIZE   sweep: largest bytes per rank\n"
          "  -f, --stepfactor F    sweep: multiply the size by F each step (default 2)\n"
          "  -d, --dtype T         %s (default fp32)\n"
          "  -m, --howmany N       contiguous elements per entry (default 1)\n"
          "  -B, --backend B       %s (default auto: nccl with GPUs, else cpu)\n"
          "  -k, --kernel K        %s (default auto: measured at plan time)\n"
          "  -S, --stages N        pipeline stages of the exchange, 1..%d (default: by size)\n"
          "  -I, --inplace         in place: A and B in one buffer (config.inplace; backend shown as *-ip)\n"
          "  -G, --device D        GPU of this rank (default: node-local rank)\n"
          "  -n, --iters N         timed iterations (default 20)\n"
          "  -w, --warmup N        untimed iterations first (default 5)\n"
          "  -C, --check N         verified runs per size, 0 for none (default 1)\n"
          "  -s, --shape NXxNYxNZ  a 3-D array (one number: a cube): benchmark every pencil transpose\n"
          "                        of it on a process grid, each beside the bare all-to-all of its group\n"
          "  -g, --grid PRxPC      the process grid of --shape (default: the squarest, PR <= PC;\n"
          "                        1xP: slabs, with X<->Z); auto: the fastest for the transposes, measured\n"
          "                        on every grid (and GPU backend, with --backend auto) first\n"
          "  -J, --json FILE       also write the results as JSON\n"
          "  -h, --help            this text\n\n"
          "With no size given: one square matrix of 1 GiB per rank on GPUs, 32 MiB per rank on the CPU.\n"
          "Columns: time is the median over iterations of the slowest rank; algbw = bytes/rank / time;\n"
          "busbw = algbw * (P-1)/P; a2a is the bare all-to-all of the same bytes per rank, ratio = time / a2a.\n"
          "Environment: DTR_DEBUG=WARN|INFO|TRACE, DTR_BACKEND, DTR_KERNEL, DTR_STAGES, DTR_TUNE_ITERS, DTR_TUNE_MIB.\n",
          dtrDataTypeChoices(), dtrBackendChoices(), dtrKernelChoices(), DTR_MAX_STAGES);
}

int dtrCliParse(int argc, char** argv, dtrCliOptions* o, char* err, size_t errlen) {
  static const struct option longopts[] = {
      {"rows", required_argument, 0, 'r'},       {"cols", required_argument, 0, 'c'},
      {"minbytes", required_argument, 0, 'b'},   {"maxbytes", required_argument, 0, 'e'},
      {"stepfactor", required_argument, 0, 'f'}, {"dtype", required_argument, 0, 'd'},
      {"howmany", required_argument, 0, 'm'},    {"backend", required_argument, 0, 'B'},
      {"kernel", required_argument, 0, 'k'},     {"device", required_argument, 0, 'G'},
      {"iters", required_argument, 0, 'n'},      {"warmup", required_argument, 0, 'w'},
      {"check", required_argument, 0, 'C'},      {"json", required_argument, 0, 'J'},
      {"stages", required_argument, 0, 'S'},     {"help", no_argument, 0, 'h'},
      {"shape", required_argument, 0, 's'},      {"grid", required_argument, 0, 'g'},
      {"inplace", no_argument, 0, 'I'},          {0, 0, 0, 0}};
  dtrCliDefaults(o);
  opterr = 0;
  /* glibc rescans from scratch only at 0: at 1 it would carry a half-read group of short options
   * ("-hI") over from an earlier call that stopped inside it. */
#ifdef __GLIBC__
  optind = 0;
#else
  optind = 1;
#endif
  int c;
  uint64_t u;
  int64_t l;
  double f;
  char why[512];
  /* The option as the user wrote it, for messages: its long name. */
#define OPTION_NAME(ch) dtrCliOptionName(longopts, ch)
  while ((c = getopt_long(argc, argv, ":r:c:b:e:f:d:m:B:k:S:G:n:w:C:J:s:g:hI", longopts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
      case 'r':
      case 'c':
        bad = dtrParseSize(optarg, 1, (uint64_t)INT64_MAX, &u, why, sizeof why);
        if (!bad && c == 'r') o->rows = (int64_t)u;
        else if (!bad) o->cols = (int64_t)u;
        break;
      case 'b':
      case 'e':
        /* 1 EiB a rank: far beyond any machine, and every byte count of the sweep stays exact in a double. */
        bad = dtrParseSize(optarg, 1, (uint64_t)1 << 60, &u, why, sizeof why);
        if (!bad && c == 'b') o->minbytes = u;
        else if (!bad) o->maxbytes = u;
        break;
      case 'f':
        bad = dtrParseReal(optarg, 1, 1000, &f, why, sizeof why);
        if (!bad && f == 1) bad = 1, snprintf(why, sizeof why, "a sweep must grow; expected a number greater than 1, at most 1000");
        if (!bad) o->factor = f;
        break;
      case 'd':
        snprintf(why, sizeof why, "unknown type; expected %s", dtrDataTypeChoices());
        bad = dtrParseDataType(optarg, &o->type);
        break;
      case 'm':
        bad = dtrParseCount(optarg, 1, 1L << 30, &l, why, sizeof why);
        if (!bad) o->howmany = l;
        break;
      case 'B':
        snprintf(why, sizeof why, "unknown backend; expected %s", dtrBackendChoices());
        bad = dtrParseBackend(optarg, &o->backend);
        break;
      case 'k':
        snprintf(why, sizeof why, "unknown kernel; expected %s", dtrKernelChoices());
        bad = dtrParseKernel(optarg, &o->kernel);
        break;
      case 'S':
        bad = dtrParseCount(optarg, 1, DTR_MAX_STAGES, &l, why, sizeof why);
        if (!bad) o->stages = (int)l;
        break;
      case 'G':
        bad = dtrParseCount(optarg, -1, 1023, &l, why, sizeof why);
        if (!bad) o->device = (int)l;
        break;
      case 'n':
      case 'w':
      case 'C':
        bad = dtrParseCount(optarg, c == 'n' ? 1 : 0, 1000000, &l, why, sizeof why);
        if (!bad && c == 'n') o->iters = (int)l;
        else if (!bad && c == 'w') o->warmup = (int)l;
        else if (!bad) o->check = (int)l;
        break;
      case 'J':
        o->json = optarg;
        break;
      case 's':
        bad = dtrParseDims(optarg, 3, INT64_MAX, o->shape, why, sizeof why);
        if (bad) strncat(why, " (expected NXxNYxNZ, or N for a cube)", sizeof why - strlen(why) - 1);
        break;
      case 'g': {
        int64_t g[2];
        if (!strcmp(optarg, "auto")) {
          o->autogrid = 1, o->pr = o->pc = 0;
          break;
        }
        bad = dtrParseDims(optarg, 2, 1 << 20, g, why, sizeof why);
        if (bad) strncat(why, " (expected PRxPC, e.g. 2x2 or 1x4, or auto)", sizeof why - strlen(why) - 1);
        else o->pr = (int)g[0], o->pc = (int)g[1], o->autogrid = 0;
        break;
      }
      case 'h':
        o->help = 1;
        break;
      case 'I':
        o->inplace = 1;
        break;
      case ':':
        snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
        return -1;
      default:
        snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
        return -1;
    }
    if (bad) {
      snprintf(err, errlen, "--%s '%s': %s", OPTION_NAME(c), optarg, why);
      return -1;
    }
  }
#undef OPTION_NAME
  if (optind < argc) {
    snprintf(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
    return -1;
  }
  const int shape = o->rows || o->cols, sweep = o->minbytes || o->maxbytes;
  if (shape && sweep) {
    snprintf(err, errlen, "give either --rows/--cols or a sweep (--minbytes/--maxbytes), not both");
    return -1;
  }
  if (o->shape[0] && (shape || sweep)) {
    snprintf(err, errlen, "--shape (a 3-D array) goes without --rows/--cols and --minbytes/--maxbytes");
    return -1;
  }
  if (o->shape[0] && o->inplace) {
    snprintf(err, errlen, "--inplace applies to the 2-D transpose, not to --shape (the pencil benchmark)");
    return -1;
  }
  if ((o->pr || o->autogrid) && !o->shape[0]) {
    snprintf(err, errlen, "--grid needs --shape (the 3-D array to move on it)");
    return -1;
  }
  /* Options of the GPU backends where the CPU backend was asked for: refused, not ignored (the user
   * asked for something that cannot happen). */
  if (o->backend == dtrBackendCpu && o->kernel != dtrKernelAuto) {
    snprintf(err, errlen, "--kernel %s applies to the GPU backends; --backend cpu transposes on the host", dtrKernelName(o->kernel));
    return -1;
  }
  if (o->backend == dtrBackendCpu && o->device >= 0) {
    snprintf(err, errlen, "--device %d applies to the GPU backends; --backend cpu uses no GPU", o->device);
    return -1;
  }
  if (o->rows && !o->cols) o->cols = o->rows;
  if (o->cols && !o->rows) o->rows = o->cols;
  if (sweep) {
    if (!o->minbytes) o->minbytes = o->maxbytes;
    if (!o->maxbytes) o->maxbytes = o->minbytes;
    if (o->minbytes > o->maxbytes) {
      snprintf(err, errlen, "--minbytes (%llu) is larger than --maxbytes (%llu)", (unsigned long long)o->minbytes,
               (unsigned long long)o->maxbytes);
      return -1;
    }
  }
  return 0;
}
