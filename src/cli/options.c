#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

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

int dtrParseDims(const char* s, int n, int64_t* out) {
  if (!s || !*s) return -1;
  char buf[128];
  if (strlen(s) >= sizeof buf) return -1;
  strcpy(buf, s);
  int k = 0;
  for (char *save = NULL, *t = strtok_r(buf, "xX", &save); t; t = strtok_r(NULL, "xX", &save)) {
    uint64_t v;
    if (k == n || dtrParseSize(t, &v) || v < 1 || v > (uint64_t)INT64_MAX) return -1;
    out[k++] = (int64_t)v;
  }
  if (s[strlen(s) - 1] == 'x' || s[strlen(s) - 1] == 'X' || strstr(s, "xx") || strstr(s, "XX")) return -1;
  if (k == 1 && n == 3) out[1] = out[2] = out[0], k = 3;
  return k == n ? 0 : -1;
}

static int parseInt(const char* s, long lo, long hi, long* out) {
  if (!s || !*s) return -1;
  errno = 0;
  char* end;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
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
          "                        1xP: slabs, with X<->Z)\n"
          "  -J, --json FILE       also write the results as JSON\n"
          "  -h, --help            this text\n\n"
          "With no size given: one square matrix of 1 GiB per rank on GPUs, 32 MiB per rank on the CPU.\n"
          "Columns: time is the median over iterations of the slowest rank; algbw = bytes/rank / time;\n"
          "busbw = algbw * (P-1)/P; a2a is the bare all-to-all of the same bytes per rank, ratio = time / a2a.\n"
          "Environment: DTR_DEBUG=WARN|INFO|TRACE, DTR_BACKEND, DTR_KERNEL, DTR_STAGES, DTR_TUNE_ITERS.\n",
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
  long l;
  while ((c = getopt_long(argc, argv, ":r:c:b:e:f:d:m:B:k:S:G:n:w:C:J:s:g:hI", longopts, NULL)) != -1) {
    switch (c) {
      case 'r':
      case 'c':
        if (dtrParseSize(optarg, &u) || u < 1 || u > (uint64_t)INT64_MAX) {
          snprintf(err, errlen, "--%s '%s': expected a positive count (K, M, G suffixes allowed)", c == 'r' ? "rows" : "cols", optarg);
          return -1;
        }
        if (c == 'r') o->rows = (int64_t)u;
        else o->cols = (int64_t)u;
        break;
      case 'b':
      case 'e':
        if (dtrParseSize(optarg, &u) || u < 1) {
          snprintf(err, errlen, "--%s '%s': expected a positive size in bytes (K, M, G suffixes allowed)", c == 'b' ? "minbytes" : "maxbytes", optarg);
          return -1;
        }
        if (c == 'b') o->minbytes = u;
        else o->maxbytes = u;
        break;
      case 'f': {
        char* end;
        errno = 0;
        o->factor = strtod(optarg, &end);
        if (errno || *end || !(o->factor > 1.0)) {
          snprintf(err, errlen, "--stepfactor '%s': expected a number greater than 1", optarg);
          return -1;
        }
        break;
      }
      case 'd':
        if (dtrParseDataType(optarg, &o->type)) {
          snprintf(err, errlen, "--dtype '%s': unknown type; expected %s", optarg, dtrDataTypeChoices());
          return -1;
        }
        break;
      case 'm':
        if (parseInt(optarg, 1, 1L << 30, &l)) {
          snprintf(err, errlen, "--howmany '%s': expected a whole number from 1 to %ld", optarg, 1L << 30);
          return -1;
        }
        o->howmany = l;
        break;
      case 'B':
        if (dtrParseBackend(optarg, &o->backend)) {
          snprintf(err, errlen, "--backend '%s': unknown backend; expected %s", optarg, dtrBackendChoices());
          return -1;
        }
        break;
      case 'k':
        if (dtrParseKernel(optarg, &o->kernel)) {
          snprintf(err, errlen, "--kernel '%s': unknown kernel; expected %s", optarg, dtrKernelChoices());
          return -1;
        }
        break;
      case 'S':
        if (parseInt(optarg, 1, DTR_MAX_STAGES, &l)) {
          snprintf(err, errlen, "--stages '%s': expected a whole number from 1 to %d", optarg, DTR_MAX_STAGES);
          return -1;
        }
        o->stages = (int)l;
        break;
      case 'G':
        if (parseInt(optarg, -1, 1023, &l)) {
          snprintf(err, errlen, "--device '%s': expected a GPU index (or -1 for the node-local rank)", optarg);
          return -1;
        }
        o->device = (int)l;
        break;
      case 'n':
      case 'w':
      case 'C':
        if (parseInt(optarg, c == 'n' ? 1 : 0, 1000000, &l)) {
          snprintf(err, errlen, "--%s '%s': expected a whole number from %d to 1000000",
                   c == 'n' ? "iters" : c == 'w' ? "warmup" : "check", optarg, c == 'n' ? 1 : 0);
          return -1;
        }
        if (c == 'n') o->iters = (int)l;
        else if (c == 'w') o->warmup = (int)l;
        else o->check = (int)l;
        break;
      case 'J':
        o->json = optarg;
        break;
      case 's':
        if (dtrParseDims(optarg, 3, o->shape)) {
          snprintf(err, errlen, "--shape '%s': expected NXxNYxNZ (or N for a cube) of positive counts", optarg);
          return -1;
        }
        break;
      case 'g': {
        int64_t g[2];
        if (dtrParseDims(optarg, 2, g) || g[0] > 1 << 20 || g[1] > 1 << 20) {
          snprintf(err, errlen, "--grid '%s': expected PRxPC, e.g. 2x2 or 1x4", optarg);
          return -1;
        }
        o->pr = (int)g[0], o->pc = (int)g[1];
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
  }
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
  if (o->pr && !o->shape[0]) {
    snprintf(err, errlen, "--grid needs --shape (the 3-D array to move on it)");
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
