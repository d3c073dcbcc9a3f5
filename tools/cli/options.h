/* Command-line options of `disttranspose` (nccl-tests' style). Parsing needs no MPI, so the unit
 * tests run it directly. */
#ifndef DTR_CLI_OPTIONS_H
#define DTR_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "disttranspose.h"

typedef struct {
  int64_t rows, cols;          /* 0: from the sweep, or the default size */
  dtrDataType_t type;
  int64_t howmany;
  dtrBackend_t backend;
  dtrKernel_t kernel;
  int stages;  /* 0: the plan's choice */
  int inplace; /* --inplace: one buffer for A and B */
  int device;                  /* -1: node-local rank */
  int iters, warmup, check;
  uint64_t minbytes, maxbytes; /* bytes per rank of the sweep; 0: the default size */
  double factor;
  const char* json;
  int help;
  int64_t shape[3];            /* --shape NXxNYxNZ: the pencil benchmark of a 3-D array; 0: none */
  int pr, pc;                  /* --grid PRxPC (0: chosen) */
  int autogrid;                /* --grid auto: chosen by dtrGridAutotune (the transposes) */
} dtrCliOptions;

void dtrCliDefaults(dtrCliOptions* o);
/* The library config the options ask for. */
void dtrCliConfig(const dtrCliOptions* o, dtrConfig_t* cfg);
/* 0 on success; otherwise -1 with a message naming the bad option in err. */
int dtrCliParse(int argc, char** argv, dtrCliOptions* o, char* err, size_t errlen);
void dtrCliUsage(FILE* f);
/* "AxBxC" (n = 3) or "AxB" (n = 2) of counts from 1 to hi with optional suffixes (numbers.h); "A"
 * alone with n = 3 is a cube. 0, or -1 with why. */
int dtrParseDims(const char* s, int n, int64_t hi, int64_t* out, char* why, size_t len);

#endif
