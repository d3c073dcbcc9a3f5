/* The CLI's option parser (fixed cases and a fuzzer of random command lines) and the names of
 * element types, backends and results. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/names.h"
#include "disttranspose.h"
#include "options.h"
#include "support/pattern.h"

static int parse(const char* line, dtrCliOptions* o, char* err) {
  static char buf[512]; /* options keep pointers into it */
  char* argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "disttranspose";
  for (char* t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  return dtrCliParse(argc, argv, o, err, 256);
}

/* A value for the fuzzer: counts with and without suffixes, huge, negative, fractional, empty,
 * dimensions, names, printable garbage, and a long run. */
static const char* fuzzValue(uint64_t* state, char* buf, size_t len) {
  static const char* const fixed[] = {"", "0", "-1", "1", "4K", "3G", "64KiB", "1T", "16E", "1X", "99999999999999999999",
                                      "18446744073709551616", "1.5", "nan", "inf", "1e309", "0x10", " 7", "7 ", "2x2",
                                      "1x0x3", "65x33x17", "8xx8", "x", "fp32", "c128", "cpu", "nccl", "p2p", "tma",
                                      "--rows", "-", "--", "=", "4G", "9223372036854775807", "9223372036854775808"};
  const uint64_t r = dtrMix64((*state)++);
  switch (r % 4) {
    case 0:
    case 1: return fixed[(r >> 8) % (sizeof fixed / sizeof fixed[0])];
    case 2: { /* printable garbage */
      const size_t n = (r >> 8) % 12;
      for (size_t i = 0; i < n && i + 1 < len; i++) buf[i] = (char)(33 + dtrMix64(r + i) % 94);
      buf[n < len ? n : len - 1] = '\0';
      return buf;
    }
    default: { /* digits, a suffix, sometimes a long run */
      const size_t n = (r >> 8) % 2 ? 1 + (r >> 9) % 25 : 300;
      size_t i = 0;
      for (; i < n && i + 4 < len; i++) buf[i] = (char)('0' + dtrMix64(r ^ i) % 10);
      const char* suffix[] = {"", "K", "M", "G", "T", "KiB", "MB", "Q"};
      snprintf(buf + i, len - i, "%s", suffix[(r >> 20) % 8]);
      return buf;
    }
  }
}

/* The CLI's parser on random command lines: no crash, and every refusal comes with a message;
 * what it accepts is within the documented ranges. */
static void testOptionsFuzz(void) {
  static const char* const names[] = {"--rows", "--cols", "-r", "-c", "--minbytes", "--maxbytes", "-b", "-e", "--stepfactor",
                                      "--dtype", "-d", "--howmany", "-m", "--backend", "-B", "--kernel", "-k", "--device",
                                      "--iters", "-n", "--warmup", "-w", "--check", "-C", "--json", "--stages", "-S",
                                      "--shape", "--grid", "-g", "--inplace", "-I", "-hI", "-Ih", "--bogus", "-z", "--",
                                      "--rows=5", "-r5", "-rI", "value"};
  uint64_t state = 20261122;
  char values[8][400];
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 20000; iter++) {
    char* argv[16];
    int argc = 0;
    argv[argc++] = "disttranspose";
    const int tokens = (int)(dtrMix64(state++) % 7);
    for (int t = 0; t < tokens && argc < 14; t++) {
      argv[argc++] = (char*)names[dtrMix64(state++) % (sizeof names / sizeof names[0])];
      if (dtrMix64(state++) % 5) argv[argc++] = (char*)fuzzValue(&state, values[t], sizeof values[t]);
    }
    argv[argc] = NULL;
    dtrCliOptions o;
    char err[256] = "";
    if (dtrCliParse(argc, argv, &o, err, sizeof err)) {
      refused++;
      if (!err[0]) {
        EXPECT(0, "iteration %d: refused without a message", iter);
        break;
      }
      continue;
    }
    accepted++;
    const int sane = o.rows >= 0 && o.cols >= 0 && (o.rows == 0) == (o.cols == 0) && o.howmany >= 1 && o.iters >= 1 &&
                     o.warmup >= 0 && o.check >= 0 && o.factor > 1.0 && o.stages >= 0 && o.stages <= DTR_MAX_STAGES &&
                     o.minbytes <= o.maxbytes && o.pr >= 0 && o.pc >= 0 && o.device >= -1 && o.type < dtrNumTypes;
    if (!sane) {
      char line[512] = "";
      for (int i = 1; i < argc; i++) snprintf(line + strlen(line), sizeof line - strlen(line), " %s", argv[i]);
      EXPECT(0, "accepted out of range:%s", line);
      break;
    }
  }
  EXPECT(accepted > 100 && refused > 100, "fuzz: %d accepted, %d refused: the generator misses one side", accepted, refused);
  printf("CLI fuzz: 20000 command lines, %d accepted, %d refused with a message\n", accepted, refused);
}

static void testOptions(void) {
  dtrCliOptions o;
  char err[256];
  EXPECT(parse("", &o, err) == 0, "no options: %s", err);
  EXPECT(o.type == dtrFloat32 && o.howmany == 1 && o.iters == 20 && o.check == 1 && o.rows == 0, "defaults");
  EXPECT(parse("--rows 1001 --cols 777 --dtype c128 --check 1 --backend cpu", &o, err) == 0, "%s", err);
  EXPECT(o.rows == 1001 && o.cols == 777 && o.type == dtrComplex128 && o.backend == dtrBackendCpu, "long options");
  EXPECT(parse("-r 4K -d bf16 -m 3 -k tma -n 7 -w 0 -C 2", &o, err) == 0, "%s", err);
  EXPECT(o.rows == 4096 && o.cols == 4096 && o.type == dtrBfloat16 && o.howmany == 3 && o.kernel == dtrKernelTma &&
             o.iters == 7 && o.warmup == 0 && o.check == 2,
         "short options");
  EXPECT(parse("-b 1M -e 1G -f 4 -J out.json", &o, err) == 0, "%s", err);
  EXPECT(o.minbytes == (1u << 20) && o.maxbytes == (1u << 30) && o.factor == 4.0 && !strcmp(o.json, "out.json"), "sweep");
  EXPECT(parse("--dtype float128", &o, err) && strstr(err, "--dtype") && strstr(err, "float128"), "bad dtype: %s", err);
  EXPECT(parse("--backend mpi", &o, err) && strstr(err, "--backend"), "bad backend: %s", err);
  EXPECT(parse("--kernel fast", &o, err) && strstr(err, "--kernel"), "bad kernel: %s", err);
  EXPECT(parse("--stages 0", &o, err) && strstr(err, "--stages"), "zero stages: %s", err);
  EXPECT(parse("-S 65", &o, err) && strstr(err, "--stages"), "65 stages: %s", err);
  EXPECT(!parse("-S 3", &o, err) && o.stages == 3, "three stages: %s", err);
  EXPECT(parse("--rows 0", &o, err) && strstr(err, "--rows"), "zero rows: %s", err);
  EXPECT(parse("--rows -3", &o, err) && strstr(err, "--rows"), "negative rows: %s", err);
  EXPECT(parse("--cols 12Q", &o, err) && strstr(err, "--cols"), "bad suffix: %s", err);
  EXPECT(parse("--rows 99999999999999999999", &o, err), "overflowing rows accepted");
  EXPECT(parse("--howmany 0", &o, err) && strstr(err, "--howmany"), "zero howmany: %s", err);
  EXPECT(parse("--frobnicate", &o, err) && strstr(err, "frobnicate"), "unknown option: %s", err);
  EXPECT(parse("--rows", &o, err) && strstr(err, "needs a value"), "missing value: %s", err);
  EXPECT(parse("--rows 5 -b 1M", &o, err) && strstr(err, "not both"), "shape and sweep: %s", err);
  EXPECT(parse("-b 2M -e 1M", &o, err) && strstr(err, "larger"), "reversed sweep: %s", err);
  EXPECT(parse("-f 1", &o, err) && strstr(err, "stepfactor"), "factor 1: %s", err);
  EXPECT(parse("stray", &o, err) && strstr(err, "stray"), "stray argument: %s", err);
  /* The strict numbers (test_numbers.c has the parsers themselves): the option is named, and what is wrong. */
  EXPECT(parse("--rows 12Q", &o, err) && strstr(err, "--rows '12Q': 'Q' is not a unit"), "unit: %s", err);
  EXPECT(parse("--iters +5", &o, err) && strstr(err, "--iters '+5': a sign"), "sign: %s", err);
  EXPECT(parse("--minbytes 18446744073709551615", &o, err) && strstr(err, "--minbytes") && strstr(err, "out of range"),
         "a sweep beyond 1 EiB a rank: %s", err);
  EXPECT(parse("--stepfactor inf", &o, err) && strstr(err, "--stepfactor 'inf': not a number"), "inf: %s", err);
  EXPECT(parse("--shape 8x0x8", &o, err) && strstr(err, "--shape '8x0x8': '0'"), "zero side: %s", err);
  EXPECT(parse("--grid 2x", &o, err) && strstr(err, "--grid '2x': '': empty"), "grid: %s", err);
  EXPECT(!parse("--shape 4Kx3x2 --grid 1x2", &o, err) && o.shape[0] == 4096 && o.shape[2] == 2 && o.pc == 2, "dims: %s", err);
  /* GPU options on the CPU backend are refused, not ignored. */
  EXPECT(parse("-B cpu -k tma", &o, err) && strstr(err, "--kernel tma applies to the GPU backends"), "kernel on cpu: %s", err);
  EXPECT(parse("-B cpu -G 1", &o, err) && strstr(err, "--device 1 applies to the GPU backends"), "device on cpu: %s", err);
  EXPECT(!parse("-B cpu -G -1", &o, err), "the default device on cpu: %s", err);
}

static void testNames(void) {
  for (int t = 0; t < dtrNumTypes; t++) {
    dtrDataType_t back;
    EXPECT(dtrParseDataType(dtrDataTypeName((dtrDataType_t)t), &back) == 0 && (int)back == t, "type %d round trip", t);
  }
  for (int k = 0; k < dtrNumKernels; k++) {
    dtrKernel_t back;
    EXPECT(dtrParseKernel(dtrKernelName((dtrKernel_t)k), &back) == 0 && (int)back == k, "kernel %d round trip", k);
  }
  dtrDataType_t t;
  EXPECT(dtrParseDataType("double", &t) == 0 && t == dtrFloat64, "alias double");
  EXPECT(dtrParseDataType("FP16", &t) == 0 && t == dtrFloat16, "case-insensitive");
  EXPECT(dtrDataTypeSize(dtrComplex128) == 16 && dtrDataTypeSize(dtrBfloat16) == 2 && dtrDataTypeSize(dtrInt8) == 1, "sizes");
  EXPECT(dtrDataTypeSize((dtrDataType_t)99) == 0, "unknown type size");
  for (int r = 0; r < dtrNumResults; r++) EXPECT(strlen(dtrGetErrorString((dtrResult_t)r)) > 0, "error string %d", r);
}

int main(void) {
  testOptions();
  testOptionsFuzz();
  testNames();
  return dtrTestEnd("options");
}
